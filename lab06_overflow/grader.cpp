// lab06 grader. CPU tests check your head/tail split, the overflow check's spill arithmetic, the
// avoidance grid and the merge schedule (they run without a GPU), then replay each policy's
// kernel on the CPU with your helpers and prove no counter wraps. GPU tests compare every kernel
// with the CPU reference on every dataset, awkward sizes and alignments, on inputs built to
// overflow an 8-bit counter, and run the check and the merge on grids of one to three blocks.
// Tests named "stretch: ..." grade the optional stretch kernel (histogram_merge_vec16).
#include "lab06.h"

#include "histo/catch_support.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <cmath>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using namespace lab06;

namespace {

constexpr size_t kWordsPerAvoidBlock = size_t(kBlockSize) * kMaxWordsPerThread;  // 4032 words

enum class Strategy { check, avoid, merge };
const char* strategy_name(Strategy s) {
  return s == Strategy::check ? "check" : s == Strategy::avoid ? "avoid" : "merge";
}

// The byte of a packed word that holds value's counter, worked out independently of the helpers.
unsigned counter_of(uint32_t word, unsigned value) { return (word >> (8 * (value % 4))) & 0xFF; }

size_t limited(size_t n) { return std::min(n, histo::grading_size_limit()); }

// Every thread's whole share holds one value: all 4 bytes of aligned word w hold
// value_of(w mod num_threads), so with the interleaved partition thread t sees only value_of(t).
// `head` is how many bytes precede the first aligned word.
std::vector<uint8_t> one_value_per_thread(size_t n, size_t num_threads, size_t head,
                                          uint64_t seed) {
  std::vector<uint8_t> data(n);
  num_threads = std::max<size_t>(num_threads, 1);
  for (size_t i = 0; i < n; ++i) {
    const size_t word = i < head ? 0 : (i - head) / kBytesPerWord;
    data[i] = uint8_t(histo::mix64(seed + word % num_threads) >> 56);
  }
  return data;
}

struct Emulation {
  std::vector<uint64_t> bins = std::vector<uint64_t>(histo::kNumBins, 0);
  size_t overflows = 0;       // increments that found their counter already at 255
  unsigned max_counter = 0;   // the highest any counter reached
  bool bad_split = false;     // split_aligned does not add up to n
};

// Replays histogram_unrolled_kernel<Policy> on the CPU for an input starting at `address`, on
// `grid` blocks: the head/tail split, the interleaved words, the 4 increments per word (the
// check's spill included), the rounds and the merge, with your helpers.
Emulation emulate(Strategy strategy, const uint8_t* data, size_t n, uintptr_t address,
                  size_t grid) {
  Emulation out;
  const AlignedSplit split = split_aligned(address, n, kBytesPerWord);
  if (!histo::split_problem(split.head, split.units, split.tail, n, kBytesPerWord).empty() ||
      split.head >= kBytesPerWord || split.tail >= kBytesPerWord) {
    out.bad_split = true;
    return out;
  }
  for (size_t i = 0; i < split.head; ++i) ++out.bins[data[i]];
  for (size_t i = n - split.tail; i < n; ++i) ++out.bins[data[i]];
  const uint8_t* bytes = data + split.head;
  const size_t words = split.units, num_threads = grid * kBlockSize;
  const size_t share = interleaved_count(0, num_threads, words);
  const bool periodic = strategy == Strategy::merge;
  const size_t per_round = periodic ? kWordsPerMerge : share;
  const size_t rounds = periodic ? merge_rounds(share) : (share > 0 ? 1 : 0);
  std::vector<uint32_t> packed(kSharedWords);
  for (size_t block = 0; block < grid; ++block) {
    std::fill(packed.begin(), packed.end(), 0u);
    std::vector<uint64_t> totals(histo::kNumBins, 0);  // the merge's registers, plus spills
    for (size_t round = 0; round < rounds; ++round) {
      for (unsigned tid = 0; tid < kBlockSize; ++tid) {
        const size_t thread = block * kBlockSize + tid;
        const size_t end = std::min(words, thread + (round + 1) * per_round * num_threads);
        for (size_t w = thread + round * per_round * num_threads; w < end; w += num_threads) {
          for (unsigned b = 0; b < kBytesPerWord; ++b) {
            const unsigned value = bytes[w * kBytesPerWord + b];
            uint32_t& word = packed[packed_row(value) % kRows * kBlockSize + tid];
            out.overflows += counter_of(word, value) == 255;
            word += packed_increment(value);
            if (strategy == Strategy::check) {
              const Spill spill = spill_top_bits(word);
              word = spill.remaining;
              // The kernel spills into bin `value`; here every flagged byte is spilled where it
              // belongs, so a wrong spill shows up as wrong bins.
              for (unsigned k = 0; k < 4; ++k)
                totals[(packed_row(value) % kRows) * 4 + k] += counter_of(spill.spilled, k);
            }
            out.max_counter = std::max(out.max_counter, counter_of(word, value));
          }
        }
      }
      for (unsigned row = 0; row < kRows; ++row) {
        PairSums sums{0, 0};
        for (unsigned column = 0; column < kBlockSize; ++column) {
          const PairSums pair = split_pairs(packed[row * kBlockSize + column]);
          packed[row * kBlockSize + column] = 0;
          sums.even += pair.even;
          sums.odd += pair.odd;
        }
        for (unsigned byte = 0; byte < 4; ++byte) totals[row * 4 + byte] += unpack(sums, byte);
      }
    }
    for (size_t bin = 0; bin < histo::kNumBins; ++bin) out.bins[bin] += totals[bin];
  }
  return out;
}

// Emulates one case and fails with a report when a counter wrapped or the bins are wrong.
void check_emulation(Strategy strategy, const std::vector<uint8_t>& data, uintptr_t address,
                     size_t grid, const std::string& dataset, uint64_t seed) {
  const size_t n = data.size();
  const Emulation result = emulate(strategy, data.data(), n, address, grid);
  INFO(strategy_name(strategy) << " emulated on " << grid << " blocks: " << dataset
                               << ", n = " << n << ", address % 16 = " << address % 16);
  const AlignedSplit split = split_aligned(address, n, kBytesPerWord);
  if (result.bad_split) {
    const std::string problem =
        histo::split_problem(split.head, split.units, split.tail, n, kBytesPerWord);
    FAIL("split_aligned: " << (problem.empty() ? "head " + std::to_string(split.head) + ", tail " +
                                                     std::to_string(split.tail) +
                                                     ": each must be below 4"
                                               : problem));
  }
  INFO("highest counter reached: " << result.max_counter);
  CHECK(result.overflows == 0);     // a counter at 255 was incremented: it wrapped to 0
  histo::CaseInfo info{"lab06", std::string(strategy_name(strategy)) + " (CPU emulation)",
                       dataset, seed, n, size_t(address % 16),
                       "grid " + std::to_string(grid) + " x block 64"};
  info.grid = (long long)grid;
  info.cpu_emulation = true;
  // What the replayed kernel is built from: the registry entry of the strategy replayed.
  info.parts = histo::find_variant(variants(), strategy_name(strategy)).parts;
  const std::string report = histo::compare_bins(
      histo::widen(histo::reference_histogram(data.data(), n)), result.bins, n, info);
  histo::check_report(report);
}

// The check and the merge on a fixed grid, as registry entries the standard sweep can drive.
template <unsigned grid>
histo::LaunchShape check_on(const uint8_t* d_in, size_t n, uint32_t* d_bins, cudaStream_t s) {
  return histogram_check_on_grid(d_in, n, d_bins, grid, s);
}
template <unsigned grid>
histo::LaunchShape merge_on(const uint8_t* d_in, size_t n, uint32_t* d_bins, cudaStream_t s) {
  return histogram_merge_on_grid(d_in, n, d_bins, grid, s);
}
template <unsigned grid>
histo::LaunchShape merge_vec16_on(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                  cudaStream_t s) {
  return histogram_merge_vec16_on_grid(d_in, n, d_bins, grid, s);
}

// Inputs built to overflow an 8-bit counter, graded on `variant`: degenerate data and one value
// per thread at sizes around the 252- and 255-count budgets, runs of exactly 255 and 256 equal
// bytes, and one large degenerate input (far more than one merge interval per thread).
std::string hunt_overflow(const histo::Variant& variant, uint64_t seed) {
  histo::FailureReports reports;
  std::vector<size_t> sizes;
  for (size_t blocks : {size_t(1), size_t(3), size_t(16)})
    for (size_t per_thread : {size_t(252), size_t(255)})
      for (size_t n : {blocks * kBlockSize * per_thread - 1, blocks * kBlockSize * per_thread,
                       blocks * kBlockSize * per_thread + 1})
        if (n <= histo::grading_size_limit()) sizes.push_back(n);
  for (size_t n : sizes) {
    // Degenerate data first: its case at offset 0 says the grid this launcher picks for n, to
    // build the one-value-per-thread pattern for it.
    const std::vector<uint8_t> degenerate =
        histo::make_dataset(histo::Dataset::degenerate, n, seed);
    histo::LaunchShape shape;
    for (size_t offset : {size_t(0), size_t(1 + n % 3)}) {
      if (reports.full()) return reports.text();
      reports.record(histo::grade_byte_case(variant, degenerate.data(), n, offset, "degenerate",
                                            seed, offset == 0 ? &shape : nullptr));
    }
    const size_t threads = size_t(shape.grid) * shape.block;
    const std::pair<std::string, std::vector<uint8_t>> cases[] = {
        {"one value per thread (" + std::to_string(threads) + " threads)",
         one_value_per_thread(n, threads, 0, seed)},
        {"runs of 255", histo::make_runs_of(n, 255, seed)},
        {"runs of 256", histo::make_runs_of(n, 256, seed)},
    };
    for (const auto& [name, data] : cases) {
      // Offset 0 keeps the per-thread pattern aligned to the words; the others shift it.
      for (size_t offset : {size_t(0), size_t(1 + n % 3)}) {
        if (reports.full()) return reports.text();
        reports.record(histo::grade_byte_case(variant, data.data(), n, offset, name, seed));
      }
    }
  }
  const size_t big = limited(size_t(64) << 20);
  const std::vector<uint8_t> degenerate =
      histo::make_dataset(histo::Dataset::degenerate, big, seed);
  if (!reports.full())
    reports.record(histo::grade_byte_case(variant, degenerate.data(), big, 3, "degenerate", seed));
  return reports.text();
}

// The overflow hunt for launchers on fixed small grids, and the standard sweep on the last of
// them (a one-block sweep adds little and is slow under the sanitizers).
void check_on_small_grids(const std::vector<histo::Variant>& on_grids) {
  histo::require_gpu();
  for (const histo::Variant& variant : on_grids) {
    const std::string hunt = hunt_overflow(variant, histo::test_seed());
    if (!hunt.empty()) FAIL(hunt);
  }
  const std::string report = histo::grade_byte_sweep(on_grids.back(), histo::test_seed());
  histo::check_report(report);
}

void check_hunt(const char* name) {
  histo::require_gpu();
  const std::string report =
      hunt_overflow(histo::find_variant(variants(), name), histo::test_seed());
  histo::check_report(report);
  SUCCEED("no counter overflowed");
}

}  // namespace

