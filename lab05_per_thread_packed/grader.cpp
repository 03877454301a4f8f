// lab05 grader. CPU tests check your packed-counter arithmetic, the merge's bank pattern and the
// grid's overflow budget (they run without a GPU), then replay the whole kernel on the CPU with
// your count_into_column and merge_row. GPU tests compare your kernel with the CPU reference on
// every dataset, awkward sizes and alignments, and on inputs built to overflow an 8-bit counter.
#include "lab05.h"

#include "histo/catch_support.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace lab05;

namespace {

constexpr size_t kBudgetBlock = size_t(kBlockSize) * kMaxPerThread;  // elements per full block

// The byte of a packed word that holds value's counter, worked out independently of your
// helpers so the emulation can catch a counter that wraps.
unsigned counter_of(uint32_t word, unsigned value) { return (word >> (8 * (value % 4))) & 0xFF; }

// Every thread's whole share holds one value: thread t of `num_threads` (interleaved partition)
// sees only value_of(t), so it drives one counter as high as its share goes.
std::vector<uint8_t> one_value_per_thread(size_t n, size_t num_threads, uint64_t seed) {
  std::vector<uint8_t> data(n);
  if (num_threads == 0) num_threads = 1;
  for (size_t i = 0; i < n; ++i) data[i] = uint8_t(histo::mix64(seed + i % num_threads) >> 56);
  return data;
}

// What the replay found besides the bins: the first wrong thing, in words, and counts.
struct Emulation {
  std::vector<uint64_t> bins = std::vector<uint64_t>(histo::kNumBins, 0);
  size_t overflows = 0;      // (thread, value) pairs with more than 255 elements: the grid's fault
  std::string helpers;       // a helper result outside the 64 x 64 array (checked first)
  std::string counting;      // the first column count_into_column got wrong
  std::string merging;       // the first row merge_row got wrong
};

constexpr uint32_t kGarbage = 0xA5A5A5A5u;  // what the array holds before a block starts

// Replays histogram_packed_kernel on the CPU with your functions: for each block of the grid
// packed_grid_size(n) chooses, every thread's count_into_column into an array that starts as
// garbage (as shared memory does), then every row's merge_row. Each thread's column and each
// row's counts are checked against counts worked out independently of your code.
Emulation emulate_packed(const uint8_t* data, size_t n) {
  Emulation out;
  for (unsigned value = 0; value < histo::kNumBins && out.helpers.empty(); ++value)
    if (packed_row(value) >= kRows || packed_shift(value) > 24)
      out.helpers = "packed_row(" + std::to_string(value) + ") = " +
                    std::to_string(packed_row(value)) + ", packed_shift = " +
                    std::to_string(packed_shift(value)) + ": outside the 64 rows of 4 counters";
  for (unsigned step = 0; step < kBlockSize && out.helpers.empty(); ++step)
    for (unsigned row = 0; row < kRows && out.helpers.empty(); ++row)
      if (merge_column(step, row) >= kBlockSize)
        out.helpers = "merge_column(" + std::to_string(step) + ", " + std::to_string(row) +
                      ") = " + std::to_string(merge_column(step, row)) + ": not a column (0..63)";
  const size_t grid = packed_grid_size(n);
  if (n == 0 || grid == 0 || !out.helpers.empty()) return out;
  const size_t num_threads = grid * kBlockSize;
  // Room past the 64 x 64 words (kReplayWords), so a column written at a wrong index
  // (value * 64 + column, say) lands in the array, where it is seen, and not in the grader's.
  std::vector<uint32_t> words(kReplayWords), before;
  std::vector<uint32_t> mine(histo::kNumBins);
  for (size_t block = 0; block < grid; ++block) {
    std::fill(words.begin(), words.end(), kGarbage);
    for (unsigned t = 0; t < kBlockSize; ++t) {
      const size_t first = block * kBlockSize + t;
      before = words;
      count_into_column(words.data(), t, data, n, first, num_threads);
      std::fill(mine.begin(), mine.end(), 0u);
      for (size_t i = first; i < n; i += num_threads) ++mine[data[i]];
      for (size_t w = 0; w < words.size() && out.counting.empty(); ++w)
        if (w % kBlockSize != t && words[w] != before[w])
          out.counting = "count_into_column for column " + std::to_string(t) + " (block " +
                         std::to_string(block) + ") wrote word " + std::to_string(w) +
                         (w < kSharedWords ? " (row " + std::to_string(w / kBlockSize) +
                                                 ", column " + std::to_string(w % kBlockSize) + ")"
                                           : std::string(", past the 64 x 64 array")) +
                         ": a thread writes only its own column, word row * 64 + column";
      for (unsigned value = 0; value < histo::kNumBins; ++value) {
        out.overflows += mine[value] > kMaxPerThread;
        const unsigned got = counter_of(words[size_t(value / 4) * kBlockSize + t], value);
        if (out.counting.empty() && mine[value] <= kMaxPerThread && got != mine[value])
          out.counting = "count_into_column for column " + std::to_string(t) + " (block " +
                         std::to_string(block) + ", first " + std::to_string(first) +
                         ", stride " + std::to_string(num_threads) + "): the counter of value " +
                         std::to_string(value) + " (row " + std::to_string(value / 4) +
                         ", byte " + std::to_string(value % 4) + ") is " + std::to_string(got) +
                         ", but the thread's elements hold " + std::to_string(mine[value]) +
                         (got == ((counter_of(kGarbage, 0) + mine[value]) & 0xFFu)
                              ? " (the column was not zeroed first: it started as 0xA5 bytes)"
                              : "");
      }
    }
    for (unsigned row = 0; row < kRows; ++row) {
      const RowCounts counts = merge_row(words.data(), row);
      for (unsigned byte = 0; byte < kCountersPerWord; ++byte) {
        uint32_t held = 0;  // what the 64 columns hold for this value
        for (unsigned column = 0; column < kBlockSize; ++column)
          held += counter_of(words[size_t(row) * kBlockSize + column], row * 4 + byte);
        if (out.merging.empty() && counts.count[byte] != held)
          out.merging = "merge_row(row " + std::to_string(row) + ") of block " +
                        std::to_string(block) + " gives " + std::to_string(counts.count[byte]) +
                        " for value " + std::to_string(row * 4 + byte) + " (byte " +
                        std::to_string(byte) + "), but the 64 columns hold " +
                        std::to_string(held) + " of it";
        out.bins[row * kCountersPerWord + byte] += counts.count[byte];
      }
    }
  }
  return out;
}

// Emulates one input and fails with a report when the bins differ from the reference.
void check_emulation(const std::vector<uint8_t>& data, const std::string& dataset, uint64_t seed) {
  const size_t n = data.size();
  if (n > 0 && packed_grid_size(n) == 0)
    FAIL("packed_grid_size(" << n << ") returned 0: the replay needs a grid (write it first)");
  const Emulation result = emulate_packed(data.data(), n);
  INFO("emulated " << dataset << ", n = " << n << ", grid " << packed_grid_size(n));
  if (!result.helpers.empty()) FAIL(result.helpers << " (the helper tests above say more)");
  INFO("(thread, value) pairs past the 255-element budget: " << result.overflows);
  CHECK(result.overflows == 0);  // packed_grid_size gave some thread more than 255 of one value
  if (!result.counting.empty()) FAIL_CHECK(result.counting);
  if (!result.merging.empty()) FAIL_CHECK(result.merging);
  histo::CaseInfo info{"lab05", "packed (CPU emulation)", dataset, seed, n, 0,
                       "grid " + std::to_string(packed_grid_size(n)) + " x block 64"};
  info.grid = packed_grid_size(n);
  info.cpu_emulation = true;
  info.parts = histo::find_variant(variants(), "packed").parts;
  const std::string report = histo::compare_bins(
      histo::widen(histo::reference_histogram(data.data(), n)), result.bins, n, info);
  histo::check_report(report);
}

}  // namespace

