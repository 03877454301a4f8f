// lab03 grader. CPU tests check the letter bins, the warp-aggregation arithmetic (on an
// emulated warp) and the grid size; they run without a GPU. GPU tests compare every kernel with
// the CPU reference on every dataset, awkward sizes and alignments, the contention sweep's
// inputs, and an input past 2^32 bytes for the 64-bit counters.
#include "lab03.h"

#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace lab03;

namespace {

// ---- The warp on the CPU -------------------------------------------------------------------

// One warp at one trip of the aggregated kernel: the byte each lane read and the lanes that
// have an element (the others hold garbage that must not be counted).
struct Warp {
  uint8_t values[kWarpSize];
  uint32_t active;
};

// What __match_any_sync(active, values[lane]) returns to an active lane: the active lanes that
// hold the same value, the lane itself included.
uint32_t emulate_match_any(const Warp& warp, unsigned lane) {
  uint32_t peers = 0;
  for (unsigned other = 0; other < kWarpSize; ++other)
    if (((warp.active >> other) & 1u) && warp.values[other] == warp.values[lane])
      peers |= 1u << other;
  return peers;
}

// One trip of the aggregated kernel for one warp: each active lane finds its peers and only the
// leader adds group_count(peers). Adds into `bins`; returns how many atomics were issued.
size_t emulate_warp_trip(const Warp& warp, std::vector<uint64_t>& bins) {
  size_t atomics = 0;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((warp.active >> lane) & 1u)) continue;
    const uint32_t peers = emulate_match_any(warp, lane);
    if (leader_of(peers) == int(lane)) {
      bins[warp.values[lane]] += group_count(peers);
      ++atomics;
    }
  }
  return atomics;
}

std::string describe(const Warp& warp) {
  std::string out = "active mask 0x";
  const char* hex = "0123456789abcdef";
  for (int shift = 28; shift >= 0; shift -= 4) out += hex[(warp.active >> shift) & 15u];
  out += ", lane values:";
  for (unsigned lane = 0; lane < kWarpSize; ++lane) out += " " + std::to_string(warp.values[lane]);
  return out;
}

// Checks one warp: every active lane counted exactly once, in its own value's bin, by exactly
// one atomic per distinct value.
void check_warp(const Warp& warp) {
  INFO(describe(warp));
  INFO("each group of lanes holding one value must be counted once: by its lowest lane "
       "(leader_of), adding the number of lanes in the group (group_count)");
  std::vector<uint64_t> expected(histo::kNumBins, 0), bins(histo::kNumBins, 0);
  std::set<uint8_t> distinct;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    if (!((warp.active >> lane) & 1u)) continue;
    ++expected[warp.values[lane]];
    distinct.insert(warp.values[lane]);
  }
  const size_t atomics = emulate_warp_trip(warp, bins);
  uint64_t counted = 0;
  for (uint64_t b : bins) counted += b;
  INFO("counted " << counted << " of " << set_bit_count(warp.active) << " active lanes with "
                  << atomics << " atomics (" << distinct.size() << " distinct values)");
  REQUIRE(counted == uint64_t(set_bit_count(warp.active)));
  REQUIRE(bins == expected);
  REQUIRE(atomics == distinct.size());
}

// ---- Sweeps for the launchers that are not in the registry ---------------------------------

template <typename Counter>
using Launcher = histo::LaunchShape (*)(const uint8_t*, size_t, Counter*, cudaStream_t);
using Reference = std::vector<uint64_t> (*)(const uint8_t*, size_t);

std::vector<uint64_t> letter_reference(const uint8_t* h_in, size_t n) {
  return histo::widen(histo::reference_letter_histogram(h_in, n));
}

// What letter_histogram and histogram64 are built from (they are outside the registry): byte
// loads, one global atomic per counted element.
constexpr unsigned kLetterAnd64Parts = histo::kByteLoads | histo::kGlobalAtomics;