// ---- CPU: the helpers ---------------------------------------------------------------------

TEST_CASE("split_aligned cuts any input into a head plus aligned units plus a tail", "[cpu]") {
  const std::vector<size_t> sizes = {0,    1,    2,    3,       4,       5,          7,
                                     15,   16,   17,   31,      32,      33,         100,
                                     4097, 1000003, 4294967295ull, size_t(1) << 40};
  for (size_t width : {size_t(4), size_t(16)}) {
    for (uintptr_t address = 0x1000; address < 0x1000 + 48; ++address) {
      for (size_t n : sizes) {
        const AlignedSplit s = split_aligned(address, n, width);
        INFO("width " << width << ", address % width = " << address % width << ", n = " << n);
        // Every byte exactly once; checked without overflow, with a sentence on failure.
        const std::string problem = histo::split_problem(s.head, s.units, s.tail, n, width);
        if (!problem.empty()) FAIL("split_aligned: " << problem);
        REQUIRE(s.head < width);
        REQUIRE(s.tail < width);                           // no whole unit left in the tail
        const size_t to_boundary = (width - address % width) % width;
        REQUIRE(s.head == std::min(n, to_boundary));       // the head stops at the boundary
        if (s.units > 0) REQUIRE((address + s.head) % width == 0);  // aligned loads only
      }
    }
  }
}

