// A kernel's failure on a non-blocking stream reaches the call that reports it on a GPU, however
// the stream's work continues: `async_fault` launches a kernel whose block deadlocks at a
// divergent barrier on a cudaStreamNonBlocking stream, queues a cudaMemcpyAsync behind it, then
// prints what cudaStreamSynchronize and cudaGetLastError return. The deferred copy must not take
// the failure and drop it (CMakeLists.txt here checks the lines).
#include <cuda_runtime.h>

#include <cstdio>

namespace {

// Thread 0 never reaches the barrier the others wait at: the launch fails (a deadlock).
__global__ void divergent_barrier(unsigned* d_out) {
  if (threadIdx.x != 0) __syncthreads();
  d_out[threadIdx.x] = threadIdx.x;
}

}  // namespace

int main() {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  unsigned* d_out = nullptr;
  cudaMalloc(&d_out, 64 * sizeof(unsigned));
  unsigned host[64] = {};
  divergent_barrier<<<1, 64, 0, stream>>>(d_out);
  const cudaError_t copy = cudaMemcpyAsync(host, d_out, sizeof(host), cudaMemcpyDeviceToHost, stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  std::printf("cudaMemcpyAsync: %s\n", cudaGetErrorName(copy));
  std::printf("cudaStreamSynchronize: %s\n", cudaGetErrorName(sync));
  std::printf("then cudaGetLastError: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFree(d_out);
  cudaStreamDestroy(stream);
  return 0;
}
