// The CPU simulator's stand-in for <cuda_runtime.h>. In a sim build this folder comes first on
// the include path, so a lab's .cu file, unchanged, compiles as host C++ and its kernels run on
// the CPU with CUDA semantics: one fiber per CUDA thread, blocks one after another on one
// "device" thread, real __syncthreads() barriers, warps whose collective intrinsics wait for
// every lane their mask names, shared memory poisoned before every block. See sim/README.md.
//
// Only the subset of CUDA that these labs use is here; anything else fails to compile, which is
// the honest answer.
#pragma once

#ifndef HISTO_SIM
#error "sim/include/cuda_runtime.h is the CPU simulator's header: build with the sim presets"
#endif
// The guards of the CUDA runtime's own headers, which helper headers (NVIDIA's helper_cuda.h)
// test before declaring what uses the runtime.
#define __CUDA_RUNTIME_H__
#define __DRIVER_TYPES_H__

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- What device code may call ----------------------------------------------------------------
// With Clang, a __global__ or __device__ function that calls a host function fails to build, as
// nvcc rejects it ("calling a __host__ function from a __global__ function is not allowed"):
// device functions form a trusted computing base (Clang's enforce_tcb, -Werror=tcb-enforcement
// in sim/CMakeLists.txt) that may call only device functions, lambdas, compiler builtins (the C
// math and memory functions, printf) and what this header gives device code (marked
// HISTO_SIM_DEVICE_API). A __host__ __device__ function is checked as a device function. GCC
// has no such check: there the build goes on.
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(enforce_tcb) && __has_attribute(enforce_tcb_leaf)
#define HISTO_SIM_TCB 1
#define HISTO_SIM_DEVICE_FUNCTION __attribute__((enforce_tcb("CUDA device code")))
#define HISTO_SIM_DEVICE_API __attribute__((enforce_tcb_leaf("CUDA device code")))
#endif
#endif
#ifndef HISTO_SIM_DEVICE_FUNCTION
#define HISTO_SIM_DEVICE_FUNCTION
#define HISTO_SIM_DEVICE_API
#endif

// memcpy, memset and memmove are device functions (CUDA has memcpy and memset): the access trace
// counts and race-checks the bytes they read and write (sim/src/trace.cpp), which no other
// function of <cstring> has. Declared here, before <cstring>, whose declarations inherit it.
#ifdef HISTO_SIM_TCB
extern "C" {
HISTO_SIM_DEVICE_API void* memcpy(void*, const void*, size_t) noexcept;
HISTO_SIM_DEVICE_API void* memset(void*, int, size_t) noexcept;
HISTO_SIM_DEVICE_API void* memmove(void*, const void*, size_t) noexcept;
}
#endif
#include <cstring>

// What nvcc's cuda_runtime.h brings into every .cu file: the C library's I/O, memory, string and
// math functions, assert. Device code may call what CUDA has device versions of: printf, malloc,
// free, abs, clock, assert, operator new and delete, the math functions; not the rest of <cstdio>,
// <cstdlib> and <ctime> (snprintf, sscanf, qsort, strtol, ...), whose reads and writes through
// a pointer the access trace would not see. A function is device code's by its first
// declaration: those of <cstdlib> are declared here first.
#ifdef HISTO_SIM_TCB
#pragma clang attribute push(HISTO_SIM_DEVICE_API, apply_to = function)
extern "C" {
int printf(const char*, ...);
void* malloc(size_t) noexcept;
void free(void*) noexcept;
int abs(int) noexcept;
long labs(long) noexcept;
long long llabs(long long) noexcept;
// assert()'s (the C library's, as <assert.h> declares it): in a kernel, CUDA's device-side assert
// (sim/src/device.cpp).
void __assert_fail(const char*, const char*, unsigned, const char*) noexcept __attribute__((__noreturn__));
}
// libstdc++'s overloads (bits/std_abs.h), as it defines them, unless a file included it first
// (a .cu file's wrapper includes this header first; the simulator's own sources need not).
#if defined(__GLIBCXX__) && !defined(_GLIBCXX_BITS_STD_ABS_H)
namespace std {
inline long abs(long);
inline long long abs(long long);
constexpr double abs(double);
constexpr float abs(float);
constexpr long double abs(long double);
}  // namespace std
#endif
#pragma clang attribute pop
#endif
#include <cstdio>
#include <cstdlib>
#include <ctime>
#ifdef HISTO_SIM_TCB
extern "C" HISTO_SIM_DEVICE_API clock_t clock() noexcept;
#pragma clang attribute push(HISTO_SIM_DEVICE_API, apply_to = function)
#endif
#include <cassert>
#include <cmath>
#include <new>
#ifdef HISTO_SIM_TCB
#pragma clang attribute pop
#endif

