// lab04 grader. CPU tests check the 16-byte split, the run arithmetic, the privatized-bin count
// and the grid size, and replay the kernels' decompositions; they run without a GPU. GPU tests
// compare every kernel with the CPU reference on every dataset, size and alignment, and the wide
// histogram at many bin counts and shared-memory budgets.
#include "lab04.h"

#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

using namespace lab04;

namespace {

// Sizes around the 16-byte vector and the block, plus large ones near the 32-bit limits.
std::vector<size_t> split_sizes() {
  std::vector<size_t> sizes;
  for (size_t n = 0; n <= 100; ++n) sizes.push_back(n);
  for (size_t n : {size_t(255), size_t(256), size_t(257), size_t(4095), size_t(65537),
                   size_t(1000003), (size_t(1) << 31) + 3, size_t(4294967295ull),
                   (size_t(1) << 32) + 17})
    sizes.push_back(n);
  return sizes;
}

// A uint4 holding bytes[0..15] in memory order, as a 16-byte load reads them.
uint4 load_vector(const uint8_t* bytes) {
  uint32_t words[4];
  for (int w = 0; w < 4; ++w)
    words[w] = uint32_t(bytes[4 * w]) | uint32_t(bytes[4 * w + 1]) << 8 |
               uint32_t(bytes[4 * w + 2]) << 16 | uint32_t(bytes[4 * w + 3]) << 24;
  uint4 v;
  v.x = words[0];
  v.y = words[1];
  v.z = words[2];
  v.w = words[3];
  return v;
}

std::string bytes_text(const uint8_t* bytes) {
  std::string out;
  for (int k = 0; k < 16; ++k) out += (k ? " " : "") + std::to_string(bytes[k]);
  return out;
}

// Checks run_heads and run_length on one vector against a byte-by-byte walk, and that the
// aggregated adds (one per run, adding its length) give the same counts as 16 single adds.
void check_vector(const uint8_t* bytes) {
  INFO("vector bytes (memory order): " << bytes_text(bytes));
  const uint4 v = load_vector(bytes);
  uint32_t expected_heads = 1;
  for (int k = 1; k < 16; ++k)
    if (bytes[k] != bytes[k - 1]) expected_heads |= 1u << k;
  const uint32_t heads = run_heads(v);
  INFO("run_heads = " << heads << ", expected " << expected_heads
                      << " (bit k set when byte k starts a run)");
  REQUIRE(heads == expected_heads);

  std::vector<uint32_t> expected(histo::kNumBins, 0), added(histo::kNumBins, 0);
  for (int k = 0; k < 16; ++k) ++expected[bytes[k]];
  int adds = 0;
  for (int k = 0; k < 16; ++k) {
    if (!((heads >> k) & 1u)) continue;
    int length = 1;
    while (k + length < 16 && bytes[k + length] == bytes[k]) ++length;
    INFO("run starting at byte " << k);
    REQUIRE(run_length(heads, k) == uint32_t(length));
    // Only bits k + 1 .. 15 matter: set bits above bit 15 (no run starts past the vector; bit
    // 16 left clear, where it would happen to end the last run) or below k change nothing.
    for (uint32_t above : {0xFFFE0000u, 0x80000000u, 0x00A40000u}) {
      INFO("run_length(heads | 0x" << std::hex << above << std::dec << ", " << k
                                    << ") must ignore bits 16..31 of heads");
      REQUIRE(run_length(heads | above, k) == uint32_t(length));
    }
    INFO("run_length with every bit below " << k << " set must ignore them");
    REQUIRE(run_length(heads | ((1u << k) - 1u), k) == uint32_t(length));
    added[vector_byte(v, k)] += run_length(heads, k);
    ++adds;
  }
  REQUIRE(added == expected);
  int runs = 0;
  for (int k = 0; k < 16; ++k) runs += (k == 0 || bytes[k] != bytes[k - 1]);
  REQUIRE(adds == runs);
}

// ---- Wide histograms on the GPU --------------------------------------------------------------
// What histogram_wide is built from (it is outside the registry): 16-bit values read one at a
// time, privatized bins in shared memory between barriers, the rest straight to global atomics.
constexpr unsigned kWideParts =
    histo::kByteLoads | histo::kSharedBins | histo::kBarriers | histo::kGlobalAtomics;


struct WideCase {
  const std::vector<uint16_t>* data;
  std::string dataset;
  size_t n;
  size_t element_offset;  // uint16_t elements past an aligned allocation
  uint32_t num_bins;
  size_t budget;          // shared_budget_bytes passed to histogram_wide
  uint64_t seed;
};

// Runs histogram_wide on one case and grades it; the launch shape is returned through *shape.
std::string grade_wide(const WideCase& c, histo::LaunchShape* shape = nullptr) {
  histo::DeviceInput input(c.data->data(), c.n * sizeof(uint16_t),
                           c.element_offset * sizeof(uint16_t));
  const uint16_t* d_in = reinterpret_cast<const uint16_t*>(input.get());
  histo::GuardedBins<uint32_t> bins(c.num_bins);
  histo::CaseInfo info{"lab04", "histogram_wide",
                       c.dataset + ", num_bins " + std::to_string(c.num_bins) + ", budget " +
                           std::to_string(c.budget) + " B, element offset " +
                           std::to_string(c.element_offset),
                       c.seed, c.n, c.element_offset * sizeof(uint16_t), ""};
  info.parts = kWideParts;
  const histo::LaunchShape launched =
      histogram_wide(d_in, c.n, bins.get(), c.num_bins, c.budget, 0);
  info.shape = launched.describe();
  if (shape) *shape = launched;
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> expected =
      histo::widen(histo::reference_wide_histogram(c.data->data(), c.n, c.num_bins));
  uint64_t total = 0;
  for (uint64_t e : expected) total += e;
  std::string report =
      histo::compare_bins(expected, bins.fetch(), total, info, bins.guard_problem(),
                          bins.work_problem(c.n));
  if (!report.empty())
    report += "\n  (privatized bins for this case: " +
              std::to_string(privatized_bins(c.num_bins, c.budget)) +
              " before clamping to the device; values >= num_bins must be skipped)";
  return report;
}

size_t wide_size_limit() { return histo::grading_size_limit() / sizeof(uint16_t); }


}  // namespace