// One case: h_in[0, n) staged `offset` bytes past an aligned allocation, the output poisoned
// and guarded, compared with `reference`; the bins must sum to what the reference counted.
template <typename Counter>
std::string grade_case(const char* name, Launcher<Counter> launch, size_t num_bins,
                       Reference reference, const uint8_t* h_in, size_t n, size_t offset,
                       const std::string& dataset, uint64_t seed) {
  histo::DeviceInput input(h_in, n, offset);
  histo::GuardedBins<Counter> bins(num_bins);
  histo::CaseInfo info{"lab03", name, dataset, seed, n, offset, ""};
  info.parts = kLetterAnd64Parts;
  // A slack byte read counts in its own bin where the bins are byte values (histogram64's), not
  // in letter_histogram's groups of letters.
  if (num_bins == histo::kNumBins) info.slack_byte = input.slack_byte();
  info.shape = launch(input.get(), n, bins.get(), 0).describe();
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> expected = reference(h_in, n);
  uint64_t total = 0;
  for (uint64_t e : expected) total += e;
  return histo::compare_bins(expected, bins.fetch(), total, info, bins.guard_problem(),
                             bins.work_problem(n));
}

// Every dataset, size and alignment (histo::grade_sweep), for a launcher outside the registry.
template <typename Counter>
void check_sweep(const char* name, Launcher<Counter> launch, size_t num_bins, Reference reference) {
  histo::require_gpu();
  histo::check_report(histo::grade_sweep(
      [&](const uint8_t* h_in, size_t n, size_t offset, const std::string& dataset, uint64_t seed) {
        return grade_case(name, launch, num_bins, reference, h_in, n, offset, dataset, seed);
      },
      histo::test_seed()));
}

// A launcher outside the registry on a non-blocking stream, its input still being copied on it
// (histo::StreamedInput); only that stream is synchronized before the bins are read.
template <typename Counter>
void check_stream(const char* name, Launcher<Counter> launch, size_t num_bins, Reference reference) {
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>((size_t(64) << 20) + 3, histo::grading_size_limit());
  const std::vector<uint8_t> data = histo::make_dataset(histo::Dataset::text, n, seed);
  histo::GuardedBins<Counter> bins(num_bins);
  histo::StreamedInput input(data.data(), n, 3);
  histo::CaseInfo info{"lab03", name, "text", seed, n, 3, ""};
  info.parts = kLetterAnd64Parts;
  const histo::LaunchShape shape = launch(input.get(), n, bins.get(), input.stream());
  info.shape = shape.describe() + " on a non-blocking stream";
  info.grid = shape.grid;
  input.synchronize();
  const std::vector<uint64_t> expected = reference(data.data(), n);
  uint64_t total = 0;
  for (uint64_t e : expected) total += e;
  const std::string report =
      histo::compare_bins(expected, bins.fetch(), total, info, bins.guard_problem(),
                          bins.work_problem(n));
  if (!report.empty()) FAIL(report << histo::kStreamOrderHint);
  SUCCEED(name << " runs in order on the stream it is given");
}

}  // namespace

// ---- CPU: the helpers ----------------------------------------------------------------------

TEST_CASE("letter_bin maps a-z to seven bins of four letters and every other byte to -1",
          "[cpu]") {
  for (int c = 0; c < 256; ++c) {
    // The oracle: the shared CPU reference run on this one byte.
    const uint8_t byte = uint8_t(c);
    const std::vector<uint32_t> ref = histo::reference_letter_histogram(&byte, 1);
    int expected = -1;
    for (int b = 0; b < kNumLetterBins; ++b)
      if (ref[b] == 1) expected = b;
    INFO("byte " << c << (c >= 32 && c < 127 ? std::string(" '") + char(c) + "'" : std::string()));
    REQUIRE(letter_bin(byte) == expected);
  }
}

