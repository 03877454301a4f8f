// A shared-memory race: the bins are counted into before the zeroing is known to be done (no
// __syncthreads() between the two). On a GPU the histogram is then usually right; the CPU
// simulator's hazard checks fail the launch, and the first cudaGetLastError or synchronizing call
// after it reports the fault, once, naming the kernel. A clean kernel launched after it then runs
// without error.
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void racy_histogram(const unsigned char* in, size_t n, unsigned int* bins) {
  __shared__ unsigned int s_bins[256];
  s_bins[threadIdx.x] = 0;  // the mistake: no __syncthreads() after the zeroing
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], s_bins[threadIdx.x]);
}

__global__ void clean_histogram(const unsigned char* in, size_t n, unsigned int* bins) {
  __shared__ unsigned int s_bins[256];
  s_bins[threadIdx.x] = 0;
  __syncthreads();  // zeroed before any thread counts
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[in[i]], 1u);
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], s_bins[threadIdx.x]);
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const std::vector<unsigned char> data = make_bytes(args.bytes, 13);
  unsigned char* d_in;
  unsigned int* d_bins;
  CHECK(cudaMalloc(&d_in, data.size()));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_in, data.data(), data.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));

  racy_histogram<<<64, 256>>>(d_in, data.size(), d_bins);
  const cudaError_t after_launch = cudaGetLastError();
  std::printf("racy_histogram: cudaGetLastError after the launch: %s: %s\n", cudaGetErrorName(after_launch),
              cudaGetErrorString(after_launch));
  const cudaError_t fault = cudaDeviceSynchronize();
  std::printf("racy_histogram: cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(fault),
              cudaGetErrorString(fault));

  CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
  clean_histogram<<<64, 256>>>(d_in, data.size(), d_bins);
  const cudaError_t launch = cudaGetLastError();
  const cudaError_t sync = cudaDeviceSynchronize();
  std::printf("clean_histogram: cudaGetLastError after the launch: %s; cudaDeviceSynchronize: %s\n",
              cudaGetErrorName(launch), cudaGetErrorName(sync));
  std::vector<unsigned> bins(256);
  CHECK(cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  const bool ok = same("clean_histogram", bins, cpu_histogram(data)) && launch == cudaSuccess &&
                  sync == cudaSuccess;
  time_kernel("racy_histogram", args.repeats, [&] { racy_histogram<<<64, 256>>>(d_in, data.size(), d_bins); });
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_bins));
  return ok ? 0 : 1;
}