// ---- Qualifiers ------------------------------------------------------------------------------
#define __host__
#define __device__ HISTO_SIM_DEVICE_FUNCTION
#define __global__ HISTO_SIM_DEVICE_FUNCTION
#define __forceinline__ inline
#define __inline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__
// Block-shared memory: one instance per thread_local array on the simulator's device thread,
// which runs one block at a time; the simulator poisons all of it before every block.
#define __shared__ static thread_local
// __device__ and __constant__ variables are device memory: the build's wrapper
// (sim/tools/wrap.cpp) writes HISTO_SIM_DEVICE_VARIABLE for a __device__ that declares a variable,
// and both land in sections the simulator registers as device memory, where kernels' accesses
// are counted and checked like those of cudaMalloc'd memory (cudaGetSymbolAddress and
// cudaMemcpyToSymbol reach them). Loads of __constant__ memory go through the constant cache
// on a GPU, not the global-memory pipe: they are not counted as global loads. Each __device__
// variable starts 256-byte aligned, as cudaMalloc's memory does: a module's variables lie in
// device memory from an aligned base, so an array alone there (the usual case) is aligned on
// the GPU, and its warps' accesses touch as many 32-byte sectors here as there.
#define HISTO_SIM_DEVICE_VARIABLE __attribute__((section("histo_device"), used, aligned(256)))
#define HISTO_SIM_DEVICE_VARIABLE_READONLY __attribute__((section("histo_device_ro"), used, aligned(256)))
#define HISTO_SIM_CONSTANT_VARIABLE __attribute__((section("histo_constant"), used))
#define HISTO_SIM_CONSTANT_VARIABLE_READONLY __attribute__((section("histo_constant_ro"), used))
#define __constant__ HISTO_SIM_CONSTANT_VARIABLE
#define CUDART_CB
// The runtime the simulator stands in for (cudaRuntimeGetVersion, cudaDriverGetVersion): 13.0.
#define CUDART_VERSION 13000

// ---- Vector types (CUDA's, with CUDA's alignments) -------------------------------------------
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
#define HISTO_SIM_VECTOR(name, T, align1, align2, align4)                                      \
  struct alignas(align1) name##1 { T x; };                                                  \
  struct alignas(align2) name##2 { T x, y; };                                               \
  struct name##3 { T x, y, z; };                                                            \
  struct alignas(align4) name##4 { T x, y, z, w; };                                         \
  HISTO_SIM_DEVICE_API inline constexpr name##1 make_##name##1(T x) { return {x}; }          \
  HISTO_SIM_DEVICE_API inline constexpr name##2 make_##name##2(T x, T y) { return {x, y}; }  \
  HISTO_SIM_DEVICE_API inline constexpr name##3 make_##name##3(T x, T y, T z) { return {x, y, z}; } \
  HISTO_SIM_DEVICE_API inline constexpr name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }
HISTO_SIM_VECTOR(char, signed char, 1, 2, 4)
HISTO_SIM_VECTOR(uchar, unsigned char, 1, 2, 4)
HISTO_SIM_VECTOR(short, short, 2, 4, 8)
HISTO_SIM_VECTOR(ushort, unsigned short, 2, 4, 8)
HISTO_SIM_VECTOR(int, int, 4, 8, 16)
HISTO_SIM_VECTOR(float, float, 4, 8, 16)
HISTO_SIM_VECTOR(long, long, 8, 16, 16)
HISTO_SIM_VECTOR(ulong, unsigned long, 8, 16, 16)
HISTO_SIM_VECTOR(longlong, long long, 8, 16, 16)
HISTO_SIM_VECTOR(ulonglong, unsigned long long, 8, 16, 16)
HISTO_SIM_VECTOR(double, double, 8, 16, 16)
#undef HISTO_SIM_VECTOR
struct alignas(4) uint1 { unsigned x; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
HISTO_SIM_DEVICE_API inline constexpr uint1 make_uint1(unsigned x) { return {x}; }
HISTO_SIM_DEVICE_API inline constexpr uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
HISTO_SIM_DEVICE_API inline constexpr uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }
HISTO_SIM_DEVICE_API inline constexpr uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}

// ---- Runtime types ---------------------------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 4,
  cudaErrorLaunchTimeout = 6,
  cudaErrorLaunchOutOfResources = 7,
  cudaErrorInvalidDeviceFunction = 8,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 10,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorAssert = 710,
  cudaErrorMisalignedAddress = 716,
  cudaErrorUnknown = 999,
};
using cudaError = cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrClockRate = 13,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrComputeMode = 20,
};

enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  size_t sharedMemPerBlockOptin;
  size_t sharedMemPerMultiprocessor;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsPerMultiProcessor;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int memoryBusWidth;
};

struct CUstream_st;
struct CUevent_st;
using cudaStream_t = CUstream_st*;
using cudaEvent_t = CUevent_st*;
constexpr unsigned cudaStreamDefault = 0x0;
constexpr unsigned cudaStreamNonBlocking = 0x1;
constexpr unsigned cudaEventDefault = 0x0;
constexpr unsigned cudaEventDisableTiming = 0x2;
constexpr unsigned cudaHostAllocDefault = 0x0;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

// ---- Runtime API (sim/src/runtime.cpp): host memory stands in for device memory -------------
cudaError_t cudaMalloc(void** ptr, size_t bytes);
template <typename T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaMallocHost(void** ptr, size_t bytes);
template <typename T>
cudaError_t cudaMallocHost(T** ptr, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream = 0);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr);

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);  // launches complete as they are made: never cudaErrorNotReady
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);

cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value);
template <typename T>
cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel,
                                                          int block_size, size_t dynamic_shared);
template <typename T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T* kernel, int block_size,
                                                          size_t dynamic_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      blocks, reinterpret_cast<const void*>(kernel), block_size, dynamic_shared);
}

struct cudaFuncAttributes {
  size_t sharedSizeBytes;    // static shared memory: nvcc's figure where known, else 0
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;               // registers per thread: nvcc's figure where known, else 0
  int ptxVersion;
  int binaryVersion;
  int maxDynamicSharedSizeBytes;
};
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* kernel);
template <typename T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* kernel) {
  return cudaFuncGetAttributes(attributes, reinterpret_cast<const void*>(kernel));
}
// The block size that keeps the most threads resident per SM, as CUDA's header chooses it (every
// multiple of 32 up to the kernel's and the device's limit, largest first), and the grid that
// fills the device with such blocks.
template <typename T>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid_size, int* block_size, T* kernel,
                                               size_t dynamic_shared = 0, int block_size_limit = 0) {
  int device = 0;
  cudaDeviceProp prop;
  cudaFuncAttributes attributes;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, device);
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&attributes, kernel);
  if (e != cudaSuccess) return e;
  if (!min_grid_size || !block_size) return cudaErrorInvalidValue;
  int limit = prop.maxThreadsPerBlock < attributes.maxThreadsPerBlock ? prop.maxThreadsPerBlock
                                                                      : attributes.maxThreadsPerBlock;
  if (block_size_limit > 0 && block_size_limit < limit) limit = block_size_limit;
  int best_size = 0, best_blocks = 0, best_threads = 0;
  for (int aligned = (limit + 31) / 32 * 32; aligned > 0; aligned -= 32) {
    const int size = aligned < limit ? aligned : limit;
    int blocks = 0;
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, size, dynamic_shared);
    if (e != cudaSuccess) return e;
    if (blocks * size > best_threads) {
      best_size = size;
      best_blocks = blocks;
      best_threads = blocks * size;
    }
    if (best_threads == prop.maxThreadsPerMultiProcessor) break;
  }
  *min_grid_size = best_blocks * prop.multiProcessorCount;
  *block_size = best_size;
  return cudaSuccess;
}

// __device__ and __constant__ variables (the symbol is the variable itself, as in CUDA).
namespace histo_sim {
cudaError_t symbol_address(void** address, const void* symbol, size_t symbol_bytes);
cudaError_t symbol_copy(void* dst, const void* src, size_t count, const void* symbol,
                        size_t symbol_bytes, size_t offset, cudaMemcpyKind kind, bool to_symbol,
                        cudaStream_t stream, bool async);
}  // namespace histo_sim
template <typename T>
cudaError_t cudaGetSymbolAddress(void** address, const T& symbol) {
  return ::histo_sim::symbol_address(address, &symbol, sizeof(T));
}
template <typename T>
cudaError_t cudaGetSymbolSize(size_t* bytes, const T& symbol) {
  void* unused = nullptr;
  const cudaError_t e = ::histo_sim::symbol_address(&unused, &symbol, sizeof(T));
  if (e == cudaSuccess) *bytes = sizeof(T);
  return e;
}
template <typename T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return ::histo_sim::symbol_copy(nullptr, src, count, &symbol, sizeof(T), offset, kind, true, 0, false);
}
template <typename T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return ::histo_sim::symbol_copy(dst, nullptr, count, &symbol, sizeof(T), offset, kind, false, 0, false);
}
template <typename T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
  return ::histo_sim::symbol_copy(nullptr, src, count, &symbol, sizeof(T), offset, kind, true, stream, true);
}
template <typename T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) {
  return ::histo_sim::symbol_copy(dst, nullptr, count, &symbol, sizeof(T), offset, kind, false, stream, true);
}

