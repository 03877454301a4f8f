// NVIDIA CUB's DeviceHistogram::HistogramEven over 256 byte bins: the library the labs race.
#pragma once

#include "histo/device_buffer.hpp"
#include "histo/launch.hpp"

#include <cstddef>
#include <cstdint>

namespace bench {

class CubHistogram {
 public:
  // Sizes CUB's temporary storage for inputs up to max_n bytes (allocated once, untimed).
  explicit CubHistogram(size_t max_n);
  // Overwrites the 256 bins (CUB zeroes them itself). n must not exceed max_n.
  void run(const uint8_t* d_in, size_t n, uint32_t* d_bins, cudaStream_t stream);

 private:
  size_t max_n_;
  size_t temp_bytes_ = 0;
  histo::DeviceBuffer<uint8_t> temp_;
};

}  // namespace bench
