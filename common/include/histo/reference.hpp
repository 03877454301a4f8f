// The CPU references every lab is graded against.
//   reference_histogram           the grading oracle: one plain sequential loop.
//   reference_histogram_parallel  fork/join with one private histogram per thread, merged at
//                                 the end: how a CPU parallelizes a histogram, and the CPU
//                                 baseline of the benchmark report.
// Both overwrite their output. The 256-bin byte histogram is the problem every lab solves;
// the letter and wide variants serve lab03 and lab04.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace histo {

inline constexpr int kNumBins = 256;      // one bin per byte value
inline constexpr int kNumLetterBins = 7;  // lab03: a-z in groups of four letters

std::vector<uint32_t> reference_histogram(const uint8_t* h_in, size_t n);
std::vector<uint64_t> reference_histogram64(const uint8_t* h_in, size_t n);

// threads == 0 uses every hardware thread.
std::vector<uint32_t> reference_histogram_parallel(const uint8_t* h_in, size_t n,
                                                   unsigned threads = 0);

// lab03's letter histogram: 'a'..'z' into 7 bins of 4 letters ('y' and 'z' share bin 6);
// every other byte, upper-case letters included, is ignored.
std::vector<uint32_t> reference_letter_histogram(const uint8_t* h_in, size_t n);

// lab04's wide histogram: values >= num_bins are ignored.
std::vector<uint32_t> reference_wide_histogram(const uint16_t* h_in, size_t n, uint32_t num_bins);

}  // namespace histo