TEST_CASE("packed_row and packed_shift give every value its own 8-bit counter", "[cpu]") {
  std::set<std::pair<unsigned, unsigned>> used;
  for (unsigned value = 0; value < 256; ++value) {
    INFO("value " << value << ": packed_row " << packed_row(value) << ", packed_shift "
                  << packed_shift(value));
    REQUIRE(packed_row(value) == value / 4);
    REQUIRE(packed_shift(value) == 8 * (value % 4));
    REQUIRE(packed_increment(value) == 1u << (8 * (value % 4)));
    // The merge finds value v's count in byte v % 4 of row v / 4: bin row * 4 + byte.
    REQUIRE(packed_row(value) * 4 + packed_shift(value) / 8 == value);
    used.insert({packed_row(value), packed_shift(value)});
  }
  CHECK(used.size() == 256);  // no two values share a counter
}

TEST_CASE("split_pairs and unpack recover every counter and 64 full words still fit", "[cpu]") {
  auto byte_of = [](uint32_t word, unsigned b) { return (word >> (8 * b)) & 0xFFu; };
  std::vector<uint32_t> words = {0u,          1u,          0xFFu,       0xFF00u,
                                 0xFF0000u,   0xFF000000u, 0xFFFFFFFFu, 0x80808080u,
                                 0x7F7F7F7Fu, 0x01020304u, 0xFF00FF00u, 0x00FF00FFu};
  for (uint64_t i = 0; i < 2000; ++i)
    words.push_back(uint32_t(histo::mix64(histo::test_seed() + i)));
  for (uint32_t word : words) {
    const PairSums pair = split_pairs(word);
    for (unsigned b = 0; b < 4; ++b) {
      const uint32_t got = unpack(pair, b);
      if (got != byte_of(word, b))
        FAIL("word 0x" << std::hex << word << std::dec << ": split_pairs gives even 0x" << std::hex
                       << pair.even << ", odd 0x" << pair.odd << std::dec << "; unpack(.., byte "
                       << b << ") returned " << got << ", but byte " << b << " of the word is "
                       << byte_of(word, b) << " (bits " << 8 * b << ".." << 8 * b + 7 << ")");
    }
  }
  SUCCEED("split_pairs then unpack gives back every byte of " << words.size() << " words");
  // The merge adds 64 columns: with every counter at 255 each half reaches 64 x 255 = 16320
  // and must not carry into its neighbour.
  PairSums full{0, 0};
  for (unsigned column = 0; column < kBlockSize; ++column) {
    const PairSums pair = split_pairs(0xFFFFFFFFu);
    full.even += pair.even;
    full.odd += pair.odd;
  }
  for (unsigned b = 0; b < 4; ++b) {
    INFO("unpack(.., byte " << b << ") of the sum of 64 words of 0xFFFFFFFF: each byte is 255, "
                                   "so every byte's sum is 64 x 255 = 16320");
    CHECK(unpack(full, b) == kBlockSize * 255u);
  }
  // And sums of 64 random words come out byte by byte.
  for (uint64_t trial = 0; trial < 200; ++trial) {
    PairSums sums{0, 0};
    uint32_t expected[4] = {0, 0, 0, 0};
    for (unsigned column = 0; column < kBlockSize; ++column) {
      const uint32_t word = uint32_t(histo::mix64(histo::test_seed() ^ (trial * 64 + column)));
      const PairSums pair = split_pairs(word);
      sums.even += pair.even;
      sums.odd += pair.odd;
      for (unsigned b = 0; b < 4; ++b) expected[b] += byte_of(word, b);
    }
    for (unsigned b = 0; b < 4; ++b) {
      INFO("unpack(.., byte " << b << ") of the pair sums of 64 random words (trial " << trial
                               << "): expected the sum of byte " << b << " over the words");
      REQUIRE(unpack(sums, b) == expected[b]);
    }
  }
}

