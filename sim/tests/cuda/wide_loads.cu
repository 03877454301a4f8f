// One byte histogram read three ways: 4 bytes per load (uchar4), 8 (uint2) and 16 (uint4), a
// grid-stride loop each; per-block bins in dynamic shared memory (extern __shared__).
#include <cuda_runtime.h>

#include "check.cuh"

__device__ __forceinline__ void count_word(unsigned int* s_bins, unsigned int w) {
  atomicAdd(&s_bins[w & 0xFF], 1u);
  atomicAdd(&s_bins[(w >> 8) & 0xFF], 1u);
  atomicAdd(&s_bins[(w >> 16) & 0xFF], 1u);
  atomicAdd(&s_bins[w >> 24], 1u);
}

__device__ void zero_bins(unsigned int* s_bins) {
  for (int b = threadIdx.x; b < 256; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();  // zeroed before any thread counts
}

__device__ void merge_bins(const unsigned int* s_bins, unsigned int* bins) {
  __syncthreads();  // every count in before the merge
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (s_bins[b]) atomicAdd(&bins[b], s_bins[b]);
}

__global__ void histogram_uchar4(const uchar4* in, size_t n4, unsigned int* bins) {
  extern __shared__ unsigned int s_bins[];
  zero_bins(s_bins);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
    const uchar4 v = in[i];
    atomicAdd(&s_bins[v.x], 1u);
    atomicAdd(&s_bins[v.y], 1u);
    atomicAdd(&s_bins[v.z], 1u);
    atomicAdd(&s_bins[v.w], 1u);
  }
  merge_bins(s_bins, bins);
}

__global__ void histogram_uint2(const uint2* in, size_t n8, unsigned int* bins) {
  extern __shared__ unsigned int s_bins[];
  zero_bins(s_bins);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n8; i += size_t(gridDim.x) * blockDim.x) {
    const uint2 v = in[i];
    count_word(s_bins, v.x);
    count_word(s_bins, v.y);
  }
  merge_bins(s_bins, bins);
}

__global__ void histogram_uint4(const uint4* in, size_t n16, unsigned int* bins) {
  extern __shared__ unsigned int s_bins[];
  zero_bins(s_bins);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n16; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = in[i];
    count_word(s_bins, v.x);
    count_word(s_bins, v.y);
    count_word(s_bins, v.z);
    count_word(s_bins, v.w);
  }
  merge_bins(s_bins, bins);
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const size_t n = args.bytes / 16 * 16;
  const std::vector<unsigned char> data = make_bytes(n, 11);
  const std::vector<unsigned> expected = cpu_histogram(data);
  unsigned char* d_in;
  unsigned int* d_bins;
  CHECK(cudaMalloc(&d_in, n));
  CHECK(cudaMalloc(&d_bins, 256 * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_in, data.data(), n, cudaMemcpyHostToDevice));

  // As many blocks as the device holds at once.
  int sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256;
  const size_t shared = 256 * sizeof(unsigned int);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histogram_uint4, threads, shared));
  const int blocks = sms * per_sm;

  bool ok = true;
  std::vector<unsigned> bins(256);
  auto check = [&](const char* name) {
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    ok = same(name, bins, expected) && ok;
  };
  auto uchar4_run = [&] {
    CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
    histogram_uchar4<<<blocks, threads, shared>>>(reinterpret_cast<const uchar4*>(d_in), n / 4, d_bins);
  };
  auto uint2_run = [&] {
    CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
    histogram_uint2<<<blocks, threads, shared>>>(reinterpret_cast<const uint2*>(d_in), n / 8, d_bins);
  };
  auto uint4_run = [&] {
    CHECK(cudaMemset(d_bins, 0, 256 * sizeof(unsigned int)));
    histogram_uint4<<<blocks, threads, shared>>>(reinterpret_cast<const uint4*>(d_in), n / 16, d_bins);
  };
  uchar4_run();
  check("histogram_uchar4");
  uint2_run();
  check("histogram_uint2");
  uint4_run();
  check("histogram_uint4");
  time_kernel("histogram_uchar4", args.repeats, uchar4_run);
  time_kernel("histogram_uint2", args.repeats, uint2_run);
  time_kernel("histogram_uint4", args.repeats, uint4_run);

  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_bins));
  return ok ? 0 : 1;
}