TEST_CASE("leader_of picks the lowest lane of the group and group_count counts its lanes",
          "[cpu]") {
  // Groups of one lane: one summarised result for all 32, not 32 failures.
  unsigned wrong_leader = 0, wrong_count = 0;
  std::string first_wrong;
  for (unsigned lane = 0; lane < kWarpSize; ++lane) {
    const int leader = leader_of(1u << lane);
    const uint32_t count = group_count(1u << lane);
    if (leader != int(lane) || count != 1u) {
      if (first_wrong.empty())
        first_wrong = "peers = 1 << " + std::to_string(lane) + " (only lane " +
                      std::to_string(lane) + "): leader_of gave " + std::to_string(leader) +
                      ", group_count gave " + std::to_string(count) + "; expected " +
                      std::to_string(lane) + " and 1";
      wrong_leader += leader != int(lane);
      wrong_count += count != 1u;
    }
  }
  INFO("groups of one lane: leader_of wrong for " << wrong_leader << " of 32 lanes, group_count "
                                                  << "wrong for " << wrong_count
                                                  << " of 32; first: " << first_wrong);
  REQUIRE(wrong_leader + wrong_count == 0);
  CHECK(leader_of(0xFFFFFFFFu) == 0);
  CHECK(group_count(0xFFFFFFFFu) == 32u);
  CHECK(leader_of(0x80000001u) == 0);
  CHECK(leader_of(0xFFFF0000u) == 16);
  CHECK(group_count(0xAAAAAAAAu) == 16u);
  uint64_t state = histo::test_seed();
  for (int trial = 0; trial < 10000; ++trial) {
    const uint32_t peers = uint32_t(histo::mix64(++state)) | 1u << (trial % 32);  // never 0
    int lowest = 0;
    while (!((peers >> lowest) & 1u)) ++lowest;
    unsigned count = 0;
    for (unsigned b = 0; b < 32; ++b) count += (peers >> b) & 1u;
    INFO("peers = " << peers);
    REQUIRE(leader_of(peers) == lowest);
    REQUIRE(group_count(peers) == count);
  }
}

TEST_CASE("warp aggregation counts every active lane once on adversarial warps", "[cpu]") {
  Warp warp{};
  SECTION("all 32 lanes hold the same value: one atomic adds 32") {
    std::fill(std::begin(warp.values), std::end(warp.values), uint8_t(7));
    warp.active = 0xFFFFFFFFu;
    check_warp(warp);
  }
  SECTION("all 32 lanes hold different values: 32 atomics of 1") {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) warp.values[lane] = uint8_t(lane * 8 + 1);
    warp.active = 0xFFFFFFFFu;
    check_warp(warp);
  }
  SECTION("tail warps: only the first k lanes have an element, the rest hold the same value") {
    // The inactive lanes hold the active lanes' value: a kernel that lets them join the group
    // (a full mask in __match_any_sync) would count them.
    std::fill(std::begin(warp.values), std::end(warp.values), uint8_t(200));
    for (unsigned k = 1; k < kWarpSize; ++k) {
      warp.active = (1u << k) - 1;
      check_warp(warp);
    }
  }
  SECTION("tail warps with mixed values") {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) warp.values[lane] = uint8_t(lane % 3);
    for (unsigned k = 1; k < kWarpSize; ++k) {
      warp.active = (1u << k) - 1;
      check_warp(warp);
    }
  }
  SECTION("groups whose lowest lane is not lane 0") {
    for (unsigned lane = 0; lane < kWarpSize; ++lane) warp.values[lane] = lane < 31 ? 1 : 2;
    warp.active = 0xFFFFFFFFu;
    check_warp(warp);  // value 2: a group of one, led by lane 31
    warp.active = 0xAAAAAAAAu;  // odd lanes only
    check_warp(warp);
    warp.active = 0x80000000u;  // a single active lane, the last
    check_warp(warp);
  }
}

