#include "histo/reference.hpp"

#include <algorithm>
#include <thread>

namespace histo {

std::vector<uint32_t> reference_histogram(const uint8_t* h_in, size_t n) {
  std::vector<uint32_t> bins(kNumBins, 0);
  for (size_t i = 0; i < n; ++i) ++bins[h_in[i]];
  return bins;
}

std::vector<uint64_t> reference_histogram64(const uint8_t* h_in, size_t n) {
  std::vector<uint64_t> bins(kNumBins, 0);
  for (size_t i = 0; i < n; ++i) ++bins[h_in[i]];
  return bins;
}

// Fork/join: each thread counts one contiguous chunk into its own histogram (no sharing, so no
// atomics and no false sharing of counters), then the join adds the private histograms.
std::vector<uint32_t> reference_histogram_parallel(const uint8_t* h_in, size_t n,
                                                   unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  // Below ~1 MiB per thread, starting threads costs more than it saves.
  const size_t kMinPerThread = size_t(1) << 20;
  threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(1, n / kMinPerThread)));
  std::vector<std::vector<uint32_t>> partial(threads, std::vector<uint32_t>(kNumBins, 0));
  std::vector<std::thread> workers;
  const size_t chunk = (n + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      const size_t begin = std::min(n, size_t(t) * chunk);
      const size_t end = std::min(n, begin + chunk);
      // Four interleaved counter sets break the store-to-load dependency when neighbouring
      // bytes repeat (degenerate data would otherwise serialize on one counter).
      uint32_t counts[4][kNumBins] = {};
      size_t i = begin;
      for (; i + 4 <= end; i += 4) {
        ++counts[0][h_in[i]];
        ++counts[1][h_in[i + 1]];
        ++counts[2][h_in[i + 2]];
        ++counts[3][h_in[i + 3]];
      }
      for (; i < end; ++i) ++counts[0][h_in[i]];
      for (int b = 0; b < kNumBins; ++b)
        partial[t][b] = counts[0][b] + counts[1][b] + counts[2][b] + counts[3][b];
    });
  }
  for (auto& w : workers) w.join();
  std::vector<uint32_t> bins(kNumBins, 0);
  for (const auto& p : partial)
    for (int b = 0; b < kNumBins; ++b) bins[b] += p[b];
  return bins;
}

std::vector<uint32_t> reference_letter_histogram(const uint8_t* h_in, size_t n) {
  std::vector<uint32_t> bins(kNumLetterBins, 0);
  for (size_t i = 0; i < n; ++i) {
    const int position = int(h_in[i]) - 'a';
    if (position >= 0 && position < 26) ++bins[position / 4];
  }
  return bins;
}

std::vector<uint32_t> reference_wide_histogram(const uint16_t* h_in, size_t n, uint32_t num_bins) {
  std::vector<uint32_t> bins(num_bins, 0);
  for (size_t i = 0; i < n; ++i)
    if (h_in[i] < num_bins) ++bins[h_in[i]];
  return bins;
}

}  // namespace histo
