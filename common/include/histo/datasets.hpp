// Seeded input generators shared by the graders and the benchmark. The same (dataset, seed, n)
// gives the same bytes on every machine and for any number of generating threads: each 64 KiB
// chunk draws from its own counter-based stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace histo {

enum class Dataset {
  uniform,      // every byte value equally likely: the least contended case
  degenerate,   // one value repeated: every thread hits the same bin
  skewed,       // a few values take most of the mass (geometric-like)
  text,         // English-like lower-case text with spaces and punctuation
  image,        // 8-bit grey image: smooth gradients plus noise, rows of 4096 pixels
  alternating,  // two values taking turns byte by byte
  runs,         // runs of one value, 1 to 512 long: what run aggregation feeds on
};

const std::vector<Dataset>& all_datasets();
const char* dataset_name(Dataset dataset);
// Throws std::invalid_argument naming the known datasets.
Dataset dataset_from_name(const std::string& name);

void generate(Dataset dataset, uint64_t seed, uint8_t* h_out, size_t n);
std::vector<uint8_t> make_dataset(Dataset dataset, size_t n, uint64_t seed);

// Bytes drawn uniformly from `distinct` values spread over 0..255 (distinct in 1..256): the
// contention sweep of lab03.
void generate_distinct(unsigned distinct, uint64_t seed, uint8_t* h_out, size_t n);

// Runs of exactly `run` equal bytes (the last one cut at n), the value changing from run to
// run: overflow hunting for 8-bit counters (lab05, lab06).
std::vector<uint8_t> make_runs_of(size_t n, size_t run, uint64_t seed);

// lab04's wide inputs: uniform over [0, num_bins), or skewed toward the low bins.
std::vector<uint16_t> make_wide_dataset(bool skewed, uint32_t num_bins, size_t n, uint64_t seed);

// A 64-bit mixing function (splitmix64): the generators' source of randomness.
uint64_t mix64(uint64_t x);

}  // namespace histo
