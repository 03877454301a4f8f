// A histogram in two kernels with no atomics on global memory: kBlocks blocks each count their
// part in shared memory and store their 256 bins to a __device__ scratch array; one block then
// adds the partial histograms (each thread kBlocks independent loads, one bin) and reduces the
// bins to the total count in shared memory (a tree reduction), kept in a __device__ variable.
#include <cuda_runtime.h>

#include "check.cuh"

constexpr int kBlocks = 240;
constexpr int kThreads = 256;

__device__ unsigned int d_partial[kBlocks][256];  // each block's histogram
__device__ unsigned int d_total;                  // every bin added up: n
__device__ int d_launches = 0;                    // final kernels run (set from the host)

__global__ void partial_histograms(const unsigned char* in, size_t n) {
  __shared__ unsigned int s_bins[256];
  s_bins[threadIdx.x] = 0;
  __syncthreads();  // zeroed before any thread counts
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[in[i]], 1u);
  __syncthreads();  // every count in before the store
  d_partial[blockIdx.x][threadIdx.x] = s_bins[threadIdx.x];
}

// One block: thread t adds bin t of every partial histogram, then the block sums the bins.
__global__ void final_histogram(unsigned int* bins) {
  __shared__ unsigned int s_sum[kThreads];
  unsigned int bin = 0;
  for (int b = 0; b < kBlocks; ++b) bin += d_partial[b][threadIdx.x];
  bins[threadIdx.x] = bin;
  s_sum[threadIdx.x] = bin;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) s_sum[threadIdx.x] += s_sum[threadIdx.x + stride];
    __syncthreads();  // this level's sums in before the next level reads them
  }
  if (threadIdx.x == 0) {
    d_total = s_sum[0];
    d_launches += 1;
  }
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const size_t n = args.bytes;
  const std::vector<unsigned char> data = make_bytes(n, 5);
  unsigned char* d_in;
  unsigned int* d_bins;
  CHECK(cudaMalloc(&d_in, n));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_in, data.data(), n, cudaMemcpyHostToDevice));

  // The scratch array through its address, the counter through the symbol.
  void* partial = nullptr;
  CHECK(cudaGetSymbolAddress(&partial, d_partial));
  CHECK(cudaMemset(partial, 0, sizeof(d_partial)));
  const int zero = 0;
  CHECK(cudaMemcpyToSymbol(d_launches, &zero, sizeof zero));

  auto run = [&] {
    partial_histograms<<<kBlocks, kThreads>>>(d_in, n);
    final_histogram<<<1, kThreads>>>(d_bins);
  };
  run();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> bins(256);
  CHECK(cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  unsigned total = 0;
  int launches = 0;
  CHECK(cudaMemcpyFromSymbol(&total, d_total, sizeof total));
  CHECK(cudaMemcpyFromSymbol(&launches, d_launches, sizeof launches));
  bool ok = same("partial_histograms + final_histogram", bins, cpu_histogram(data));
  if (total != unsigned(n) || launches != 1) {
    std::printf("WRONG d_total %u (expected %zu) or d_launches %d (expected 1)\n", total, n, launches);
    ok = false;
  }
  time_kernel("partial_histograms", args.repeats, [&] { partial_histograms<<<kBlocks, kThreads>>>(d_in, n); });
  time_kernel("final_histogram", args.repeats, [&] { final_histogram<<<1, kThreads>>>(d_bins); });

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_bins));
  return ok ? 0 : 1;
}
