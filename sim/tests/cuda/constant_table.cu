// Letters into bins through a lookup table in constant memory: a-z and A-Z into 7 bins of four
// letters (the last bin two), everything else into bin 7. The table is filled at run time with
// cudaMemcpyToSymbol; every thread of a warp reads the same few entries, which the constant
// cache serves.
#include <cuda_runtime.h>

#include <cctype>

#include "check.cuh"

constexpr int kBins = 8;
__constant__ unsigned char c_bin_of[256];

__global__ void letter_histogram(const unsigned char* text, size_t n, unsigned int* bins) {
  __shared__ unsigned int s_bins[kBins];
  if (threadIdx.x < kBins) s_bins[threadIdx.x] = 0;
  __syncthreads();  // zeroed before any thread counts
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[c_bin_of[text[i]]], 1u);
  __syncthreads();  // every count in before the merge
  if (threadIdx.x < kBins) atomicAdd(&bins[threadIdx.x], s_bins[threadIdx.x]);
}

int main(int argc, char** argv) {
  const Args args = parse_args(argc, argv);
  const size_t n = args.bytes;
  // Text-like bytes: words of letters, spaces, some punctuation.
  std::vector<unsigned char> text = make_bytes(n, 3);
  for (unsigned char& c : text) c = (c % 7 == 0) ? ' ' : (c % 31 == 0) ? '.' : (unsigned char)('a' + c % 26);
  unsigned char table[256];
  for (int c = 0; c < 256; ++c) table[c] = std::isalpha(c) ? (unsigned char)((std::tolower(c) - 'a') / 4) : 7;
  std::vector<unsigned> expected(kBins, 0);
  for (unsigned char c : text) ++expected[table[c]];

  CHECK(cudaMemcpyToSymbol(c_bin_of, table, sizeof table));
  unsigned char* d_text;
  unsigned int* d_bins;
  CHECK(cudaMalloc(&d_text, n));
  CHECK(cudaMalloc(&d_bins, kBins * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_text, text.data(), n, cudaMemcpyHostToDevice));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  auto run = [&] {
    CHECK(cudaMemset(d_bins, 0, kBins * sizeof(unsigned int)));
    letter_histogram<<<sms * 8, 256>>>(d_text, n, d_bins);
  };
  run();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> bins(kBins);
  CHECK(cudaMemcpy(bins.data(), d_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  const bool ok = same("letter_histogram", bins, expected);
  time_kernel("letter_histogram", args.repeats, run);
  CHECK(cudaFree(d_text));
  CHECK(cudaFree(d_bins));
  return ok ? 0 : 1;
}
