// What the runtime's calls report, as a GPU's runtime does: `runtime_calls CASE`.
//   async_copy     a block deadlocks at a divergent barrier on a cudaStreamNonBlocking stream, a
//                  cudaMemcpyAsync queued behind it: cudaStreamSynchronize reports the failure
//                  (the deferred copy must not take it and drop it), once.
//   shuffle_mask   a reduction whose __shfl_down_sync reads lanes outside its mask: the launch
//                  fails naming the lanes and the line (a GPU returns garbage there).
//   partial_warps  a block of 40 threads whose warps scan and vote with the full mask, as NVIDIA's
//                  shfl_scan does in blocks of 120: lanes the block does not have, and lanes
//                  that returned, take no part (CUDA's rule); the kernel's last argument is left
//                  to its default.
//   illegal_address  a kernel writes 1 GiB past the end of its buffer, on a non-blocking stream:
//                  the async copy, the stream's synchronization and cudaGetLastError return
//                  cudaErrorIllegalAddress, as on a GPU (sticky), the text naming the kernel's
//                  line, and the program goes on.
//   cuda_arch      a kernel's `#if __CUDA_ARCH__ >= 800` path is taken, as on the H200, with
//                  sm_80's warp reductions (__reduce_add_sync and the others).
//   host_arch      a __host__ __device__ function's `#ifdef __CUDA_ARCH__` branch, called by host
//                  code, runs there too (one pass): its device intrinsic says so.
//   helper_guards  what NVIDIA's helper headers (helper_cuda.h) test and ask of the runtime: the
//                  guards of its headers, the compute mode, clock rate and integrated attributes.
//   scoped_atomics every atomic's _block and _system forms (sm_60), and their results.
//   device_assert  a kernel's assert() fails in thread 5: CUDA's line on stderr, the launch and
//                  every later call return cudaErrorAssert (sticky), and the program goes on.
//   toolkit_headers  what programs include beside cuda_runtime.h (cuda_runtime_api.h,
//                  cuda_profiler_api.h, vector_types.h, ...) and ask of it: CUDART_VERSION,
//                  cudaEventQuery, the profiler's calls, umin and the others,
//                  cudaOccupancyMaxPotentialBlockSize (1024 threads, 2 blocks per SM).
//   large_inputs   histo_sim::LargeInputs (the graders' inputs of gigabytes): 5 GiB of two memset
//                  runs, read by a kernel either side of 2^32, hold a few MiB of the host's
//                  memory; a kernel's write to a shared page changes that byte only; outside the
//                  scope the device is 1 GiB again.
// CMakeLists.txt here checks what each prints.
#include <cuda_runtime.h>
#include <builtin_types.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <device_launch_parameters.h>
#include <vector_functions.h>
#include <vector_types.h>

#include "histo_sim/counters.hpp"

#undef NDEBUG  // assert() is on, as nvcc leaves it unless told otherwise
#include <cassert>

#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__)
#error "cuda_runtime.h must define the guards helper headers test (__CUDA_RUNTIME_H__, __DRIVER_TYPES_H__)"
#endif

#include <cstdio>
#include <cstring>
#include <exception>

namespace {

// Thread 0 never reaches the barrier the others wait at: the launch fails (a deadlock).
__global__ void asserts(unsigned* d_out) {
  assert(threadIdx.x != 5);
  d_out[threadIdx.x] = umin(threadIdx.x, 3u) + umax(0u, 1u) + unsigned(llmin(2, 7) + ullmax(0, 1));
}

__global__ void divergent_barrier(unsigned* d_out) {
  if (threadIdx.x != 0) __syncthreads();
  d_out[threadIdx.x] = threadIdx.x;
}

// The low 16 lanes reduce with offsets up to 16: lane 0..15 read lanes 16..31, not in the mask.
__global__ void half_warp_sum(unsigned* d_out) {
  if (threadIdx.x >= 16) return;
  unsigned v = threadIdx.x;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0x0000FFFFu, v, offset);
  if (threadIdx.x == 0) *d_out = v;
}