TEST_CASE("warp aggregation counts every active lane once on random warps", "[cpu]") {
  uint64_t state = histo::test_seed() ^ 0xA66u;
  for (int trial = 0; trial < 20000; ++trial) {
    Warp warp{};
    // Few distinct values (heavy grouping) through to any byte (mostly groups of one).
    const unsigned alphabet = trial % 4 == 0 ? 1 : trial % 4 == 1 ? 2 : trial % 4 == 2 ? 5 : 256;
    for (unsigned lane = 0; lane < kWarpSize; ++lane)
      warp.values[lane] = uint8_t(histo::mix64(++state) % alphabet);
    const uint64_t r = histo::mix64(++state);
    // Full warps, tail warps, and arbitrary masks.
    warp.active = trial % 3 == 0 ? 0xFFFFFFFFu
                  : trial % 3 == 1 ? uint32_t((1ull << (1 + r % 32)) - 1)
                                   : uint32_t(r >> 32);
    check_warp(warp);
  }
}

TEST_CASE("grid_for sizes the grid from the SM count and launches no empty block", "[cpu]") {
  const size_t sizes[] = {1,      2,      255,     256,          257,           1000,
                          65536,  65537,  1000003, size_t(1) << 31, 4294967295ull,
                          (size_t(1) << 32) + (size_t(1) << 20) + 3};
  for (int sm_count : {1, 2, 46, 108, 132, 144}) {
    CHECK(grid_for(0, sm_count) == 0);
    for (size_t n : sizes) {
      INFO("n = " << n << ", sm_count = " << sm_count);
      const size_t grid = grid_for(n, sm_count);
      REQUIRE(grid >= 1);
      CHECK(grid <= size_t(sm_count) * kBlocksPerSm);      // sized from the device, not from n
      CHECK((grid - 1) * kBlockSize < n);                   // every block gets an element
      if (n >= size_t(sm_count) * kBlocksPerSm * kBlockSize)  // big inputs fill the device
        CHECK(grid == size_t(sm_count) * kBlocksPerSm);
    }
  }
}

TEST_CASE("leader_of and group_count count every element once in the grader's replay of the "
          "warp loop", "[cpu]") {
  // The grader's own replay of the aggregated kernel's trips, warp by warp (the warp loops on its
  // first element, lanes past n inactive), calling your leader_of, group_count and grid_for. It
  // does not run your kernel: the GPU tests do. Sizes that leave a partial warp.
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_dataset(histo::Dataset::text, 100003, seed);
  for (size_t n : {size_t(1), size_t(31), size_t(33), size_t(1000), size_t(100003)}) {
    for (int sm_count : {1, 3}) {
      const size_t grid = grid_for(n, sm_count);
      const size_t stride = grid * kBlockSize;
      std::vector<uint64_t> bins(histo::kNumBins, 0);
      for (size_t first = 0; first < stride; first += kWarpSize) {
        for (size_t warp_base = first; warp_base < n; warp_base += stride) {
          Warp warp{};
          for (unsigned lane = 0; lane < kWarpSize; ++lane) {
            if (warp_base + lane >= n) continue;
            warp.active |= 1u << lane;
            warp.values[lane] = data[warp_base + lane];
          }
          emulate_warp_trip(warp, bins);
        }
      }
      histo::CaseInfo info{"lab03", "aggregated (grader's replay of the warp loop)", "text", seed,
                           n, 0,
                           "grid " + std::to_string(grid) + " x block " +
                               std::to_string(kBlockSize) + " emulated"};
      info.grid = (long long)grid;
      info.cpu_emulation = true;
      info.parts = histo::find_variant(variants(), "aggregated").parts;
      const std::string report = histo::compare_bins(
          histo::widen(histo::reference_histogram(data.data(), n)), bins, n, info);
      histo::check_report(report);
    }
  }
  SUCCEED("the emulated warp loop counts every element once, tails included");
}

// ---- GPU: the registered 256-bin kernels ---------------------------------------------------

TEST_CASE("histogram_global matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "global"));
}

TEST_CASE("histogram_global counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "global"));
}

TEST_CASE("histogram_global counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "global"));
}

TEST_CASE("histogram_global runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "global"));
}

TEST_CASE("histogram_global rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "global"));
}