// ---- CPU: the helpers --------------------------------------------------------------------------

TEST_CASE("split_aligned splits any n at any alignment into head, vectors and tail", "[cpu]") {
  for (uintptr_t misalignment = 0; misalignment < 16; ++misalignment) {
    const uintptr_t address = uintptr_t(0x7f3a12345000ull) + misalignment;
    for (size_t n : split_sizes()) {
      INFO("address % 16 = " << misalignment << ", n = " << n);
      const AlignedSplit s = split_aligned(address, n);
      INFO("got head " << s.head << ", vectors " << s.vectors << ", tail " << s.tail);
      const std::string problem = histo::split_problem(s.head, s.vectors, s.tail, n, 16);
      if (!problem.empty()) FAIL(problem);
      const size_t to_boundary = (16 - misalignment) % 16;
      REQUIRE(s.head == std::min(n, to_boundary));  // no more bytes one by one than needed
      REQUIRE(s.head + 16 * s.vectors + s.tail == n);  // every byte, once
      REQUIRE(s.tail < 16);                            // no whole vector left in the tail
      if (s.vectors > 0 || s.tail > 0) REQUIRE((address + s.head) % 16 == 0);  // aligned loads
    }
  }
}

TEST_CASE("the 16-byte decomposition counts every byte once at every alignment, emulated",
          "[cpu]") {
  // Replays the kernel's reads: head bytes, whole vectors through load_vector/vector_byte, tail
  // bytes. Any byte outside [0, n) would be an out-of-bounds read on the GPU.
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_dataset(histo::Dataset::uniform, 1100, seed);
  for (size_t offset = 0; offset < 16; ++offset) {
    for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(15), size_t(16), size_t(17),
                     size_t(31), size_t(33), size_t(64), size_t(100), size_t(1000)}) {
      const uint8_t* in = data.data() + offset;  // address % 16 == offset below
      const AlignedSplit s = split_aligned(uintptr_t(0x1000) + offset, n);
      INFO("offset " << offset << ", n " << n);
      // Checked before anything is read through the split: a bad one must fail, not crash.
      const std::string problem = histo::split_problem(s.head, s.vectors, s.tail, n, 16);
      if (!problem.empty()) FAIL("split_aligned: " << problem);
      std::vector<uint64_t> bins(histo::kNumBins, 0);
      for (size_t t = 0; t < s.head; ++t) ++bins[in[t]];
      for (size_t i = 0; i < s.vectors; ++i) {
        const uint4 v = load_vector(in + s.head + 16 * i);
        for (int k = 0; k < 16; ++k) ++bins[vector_byte(v, k)];
      }
      for (size_t t = 0; t < s.tail; ++t) ++bins[in[n - s.tail + t]];
      histo::CaseInfo info{"lab04", "shared_vec16 (CPU emulation)", "uniform", seed, n,
                           offset, "head + vectors + tail"};
      info.cpu_emulation = true;
      info.parts = histo::kVectorLoads;  // the replay is of the head / vectors / tail split
      const std::string report = histo::compare_bins(
          histo::widen(histo::reference_histogram(in, n)), bins, n, info);
      histo::check_report(report);
    }
  }
}

