// `extern __shared__ T name[];` as The CUDA Handbook's listings write it (and `extern T
// __shared__ name[];`, as NVIDIA's threadFenceReduction sample does), compiled for the CPU
// simulator: the wrapper (sim/tools/wrap.cpp) rewrites the declaration to the block's
// dynamic shared memory and keeps file names and line numbers. Exits 0 when the kernel counts
// right and __FILE__ and __LINE__ still name this file and line.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

constexpr int kLineHere = __LINE__;  // line 15 of this file: main() checks it

// A per-block histogram whose bins are the launch's dynamic shared memory.
__global__ void histogram_dynamic_kernel(const unsigned char* d_in, size_t n,
                                         unsigned int* d_bins) {
  extern __shared__ unsigned int privHist[];
  extern unsigned int __shared__ sameBins[];  // the qualifier after the type: the same memory
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) privHist[b] = 0;
  __syncthreads();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
    atomicAdd(&privHist[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x)
    if (sameBins[b]) atomicAdd(&d_bins[b], sameBins[b]);
}

}  // namespace

int main() {
  if (kLineHere != 15 || std::strstr(__FILE__, "extern_shared.cu") == nullptr) {
    std::printf("FAIL: the wrapper lost the file and line: %s:%d\n", __FILE__, kLineHere);
    return 1;
  }
  const size_t n = 100003;
  std::vector<unsigned char> h_in(n);
  std::vector<unsigned int> expected(256, 0);
  for (size_t i = 0; i < n; ++i) ++expected[h_in[i] = (unsigned char)(i * 2654435761u >> 13)];
  histo::DeviceBuffer<unsigned char> d_in(n);
  histo::DeviceBuffer<unsigned int> d_bins(256);
  CUDA_CHECK(cudaMemcpy(d_in.get(), h_in.data(), n, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_bins.get(), 0, 256 * sizeof(unsigned int)));
  histogram_dynamic_kernel<<<3, 128, 256 * sizeof(unsigned int)>>>(d_in.get(), n, d_bins.get());
  CUDA_CHECK_LAUNCH();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (d_bins.download() != expected) {
    std::printf("FAIL: the histogram through extern __shared__ bins is wrong\n");
    return 1;
  }
  std::printf("extern __shared__ unsigned int privHist[] works in the simulator\n");
  return 0;
}