TEST_CASE("spill_top_bits moves exactly the counters at 128 or more out of the word", "[cpu]") {
  const unsigned bytes[] = {0, 1, 2, 126, 127, 128, 129, 200, 254, 255};
  for (unsigned b0 : bytes)
    for (unsigned b1 : bytes)
      for (unsigned b2 : bytes)
        for (unsigned b3 : bytes) {
          const uint32_t word = b0 | b1 << 8 | b2 << 16 | b3 << 24;
          const Spill s = spill_top_bits(word);
          INFO("word 0x" << std::hex << word << ": remaining 0x" << s.remaining << ", spilled 0x"
                         << s.spilled);
          REQUIRE(s.remaining + s.spilled == word);
          REQUIRE((s.remaining & kTopBits) == 0);  // every counter left below 128
          for (unsigned k = 0; k < 4; ++k) {
            const unsigned original = counter_of(word, k);
            REQUIRE(counter_of(s.spilled, k) == (original >= 128 ? 128u : 0u));
          }
        }
  // One counter incremented 100000 times, spilled after each increment: it never passes 128
  // and nothing is lost.
  uint32_t word = 0x05060708u;
  uint64_t spilled = 0;
  for (unsigned i = 0; i < 100000; ++i) {
    word += packed_increment(2);
    REQUIRE(counter_of(word, 2) <= 128);
    const Spill s = spill_top_bits(word);
    word = s.remaining;
    spilled += counter_of(s.spilled, 2);
  }
  CHECK(spilled + counter_of(word, 2) == 100000u + 0x06);
  CHECK((word & ~0x00FF0000u) == (0x05060708u & ~0x00FF0000u));  // the neighbours untouched
}