TEST_CASE("run_heads and run_length find every run in all two-valued vectors", "[cpu]") {
  // Every pattern of two values over 16 bytes: every possible run structure.
  for (uint32_t pattern = 0; pattern < (1u << 16); ++pattern) {
    uint8_t bytes[16];
    for (int k = 0; k < 16; ++k) bytes[k] = ((pattern >> k) & 1u) ? 0xC3 : 0x07;
    check_vector(bytes);
  }
}

TEST_CASE("run_heads and run_length on uniform, degenerate and random vectors", "[cpu]") {
  uint8_t bytes[16];
  for (int k = 0; k < 16; ++k) bytes[k] = uint8_t(k);  // 16 runs of 1
  check_vector(bytes);
  std::fill(bytes, bytes + 16, uint8_t(255));  // one run of 16
  check_vector(bytes);
  for (int k = 0; k < 16; ++k) bytes[k] = uint8_t(k < 15 ? 9 : 10);  // 15 + 1
  check_vector(bytes);
  uint64_t state = histo::test_seed() ^ 0x12345;
  for (int trial = 0; trial < 20000; ++trial) {
    const unsigned alphabet = trial % 3 == 0 ? 256 : trial % 3 == 1 ? 3 : 2;
    int k = 0;
    while (k < 16) {  // runs of random length and value
      const uint64_t r = histo::mix64(++state);
      const int length = std::min<int>(16 - k, 1 + int(r % 6));
      std::fill(bytes + k, bytes + k + length, uint8_t((r >> 8) % alphabet * 97));
      k += length;
    }
    check_vector(bytes);
  }
}

TEST_CASE("privatized_bins keeps as many bins in shared memory as the budget holds", "[cpu]") {
  for (uint32_t num_bins : {1u, 2u, 255u, 256u, 257u, 1000u, 4097u, 12288u, 65535u, 65536u}) {
    const size_t need = size_t(num_bins) * 4;
    for (size_t budget : {size_t(0), size_t(1), size_t(3), size_t(4), size_t(5), size_t(1024),
                          need - 1, need, need + 1, size_t(48) << 10, size_t(227) << 10,
                          size_t(256) << 10, size_t(1) << 40}) {
      INFO("num_bins " << num_bins << ", budget " << budget << " B");
      const uint32_t bins = privatized_bins(num_bins, budget);
      CHECK(bins == std::min<size_t>(num_bins, budget / 4));
      CHECK(size_t(bins) * 4 <= budget);
    }
  }
}