// ---- The simulated device: scheduler interface (sim/src/device.cpp) -------------------------
namespace histo_sim {

// What a running CUDA thread sees: set by the scheduler before it switches to the thread.
struct ThreadView {
  uint3 thread_idx;
  unsigned lane;
  unsigned linear;  // thread index within the block
};
// The running thread's view on this host thread, null outside a kernel. An out-of-line call,
// so that the traced sources never load the simulator's own thread-local state (its loads
// would be seen as shared-memory accesses): `const`, so a kernel asks once.
HISTO_SIM_DEVICE_API const ThreadView* running_thread() __attribute__((const));
// Device intrinsics, warp collectives, __syncthreads() and threadIdx are device code: nvcc does
// not compile them in host code (a __host__ __device__ function called on the CPU included).
// Here all code is host code, so a call is checked where it runs: outside a kernel it throws,
// naming the intrinsic (and saying why an #ifdef __CUDA_ARCH__ branch may have run it).
[[noreturn]] HISTO_SIM_DEVICE_API void device_only_on_host(const char* intrinsic);
HISTO_SIM_DEVICE_API uint3 block_index() __attribute__((const));  // the running block's
extern dim3 g_block_dim;
extern dim3 g_grid_dim;
// The block's dynamic shared memory, as large as the largest any GPU shape allows a block: one
// fixed buffer while blocks run one at a time, one per host thread while they run on several
// (device.cpp). An extern __shared__ array declared at file scope takes the fixed buffer's
// address once, so a program that has one runs its blocks one at a time.
constexpr size_t kDynamicSharedCapacity = 232448;
extern unsigned char g_dynamic_storage[kDynamicSharedCapacity];
HISTO_SIM_DEVICE_API unsigned char* dynamic_shared_base() __attribute__((const));
HISTO_SIM_DEVICE_API unsigned char* file_scope_dynamic_shared();
template <typename T>
HISTO_SIM_DEVICE_API inline T* dynamic_shared() {
  return reinterpret_cast<T*>(dynamic_shared_base());
}
template <typename T>
HISTO_SIM_DEVICE_API inline T* dynamic_shared_at_file_scope() {
  return reinterpret_cast<T*>(file_scope_dynamic_shared());
}

// Blocks the calling thread at a block-wide barrier (file:line name it in reports).
HISTO_SIM_DEVICE_API void syncthreads(const char* file, int line);

enum class WarpOp { ballot, any, all, match_any, match_all, shfl, shfl_up, shfl_down, shfl_xor,
                    syncwarp, activemask, reduce_add, reduce_min, reduce_max, reduce_and, reduce_or,
                    reduce_xor };
// A warp-collective operation: waits until every lane `mask` names has arrived at the same
// operation with the same mask, then returns this lane's result. `value` carries the lane's
// operand, `arg` the source lane, delta or lane mask, `width` the shuffle segment.
HISTO_SIM_DEVICE_API uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int arg,
                                              int width, const char* file, int line);
// A collective of a tile of `size` threads (64, 128, 256 or 512: cooperative groups' tiles of
// several warps), the threads [t - t % size, + size) of the block: sync (WarpOp::syncwarp), shfl
// (arg: the source's rank in the tile), any or all. Waits until every thread of the tile arrives
// at the same operation.
HISTO_SIM_DEVICE_API uint64_t tile_collective(WarpOp op, unsigned size, uint64_t value, int arg,
                                              const char* file, int line);

// Runs kernel(args...) on every thread of the grid; stream order is kept by running each launch
// to completion before it returns. Errors (bad configuration, a deadlock) become the launch's
// error, reported by cudaGetLastError or the next synchronizing call.
using ThreadBody = void (*)(void* closure);
void launch(const void* kernel, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
            ThreadBody body, void* closure);

// kernel(given...) on the grid, through `call` (the kernel itself, or the wrapper's lambda that
// calls it by name where default arguments follow the given ones): the given arguments are
// converted to the first parameters' types once, as a launch does, and every thread gets its
// own copies.
template <typename Call, typename... Params, typename... Args, size_t... I>
void launch_kernel(void (*kernel)(Params...), Call& call, std::index_sequence<I...>, dim3 grid, dim3 block,
                   size_t dynamic_shared, cudaStream_t stream, Args&&... args) {
  using Given = std::tuple<std::decay_t<std::tuple_element_t<I, std::tuple<Params...>>>...>;
  struct Closure {
    Call* call;
    Given given;
  } closure{&call, Given(std::forward<Args>(args)...)};
  launch(reinterpret_cast<const void*>(kernel), grid, block, dynamic_shared, stream,
         [](void* c) {
           auto* self = static_cast<Closure*>(c);
           Given copy = self->given;
           std::apply(*self->call, copy);
         },
         &closure);
}