TEST_CASE("avoidance_grid_size is tight and keeps every counter within 252", "[cpu]") {
  std::vector<size_t> word_counts = {0, 1, 2, 63, 64, 65, 4031, 4032, 4033, 1000003,
                                     (size_t(4294967295ull) - 3) / 4};
  for (size_t blocks : {size_t(1), size_t(2), size_t(3), size_t(16), size_t(1000),
                        size_t(65536), size_t(266305)})
    for (size_t w : {blocks * kWordsPerAvoidBlock - 1, blocks * kWordsPerAvoidBlock,
                     blocks * kWordsPerAvoidBlock + 1})
      word_counts.push_back(w);
  for (uint64_t i = 0; i < 2000; ++i)
    word_counts.push_back(histo::mix64(histo::test_seed() + i) % (size_t(1) << 30));
  for (size_t words : word_counts) {
    const size_t grid = avoidance_grid_size(words);
    INFO(words << " words: avoidance_grid_size gives " << grid << " blocks");
    REQUIRE(grid >= 1);
    REQUIRE(grid <= 0x7FFFFFFFu);
    const size_t share = interleaved_count(0, grid * kBlockSize, words);
    INFO("the busiest thread gets " << share << " words = " << share * kBytesPerWord << " bytes");
    // Every byte of a thread's words could be the same value: 4 counts per word.
    REQUIRE(share <= kMaxWordsPerThread);
    REQUIRE(share * kBytesPerWord <= kCounterMax);
    // Tight: one block fewer would break the budget (no 4x over-launch).
    if (grid > 1 && interleaved_count(0, (grid - 1) * kBlockSize, words) <= kMaxWordsPerThread) {
      size_t enough = grid - 1;
      while (enough > 1 &&
             interleaved_count(0, (enough - 1) * kBlockSize, words) <= kMaxWordsPerThread)
        --enough;
      FAIL("for " << words << " words your grid is larger than needed: " << enough
                  << (enough == 1 ? " block" : " blocks") << " would do, you launch " << grid
                  << " (count in words throughout: a thread may take " << kMaxWordsPerThread
                  << " words, a block " << kWordsPerAvoidBlock << ")");
    }
  }
}

TEST_CASE("merge_rounds covers a share with rounds of at most 63 words", "[cpu]") {
  CHECK(merge_rounds(0) == 0);
  std::vector<size_t> shares;
  for (size_t s = 1; s <= 5000; ++s) shares.push_back(s);
  for (size_t s : {size_t(1) << 20, (size_t(1) << 30) + 7}) shares.push_back(s);
  for (size_t share : shares) {
    const size_t rounds = merge_rounds(share);
    INFO("share " << share << " words: merge_rounds gives " << rounds);
    REQUIRE(rounds * kWordsPerMerge >= share);       // every word falls in some round
    REQUIRE((rounds - 1) * kWordsPerMerge < share);  // and no round is wasted
  }
}

// ---- CPU: the three policies replayed ---------------------------------------------------------