TEST_CASE("the wide range test sends every value to exactly one place, emulated on the CPU",
          "[cpu]") {
  // Replays the kernel's decision per value with your privatized_bins: a shared counter below
  // the privatized bins, a global one below num_bins, nothing above. Shared + global must equal
  // the reference.
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_wide_dataset(true, 65536, 200003, seed);
  for (uint32_t num_bins : {1u, 256u, 1000u, 4097u, 65536u}) {
    for (size_t budget : {size_t(0), size_t(1000), size_t(num_bins) * 4, size_t(64) << 10}) {
      const uint32_t private_bins = privatized_bins(num_bins, budget);
      std::vector<uint64_t> shared(private_bins, 0), global(num_bins, 0);
      for (uint16_t value : data) {
        if (value < private_bins)
          ++shared[value];
        else if (value < num_bins)
          ++global[value];
      }
      for (uint32_t b = 0; b < private_bins; ++b) global[b] += shared[b];  // the merge
      const auto ref = histo::reference_wide_histogram(data.data(), data.size(), num_bins);
      uint64_t total = 0;
      for (uint32_t r : ref) total += r;
      histo::CaseInfo info{"lab04", "histogram_wide (CPU emulation)",
                           "skewed wide, num_bins " + std::to_string(num_bins) + ", budget " +
                               std::to_string(budget),
                           seed, data.size(), 0, "emulated"};
      info.cpu_emulation = true;
      info.parts = kWideParts;
      const std::string report = histo::compare_bins(histo::widen(ref), global, total, info);
      histo::check_report(report);
      INFO("num_bins " << num_bins << ", budget " << budget);
      CHECK(private_bins == std::min<size_t>(num_bins, budget / 4));
    }
  }
}

TEST_CASE("grid_for fills the device and launches no empty block", "[cpu]") {
  const size_t sizes[] = {1, 2, 511, 512, 513, 1000, 65536, 65537, 1000003, size_t(1) << 31,
                          4294967295ull};
  for (int sm_count : {1, 2, 46, 108, 132, 144}) {
    for (unsigned blocks_per_sm : {1u, 2u, kBlocksPerSm}) {
      CHECK(grid_for(0, sm_count, blocks_per_sm) == 0);
      for (size_t work : sizes) {
        INFO("work " << work << ", sm_count " << sm_count << ", blocks_per_sm " << blocks_per_sm);
        const size_t grid = grid_for(work, sm_count, blocks_per_sm);
        const size_t resident = size_t(sm_count) * blocks_per_sm;
        REQUIRE(grid >= 1);
        CHECK(grid <= resident);
        CHECK((grid - 1) * kBlockSize < work);
        if (work >= resident * kBlockSize) CHECK(grid == resident);
      }
    }
  }
}

// ---- GPU: the registered byte kernels ----------------------------------------------------------

TEST_CASE("histogram_shared matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "shared"));
}

TEST_CASE("histogram_shared counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "shared"));
}

TEST_CASE("histogram_shared counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "shared"));
}

TEST_CASE("histogram_shared runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "shared"));
}

TEST_CASE("histogram_shared rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "shared"));
}

TEST_CASE("histogram_shared_vec16 matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "shared_vec16"));
}

TEST_CASE("histogram_shared_vec16 counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "shared_vec16"));
}

TEST_CASE("histogram_shared_vec16 counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "shared_vec16"));
}

TEST_CASE("histogram_shared_vec16 runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "shared_vec16"));
}

TEST_CASE("histogram_shared_vec16 rejects bad arguments and zeroes the output for n == 0",
          "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "shared_vec16"));
}

TEST_CASE("histogram_shared_runs matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "shared_runs"));
}

TEST_CASE("histogram_shared_runs counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "shared_runs"));
}

TEST_CASE("histogram_shared_runs counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "shared_runs"));
}

TEST_CASE("histogram_shared_runs runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "shared_runs"));
}

TEST_CASE("histogram_shared_runs rejects bad arguments and zeroes the output for n == 0",
          "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "shared_runs"));
}