TEST_CASE("histogram_aggregated matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "aggregated"));
}

TEST_CASE("histogram_aggregated counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "aggregated"));
}

TEST_CASE("histogram_aggregated counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "aggregated"));
}

TEST_CASE("histogram_aggregated runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "aggregated"));
}

TEST_CASE("histogram_aggregated rejects bad arguments and zeroes the output for n == 0",
          "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "aggregated"));
}

TEST_CASE("both kernels match the reference on the contention sweep's inputs", "[gpu][long]") {
  // The inputs of the benchmark's --sweep: 256, 64, 16, 4 and 1 distinct byte values. Sizes
  // that end in a partial warp and a partial block; every fourth offset. 256 KiB in the
  // simulator, whose warp collectives are slow (sim/README.md, "Speed"), 1 MiB on a GPU: 3 s
  // in the simulator (14 s at 1 MiB; [long]: scripts/watch.sh runs it after the other kernel
  // tests).
  histo::require_gpu();
  const uint64_t seed = histo::test_seed();
  const size_t n = std::min<size_t>((size_t(histo::kSimulator ? 1 << 18 : 1 << 20)) + 37,
                                    histo::grading_size_limit());
  for (unsigned distinct : {256u, 64u, 16u, 4u, 1u}) {
    std::vector<uint8_t> data(n);
    histo::generate_distinct(distinct, seed, data.data(), n);
    const std::string name = "distinct" + std::to_string(distinct);
    for (const histo::Variant& variant : variants()) {
      for (size_t offset : {0, 4, 9, 15}) {
        for (size_t size : {n, n - 20, size_t(1000)}) {
          const std::string report =
              histo::grade_byte_case(variant, data.data(), size, offset, name, seed);
          histo::check_report(report);
        }
      }
    }
  }
  SUCCEED("both kernels match the reference at 256, 64, 16, 4 and 1 distinct values");
}

// ---- GPU: letters and 64-bit counters ------------------------------------------------------

TEST_CASE("letter_histogram matches the CPU letter reference on every dataset", "[gpu]") {
  // The expected total is the number of letters in the input, not n.
  check_sweep<uint32_t>("letter_histogram", letter_histogram, kNumLetterBins, letter_reference);
}