TEST_CASE("the overflow check emulated on the CPU never wraps a counter on any grid", "[cpu]") {
  const uint64_t seed = histo::test_seed();
  // One block: each thread counts 1 MiB / 64 = 16384 bytes, 64 times the 8-bit range.
  const size_t n = limited(size_t(1) << 20);
  for (size_t grid : {size_t(1), size_t(3)}) {
    check_emulation(Strategy::check, histo::make_dataset(histo::Dataset::degenerate, n, seed),
                    0x1000, grid, "degenerate", seed);
    check_emulation(Strategy::check, one_value_per_thread(n, grid * kBlockSize, 0, seed), 0x1000,
                    grid, "one value per thread", seed);
  }
  const auto text = histo::make_dataset(histo::Dataset::text, limited(1000003), seed);
  for (uintptr_t address = 0x1000; address < 0x1004; ++address)
    check_emulation(Strategy::check, text, address, 2, "text", seed);
}

TEST_CASE("overflow avoidance emulated on the CPU never wraps a counter", "[cpu]") {
  const uint64_t seed = histo::test_seed();
  for (size_t blocks : {size_t(1), size_t(3), size_t(16)}) {
    for (size_t per_thread : {size_t(252), size_t(255)}) {
      for (size_t n : {blocks * kBlockSize * per_thread - 1, blocks * kBlockSize * per_thread,
                       blocks * kBlockSize * per_thread + 1}) {
        for (uintptr_t address : {uintptr_t(0x1000), uintptr_t(0x1003)}) {
          const size_t words = split_aligned(address, n, kBytesPerWord).units;
          const size_t grid = avoidance_grid_size(words);
          const size_t head = split_aligned(address, n, kBytesPerWord).head;
          check_emulation(Strategy::avoid, histo::make_dataset(histo::Dataset::degenerate, n, seed),
                          address, grid, "degenerate", seed);
          check_emulation(Strategy::avoid, one_value_per_thread(n, grid * kBlockSize, head, seed),
                          address, grid, "one value per thread", seed);
        }
      }
    }
  }
  const auto text = histo::make_dataset(histo::Dataset::text, limited(1000003), seed);
  check_emulation(Strategy::avoid, text, 0x1001, avoidance_grid_size(text.size() / 4), "text",
                  seed);
}

TEST_CASE("the periodic merge emulated on the CPU never wraps a counter on any grid", "[cpu]") {
  const uint64_t seed = histo::test_seed();
  const size_t n = limited(size_t(1) << 20);
  for (size_t grid : {size_t(1), size_t(2), size_t(7)}) {
    check_emulation(Strategy::merge, histo::make_dataset(histo::Dataset::degenerate, n, seed),
                    0x1000, grid, "degenerate", seed);
    check_emulation(Strategy::merge, one_value_per_thread(n, grid * kBlockSize, 0, seed), 0x1000,
                    grid, "one value per thread", seed);
    check_emulation(Strategy::merge, histo::make_runs_of(n, 256, seed), 0x1002, grid, "runs of 256", seed);
  }
  const auto text = histo::make_dataset(histo::Dataset::text, limited(1000003), seed);
  for (uintptr_t address = 0x1000; address < 0x1004; ++address)
    check_emulation(Strategy::merge, text, address, 5, "text", seed);
}

// ---- GPU: every registered kernel -----------------------------------------------------------

TEST_CASE("histogram_check matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "check"));
}
TEST_CASE("histogram_check rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "check"));
}
TEST_CASE("histogram_check counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "check"));
}

TEST_CASE("histogram_check counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "check"));
}

TEST_CASE("histogram_check runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "check"));
}
TEST_CASE("histogram_check survives inputs built to overflow an 8-bit counter", "[gpu]") {
  check_hunt("check");
}

TEST_CASE("histogram_avoid matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "avoid"));
}
TEST_CASE("histogram_avoid rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "avoid"));
}
TEST_CASE("histogram_avoid counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "avoid"));
}

TEST_CASE("histogram_avoid counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "avoid"));
}

TEST_CASE("histogram_avoid runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "avoid"));
}
TEST_CASE("histogram_avoid survives inputs built to overflow an 8-bit counter", "[gpu]") {
  check_hunt("avoid");
}

TEST_CASE("histogram_merge matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "merge"));
}
TEST_CASE("histogram_merge rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "merge"));
}
TEST_CASE("histogram_merge counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "merge"));
}