TEST_CASE("every byte kernel counts short inputs at every alignment", "[gpu]") {
  // Head and tail handling: inputs shorter than one vector, ending just before or after a
  // 16-byte boundary, head and tail with no vector or one vector between them.
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_dataset(histo::Dataset::uniform, 80, seed);
  const size_t sizes[] = {0,  1,  2,  3,  7,  8,  14, 15, 16, 17, 18, 30,
                          31, 32, 33, 34, 46, 47, 48, 49, 63, 64, 65, 80};
  for (const histo::Variant& variant : variants())
    for (size_t offset = 0; offset < 16; ++offset)
      for (size_t n : sizes) {
        const std::string report =
            histo::grade_byte_case(variant, data.data(), n, offset, "uniform", seed);
        histo::check_report(report);
      }
  SUCCEED("every byte kernel counts inputs of 0 to 80 bytes at all 16 alignments");
}

// ---- GPU: wide histograms ----------------------------------------------------------------------

TEST_CASE("histogram_wide matches the reference at many bin counts and budgets", "[gpu]") {
  // Bin counts: one bin, around 256, not multiples of the block size, every uint16_t value.
  // Budgets: none (all global), small, exactly num_bins * 4, more than needed, past 48 KiB
  // (needs the opt-in), and far past what the device allows (clamped).
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>(300007, wide_size_limit());
  int case_index = 0;
  for (uint32_t num_bins : {1u, 255u, 256u, 777u, 1000u, 4097u, 33333u, 65536u}) {
    const std::vector<uint16_t> uniform = histo::make_wide_dataset(false, num_bins, n, seed);
    const std::vector<uint16_t> skewed = histo::make_wide_dataset(true, num_bins, n, seed + 1);
    const size_t need = size_t(num_bins) * 4;
    for (size_t budget : {size_t(0), size_t(256), need, need + 4096, size_t(64) << 10,
                          size_t(1) << 30}) {
      const bool use_skewed = case_index % 2 == 1;
      const WideCase c{use_skewed ? &skewed : &uniform, use_skewed ? "wide skewed" : "wide uniform",
                       n - size_t(case_index % 3), size_t(case_index % 8), num_bins, budget,
                       use_skewed ? seed + 1 : seed};
      ++case_index;
      const std::string report = grade_wide(c);
      histo::check_report(report);
    }
  }
  SUCCEED("histogram_wide matches the reference for every bin count and budget");
}

TEST_CASE("histogram_wide skips values at or above num_bins", "[gpu]") {
  // Data over all 65536 values, histogrammed into fewer bins: most values have no bin.
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>(200003, wide_size_limit());
  const std::vector<uint16_t> data = histo::make_wide_dataset(false, 65536, n, seed);
  for (uint32_t num_bins : {1u, 1000u, 23130u, 40000u, 65535u})
    for (size_t budget : {size_t(0), size_t(2048), size_t(num_bins) * 4}) {
      const std::string report =
          grade_wide(WideCase{&data, "wide uniform over 0..65535", n, 3, num_bins, budget, seed});
      histo::check_report(report);
    }
  SUCCEED("values at or above num_bins are skipped");
}

TEST_CASE("histogram_wide counts odd sizes at every element offset", "[gpu]") {
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const std::vector<size_t> all = histo::grading_sizes();
  std::vector<size_t> sizes;
  for (size_t s : all)
    if (s <= std::min<size_t>(wide_size_limit(), size_t(1) << 20)) sizes.push_back(s);
  const std::vector<uint16_t> data = histo::make_wide_dataset(true, 4097, sizes.back(), seed);
  for (size_t i = 0; i < sizes.size(); ++i)
    for (size_t offset : {i % 8, (i + 3) % 8}) {
      const std::string report =
          grade_wide(WideCase{&data, "wide skewed", sizes[i], offset, 4097, 8192, seed});
      histo::check_report(report);
    }
  SUCCEED("histogram_wide counts every size at every element offset");
}

