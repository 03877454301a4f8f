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

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

// ---- Qualifiers ------------------------------------------------------------------------------
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
// Block-shared memory: one instance per thread_local array on the simulator's device thread,
// which runs one block at a time; the simulator poisons all of it before every block.
#define __shared__ static thread_local
#define __constant__ static const
#define CUDART_CB

// ---- Vector types ----------------------------------------------------------------------------
struct alignas(4) uchar4 { unsigned char x, y, z, w; };
struct uint3 { unsigned x, y, z; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) ulonglong2 { unsigned long long x, y; };
struct dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
  return uchar4{x, y, z, w};
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
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorNoKernelImageForDevice = 209,
  cudaErrorUnsupportedPtxVersion = 222,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorIllegalAddress = 700,
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

// ---- The simulated device: scheduler interface (sim/src/device.cpp) -------------------------
namespace histo_sim {

// What a running CUDA thread sees: set by the scheduler before it switches to the thread.
struct ThreadView {
  uint3 thread_idx;
  unsigned lane;
  unsigned linear;  // thread index within the block
};
extern ThreadView* g_current;  // the running thread's view (only the device thread uses it)
extern uint3 g_block_idx;
extern dim3 g_block_dim;
extern dim3 g_grid_dim;
extern unsigned char* g_dynamic_shared;

// Blocks the calling thread at a block-wide barrier (file:line name it in reports).
void syncthreads(const char* file, int line);

enum class WarpOp { ballot, any, all, match_any, match_all, shfl, shfl_up, shfl_down, shfl_xor,
                    syncwarp, activemask };
// A warp-collective operation: waits until every lane `mask` names has arrived at the same
// operation with the same mask, then returns this lane's result. `value` carries the lane's
// operand, `arg` the source lane, delta or lane mask, `width` the shuffle segment.
uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                         const char* file, int line);

// Runs kernel(args...) on every thread of the grid; stream order is kept by running each launch
// to completion before it returns. Errors (bad configuration, a deadlock) become the launch's
// error, reported by cudaGetLastError or the next synchronizing call.
using ThreadBody = void (*)(void* closure);
void launch(const void* kernel, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
            ThreadBody body, void* closure);

// The access trace (sim/src/trace.cpp): atomics and __ldg report themselves; the call's return
// address names the instruction. traced_load also performs the load.
void trace_atomic(const void* address, unsigned bytes, bool adds_one = false);
void traced_load(const void* address, void* out, unsigned bytes);

template <typename T>
uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp operands are 1-8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
T from_bits(uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

}  // namespace histo_sim

// ---- Built-in variables ----------------------------------------------------------------------
#define threadIdx (::histo_sim::g_current->thread_idx)
#define blockIdx (::histo_sim::g_block_idx)
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

namespace histo_sim {
inline unsigned mask_or_all() { return 0xFFFFFFFFu; }
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
#define HISTO_SIM_ATOMIC(name, builtin)                                                  \
  template <typename T, typename U>                                                      \
  inline T name(T* address, U value) {                                                   \
    static_assert(std::is_integral<T>::value, #name ": integer counters only");          \
    ::histo_sim::trace_atomic(address, sizeof(T));                                       \
    return builtin(address, T(value), __ATOMIC_RELAXED);                                 \
  }
template <typename T, typename U>
inline T atomicAdd(T* address, U value) {
  static_assert(std::is_integral<T>::value, "atomicAdd: integer counters only");
  // An add of the constant 1 is what nvcc compiles to ATOMS.POPC.INC on shared memory.
  ::histo_sim::trace_atomic(address, sizeof(T), __builtin_constant_p(value) && T(value) == T(1));
  return __atomic_fetch_add(address, T(value), __ATOMIC_RELAXED);
}
HISTO_SIM_ATOMIC(atomicSub, __atomic_fetch_sub)
HISTO_SIM_ATOMIC(atomicAnd, __atomic_fetch_and)
HISTO_SIM_ATOMIC(atomicOr, __atomic_fetch_or)
HISTO_SIM_ATOMIC(atomicXor, __atomic_fetch_xor)
HISTO_SIM_ATOMIC(atomicExch, __atomic_exchange_n)
#undef HISTO_SIM_ATOMIC
inline float atomicAdd(float* address, float value) {
  ::histo_sim::trace_atomic(address, sizeof(float));
  float old, desired;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  do {
    desired = old + value;
  } while (!__atomic_compare_exchange(address, &old, &desired, false, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED));
  return old;
}
template <typename T, typename U>
inline T atomicMax(T* address, U value) {
  ::histo_sim::trace_atomic(address, sizeof(T));
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (old < T(value) &&
         !__atomic_compare_exchange_n(address, &old, T(value), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
template <typename T, typename U>
inline T atomicMin(T* address, U value) {
  ::histo_sim::trace_atomic(address, sizeof(T));
  T old = __atomic_load_n(address, __ATOMIC_RELAXED);
  while (old > T(value) &&
         !__atomic_compare_exchange_n(address, &old, T(value), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
template <typename T, typename U, typename V>
inline T atomicCAS(T* address, U compare, V value) {
  ::histo_sim::trace_atomic(address, sizeof(T));
  T expected = T(compare);
  __atomic_compare_exchange_n(address, &expected, T(value), false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return expected;
}

// ---- Loads and bit intrinsics ----------------------------------------------------------------
template <typename T>
inline T __ldg(const T* p) {
  T v;
  ::histo_sim::traced_load(p, &v, sizeof(T));
  return v;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
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
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
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
