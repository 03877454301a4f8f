#include "histogram.h"

namespace {

__global__ void histogram_kernel(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  __shared__ unsigned s_bins[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
    atomicAdd(&s_bins[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&d_bins[b], s_bins[b]);
}

}  // namespace

int histogram_256(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  cudaMemset(d_bins, 0, 256 * sizeof(unsigned));
  histogram_kernel<<<8, 256>>>(d_in, n, d_bins);
  return int(cudaGetLastError());
}