TEST_CASE("histogram_wide clamps a budget past the device's limit to what a block may use",
          "[gpu]") {
  // Decided behaviour: the budget is a ceiling. A budget larger than one block may opt into is
  // clamped to that limit (and the shape reports what was used), not an error.
  histo::require_gpu();
  const size_t optin = histo::gpu_status().shared_per_block_optin;
  REQUIRE(optin > 0);
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>(100003, wide_size_limit());
  const std::vector<uint16_t> data = histo::make_wide_dataset(true, 65536, n, seed);
  for (size_t budget : {optin - 4, optin, optin + 4, size_t(256) << 10, size_t(1) << 40}) {
    histo::LaunchShape shape;
    const std::string report =
        grade_wide(WideCase{&data, "wide skewed", n, 1, 65536, budget, seed}, &shape);
    histo::check_report(report);
    INFO("budget " << budget << " B, device opt-in limit " << optin << " B: " << shape.describe());
    CHECK(shape.shared_bytes == std::min<size_t>(65536, std::min(budget, optin) / 4) * 4);
    CHECK(shape.shared_bytes <= optin);
  }
  // A budget that holds every bin: fully privatized, exactly num_bins * 4 bytes. A budget of 0:
  // no shared memory at all, every bin global.
  for (size_t budget : {size_t(1) << 40, size_t(0)}) {
    histo::LaunchShape shape;
    const std::string report =
        grade_wide(WideCase{&data, "wide skewed", n, 0, 1000, budget, seed}, &shape);
    histo::check_report(report);
    INFO("budget " << budget << " B: " << shape.describe());
    CHECK(shape.shared_bytes == (budget ? 4000u : 0u));
  }
}

TEST_CASE("histogram_wide runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>((size_t(16) << 20) + 3, wide_size_limit());
  const uint32_t num_bins = 65536;
  const size_t budget = 16384;  // bins 0..4095 in shared memory, the rest global
  const std::vector<uint16_t> data = histo::make_wide_dataset(true, num_bins, n, seed);
  histo::GuardedBins<uint32_t> bins(num_bins);
  histo::StreamedInput input(data.data(), n * sizeof(uint16_t), 2);
  histo::CaseInfo info{"lab04", "histogram_wide", "wide skewed, num_bins 65536, budget 16384 B",
                       seed, n, 2, ""};
  info.parts = kWideParts;
  const histo::LaunchShape shape =
      histogram_wide(reinterpret_cast<const uint16_t*>(input.get()), n, bins.get(), num_bins,
                     budget, input.stream());
  info.shape = shape.describe() + " on a non-blocking stream";
  info.grid = shape.grid;
  input.synchronize();
  const std::string report = histo::compare_bins(
      histo::widen(histo::reference_wide_histogram(data.data(), n, num_bins)), bins.fetch(), n,
      info, bins.guard_problem(), bins.work_problem(n));
  if (!report.empty()) FAIL(report << histo::kStreamOrderHint);
  SUCCEED("histogram_wide runs in order on the stream it is given");
}

TEST_CASE("histogram_wide counts n = 2^32 - 1 values exactly", "[gpu][large]") {
  // 8 GiB of uint16_t built on the device: runs of 0x0101 (a privatized bin), 0xF0F0 (a global
  // bin) and 0xFFFF (no bin: num_bins is 65535).
  const size_t n = histo::kMaxElements32, offset = 2;
  const uint32_t num_bins = 65535;
  const histo::DeviceMemory device =
      histo::require_device_memory(n * sizeof(uint16_t) + histo::DeviceInput::kSlack + offset);
  const uint8_t values[3] = {0x01, 0xF0, 0xFF};
  const histo::RunsInput input(n, sizeof(uint16_t), values, offset);
  std::vector<uint64_t> expected(num_bins, 0);
  expected[0x0101] = input.run_length(0);
  expected[0xF0F0] = input.run_length(1);
  histo::GuardedBins<uint32_t> bins(num_bins);
  histo::CaseInfo info{"lab04", "histogram_wide",
                       input.describe() + " as uint16_t, num_bins 65535, budget 16384 B", 0, n,
                       offset, ""};
  info.parts = kWideParts;
  const histo::LaunchShape shape = histogram_wide(
      reinterpret_cast<const uint16_t*>(input.get()), n, bins.get(), num_bins, 16384, 0);
  info.shape = shape.describe();
  info.grid = shape.grid;
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report =
      histo::compare_bins(expected, bins.fetch(), input.run_length(0) + input.run_length(1), info,
                          bins.guard_problem(), bins.work_problem(n));
  if (!report.empty()) FAIL(report << histo::kLargeInputHint);
  SUCCEED("histogram_wide counts n = 2^32 - 1 values exactly");
}

