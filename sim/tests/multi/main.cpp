// main of a program of several sources (sim/tests/CMakeLists.txt runs it through sim_run.sh):
// counts n bytes of a known pattern and checks every bin.
#include "histogram.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1 << 20;
  std::vector<unsigned char> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<unsigned char>(i * 7);
  unsigned char* d_in = nullptr;
  unsigned* d_bins = nullptr;
  cudaMalloc(&d_in, n);
  cudaMalloc(&d_bins, 256 * sizeof(unsigned));
  cudaMemcpy(d_in, data.data(), n, cudaMemcpyHostToDevice);
  const int launch = histogram_256(d_in, n, d_bins);
  std::vector<unsigned> bins(256);
  const cudaError_t copy = cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  std::vector<unsigned> expected(256, 0);
  for (unsigned char b : data) ++expected[b];
  const bool ok = launch == 0 && copy == cudaSuccess && bins == expected;
  std::printf("multi-source histogram of %zu bytes: %s\n", n, ok ? "every bin right" : "WRONG");
  cudaFree(d_in);
  cudaFree(d_bins);
  return ok ? 0 : 1;
}