TEST_CASE("merge_column rotates the columns so a warp reads 32 different banks", "[cpu]") {
  for (unsigned thread = 0; thread < kBlockSize; ++thread) {
    std::set<unsigned> columns;
    for (unsigned step = 0; step < kBlockSize; ++step) columns.insert(merge_column(step, thread));
    INFO("thread " << thread << " must visit each of the 64 columns once");
    REQUIRE(columns.size() == kBlockSize);
    REQUIRE(*columns.rbegin() < kBlockSize);
  }
  for (unsigned step = 0; step < kBlockSize; ++step) {
    for (unsigned warp = 0; warp < kBlockSize / 32; ++warp) {
      std::set<unsigned> banks;
      for (unsigned lane = 0; lane < 32; ++lane) {
        const unsigned row = warp * 32 + lane;  // thread t merges row t
        banks.insert((row * kBlockSize + merge_column(step, row)) % 32);  // 4-byte banks
      }
      INFO("step " << step << ", warp " << warp << ": " << banks.size()
                   << " distinct banks, so a " << (32 / banks.size()) << "-way conflict");
      REQUIRE(banks.size() == 32);
    }
  }
}

TEST_CASE("interleaved_count matches the kernel's index scheme", "[cpu]") {
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000)}) {
    for (size_t threads : {size_t(1), size_t(64), size_t(128), size_t(1000)}) {
      size_t total = 0;
      for (size_t t = 0; t < threads; ++t) {
        size_t visited = 0;
        for (size_t i = t; i < n; i += threads) ++visited;
        INFO("n = " << n << ", " << threads << " threads, thread " << t);
        REQUIRE(interleaved_count(t, threads, n) == visited);
        total += visited;
      }
      REQUIRE(total == n);
    }
  }
}