TEST_CASE("histogram_wide rejects bad arguments and zeroes its bins for n == 0", "[gpu]") {
  histo::require_gpu();
  histo::DeviceBuffer<uint16_t> input(64);
  CUDA_CHECK(cudaMemset(input.get(), 1, input.bytes()));
  histo::GuardedBins<uint32_t> bins(1000);
  std::vector<uint16_t> host(64, 1);
  CHECK_THROWS_AS(histogram_wide(input.get(), 64, bins.get(), 0, 4096, 0), std::invalid_argument);
  CHECK_THROWS_AS(histogram_wide(input.get(), 64, bins.get(), 65537, 4096, 0),
                  std::invalid_argument);
  CHECK_THROWS_AS(histogram_wide(input.get(), 64, nullptr, 1000, 4096, 0), std::invalid_argument);
  CHECK_THROWS_AS(histogram_wide(nullptr, 64, bins.get(), 1000, 4096, 0), std::invalid_argument);
  CHECK_THROWS_AS(histogram_wide(host.data(), 64, bins.get(), 1000, 4096, 0),
                  std::invalid_argument);
  // Refused before any memory is touched, so the small buffer is safe to pass.
  CHECK_THROWS_AS(histogram_wide(input.get(), size_t(1) << 32, bins.get(), 1000, 4096, 0),
                  std::length_error);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> untouched = bins.fetch();
  for (size_t b = 0; b < untouched.size(); ++b) {
    INFO("bin " << b << " changed by a call that should have been rejected");
    REQUIRE(untouched[b] == 0xA5A5A5A5u);
  }
  CHECK(histogram_wide(nullptr, 0, bins.get(), 1000, 4096, 0).grid == 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report = histo::compare_bins(
      std::vector<uint64_t>(1000, 0), bins.fetch(), 0,
      histo::CaseInfo{"lab04", "histogram_wide", "empty", 0, 0, 0, "no launch"},
      bins.guard_problem());
  histo::check_report(report);
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: histogram_shared sends no global atomic per input byte", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "shared");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  histo::check_cost(c, "global atomic requests per 32 input bytes", c.per(c.atomic_requests * 32, n), 0.05,
                    "privatization gives about 0.01: only each block's merge, 256 bins, touches "
                    "the global histogram",
                    "the counting loop adds to the global bins (d_bins) instead of the block's "
                    "shared bins, or the merge runs once per element instead of once per block",
                    /*at_least=*/false, &histo::CostLine::atomic_requests);
}

TEST_CASE("cost: histogram_shared_vec16 reads 16 bytes per lane and load", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "shared_vec16");
  // 32 MiB: enough for every thread of the H200's grid to make full trips of 4 loads in flight.
  const size_t n = size_t(32) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  histo::check_cost(c, "global load requests per 512 input bytes", c.per(c.load_requests * 512, n),
                    1.25,
                    "16-byte loads give 1.00: 32 lanes x 16 bytes = 512 bytes in one request",
                    "the body is read a byte or a word at a time instead of as uint4 vectors "
                    "(__ldg of a const uint4*): 4 to 16 requests carry what one could",
                    /*at_least=*/false, &histo::CostLine::load_requests);
}

TEST_CASE("cost: histogram_shared_runs adds once per run on degenerate data", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "shared_runs");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::degenerate, n);
  histo::check_cost(c, "shared atomic instructions per 32 input bytes",
                    c.per(c.shared_atomic_instructions * 32, n), 0.25,
                    "run aggregation gives 0.06: a vector of 16 equal bytes is one run, one atomic",
                    "every byte of a vector still gets its own atomicAdd: the run heads are not "
                    "used to skip the bytes inside a run",
                    /*at_least=*/false, &histo::CostLine::shared_atomic_instructions);
}
