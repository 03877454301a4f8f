// Tests of the likely causes (common/src/diagnosis.cpp) with the labs' real registry entries:
// each builds the bins a realistic mistake leaves, and checks that the cause named fits the
// kernel that made it and that a cause the kernel cannot have is not offered. (The same
// mistakes made on the solutions and graded in the simulator: common/tests/mistakes/.)
#include "lab02.h"
#include "lab03.h"
#include "lab04.h"
#include "lab05.h"
#include "lab06.h"

#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

using histo::CaseInfo;

namespace {

// The case of a registered kernel on uniform data: what a grader builds before comparing.
CaseInfo case_for(const std::vector<histo::Variant>& variants, const char* name, size_t n,
                  long long grid) {
  CaseInfo info = histo::case_of(histo::find_variant(variants, name), "uniform", 7, n, 0,
                                 "grid " + std::to_string(grid) + " x block 256");
  info.grid = grid;
  return info;
}

bool says(const std::string& report, const char* text) {
  return report.find(text) != std::string::npos;
}

// Expected bins of n elements spread evenly over the 256 values.
std::vector<uint64_t> even_bins(uint64_t per_bin) { return std::vector<uint64_t>(256, per_bin); }

}  // namespace

TEST_CASE("nothing counted from one byte: head/tail only for kernels with vector loads", "[cpu]") {
  // lab04 histogram_shared with no barrier after zeroing, on n = 1: every count was zeroed by a
  // later thread. The kernel reads bytes one by one: no head or tail to blame.
  std::vector<uint64_t> expected(256, 0);
  expected[77] = 1;
  const std::vector<uint64_t> nothing(256, 0);
  const std::string shared = histo::compare_bins(
      expected, nothing, 1, case_for(lab04::variants(), "shared", 1, 1));
  INFO(shared);
  CHECK(says(shared, "__syncthreads()"));
  CHECK(says(shared, "zeroing"));
  CHECK_FALSE(says(shared, "16-byte"));
  CHECK_FALSE(says(shared, "head or tail"));
  CHECK_FALSE(says(shared, "no race can lose"));
  // The race tool named: this build's ThreadSanitizer where it has one, else the sim-tsan preset.
  if (histo::kSimulator) CHECK(says(shared, histo::kThreadSanitizer ? "ThreadSanitizer's report" : "sim-tsan"));
  // The same symptom from the 16-byte kernel: there the head and tail are a real cause.
  const std::string vec16 = histo::compare_bins(
      expected, nothing, 1, case_for(lab04::variants(), "shared_vec16", 1, 1));
  INFO(vec16);
  CHECK(says(vec16, "aligned 16-byte load"));
  // lab06's word kernels: a load is 4 bytes wide, and 1 byte is all head.
  const std::string words = histo::compare_bins(
      expected, nothing, 1, case_for(lab06::variants(), "merge", 1, 1));
  CHECK(says(words, "aligned 4-byte load"));
}

TEST_CASE("counts lost in lumps of 256 are no wrapped counter where counters are 32-bit", "[cpu]") {
  // lab04 with the barrier before the merge removed: bins short by 256 next to bins that gained,
  // as a wrapped 8-bit counter would leave them. lab04 has no 8-bit counters.
  const uint64_t n = 256 * 4096;
  const std::vector<uint64_t> expected = even_bins(4096);
  std::vector<uint64_t> actual = expected;
  actual[40] -= 512;
  actual[41] += 1;
  actual[90] -= 700;
  const std::string shared =
      histo::compare_bins(expected, actual, n, case_for(lab04::variants(), "shared", n, 2));
  INFO(shared);
  CHECK_FALSE(says(shared, "8-bit"));
  CHECK_FALSE(says(shared, "255"));
  CHECK(says(shared, "__syncthreads()"));
  CHECK(says(shared, "counting not finished before the merge"));
  // The same bins from lab05's packed kernel: there a wrapped counter is the mechanism, and the
  // merge's split into 16-bit pairs is the first thing to check.
  const std::string packed =
      histo::compare_bins(expected, actual, n, case_for(lab05::variants(), "packed", n, 2));
  INFO(packed);
  CHECK(says(packed, "8-bit packed counter passed 255"));
  CHECK(says(packed, "split_pairs"));
  CHECK(says(packed, "atomic would not help"));
  CHECK(packed.find("split_pairs") < packed.find("budget"));
}