TEST_CASE("packed_grid_size keeps every thread within 255 elements for any n below 2^32",
          "[cpu]") {
  CHECK(packed_grid_size(0) == 0);
  std::vector<size_t> sizes = {1, 2, 63, 64, 65, 255, 256, 16319, 16320, 16321, 1000003,
                               (size_t(1) << 31) + 4099, 4294967295ull};
  // The budget boundaries: exactly full blocks, one element short, one element over.
  for (size_t blocks : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(64), size_t(1000),
                        size_t(65536), size_t(131072), size_t(263171)})
    for (size_t n : {blocks * kBudgetBlock - 1, blocks * kBudgetBlock, blocks * kBudgetBlock + 1})
      sizes.push_back(n);
  for (uint64_t i = 0; i < 2000; ++i)
    sizes.push_back(1 + histo::mix64(histo::test_seed() + i) % 4294967295ull);
  for (size_t n : sizes) {
    const size_t grid = packed_grid_size(n);
    const size_t threads = grid * kBlockSize;
    INFO("n = " << n << ": packed_grid_size gives " << grid << " blocks");
    REQUIRE(grid >= 1);
    REQUIRE(grid <= 0x7FFFFFFFu);
    // Thread 0 of the interleaved partition has the most elements; the last thread the fewest.
    const size_t most = interleaved_count(0, threads, n);
    INFO("the busiest thread sees " << most << " elements");
    REQUIRE(most <= kMaxPerThread);
    REQUIRE(interleaved_count(threads - 1, threads, n) <= most);
    // And not a block more than needed: one block fewer would break the budget.
    if (grid > 1) REQUIRE(interleaved_count(0, threads - kBlockSize, n) > kMaxPerThread);
  }
}

TEST_CASE("the packed kernel emulated on the CPU matches the reference", "[cpu]") {
  // Your count_into_column and merge_row, run thread by thread as the kernel runs them, on the
  // grid packed_grid_size chooses. A failure names the column or the row that came out wrong.
  const uint64_t seed = histo::test_seed();
  for (histo::Dataset ds : {histo::Dataset::text, histo::Dataset::uniform, histo::Dataset::image,
                            histo::Dataset::runs}) {
    const size_t n = std::min<size_t>(1000003, histo::grading_size_limit());
    check_emulation(histo::make_dataset(ds, n, seed), histo::dataset_name(ds), seed);
  }
  // Every thread's share all one value, exactly 255 times: each counter ends at 255 and each
  // merged row sums 64 x 255.
  const size_t full = 3 * kBudgetBlock;
  check_emulation(histo::make_dataset(histo::Dataset::degenerate, full, seed), "degenerate", seed);
  const size_t threads = std::max<size_t>(1, packed_grid_size(full)) * kBlockSize;
  check_emulation(one_value_per_thread(full, threads, seed), "one value per thread, 255 each",
                  seed);
  check_emulation(histo::make_dataset(histo::Dataset::degenerate, full + 1, seed),
                  "degenerate, one past full blocks", seed);
  check_emulation(histo::make_dataset(histo::Dataset::degenerate, 7, seed), "degenerate, tiny",
                  seed);
}

TEST_CASE("histogram_packed matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "packed"));
}

TEST_CASE("histogram_packed counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "packed"));
}

TEST_CASE("histogram_packed counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "packed"));
}

TEST_CASE("histogram_packed runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "packed"));
}

TEST_CASE("histogram_packed rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "packed"));
}

