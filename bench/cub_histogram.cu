#include "cub_histogram.hpp"

#include "histo/cuda_check.hpp"

#include <cub/device/device_histogram.cuh>

#include <climits>
#include <stdexcept>
#include <string>

namespace bench {
namespace {

// 257 evenly spaced levels 0, 1, ..., 256: bin b counts samples in [b, b + 1).
constexpr int kLevels = 257;

cudaError_t histogram_even(void* d_temp, size_t& temp_bytes, const uint8_t* d_in, size_t n,
                           uint32_t* d_bins, cudaStream_t stream) {
  return cub::DeviceHistogram::HistogramEven(d_temp, temp_bytes, d_in, d_bins, kLevels, 0, 256,
                                             static_cast<int>(n), stream);
}

}  // namespace

CubHistogram::CubHistogram(size_t max_n) : max_n_(max_n) {
  if (max_n > size_t(INT_MAX))
    throw std::length_error("CubHistogram: at most " + std::to_string(INT_MAX) + " samples");
  CUDA_CHECK(histogram_even(nullptr, temp_bytes_, nullptr, max_n, nullptr, 0));
  temp_ = histo::DeviceBuffer<uint8_t>(temp_bytes_ ? temp_bytes_ : 1);
}

void CubHistogram::run(const uint8_t* d_in, size_t n, uint32_t* d_bins, cudaStream_t stream) {
  if (n > max_n_) throw std::length_error("CubHistogram: n exceeds the size it was set up for");
  size_t bytes = temp_bytes_;
  CUDA_CHECK(histogram_even(temp_.get(), bytes, d_in, n, d_bins, stream));
}

}  // namespace bench