TEST_CASE("a wrapped counter in the periodic merge names the barrier after the merge", "[cpu]") {
  const uint64_t n = 16319;
  std::vector<uint64_t> expected(256, 0), actual(256, 0);
  expected[38] = n;
  actual[38] = n - 9 * 256;
  actual[39] = 9;
  for (const char* name : {"merge", "merge_vec16"}) {
    const std::string report =
        histo::compare_bins(expected, actual, n, case_for(lab06::variants(), name, n, 1));
    INFO(report);
    CHECK(says(report, "8-bit packed counter passed 255"));
    CHECK(says(report, "the __syncthreads() after the merge"));
    CHECK_FALSE(says(report, "split_pairs"));  // the merge itself is lab05's, provided here
  }
  const std::string check =
      histo::compare_bins(expected, actual, n, case_for(lab06::variants(), "check", n, 1));
  INFO(check);
  CHECK(says(check, "not spilled"));
  CHECK_FALSE(says(check, "between two merges"));
}

TEST_CASE("unzeroed shared counters are named as such, never the output", "[cpu]") {
  // lab04 with shared bins never zeroed, one block: the simulator's 0xA5 fill merged into the
  // output. The launcher zeroes the output; the shared bins are the cause.
  const uint64_t n = 3;
  std::vector<uint64_t> expected(256, 0);
  expected[1] = expected[2] = expected[3] = 1;
  std::vector<uint64_t> actual(256, 0xA5A5A5A5u);
  for (int b = 1; b <= 3; ++b) actual[b] += 1;
  const std::string shared =
      histo::compare_bins(expected, actual, n, case_for(lab04::variants(), "shared", n, 1));
  INFO(shared);
  CHECK(says(shared, "shared bins were not all zeroed"));
  CHECK_FALSE(says(shared, "output must be zeroed"));
  // lab05 with a column not zeroed: every bin gains 64 x 0xA5 per block. No vector loads there.
  const uint64_t m = 1 << 20;
  const std::vector<uint64_t> even = even_bins(m / 256);
  std::vector<uint64_t> garbage = even;
  for (uint64_t& bin : garbage) bin += 65 * 64 * 0xA5;
  const std::string packed =
      histo::compare_bins(even, garbage, m, case_for(lab05::variants(), "packed", m, 65));
  INFO(packed);
  CHECK(says(packed, "column of packed counters was not zeroed"));
  CHECK_FALSE(says(packed, "vector"));
  CHECK_FALSE(says(packed, "head/tail"));
}

TEST_CASE("reads past the input: head and tail only where the kernel has them", "[cpu]") {
  // Every value but the slack byte, which slack_byte_for chooses for such an input, and 3 counts
  // in the slack byte's bin: bytes outside the input were read.
  const uint8_t slack = histo::DeviceInput::kSlackByte;
  std::vector<uint64_t> expected = even_bins(64);
  expected[slack] = 0;
  const uint64_t n = 255 * 64;
  std::vector<uint8_t> values;
  for (unsigned v = 0; v < 256; ++v)
    if (v != slack) values.push_back(uint8_t(v));
  REQUIRE(histo::slack_byte_for(values.data(), values.size()) == slack);
  std::vector<uint64_t> actual = expected;
  actual[slack] += 3;
  const auto staged = [&](CaseInfo info) {
    info.slack_byte = slack;
    return info;
  };
  const std::string bytes = histo::compare_bins(
      expected, actual, n, staged(case_for(lab02::variants(), "interleaved", n, 4)));
  INFO(bytes);
  CHECK(says(bytes, "a value the input does not hold) gained some"));
  CHECK(says(bytes, "loop bound past n"));
  CHECK_FALSE(says(bytes, "counted twice"));
  CHECK_FALSE(says(bytes, "head"));
  const std::string vectors = histo::compare_bins(
      expected, actual, n, staged(case_for(lab04::variants(), "shared_vec16", n, 4)));
  INFO(vectors);
  CHECK(says(vectors, "head/tail handling of 16-byte vector loads"));
  // Warp aggregation: a lane past n in the __match_any_sync mask (lab03's question 4).
  const std::string aggregated = histo::compare_bins(
      expected, actual, n, staged(case_for(lab03::variants(), "aggregated", n, 4)));
  INFO(aggregated);
  CHECK(says(aggregated, "lanes without an element were in the __match_any_sync mask"));
  CHECK_FALSE(says(bytes, "__match_any_sync"));
  // Other bins gained more: elements counted twice, and the slack read as well.
  std::vector<uint64_t> both = actual;
  both[9] += 5;
  const std::string twice = histo::compare_bins(
      expected, both, n, staged(case_for(lab02::variants(), "interleaved", n, 4)));
  INFO(twice);
  CHECK(says(twice, "counted twice (do thread ranges overlap?)"));
  CHECK(says(twice, "a value the input does not hold) gained 3"));
  CHECK(says(twice, "loop bound past n"));
  // Where the case does not know its slack (a CPU replay, bins that are not byte values), the
  // bin is one like any other.
  const std::string unknown = histo::compare_bins(
      expected, actual, n, case_for(lab02::variants(), "interleaved", n, 4));
  INFO(unknown);
  CHECK(says(unknown, "counted twice"));
  CHECK_FALSE(says(unknown, "outside the input"));
}