TEST_CASE("histogram_packed survives inputs built to overflow an 8-bit counter", "[gpu]") {
  // The hazard: a thread that counts 256 copies of one value wraps its counter to 0 and loses
  // 256 counts. These inputs sit exactly at the budget (every thread 255 copies of its value),
  // one element past it, and use runs of 255 and 256 equal bytes.
  histo::require_gpu();
  const histo::Variant& variant = histo::find_variant(variants(), "packed");
  const uint64_t seed = histo::test_seed();
  histo::FailureReports reports;
  for (size_t blocks : {size_t(1), size_t(2), size_t(5), size_t(64)}) {
    for (size_t n : {blocks * kBudgetBlock - 1, blocks * kBudgetBlock, blocks * kBudgetBlock + 1}) {
      if (n > histo::grading_size_limit() || reports.full()) continue;
      const size_t threads = std::max<size_t>(1, packed_grid_size(n)) * kBlockSize;
      const size_t offset = histo::mix64(seed + n) % 16;
      const std::pair<std::string, std::vector<uint8_t>> cases[] = {
          {"degenerate", histo::make_dataset(histo::Dataset::degenerate, n, seed)},
          {"one value per thread (" + std::to_string(threads) + " threads)",
           one_value_per_thread(n, threads, seed)},
          {"runs of 255", histo::make_runs_of(n, 255, seed)},
          {"runs of 256", histo::make_runs_of(n, 256, seed)},
      };
      for (const auto& [name, data] : cases)
        if (!reports.full())
          reports.record(histo::grade_byte_case(variant, data.data(), n, offset, name, seed));
    }
  }
  if (!reports.text().empty()) FAIL(reports.text());
  SUCCEED("no counter overflowed at the 255-element budget");
}

// The two provided layouts (per row, per column) are measured beside the packed kernel, so they
// must be right: every dataset, and the inputs that would wrap an 8-bit counter at a tile edge.
TEST_CASE("the provided per-row and per-column layouts match the CPU reference", "[gpu]") {
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  histo::FailureReports reports;
  for (const char* name : {"per_row", "per_column"}) {
    const histo::Variant& variant = histo::find_variant(variants(), name);
    reports.record(histo::grade_byte_sweep(variant, seed));
    for (size_t n : {kLayoutTile - 1, kLayoutTile, kLayoutTile + 1, 5 * kLayoutTile + 1}) {
      if (n > histo::grading_size_limit() || reports.full()) continue;
      const size_t offset = histo::mix64(seed + n) % 16;
      const std::pair<std::string, std::vector<uint8_t>> cases[] = {
          {"degenerate", histo::make_dataset(histo::Dataset::degenerate, n, seed)},
          {"runs of 256", histo::make_runs_of(n, 256, seed)},
      };
      for (const auto& [what, data] : cases)
        if (!reports.full())
          reports.record(histo::grade_byte_case(variant, data.data(), n, offset, what, seed));
    }
  }
  if (!reports.text().empty()) FAIL(reports.text());
  SUCCEED("both provided layouts match the reference, at the 255-element budget too");
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: histogram_packed counts without bank conflicts", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "packed");
  // One input per run of the test case (GENERATE), so each is graded on its own
  // (histo/perf.hpp: one count_cost call per run).
  const histo::Dataset d = GENERATE(histo::Dataset::uniform, histo::Dataset::degenerate);
  const histo::CostCounts c = histo::require_cost(v, d, size_t(4) << 20);
  histo::check_cost(c, "shared bank conflicts per shared load or store wavefront",
                    c.per(c.shared_conflicts, c.shared_wavefronts), 0.02,
                    "the 64 x 64 layout gives 0.00: word (row, column) is row * 64 + column, so "
                    "a warp's 32 threads always touch 32 different banks",
                    "the line named above says which part: in the counting loop, a thread's "
                    "counters are not in its own column (word column * 64 + row, a row per "
                    "thread, puts all 32 threads in one bank on degenerate data); in the merge, "
                    "its column index is not rotated (merge_column), so the 32 threads of a warp "
                    "read one bank at every step",
                    /*at_least=*/false, &histo::CostLine::shared_conflicts);
}

TEST_CASE("cost: histogram_packed merges a row in each of its 64 threads", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "packed");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  // 64 bytes: one step of a block's 64 threads.
  histo::check_cost(c, "shared load and store instructions per 64 input bytes",
                    64.0 * double(c.shared_instructions) / double(n), 7.0,
                    "the packed kernel gives 5.0: counting takes a shared load and a store per "
                    "warp and 32 bytes (4.0), zeroing and the merge 128 warp-wide instructions "
                    "each per block of 16320 bytes (1.0 together)",
                    "the merge is not spread over the block: thread 0 (or one warp) sums all 64 "
                    "rows, one word at a time, while the other threads wait, instead of thread t "
                    "summing row t (merge_row(s_packed, threadIdx.x)); or the counting reads or "
                    "writes a word more than once per element",
                    /*at_least=*/false, &histo::CostLine::shared_instructions);
}
