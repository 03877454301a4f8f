// What the runtime's calls report, as a GPU's runtime does: `runtime_calls CASE`.
//   async_copy     a block deadlocks at a divergent barrier on a cudaStreamNonBlocking stream, a
//                  cudaMemcpyAsync queued behind it: cudaStreamSynchronize reports the failure
//                  (the deferred copy must not take it and drop it), once.
//   shuffle_mask   a reduction whose __shfl_down_sync reads lanes outside its mask: the launch
//                  fails naming the lanes and the line (a GPU returns garbage there).
//   illegal_address  a kernel writes 1 GiB past the end of its buffer, on a non-blocking stream:
//                  the async copy, the stream's synchronization and cudaGetLastError return
//                  cudaErrorIllegalAddress, as on a GPU (sticky), the text naming the kernel's
//                  line, and the program goes on.
//   helper_guards  what NVIDIA's helper headers (helper_cuda.h) test and ask of the runtime: the
//                  guards of its headers, the compute mode, clock rate and integrated attributes.
// CMakeLists.txt here checks what each prints.
#include <cuda_runtime.h>

#if !defined(__CUDA_RUNTIME_H__) || !defined(__DRIVER_TYPES_H__)
#error "cuda_runtime.h must define the guards helper headers test (__CUDA_RUNTIME_H__, __DRIVER_TYPES_H__)"
#endif

#include <cstdio>
#include <cstring>

namespace {

// Thread 0 never reaches the barrier the others wait at: the launch fails (a deadlock).
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

// Each thread writes 1 GiB past the end of a 64-word buffer: memory no allocation holds.
__global__ void far_out_of_bounds(unsigned* d_out) {
  d_out[(size_t(1) << 28) + threadIdx.x] = threadIdx.x;
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
  } else if (std::strcmp(which, "helper_guards") == 0) {
    int mode = -1, clock = 0, integrated = -1;
    const cudaError_t a = cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0);
    const cudaError_t b = cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
    const cudaError_t c = cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0);
    std::printf("compute mode %s %s, clock rate %s %d kHz, integrated %s %d\n", cudaGetErrorName(a),
                mode == cudaComputeModeDefault ? "default" : "other", cudaGetErrorName(b), clock,
                cudaGetErrorName(c), integrated);
  } else {
    std::printf("usage: runtime_calls async_copy|shuffle_mask|illegal_address|helper_guards\n");
    return 2;
  }
  cudaFree(d_out);
  return 0;
}