TEST_CASE("a gain in a byte the input holds is not blamed on the slack alone", "[cpu]") {
  // lab03's aggregated kernel with every lane of a group adding the group's count, on 31 bytes
  // with 'Z' (0x5A, the slack's first choice) three times in one warp: bin 90 gains 9 - 3. The
  // slack is another byte, which nothing counted.
  const std::string text = "ZZZ is the sound of a zebra, az";
  REQUIRE(text.size() == 31);
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(text.data());
  const std::vector<uint64_t> expected = histo::widen(histo::reference_histogram(bytes, 31));
  std::vector<uint64_t> actual = expected;
  actual['Z'] = 9;
  CaseInfo info = case_for(lab03::variants(), "aggregated", 31, 1);
  info.slack_byte = histo::slack_byte_for(bytes, 31);
  CHECK(info.slack_byte != 'Z');
  const std::string lab03 = histo::compare_bins(expected, actual, 31, info);
  INFO(lab03);
  CHECK(says(lab03, "does a group have more than one leader"));
  CHECK_FALSE(says(lab03, "outside the input"));
  // An input holding all 256 values: the slack stays 0x5A (slack_byte_for), which the input
  // holds too. A gain there may be a read outside the input or an element counted twice: both
  // are named, neither alone.
  const uint64_t n = 256 * 64;
  const std::vector<uint64_t> even = even_bins(64);
  std::vector<uint64_t> gained = even;
  gained[histo::DeviceInput::kSlackByte] += 3;
  CaseInfo every = case_for(lab03::variants(), "aggregated", n, 4);
  std::vector<uint8_t> all(256);
  for (unsigned v = 0; v < 256; ++v) all[v] = uint8_t(v);
  every.slack_byte = histo::slack_byte_for(all.data(), all.size());
  REQUIRE(every.slack_byte == histo::DeviceInput::kSlackByte);
  const std::string either = histo::compare_bins(even, gained, n, every);
  INFO(either);
  CHECK(says(either, "does a group have more than one leader"));
  CHECK(says(either, "or bytes before d_in or at or after d_in + n were read"));
  CHECK(says(either, "the input holds that value too"));
  CHECK_FALSE(says(either, "a value the input does not hold"));
}

TEST_CASE("lost counts: a race only where threads ran at once, a barrier only where there is one",
          "[cpu]") {
  const uint64_t n = 256 * 4000;
  const std::vector<uint64_t> expected = even_bins(4000);
  std::vector<uint64_t> lost = expected;
  lost[9] -= 100;
  const std::string interleaved = histo::compare_bins(
      expected, lost, n, case_for(lab02::variants(), "interleaved", n, 4));
  INFO(interleaved);
  CHECK_FALSE(says(interleaved, "__syncthreads"));
  if (histo::kSimulator)
    CHECK(says(interleaved, "no race can lose them"));
  else
    CHECK(says(interleaved, "use an atomic there"));
  const std::string shared =
      histo::compare_bins(expected, lost, n, case_for(lab04::variants(), "shared", n, 4));
  INFO(shared);
  CHECK(says(shared, "__syncthreads()"));
  CHECK_FALSE(says(shared, "no race can lose"));
  // A CPU replay has no barriers: neither a race nor a barrier is offered.
  CaseInfo replay = case_for(lab04::variants(), "shared", n, 4);
  replay.cpu_emulation = true;
  const std::string replayed = histo::compare_bins(expected, lost, n, replay);
  INFO(replayed);
  CHECK_FALSE(says(replayed, "__syncthreads"));
  CHECK_FALSE(says(replayed, "use an atomic"));
  // The simulator's hazard checks saw every access and found no race: no barrier is offered.
  if (histo::kSimulator) {
    CaseInfo checked = case_for(lab04::variants(), "shared", n, 4);
    checked.hazards_checked = true;
    const std::string clean = histo::compare_bins(expected, lost, n, checked);
    INFO(clean);
    CHECK_FALSE(says(clean, "__syncthreads"));
    CHECK(says(clean, "elements never visited"));
    CHECK(says(clean, "hazard checks found every access"));
  }
}

TEST_CASE("a hazard the simulator saw is the likely cause, named before the bins' own", "[cpu]") {
  const uint64_t n = 256 * 4000;
  const std::vector<uint64_t> expected = even_bins(4000);
  std::vector<uint64_t> lost = expected;
  lost[9] -= 100;
  CaseInfo info = case_for(lab04::variants(), "shared", n, 4);
  info.hazard = "race on s_bins[9]: thread (0, 3) wrote it at line 120, thread (0, 7) read it "
                "at line 124, between the same two barriers";
  const std::string report = histo::compare_bins(expected, lost, n, info);
  INFO(report);
  CHECK(says(report, "likely cause: race on s_bins[9]"));
  CHECK(report.find("race on s_bins[9]") < report.find("the bins alone suggest"));
}