// kernel<<<grid, block, shared, stream>>>(args), as the build's wrapper writes it
// (sim/tools/wrap.cpp): `kernel * ::histo_sim::chevrons(call, grid, block, shared, stream)(args)`,
// `call` a lambda that calls the kernel by name (NoCall where the launch names no kernel).
// chevrons(...)(args) holds the configuration and the arguments; `kernel *` launches.
struct NoCall {};
template <typename Call, typename... Args>
struct PendingLaunch {
  Call call;
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  std::tuple<Args&&...> args;
};
template <typename Call>
struct ChevronConfig {
  Call call;
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  template <typename... Args>
  PendingLaunch<Call, Args...> operator()(Args&&... args) const {
    return {call, grid, block, shared, stream, std::forward_as_tuple(std::forward<Args>(args)...)};
  }
};
template <typename Call>
ChevronConfig<Call> chevrons(Call call, dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0) {
  return {call, grid, block, shared, stream};
}
inline ChevronConfig<NoCall> chevrons(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0) {
  return {NoCall{}, grid, block, shared, stream};
}
template <typename Call, typename... Params, typename... Args>
void operator*(void (*kernel)(Params...), PendingLaunch<Call, Args...>&& p) {
  static_assert(sizeof...(Params) == sizeof...(Args) ||
                    (sizeof...(Args) < sizeof...(Params) && !std::is_same<Call, NoCall>::value),
                "kernel<<<...>>>(args): the kernel takes a different number of arguments");
  std::apply(
      [&](auto&&... a) {
        if constexpr (sizeof...(Params) == sizeof...(Args))
          launch_kernel(kernel, kernel, std::index_sequence_for<Args...>(), p.grid, p.block, p.shared,
                        p.stream, std::forward<decltype(a)>(a)...);
        else
          launch_kernel(kernel, p.call, std::index_sequence_for<Args...>(), p.grid, p.block, p.shared,
                        p.stream, std::forward<decltype(a)>(a)...);
      },
      std::move(p.args));
}

// The access trace (sim/src/trace.cpp): atomics and __ldg report themselves; the call's return
// address names the instruction. traced_load also performs the load. An atomic also says where
// it is called (the key to what nvcc made of it, histo_sim/nvcc_info.hpp), whether it adds the
// constant 1, and whether it is an exchange or compare-and-swap (ATOM on a GPU: no RED form).
struct AtomicCall {
  const char* file;
  int line;
  bool adds_one;
  bool atom;
};
HISTO_SIM_DEVICE_API void trace_atomic(const void* address, unsigned bytes, AtomicCall call);
HISTO_SIM_DEVICE_API void traced_load(const void* address, void* out, unsigned bytes);
// A device-wide fence (__threadfence, __threadfence_system): the hazard checks order what the
// thread did before it, for the blocks that later see its next atomic's address.
HISTO_SIM_DEVICE_API void trace_fence();

template <typename T>
HISTO_SIM_DEVICE_API uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp operands are 1-8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
HISTO_SIM_DEVICE_API T from_bits(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

}  // namespace histo_sim

// ---- What device code sees (every function from here on is part of the device API) -----------
#ifdef HISTO_SIM_TCB
#pragma clang attribute push(HISTO_SIM_DEVICE_API, apply_to = function)
#endif

// ---- Built-in variables ----------------------------------------------------------------------
namespace histo_sim {
// The running CUDA thread; outside a kernel, an error naming threadIdx (a __host__ __device__
// function's device branch run by host code: see device_only_on_host).
inline const ThreadView& current_thread() {
  const ThreadView* current = running_thread();
  if (!current) device_only_on_host("threadIdx");
  return *current;
}
}  // namespace histo_sim
#define threadIdx (::histo_sim::current_thread().thread_idx)
#define blockIdx (::histo_sim::block_index())
#define blockDim (::histo_sim::g_block_dim)
#define gridDim (::histo_sim::g_grid_dim)
constexpr int warpSize = 32;

// ---- Synchronization and warp intrinsics -----------------------------------------------------
#define __syncthreads() ::histo_sim::syncthreads(__FILE__, __LINE__)
#define __syncwarp(...) \
  ((void)::histo_sim::warp_collective(::histo_sim::WarpOp::syncwarp, ::histo_sim::mask_or_all(__VA_ARGS__), 0, 0, 32, __FILE__, __LINE__))