// Threads from `live` on return; the others scan 1s across their warp and count their warp's
// voters, all with the full mask, reading only lanes that are there.
__global__ void partial_warps(unsigned* d_out, unsigned live, unsigned weight = 1000) {
  if (threadIdx.x >= live) return;
  unsigned v = 1;
  for (unsigned offset = 1; offset < 32; offset *= 2) {
    const unsigned below = __shfl_up_sync(0xFFFFFFFFu, v, offset);
    if (threadIdx.x % 32 >= offset) v += below;
  }
  d_out[threadIdx.x] = v + weight * unsigned(__popc(__ballot_sync(0xFFFFFFFFu, 1)));
}

// Each thread writes 1 GiB past the end of a 64-word buffer: memory no allocation holds.
__global__ void far_out_of_bounds(unsigned* d_out) {
  d_out[(size_t(1) << 28) + threadIdx.x] = threadIdx.x;
}

// Each warp reduces its lanes' values with sm_80's reductions where the architecture has them.
__global__ void scoped_atomics(unsigned* w, int* s, float* f) {
  const unsigned t = threadIdx.x;
  atomicAdd_block(&w[0], 1u);
  atomicAdd_system(&w[1], 2u);
  atomicSub_block(&w[2], 1u);
  atomicExch_system(&w[3], 7u);
  atomicMax_block(&s[0], int(t));
  atomicMin_system(&s[1], -int(t));
  atomicInc_block(&w[4], 1000u);
  atomicDec_system(&w[5], 1000u);
  atomicCAS_block(&w[6], 0u, 5u);
  atomicAnd_system(&w[7], ~(1u << (t % 32)));
  atomicOr_block(&w[8], 1u << (t % 32));
  atomicXor_system(&w[9], 1u);
  atomicAdd_block(&f[0], 0.5f);
}

__global__ void arch_reduce(int* d_out) {
  const int v = int(threadIdx.x) - 16;
#if __CUDA_ARCH__ >= 800
  const int sum = __reduce_add_sync(0xFFFFFFFFu, v);
  const int low = __reduce_min_sync(0xFFFFFFFFu, v);
  const int high = __reduce_max_sync(0xFFFFFFFFu, v);
  const unsigned ones = __reduce_or_sync(0xFFFFFFFFu, 1u << threadIdx.x);
  unsigned both = 0;  // lanes 0-3: and of 0xF0..0xF3 (0xF0), xor of 0..3 (0)
  if (threadIdx.x < 4)
    both = __reduce_and_sync(0x0000000Fu, 0xF0u | threadIdx.x) ^ __reduce_xor_sync(0x0000000Fu, threadIdx.x);
  if (threadIdx.x == 0) {
    d_out[0] = __CUDA_ARCH__;
    d_out[1] = sum;
    d_out[2] = low;
    d_out[3] = high;
    d_out[4] = int(ones == 0xFFFFFFFFu && both == 0xF0u);
  }
#else
  if (threadIdx.x == 0) d_out[0] = v;  // not taken on sm_90
#endif
}

// The lowest set bit, by the device intrinsic in device code and a loop in host code.
__host__ __device__ int lowest_bit(unsigned x) {
#ifdef __CUDA_ARCH__
  return __ffs(int(x)) - 1;
#else
  for (int b = 0; b < 32; ++b)
    if (x >> b & 1u) return b;
  return -1;
#endif
}

// Thread t reads byte at[t] of d_in into d_out[t], and thread 0 writes 0x77 at byte write_at.
__global__ void read_far(const unsigned char* d_in, const size_t* at, unsigned* d_out,
                         unsigned char* d_write, size_t write_at) {
  d_out[threadIdx.x] = d_in[at[threadIdx.x]];
  if (threadIdx.x == 0) d_write[write_at] = 0x77;
}

// The host memory this process holds, in MiB: its proportional set size (shared pages divided
// among their mappings), from /proc.
long held_mib() {
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  char line[256];
  long kib = -1;
  while (f && std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "Pss: %ld kB", &kib) == 1) break;
  if (f) std::fclose(f);
  return kib < 0 ? -1 : kib >> 10;
}

}  // namespace