TEST_CASE("histogram_merge counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "merge"));
}

TEST_CASE("histogram_merge runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "merge"));
}
TEST_CASE("histogram_merge survives inputs built to overflow an 8-bit counter", "[gpu]") {
  check_hunt("merge");
}

TEST_CASE("histogram_check is right on grids of one and three blocks", "[gpu][long]") {
  // The hazard: with few blocks every thread counts thousands of elements, so a missing or
  // wrong spill shows up at once, even on the small inputs of a sanitizer run.
  const histo::Variant& check = histo::find_variant(variants(), "check");
  check_on_small_grids({check.with("check on 1 block", check_on<1>),
                        check.with("check on 3 blocks", check_on<3>)});
  CHECK_THROWS_AS(histogram_check_on_grid(nullptr, 0, nullptr, 0), std::invalid_argument);
}

TEST_CASE("histogram_merge is right on grids of one and three blocks", "[gpu][long]") {
  // The hazard: with few blocks every thread runs many merge rounds, so a merge that comes too
  // late, a round some threads skip or a missing barrier shows up at once.
  const histo::Variant& merge = histo::find_variant(variants(), "merge");
  check_on_small_grids({merge.with("merge on 1 block", merge_on<1>),
                        merge.with("merge on 3 blocks", merge_on<3>)});
  CHECK_THROWS_AS(histogram_merge_on_grid(nullptr, 0, nullptr, 0), std::invalid_argument);
}

TEST_CASE("histogram_check_on_grid and histogram_merge_on_grid run in order on their stream",
          "[gpu]") {
  histo::check_stream_order(
      histo::find_variant(variants(), "check").with("check_on_grid(3)", check_on<3>));
  histo::check_stream_order(
      histo::find_variant(variants(), "merge").with("merge_on_grid(3)", merge_on<3>));
}

TEST_CASE("histogram_check_on_grid and histogram_merge_on_grid count n = 2^32 - 1 bytes",
          "[gpu][large]") {
  // A grid of 1001 blocks: each thread counts about 66,000 words, far past any 8-bit budget.
  histo::check_max_input(
      histo::find_variant(variants(), "check").with("check_on_grid(1001)", check_on<1001>));
  histo::check_max_input(
      histo::find_variant(variants(), "merge").with("merge_on_grid(1001)", merge_on<1001>));
}

TEST_CASE("histogram_capstone matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "capstone"));
}
TEST_CASE("histogram_capstone rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "capstone"));
}
TEST_CASE("histogram_capstone counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "capstone"));
}

TEST_CASE("histogram_capstone counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "capstone"));
}