#define __activemask() \
  (unsigned(::histo_sim::warp_collective(::histo_sim::WarpOp::activemask, 0, 0, 0, 32, __FILE__, __LINE__)))
#define __ballot_sync(mask, pred) \
  (unsigned(::histo_sim::warp_collective(::histo_sim::WarpOp::ballot, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__)))
#define __any_sync(mask, pred) \
  (int(::histo_sim::warp_collective(::histo_sim::WarpOp::any, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__)))
#define __all_sync(mask, pred) \
  (int(::histo_sim::warp_collective(::histo_sim::WarpOp::all, (mask), (pred) ? 1 : 0, 0, 32, __FILE__, __LINE__)))
#define __match_any_sync(mask, value) \
  (unsigned(::histo_sim::warp_collective(::histo_sim::WarpOp::match_any, (mask), ::histo_sim::to_bits(value), 0, 32, __FILE__, __LINE__)))
#define __shfl_sync(mask, value, ...) ::histo_sim::shuffle(::histo_sim::WarpOp::shfl, (mask), (value), __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(mask, value, ...) ::histo_sim::shuffle(::histo_sim::WarpOp::shfl_up, (mask), (value), __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(mask, value, ...) ::histo_sim::shuffle(::histo_sim::WarpOp::shfl_down, (mask), (value), __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(mask, value, ...) ::histo_sim::shuffle(::histo_sim::WarpOp::shfl_xor, (mask), (value), __FILE__, __LINE__, __VA_ARGS__)

// sm_80's warp reductions, of unsigned or int values (min and max compare them as their type).
#define __reduce_add_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_add, (mask), (value), __FILE__, __LINE__)
#define __reduce_min_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_min, (mask), (value), __FILE__, __LINE__)
#define __reduce_max_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_max, (mask), (value), __FILE__, __LINE__)
#define __reduce_and_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_and, (mask), unsigned(value), __FILE__, __LINE__)
#define __reduce_or_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_or, (mask), unsigned(value), __FILE__, __LINE__)
#define __reduce_xor_sync(mask, value) ::histo_sim::reduce(::histo_sim::WarpOp::reduce_xor, (mask), unsigned(value), __FILE__, __LINE__)

namespace histo_sim {
inline unsigned mask_or_all() { return 0xFFFFFFFFu; }
inline unsigned reduce(WarpOp op, unsigned mask, unsigned value, const char* file, int line) {
  return unsigned(warp_collective(op, mask, value, 0, 32, file, line));
}
inline int reduce(WarpOp op, unsigned mask, int value, const char* file, int line) {
  return int(uint32_t(warp_collective(op, mask, uint32_t(value), 1, 32, file, line)));
}
inline unsigned mask_or_all(unsigned mask) { return mask; }
template <typename T>
T shuffle(WarpOp op, unsigned mask, T value, const char* file, int line, int arg, int width = 32) {
  return from_bits<T>(warp_collective(op, mask, to_bits(value), arg, width, file, line));
}
template <typename T>
unsigned match_all(unsigned mask, T value, int* pred, const char* file, int line) {
  const uint64_t r = warp_collective(WarpOp::match_all, mask, to_bits(value), 0, 32, file, line);
  *pred = r != 0;
  return unsigned(r);
}
}  // namespace histo_sim
#define __match_all_sync(mask, value, pred) ::histo_sim::match_all((mask), (value), (pred), __FILE__, __LINE__)