TEST_CASE("letter_histogram rejects bad arguments and zeroes its 7 bins for n == 0", "[gpu]") {
  histo::require_gpu();
  histo::DeviceBuffer<uint8_t> input(64);
  CUDA_CHECK(cudaMemset(input.get(), 'a', 64));
  histo::GuardedBins<uint32_t> bins(kNumLetterBins);
  std::vector<uint8_t> host(64, 'a');
  CHECK_THROWS_AS(letter_histogram(input.get(), 64, nullptr, 0), std::invalid_argument);
  CHECK_THROWS_AS(letter_histogram(nullptr, 64, bins.get(), 0), std::invalid_argument);
  CHECK_THROWS_AS(letter_histogram(host.data(), 64, bins.get(), 0), std::invalid_argument);
  CHECK(letter_histogram(nullptr, 0, bins.get(), 0).grid == 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report = histo::compare_bins(
      std::vector<uint64_t>(kNumLetterBins, 0), bins.fetch(), 0,
      histo::CaseInfo{"lab03", "letter_histogram", "empty", 0, 0, 0, "no launch"},
      bins.guard_problem());
  histo::check_report(report);
}

TEST_CASE("letter_histogram runs in order on the non-blocking stream it is given", "[gpu]") {
  check_stream<uint32_t>("letter_histogram", letter_histogram, kNumLetterBins, letter_reference);
}

TEST_CASE("letter_histogram counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  // Runs of 'e' (bin 1), 'z' (bin 6) and '#' (no bin), built on the device.
  const size_t n = histo::kMaxElements32, offset = 5;
  const histo::DeviceMemory device =
      histo::require_device_memory(n + histo::DeviceInput::kSlack + offset);
  const uint8_t values[3] = {'e', 'z', '#'};
  const histo::RunsInput input(n, 1, values, offset);
  // Expected bins from the CPU reference (one byte of each run), not from your letter_bin.
  std::vector<uint64_t> expected(kNumLetterBins, 0);
  uint64_t letters = 0;
  for (int k = 0; k < 3; ++k) {
    const uint8_t value = input.value(k);
    const std::vector<uint32_t> one = histo::reference_letter_histogram(&value, 1);
    for (int b = 0; b < kNumLetterBins; ++b) {
      expected[b] += uint64_t(one[b]) * input.run_length(k);
      letters += uint64_t(one[b]) * input.run_length(k);
    }
  }
  histo::GuardedBins<uint32_t> bins(kNumLetterBins);
  histo::CaseInfo info{"lab03", "letter_histogram", input.describe(), 0, n, offset, ""};
  info.parts = kLetterAnd64Parts;
  const histo::LaunchShape shape = letter_histogram(input.get(), n, bins.get(), 0);
  info.shape = shape.describe();
  info.grid = shape.grid;
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report =
      histo::compare_bins(expected, bins.fetch(), letters, info, bins.guard_problem(),
                          bins.work_problem(n));
  if (!report.empty()) FAIL(report << histo::kLargeInputHint);
  SUCCEED("letter_histogram counts n = 2^32 - 1 bytes exactly");
}

TEST_CASE("histogram64 runs in order on the non-blocking stream it is given", "[gpu]") {
  check_stream<unsigned long long>("histogram64", histogram64, histo::kNumBins,
                                   histo::reference_histogram64);
}

TEST_CASE("histogram64 matches the 64-bit CPU reference on every dataset", "[gpu]") {
  check_sweep<unsigned long long>("histogram64", histogram64, histo::kNumBins,
                                  histo::reference_histogram64);
}

TEST_CASE("histogram64 rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::require_gpu();
  histo::DeviceBuffer<uint8_t> input(64);
  CUDA_CHECK(cudaMemset(input.get(), 1, 64));
  histo::GuardedBins<unsigned long long> bins(histo::kNumBins);
  std::vector<uint8_t> host(64, 1);
  CHECK_THROWS_AS(histogram64(input.get(), 64, nullptr, 0), std::invalid_argument);
  CHECK_THROWS_AS(histogram64(nullptr, 64, bins.get(), 0), std::invalid_argument);
  CHECK_THROWS_AS(histogram64(host.data(), 64, bins.get(), 0), std::invalid_argument);
  CHECK(histogram64(nullptr, 0, bins.get(), 0).grid == 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report = histo::compare_bins(
      std::vector<uint64_t>(histo::kNumBins, 0), bins.fetch(), 0,
      histo::CaseInfo{"lab03", "histogram64", "empty", 0, 0, 0, "no launch"},
      bins.guard_problem());
  histo::check_report(report);
}

TEST_CASE("the 32-bit launchers refuse 2^32 or more elements instead of wrapping", "[gpu]") {
  // A uint32_t counter that passes 4294967295 starts again at 0: with n = 2^32 + 5 bytes of one
  // value, a 32-bit bin would read 5. The bins would still be "a histogram", silently wrong, so
  // the 32-bit launchers throw std::length_error before touching memory; histogram64 is the
  // launcher for such inputs (next test). The small buffer is never read.
  histo::require_gpu();
  histo::DeviceBuffer<uint8_t> input(64);
  histo::GuardedBins<uint32_t> bins(histo::kNumBins);
  for (size_t n : {size_t(1) << 32, (size_t(1) << 32) + 5, (size_t(1) << 40)}) {
    INFO("n = " << n);
    CHECK_THROWS_AS(histogram_global(input.get(), n, bins.get(), 0), std::length_error);
    CHECK_THROWS_AS(histogram_aggregated(input.get(), n, bins.get(), 0), std::length_error);
    CHECK_THROWS_AS(letter_histogram(input.get(), n, bins.get(), 0), std::length_error);
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> untouched = bins.fetch();
  for (size_t b = 0; b < untouched.size(); ++b) {
    INFO("bin " << b << " changed by a call that should have been refused");
    REQUIRE(untouched[b] == 0xA5A5A5A5u);
  }
}

TEST_CASE("histogram64 counts 2^32 + 2^20 + 3 bytes with one bin past 2^32", "[gpu][large]") {
  // Four runs built on the device by cudaMemset, so the expected bins are known without a CPU
  // pass. Bin 200 ends at 2^32 + 9: a 32-bit counter would show 9. The run boundaries are odd,
  // and the input starts 3 bytes past an aligned allocation.
  const size_t n = (size_t(1) << 32) + (size_t(1) << 20) + 3, offset = 3;
  const size_t a = 1000003, b = a + (size_t(1) << 32) + 9, c = n - 77;
  const histo::DeviceMemory device =
      histo::require_device_memory(offset + n + histo::DeviceInput::kSlack);
  histo::DeviceBuffer<uint8_t> buffer(offset + n + histo::DeviceInput::kSlack);
  const uint8_t values[4] = {17, 200, 3, 'q'};
  const uint8_t slack = histo::slack_byte_for(values, 4);
  CUDA_CHECK(cudaMemset(buffer.get(), slack, buffer.bytes()));
  uint8_t* d_in = buffer.get() + offset;
  CUDA_CHECK(cudaMemset(d_in, values[0], a));
  CUDA_CHECK(cudaMemset(d_in + a, values[1], b - a));
  CUDA_CHECK(cudaMemset(d_in + b, values[2], c - b));
  CUDA_CHECK(cudaMemset(d_in + c, values[3], n - c));
  std::vector<uint64_t> expected(histo::kNumBins, 0);
  expected[values[0]] = a;
  expected[values[1]] = b - a;
  expected[values[2]] = c - b;
  expected[values[3]] = n - c;

  histo::GuardedBins<unsigned long long> bins(histo::kNumBins);
  histo::CaseInfo info{"lab03", "histogram64", "four memset runs (17, 200, 3, 'q')", 0, n, offset,
                       ""};
  info.parts = kLetterAnd64Parts;
  info.slack_byte = slack;
  info.shape = histogram64(d_in, n, bins.get(), 0).describe();
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report =
      histo::compare_bins(expected, bins.fetch(), n, info, bins.guard_problem(),
                          bins.work_problem(n));
  if (!report.empty())
    FAIL(report << "\n  (bin 200 is 2^32 + 9: 9 there means 32-bit counters; missing counts at "
                   "the end mean an index that wraps at 2^31 or 2^32)");
  SUCCEED("histogram64 counts " << n << " bytes, bin 200 = " << expected[200]);
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: histogram_aggregated sends one atomic per distinct value of a warp",
          "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "aggregated");
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::degenerate, size_t(4) << 20);
  histo::check_cost(c, "global atomic passes per request (degenerate data: one value)",
                    c.per(c.atomic_passes, c.atomic_requests), 1.5,
                    "warp aggregation gives 1.00: the 32 lanes hold one value, so one leader adds "
                    "32 once",
                    "every lane still calls atomicAdd (the leader test is missing, or each lane "
                    "adds 1 instead of the leader adding its group's count), so 32 lanes update "
                    "one word one after another",
                    /*at_least=*/false, &histo::CostLine::atomic_passes);
}

TEST_CASE("cost: histogram_aggregated stays a single atomic per value on text", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "aggregated");
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::text, size_t(4) << 20);
  histo::check_cost(c, "global atomic passes per request (English-like text)",
                    c.per(c.atomic_passes, c.atomic_requests), 8.0,
                    "warp aggregation gives about 5.6: one leader per distinct letter of the warp",
                    "lanes with the same letter each send their own atomic (the groups are not "
                    "found with __match_any_sync, or a non-leader adds too)",
                    /*at_least=*/false, &histo::CostLine::atomic_passes);
}