TEST_CASE("histogram_capstone runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "capstone"));
}
TEST_CASE("histogram_capstone survives the overflow-hunting inputs too", "[gpu]") {
  check_hunt("capstone");
}
TEST_CASE("histogram_capstone keeps two calls on two streams apart", "[gpu]") {
  // The hazard: state shared between calls (a global scratch buffer, a counter left over from
  // the last call). Two calls on different inputs, in flight together, must both be exact.
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = limited(size_t(48) << 20);
  const std::vector<uint8_t> inputs[2] = {
      histo::make_dataset(histo::Dataset::uniform, n, seed),
      histo::make_dataset(histo::Dataset::text, n - 12345, seed + 1)};
  const char* names[2] = {"uniform", "text"};
  histo::DeviceInput d_first(inputs[0].data(), inputs[0].size(), 0);
  histo::DeviceInput d_second(inputs[1].data(), inputs[1].size(), 3);
  const uint8_t* d_in[2] = {d_first.get(), d_second.get()};
  const uint8_t slack[2] = {d_first.slack_byte(), d_second.slack_byte()};
  histo::GuardedBins<uint32_t> bins[2] = {histo::GuardedBins<uint32_t>(histo::kNumBins),
                                          histo::GuardedBins<uint32_t>(histo::kNumBins)};
  cudaStream_t streams[2];
  for (cudaStream_t& s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  histo::LaunchShape shapes[2];
  for (int round = 0; round < 3; ++round)  // the output must be overwritten each time, too
    for (int k = 0; k < 2; ++k)
      shapes[k] = histogram_capstone(d_in[k], inputs[k].size(), bins[k].get(), streams[k]);
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  for (cudaStream_t s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  for (int k = 0; k < 2; ++k) {
    histo::CaseInfo info{"lab06", "capstone (two streams, 3 calls each)", names[k], seed,
                         inputs[k].size(), size_t(k == 0 ? 0 : 3), shapes[k].describe()};
    info.parts = histo::find_variant(variants(), "capstone").parts;
    info.slack_byte = slack[k];
    histo::check_report(histo::compare_bins(
        histo::widen(histo::reference_histogram(inputs[k].data(), inputs[k].size())),
        bins[k].fetch(), inputs[k].size(), info, bins[k].guard_problem(),
        bins[k].work_problem(inputs[k].size())));
  }
}

// ---- GPU: the stretch (optional; see the handout) -------------------------------------------

TEST_CASE("stretch: histogram_merge_vec16 matches the CPU reference on every dataset",
          "[gpu][stretch]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "merge_vec16"));
}
TEST_CASE("stretch: histogram_merge_vec16 rejects bad arguments and zeroes the output for n == 0",
          "[gpu][stretch]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "merge_vec16"));
}
TEST_CASE("stretch: histogram_merge_vec16 counts inputs past 2^31 bytes", "[gpu][large][stretch]") {
  histo::check_large_input(histo::find_variant(variants(), "merge_vec16"));
}
TEST_CASE("stretch: histogram_merge_vec16 survives inputs built to overflow an 8-bit counter",
          "[gpu][stretch]") {
  check_hunt("merge_vec16");
}
TEST_CASE("stretch: histogram_merge_vec16 is right on grids of one and three blocks",
          "[gpu][stretch][long]") {
  // The hazard: with few blocks every thread counts thousands of 16-byte vectors, so a merge
  // that comes later than every 240 bytes wraps a counter even on small inputs.
  const histo::Variant& stretch = histo::find_variant(variants(), "merge_vec16");
  check_on_small_grids({stretch.with("merge_vec16 on 1 block", merge_vec16_on<1>),
                        stretch.with("merge_vec16 on 3 blocks", merge_vec16_on<3>)});
  CHECK_THROWS_AS(histogram_merge_vec16_on_grid(nullptr, 0, nullptr, 0), std::invalid_argument);
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: the capstone's lane copies take one wavefront per shared atomic", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "capstone");
  // One input per run of the test case (GENERATE), so each is graded on its own
  // (histo/perf.hpp: one count_cost call per run).
  const histo::Dataset d = GENERATE(histo::Dataset::uniform, histo::Dataset::degenerate);
  const histo::CostCounts c = histo::require_cost(v, d, size_t(4) << 20);
  histo::check_cost(c, "shared atomic wavefronts per instruction",
                    c.per(c.shared_atomic_wavefronts, c.shared_atomic_instructions), 1.1,
                    "32 lane copies give 1.00: lane l adds only to its own copy, which lies in "
                    "bank l, so no two lanes of a warp share a bank",
                    "the copies collide: a copy laid out so that lane l's counter for one value "
                    "is not in bank l (e.g. copy-major, lane * 256 + value), or fewer copies "
                    "than lanes",
                    /*at_least=*/false, &histo::CostLine::shared_atomic_conflicts);
}

TEST_CASE("cost: the capstone reads the input as 16-byte vectors", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "capstone");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  histo::check_cost(c, "global load requests per 512 input bytes", c.per(c.load_requests * 512, n),
                    1.25, "16-byte loads give 1.00: a warp's request carries 512 bytes",
                    "the input is read in bytes or words: 4 to 16 requests carry what one could, "
                    "and the loads, not the memory, limit the kernel",
                    /*at_least=*/false, &histo::CostLine::load_requests);
}

TEST_CASE("cost: histogram_avoid launches no more blocks than its budget needs", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "avoid");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  // Each thread of a 64-thread block may take kMaxWordsPerThread words of kBytesPerWord bytes.
  const double needed = std::ceil(double(n) / (double(kBytesPerWord) * kMaxWordsPerThread * kBlockSize));
  histo::check_cost(c, "blocks launched per block the 255-count budget needs", c.per(c.blocks, 1) / needed,
                    1.1,
                    "the avoidance grid gives 1.00: words / (64 threads x the words a thread may "
                    "count)",
                    "the grid formula mixes bytes and words (as the CUDA Handbook's does), "
                    "launching about four times the blocks the budget needs");
}
