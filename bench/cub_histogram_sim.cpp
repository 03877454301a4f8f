// CUB runs only on a GPU: in a simulator build the benchmark has no CUB row, and says so.
#include "cub_histogram.hpp"

#include <stdexcept>

namespace bench {

CubHistogram::CubHistogram(size_t max_n) : max_n_(max_n) {}

void CubHistogram::run(const uint8_t*, size_t, uint32_t*, cudaStream_t) {
  throw std::runtime_error("CUB runs only on a GPU: the simulator has no CUB row");
}

}  // namespace bench
