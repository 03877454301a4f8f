// The cost model's large inputs (histo_sim::set_sampled_blocks, scaled_to_grid): a launch that
// runs 8 of its 64 blocks, scaled to the grid, must count what the whole launch counts, for a
// kernel whose blocks all do the same work. Prints each counter that disagrees; exit 0 when
// none does.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo_sim/counters.hpp"
#include "histo_sim/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr unsigned kBins = 256, kGrid = 64, kBlock = 128, kPerThread = 16;

// Per-block shared bins: plain loads of the input, shared atomics, then global atomics.
__global__ void shared_bins_kernel(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kBins];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x)
    if (s_bins[b]) atomicAdd(&d_bins[b], s_bins[b]);
}

std::vector<histo_sim::LaunchCounters> count(const unsigned char* d_in, size_t n, unsigned* d_bins,
                                             unsigned sampled) {
  histo_sim::counters_begin();
  histo_sim::set_sampled_blocks(sampled);
  CUDA_CHECK(cudaMemset(d_bins, 0, kBins * sizeof(unsigned)));
  shared_bins_kernel<<<kGrid, kBlock>>>(d_in, n, d_bins);
  CUDA_CHECK(cudaDeviceSynchronize());
  histo_sim::set_sampled_blocks(0);
  return histo_sim::counters_end();
}

}  // namespace

int main() {
  if (!histo_sim::counters_available()) {
    std::printf("SKIPPED: %s\n", histo_sim::counters_unavailable_reason());
    return 77;
  }
  const size_t n = size_t(kGrid) * kBlock * kPerThread;
  std::vector<unsigned char> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = static_cast<unsigned char>((i % kBlock) * 7 % 61);  // every block alike
  histo::DeviceBuffer<unsigned char> d_in(n);
  d_in.upload(data.data(), n);
  histo::DeviceBuffer<unsigned> d_bins(kBins);

  const std::vector<histo_sim::LaunchCounters> full = count(d_in.get(), n, d_bins.get(), 0);
  const std::vector<histo_sim::LaunchCounters> part = count(d_in.get(), n, d_bins.get(), 8);
  if (full.size() != 1 || part.size() != 1) {
    std::printf("expected one launch each, got %zu and %zu\n", full.size(), part.size());
    return 1;
  }
  int wrong = 0;
  if (full[0].blocks_run != kGrid || part[0].blocks_run != 8) {
    std::printf("blocks run: %llu of %u (all), %llu (sampled, expected 8)\n",
                (unsigned long long)full[0].blocks_run, kGrid, (unsigned long long)part[0].blocks_run);
    ++wrong;
  }
  const histo_sim::LaunchCounters scaled = histo_sim::scaled_to_grid(part[0]);
  const std::vector<histo_sim::Metric> a = histo_sim::metrics(full[0]), b = histo_sim::metrics(scaled);
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].value != b[i].value) {
      std::printf("%s: %llu for the whole grid, %llu from 8 blocks scaled\n", a[i].name,
                  (unsigned long long)a[i].value, (unsigned long long)b[i].value);
      ++wrong;
    }
  }
  const auto busiest = [](const std::vector<uint64_t>& v) { return *std::max_element(v.begin(), v.end()); };
  if (busiest(full[0].shared_atomic_wavefronts_per_sm) != busiest(scaled.shared_atomic_wavefronts_per_sm)) {
    std::printf("busiest SM's shared atomic wavefronts: %llu for the whole grid, %llu scaled\n",
                (unsigned long long)busiest(full[0].shared_atomic_wavefronts_per_sm),
                (unsigned long long)busiest(scaled.shared_atomic_wavefronts_per_sm));
    ++wrong;
  }
  if (wrong == 0) std::printf("8 sampled blocks, scaled, count what 64 count\n");
  return wrong == 0 ? 0 : 1;
}