// ---- Atomics: real atomic instructions, so ThreadSanitizer sees them as synchronized ---------
// Each is one atomic instruction to the access trace (trace_atomic), as on a GPU, and nothing
// else: the read-modify-writes go through a volatile pointer, which keeps the compiler from
// turning one whose result is unused into an atomic store (an exchange) or one that changes
// nothing into an atomic load (an add of 0), which the trace's hooks would see as a plain
// store or load; the compare-and-swap loops start from a guess, not from a load.
#define HISTO_SIM_WHERE const char *file = __builtin_FILE(), int line = __builtin_LINE()
#define HISTO_SIM_ATOMIC(name, builtin, atom)                                            \
  template <typename T, typename U>                                                      \
  inline T name(T* address, U value, HISTO_SIM_WHERE) {                                  \
    static_assert(std::is_integral<T>::value, #name ": integer counters only");          \
    ::histo_sim::trace_atomic(address, sizeof(T), {file, line, false, atom});            \
    return builtin(static_cast<volatile T*>(address), T(value), __ATOMIC_RELAXED);       \
  }
template <typename T, typename U>
inline T atomicAdd(T* address, U value, HISTO_SIM_WHERE) {
  static_assert(std::is_integral<T>::value, "atomicAdd: integer counters only");
  // An add of the constant 1 is what nvcc compiles to ATOMS.POPC.INC on shared memory.
  ::histo_sim::trace_atomic(address, sizeof(T),
                            {file, line, __builtin_constant_p(value) && T(value) == T(1), false});
  return __atomic_fetch_add(static_cast<volatile T*>(address), T(value), __ATOMIC_RELAXED);
}
HISTO_SIM_ATOMIC(atomicSub, __atomic_fetch_sub, false)
HISTO_SIM_ATOMIC(atomicAnd, __atomic_fetch_and, false)
HISTO_SIM_ATOMIC(atomicOr, __atomic_fetch_or, false)
HISTO_SIM_ATOMIC(atomicXor, __atomic_fetch_xor, false)
HISTO_SIM_ATOMIC(atomicExch, __atomic_exchange_n, true)
#undef HISTO_SIM_ATOMIC
namespace histo_sim {
// *address = next(*address) atomically, returning the old value: a compare-and-swap loop whose
// first compare is against a guess (zero), so the value is read by the compare-and-swap itself.
template <typename T, typename Next>
inline T atomic_update(T* address, Next next, const char* file, int line) {
  trace_atomic(address, sizeof(T), {file, line, false, false});
  T old{};
  T desired = next(old);
  while (!__atomic_compare_exchange(address, &old, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = next(old);
  return old;
}
}  // namespace histo_sim
// ((old >= limit) ? 0 : old + 1) and ((old == 0 || old > limit) ? limit : old - 1), atomically.
inline unsigned atomicInc(unsigned* address, unsigned limit, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(address, [=](unsigned old) { return old >= limit ? 0u : old + 1; }, file, line);
}
inline unsigned atomicDec(unsigned* address, unsigned limit, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(
      address, [=](unsigned old) { return (old == 0 || old > limit) ? limit : old - 1; }, file, line);
}
// atomicAdd on a float or a double: a compare-and-swap loop here, one instruction on a GPU.
inline float atomicAdd(float* address, float value, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(address, [=](float old) { return old + value; }, file, line);
}
inline double atomicAdd(double* address, double value, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(address, [=](double old) { return old + value; }, file, line);
}
template <typename T, typename U>
inline T atomicMax(T* address, U value, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(address, [=](T old) { return old < T(value) ? T(value) : old; }, file, line);
}
template <typename T, typename U>
inline T atomicMin(T* address, U value, HISTO_SIM_WHERE) {
  return ::histo_sim::atomic_update(address, [=](T old) { return T(value) < old ? T(value) : old; }, file, line);
}
template <typename T, typename U, typename V>
inline T atomicCAS(T* address, U compare, V value, HISTO_SIM_WHERE) {
  ::histo_sim::trace_atomic(address, sizeof(T), {file, line, false, true});
  T expected = T(compare);
  __atomic_compare_exchange_n(address, &expected, T(value), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}
// The scoped forms (sm_60): atomic among the block's threads (_block), or with the host and other
// devices too (_system). Every atomic here is atomic to every thread: each is its plain form.
#define HISTO_SIM_SCOPED(name, scope)                                                   \
  template <typename T, typename U>                                                     \
  inline T name##scope(T* address, U value, HISTO_SIM_WHERE) {                          \
    return name(address, value, file, line);                                            \
  }
#define HISTO_SIM_SCOPES(name) HISTO_SIM_SCOPED(name, _block) HISTO_SIM_SCOPED(name, _system)
HISTO_SIM_SCOPES(atomicAdd) HISTO_SIM_SCOPES(atomicSub) HISTO_SIM_SCOPES(atomicExch)
HISTO_SIM_SCOPES(atomicMax) HISTO_SIM_SCOPES(atomicMin) HISTO_SIM_SCOPES(atomicInc)
HISTO_SIM_SCOPES(atomicDec) HISTO_SIM_SCOPES(atomicAnd) HISTO_SIM_SCOPES(atomicOr)
HISTO_SIM_SCOPES(atomicXor)
#undef HISTO_SIM_SCOPES
#undef HISTO_SIM_SCOPED
template <typename T, typename U, typename V>
inline T atomicCAS_block(T* address, U compare, V value, HISTO_SIM_WHERE) {
  return atomicCAS(address, compare, value, file, line);
}
template <typename T, typename U, typename V>
inline T atomicCAS_system(T* address, U compare, V value, HISTO_SIM_WHERE) {
  return atomicCAS(address, compare, value, file, line);
}
#undef HISTO_SIM_WHERE

// ---- Loads and bit intrinsics ----------------------------------------------------------------
template <typename T>
inline T __ldg(const T* p) {
  T v;
  ::histo_sim::traced_load(p, &v, sizeof(T));
  return v;
}
// The bit intrinsics are device functions: checked where they run (device_only_on_host).
#define HISTO_SIM_DEVICE_ONLY(name) \
  (::histo_sim::running_thread() ? (void)0 : ::histo_sim::device_only_on_host(name))
inline int __popc(unsigned x) { HISTO_SIM_DEVICE_ONLY("__popc"); return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { HISTO_SIM_DEVICE_ONLY("__popcll"); return __builtin_popcountll(x); }
inline int __ffs(int x) { HISTO_SIM_DEVICE_ONLY("__ffs"); return __builtin_ffs(x); }
inline int __ffsll(long long x) { HISTO_SIM_DEVICE_ONLY("__ffsll"); return __builtin_ffsll(x); }
inline int __clz(int x) { HISTO_SIM_DEVICE_ONLY("__clz"); return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) {
  HISTO_SIM_DEVICE_ONLY("__clzll");
  return x == 0 ? 64 : __builtin_clzll((unsigned long long)x);
}
inline unsigned __brev(unsigned x) {
  HISTO_SIM_DEVICE_ONLY("__brev");
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  HISTO_SIM_DEVICE_ONLY("__byte_perm");
  const uint64_t both = (uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i) r |= unsigned((both >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  return unsigned(((uint64_t(hi) << 32) | lo) >> (shift & 31));
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  return unsigned((((uint64_t(hi) << 32) | lo) << (shift & 31)) >> 32);
}
inline unsigned __vcmpeq4(unsigned a, unsigned b) {
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    if (((a >> (8 * i)) & 0xFF) == ((b >> (8 * i)) & 0xFF)) r |= 0xFFu << (8 * i);
  return r;
}
inline void __threadfence() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  histo_sim::trace_fence();
}
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __threadfence(); }
// Cache-hinted loads and stores: plain ones here (the hint changes no count the simulator keeps).
template <typename T>
inline T __ldcg(const T* p) { return __ldg(p); }
template <typename T>
inline T __ldca(const T* p) { return __ldg(p); }
template <typename T>
inline T __ldcs(const T* p) { return __ldg(p); }
template <typename T>
inline T __ldlu(const T* p) { return __ldg(p); }
template <typename T>
inline T __ldcv(const T* p) { return __ldg(p); }
inline int __mul24(int a, int b) { return int((long long)(a << 8 >> 8) * (b << 8 >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xFFFFFFu) * (b & 0xFFFFFFu); }
inline unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned umax(unsigned a, unsigned b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }
inline int __mulhi(int a, int b) { return int(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned(((unsigned long long)a * b) >> 32); }
inline unsigned __sad(int a, int b, unsigned c) { return c + unsigned(a > b ? a - b : b - a); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
inline int __float_as_int(float x) { int i; std::memcpy(&i, &x, 4); return i; }
inline unsigned __float_as_uint(float x) { unsigned i; std::memcpy(&i, &x, 4); return i; }
inline float __int_as_float(int i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __uint_as_float(unsigned i) { float x; std::memcpy(&x, &i, 4); return x; }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline int __float2int_rn(float x) { return int(nearbyintf(x)); }
inline int __float2int_rz(float x) { return int(x); }
inline unsigned __float2uint_rn(float x) { return unsigned(nearbyintf(x)); }
inline unsigned __float2uint_rz(float x) { return unsigned(x); }
inline float __int2float_rn(int x) { return float(x); }
inline float __uint2float_rn(unsigned x) { return float(x); }
// clock(): the simulator's threads take turns, so a cycle count means nothing; it counts up.
inline long long clock64() {
  static thread_local long long ticks = 0;
  return ticks += 1000;
}
inline void __nanosleep(unsigned) {}
// The device overloads of min and max (CUDA's math headers declare the same set).
#define HISTO_SIM_MIN_MAX(T)                          \
  inline T min(T a, T b) { return b < a ? b : a; }    \
  inline T max(T a, T b) { return a < b ? b : a; }
HISTO_SIM_MIN_MAX(int)
HISTO_SIM_MIN_MAX(unsigned)
HISTO_SIM_MIN_MAX(long)
HISTO_SIM_MIN_MAX(unsigned long)
HISTO_SIM_MIN_MAX(long long)
HISTO_SIM_MIN_MAX(unsigned long long)
HISTO_SIM_MIN_MAX(float)
HISTO_SIM_MIN_MAX(double)
#undef HISTO_SIM_MIN_MAX

#ifdef HISTO_SIM_TCB
#pragma clang attribute pop
#endif
