// A dynamic shared array declared at file scope, as some CUDA texts do, then used by a kernel:
// the simulator's wrapper gives it the block's dynamic shared memory (sim/tools/wrap.cpp).
// Exits 0 when the kernel counts right.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"

#include <cstdio>
#include <vector>

extern __shared__ unsigned int file_scope_bins[];

__global__ void histogram_file_scope_kernel(const unsigned char* d_in, size_t n, unsigned int* d_bins) {
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) file_scope_bins[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&file_scope_bins[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (file_scope_bins[b]) atomicAdd(&d_bins[b], file_scope_bins[b]);
}

int main() {
  const size_t n = 50021;
  std::vector<unsigned char> h_in(n);
  std::vector<unsigned int> expected(256, 0);
  for (size_t i = 0; i < n; ++i) ++expected[h_in[i] = (unsigned char)(i * 40503u >> 7)];
  histo::DeviceBuffer<unsigned char> d_in(n);
  histo::DeviceBuffer<unsigned int> d_bins(256);
  CUDA_CHECK(cudaMemcpy(d_in.get(), h_in.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_bins.get(), 0, 256 * sizeof(unsigned int)));
  histogram_file_scope_kernel<<<2, 96, 256 * sizeof(unsigned int)>>>(d_in.get(), n, d_bins.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (d_bins.download() != expected) {
    std::printf("FAIL: the histogram through a file-scope extern __shared__ array is wrong\n");
    return 1;
  }
  std::printf("extern __shared__ at file scope works in the simulator\n");
  return 0;
}