int main(int argc, char** argv) {
  const char* which = argc > 1 ? argv[1] : "";
  unsigned* d_out = nullptr;
  cudaMalloc(&d_out, 64 * sizeof(unsigned));
  if (std::strcmp(which, "async_copy") == 0) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    unsigned host[64] = {};
    divergent_barrier<<<1, 64, 0, stream>>>(d_out);
    const cudaError_t copy = cudaMemcpyAsync(host, d_out, sizeof(host), cudaMemcpyDeviceToHost, stream);
    const cudaError_t sync = cudaStreamSynchronize(stream);
    std::printf("cudaMemcpyAsync: %s\n", cudaGetErrorName(copy));
    std::printf("cudaStreamSynchronize: %s\n", cudaGetErrorName(sync));
    std::printf("then cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaStreamDestroy(stream);
  } else if (std::strcmp(which, "shuffle_mask") == 0) {
    half_warp_sum<<<1, 32>>>(d_out);
    const cudaError_t sync = cudaDeviceSynchronize();
    std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(sync), cudaGetErrorString(sync));
  } else if (std::strcmp(which, "partial_warps") == 0) {
    partial_warps<<<1, 40>>>(d_out, 36);
    unsigned host[40] = {};
    const cudaError_t copy = cudaMemcpy(host, d_out, sizeof(host), cudaMemcpyDeviceToHost);
    std::printf("%s: lane 31 %u, thread 35 %u\n", cudaGetErrorName(copy), host[31], host[35]);
  } else if (std::strcmp(which, "illegal_address") == 0) {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    unsigned host[64] = {};
    far_out_of_bounds<<<2, 64, 0, stream>>>(d_out);
    const cudaError_t copy = cudaMemcpyAsync(host, d_out, sizeof(host), cudaMemcpyDeviceToHost, stream);
    const cudaError_t sync = cudaStreamSynchronize(stream);
    const cudaError_t last = cudaGetLastError();
    std::printf("cudaMemcpyAsync: %s\n", cudaGetErrorName(copy));
    std::printf("cudaStreamSynchronize: %s\n", cudaGetErrorName(sync));
    std::printf("cudaGetLastError: %s: %s\n", cudaGetErrorName(last), cudaGetErrorString(last));
    std::printf("then cudaDeviceSynchronize: %s; the program goes on\n", cudaGetErrorName(cudaDeviceSynchronize()));
    cudaStreamDestroy(stream);
  } else if (std::strcmp(which, "cuda_arch") == 0) {
    arch_reduce<<<1, 32>>>(reinterpret_cast<int*>(d_out));
    int out[5] = {};
    const cudaError_t copy = cudaMemcpy(out, d_out, sizeof(out), cudaMemcpyDeviceToHost);
    std::printf("%s: __CUDA_ARCH__ %d, sum %d, min %d, max %d, and/or/xor %s\n",
                cudaGetErrorName(copy), out[0], out[1], out[2], out[3], out[4] ? "right" : "wrong");
  } else if (std::strcmp(which, "scoped_atomics") == 0) {
    // 64 threads from w = {0, ..., 0, ~0 at 7}, s = {0, 0}, f = 0.
    const unsigned start[10] = {0, 0, 0, 0, 0, 0, 0, ~0u, 0, 0};
    cudaMemcpy(d_out, start, sizeof start, cudaMemcpyHostToDevice);
    cudaMemset(d_out + 10, 0, 3 * sizeof(unsigned));
    scoped_atomics<<<1, 64>>>(d_out, reinterpret_cast<int*>(d_out + 10), reinterpret_cast<float*>(d_out + 12));
    unsigned w[13] = {};
    const cudaError_t copy = cudaMemcpy(w, d_out, sizeof w, cudaMemcpyDeviceToHost);
    const unsigned want[12] = {64, 128, 0u - 64, 7, 64, 937, 5, 0, ~0u, 0, 63, unsigned(-63)};
    float sum;
    std::memcpy(&sum, &w[12], sizeof sum);
    int wrong = 0;
    for (int k = 0; k < 12; ++k)
      if (w[k] != want[k]) std::printf("word %d is %u, expected %u\n", k, w[k], want[k]), ++wrong;
    std::printf("%s: scoped atomics %s, float sum %g\n", cudaGetErrorName(copy), wrong ? "wrong" : "right", sum);
  } else if (std::strcmp(which, "host_arch") == 0) {
    try {
      std::printf("lowest bit of 8 on the host: %d\n", lowest_bit(8));
    } catch (const std::exception& e) {
      std::printf("%s\n", e.what());
    }
  } else if (std::strcmp(which, "helper_guards") == 0) {
    int mode = -1, clock = 0, integrated = -1;
    const cudaError_t a = cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
    const cudaError_t b = cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
    const cudaError_t c = cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0);
    std::printf("compute mode %s %s, clock rate %s %d kHz, integrated %s %d\n", cudaGetErrorName(a),
                mode == cudaComputeModeDefault ? "default" : "other", cudaGetErrorName(b), clock,
                cudaGetErrorName(c), integrated);
  } else if (std::strcmp(which, "device_assert") == 0) {
    asserts<<<1, 8>>>(d_out);
    const cudaError_t a = cudaDeviceSynchronize();
    std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(a), cudaGetErrorString(a));
    unsigned h = 0;
    const cudaError_t b = cudaMemcpy(&h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("then cudaMemcpy: %s. the program goes on\n", cudaGetErrorName(b));
  } else if (std::strcmp(which, "toolkit_headers") == 0) {
    cudaEvent_t done;
    cudaEventCreate(&done);
    asserts<<<1, 4>>>(d_out);
    cudaEventRecord(done);
    const cudaError_t q = cudaEventQuery(done);
    unsigned h[4] = {};
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    int grid = 0, block = 0;
    const cudaError_t o = cudaOccupancyMaxPotentialBlockSize(&grid, &block, asserts);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    std::printf("CUDART_VERSION %d, cudaEventQuery %s, profiler %s %s, umin and the others %u %u %u %u, "
                "cudaOccupancyMaxPotentialBlockSize %s block %d grid %g per SM\n",
                CUDART_VERSION, cudaGetErrorName(q), cudaGetErrorName(cudaProfilerStart()),
                cudaGetErrorName(cudaProfilerStop()), h[0], h[1], h[2], h[3], cudaGetErrorName(o), block,
                double(grid) / prop.multiProcessorCount);
    cudaEventDestroy(done);
  } else if (std::strcmp(which, "large_inputs") == 0) {
    const size_t bytes = size_t(5) << 30, split = (size_t(1) << 32) + 3;
    unsigned char* d_in = nullptr;
    {
      histo_sim::LargeInputs large(bytes + (size_t(256) << 20));
      const cudaError_t a = cudaMalloc(&d_in, bytes);
      cudaMemset(d_in, 17, split);
      cudaMemset(d_in + split, 200, bytes - split);
      const size_t host_at[4] = {0, split - 1, split, bytes - 1};
      size_t* d_at = nullptr;
      cudaMalloc(&d_at, sizeof(host_at));
      cudaMemcpy(d_at, host_at, sizeof(host_at), cudaMemcpyHostToDevice);
      read_far<<<1, 4>>>(d_in, d_at, d_out, d_in, size_t(3) << 30);
      unsigned seen[4] = {};
      const cudaError_t b = cudaMemcpy(seen, d_out, sizeof(seen), cudaMemcpyDeviceToHost);
      unsigned char around[3] = {};
      cudaMemcpy(around, d_in + (size_t(3) << 30) - 1, 3, cudaMemcpyDeviceToHost);
      std::printf("inside: %s %s, bytes %u %u %u %u, written %u %u %u, held %s\n",
                  cudaGetErrorName(a), cudaGetErrorName(b), seen[0], seen[1], seen[2], seen[3],
                  around[0], around[1], around[2], held_mib() < 256 ? "under 256 MiB" : "more");
      cudaFree(d_at);
      cudaFree(d_in);
    }
    const cudaError_t c = cudaMalloc(&d_in, bytes);
    std::printf("outside: %s\n", cudaGetErrorName(c));
  } else {
    std::printf("usage: runtime_calls async_copy|shuffle_mask|partial_warps|illegal_address|cuda_arch|scoped_atomics|"
                "host_arch|helper_guards|device_assert|toolkit_headers|large_inputs\n");
    return 2;
  }
  cudaFree(d_out);
  return 0;
}
