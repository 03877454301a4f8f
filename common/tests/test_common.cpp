// Tests of common/ itself, CPU side: the references agree, the generators are deterministic and
// shaped as documented, and the comparison says what it should.
#include "histo/bits.hpp"
#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"
#include "histo/timing.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>

#include <algorithm>
#include <numeric>
#include <set>

using namespace histo;

TEST_CASE("the parallel reference equals the sequential oracle on every dataset", "[cpu]") {
  const uint64_t seed = test_seed();
  for (Dataset ds : all_datasets()) {
    for (size_t n : {size_t(0), size_t(1), size_t(4099), size_t(3) << 20}) {
      INFO(dataset_name(ds) << ", n = " << n << ", seed " << seed);
      const auto data = make_dataset(ds, n, seed);
      const auto expected = reference_histogram(data.data(), n);
      REQUIRE(std::accumulate(expected.begin(), expected.end(), uint64_t(0)) == n);
      for (unsigned threads : {1u, 2u, 3u, 0u})
        REQUIRE(reference_histogram_parallel(data.data(), n, threads) == expected);
      REQUIRE(widen(expected) == reference_histogram64(data.data(), n));
    }
  }
}

TEST_CASE("generators are deterministic per seed and prefix-stable", "[cpu]") {
  for (Dataset ds : all_datasets()) {
    INFO(dataset_name(ds));
    const auto a = make_dataset(ds, 300000, 42);
    REQUIRE(a == make_dataset(ds, 300000, 42));
    // A shorter input is a prefix of a longer one with the same seed.
    const auto prefix = make_dataset(ds, 100001, 42);
    REQUIRE(std::equal(prefix.begin(), prefix.end(), a.begin()));
    if (ds != Dataset::degenerate && ds != Dataset::alternating)
      REQUIRE(a != make_dataset(ds, 300000, 43));
  }
  REQUIRE(dataset_from_name("text") == Dataset::text);
  REQUIRE_THROWS_AS(dataset_from_name("nonsense"), std::invalid_argument);
}

TEST_CASE("datasets have the shapes their names promise", "[cpu]") {
  const size_t n = 1 << 20;
  const uint64_t seed = test_seed();
  auto hist = [&](Dataset ds) {
    const auto d = make_dataset(ds, n, seed);
    return reference_histogram(d.data(), n);
  };
  auto distinct = [](const std::vector<uint32_t>& h) {
    return std::count_if(h.begin(), h.end(), [](uint32_t c) { return c > 0; });
  };
  INFO("seed " << seed);
  const auto uniform = hist(Dataset::uniform);
  CHECK(*std::min_element(uniform.begin(), uniform.end()) > n / 256 * 9 / 10);
  CHECK(*std::max_element(uniform.begin(), uniform.end()) < n / 256 * 11 / 10);
  CHECK(distinct(hist(Dataset::degenerate)) == 1);
  CHECK(distinct(hist(Dataset::alternating)) == 2);
  auto skewed = hist(Dataset::skewed);
  std::sort(skewed.rbegin(), skewed.rend());
  CHECK(std::accumulate(skewed.begin(), skewed.begin() + 8, uint64_t(0)) > n / 2);
  const auto text = hist(Dataset::text);
  CHECK(text[' '] > n / 10);
  CHECK(text['e'] > text['z']);
  for (int b = 0; b < 256; ++b)
    if (text[b]) CHECK((std::isalpha(b) || b == ' ' || b == ',' || b == '.' || b == '\n'));
  CHECK(distinct(hist(Dataset::image)) > 100);
  const auto runs = make_dataset(Dataset::runs, n, seed);
  size_t changes = 0;
  for (size_t i = 1; i < n; ++i) changes += runs[i] != runs[i - 1];
  CHECK(n / (changes + 1) > 100);  // mean run length about 256
  std::vector<uint8_t> few(n);
  generate_distinct(4, seed, few.data(), n);
  CHECK(std::set<uint8_t>(few.begin(), few.end()).size() == 4);
}

TEST_CASE("the letter and wide references count what they document", "[cpu]") {
  const std::string s = "abcd efgh yz AZ{`~";
  const auto letters = reference_letter_histogram(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  CHECK(letters == std::vector<uint32_t>{4, 4, 0, 0, 0, 0, 2});
  const std::vector<uint16_t> wide = {0, 5, 5, 999, 1000, 65535};
  const auto w = reference_wide_histogram(wide.data(), wide.size(), 1000);
  CHECK(w.size() == 1000);
  CHECK(w[0] == 1);
  CHECK(w[5] == 2);
  CHECK(w[999] == 1);
  CHECK(std::accumulate(w.begin(), w.end(), uint64_t(0)) == 4);  // 1000 and 65535 ignored
  const auto wd = make_wide_dataset(true, 3000, 100000, 7);
  CHECK(*std::max_element(wd.begin(), wd.end()) < 3000);
}

TEST_CASE("compare_bins accepts equal bins and explains wrong ones", "[cpu]") {
  const CaseInfo info{"labXX", "demo", "uniform", 7, 1024, 3, "grid 4 x block 256"};
  std::vector<uint64_t> expected(256, 4);
  CHECK(compare_bins(expected, expected, 1024, info).empty());

  auto actual = expected;
  actual[5] = 3;
  std::string report = compare_bins(expected, actual, 1024, info);
  CHECK(report.find("bin 5: expected 4, got 3") != std::string::npos);
  CHECK(report.find("seed 7") != std::string::npos);
  CHECK(report.find("grid 4 x block 256") != std::string::npos);
  CHECK(report.find("(-1)") != std::string::npos);
  CHECK(report.find("likely cause") != std::string::npos);

  CHECK(compare_bins(expected, std::vector<uint64_t>(256, 0), 1024, info).find("kernel ran but") !=
        std::string::npos);
  CHECK(compare_bins(expected, std::vector<uint64_t>(256, 0xA5A5A5A5u), 1024, info).find("poison") !=
        std::string::npos);
  CHECK(compare_bins(expected, std::vector<uint64_t>(256, 1), 1024, info).find("n/4") !=
        std::string::npos);
  CHECK(compare_bins(expected, std::vector<uint64_t>(256, 8), 1024, info).find("doubled") !=
        std::string::npos);
  auto moved = expected;
  moved[0] += 1;
  moved[1] -= 1;
  CHECK(compare_bins(expected, moved, 1024, info).find("wrong bins") != std::string::npos);
  CHECK(compare_bins(expected, expected, 1024, info, "2 words after").find("out of bounds") !=
        std::string::npos);
  CHECK(compare_bins(expected, expected, 1025, info).find("sum of bins") != std::string::npos);
}

TEST_CASE("compare_bins fits its likely cause to what ran and to the symptom", "[cpu]") {
  std::vector<uint64_t> expected(256, 4000);
  const uint64_t n = 256 * 4000;
  CaseInfo gpu{"labXX", "demo", "uniform", 7, n, 0, "grid 4 x block 256"};
  gpu.grid = 4;
  CaseInfo replay = gpu;
  replay.cpu_emulation = true;
  CaseInfo empty = gpu;
  empty.grid = 0;
  empty.shape = "no launch";

  // An empty grid: no "was the kernel launched", the grid size is named.
  const std::string none = compare_bins(expected, std::vector<uint64_t>(256, 0), n, empty);
  CHECK(none.find("empty grid") != std::string::npos);
  CHECK(none.find("launched?") == std::string::npos);

  // Lost counts: a race is suggested only where threads can race.
  auto lost = expected;
  lost[9] -= 100;
  const std::string on_gpu = compare_bins(expected, lost, n, gpu);
  const std::string on_cpu = compare_bins(expected, lost, n, replay);
  if (!kSimulator) CHECK(on_gpu.find("atomic") != std::string::npos);
  CHECK(on_cpu.find("atomic") == std::string::npos);
  CHECK(on_cpu.find("no race") != std::string::npos);

  // A wrapped 8-bit counter: -256 in one bin, +1 in the next. Never "use an atomic".
  auto wrapped = expected;
  wrapped[9] -= 256;
  wrapped[10] += 1;
  const std::string carry = compare_bins(expected, wrapped, n, gpu);
  CHECK(carry.find("8-bit packed counter") != std::string::npos);
  CHECK(carry.find("bin 9 is short by 1 x 256 and bin 10 gained 1") != std::string::npos);
  CHECK(carry.find("atomic would not help") != std::string::npos);
  auto top = expected;  // the top byte of a word: the carry left the word
  top[11] -= 512;
  CHECK(compare_bins(expected, top, n, gpu).find("short by 2 x 256") != std::string::npos);

  // Counts missing in lumps of 128: a dropped spill, but only for a kernel that spills (the
  // registry says which); for any other kernel the lumps are a coincidence of the input.
  auto lumps = expected;
  lumps[3] -= 128;
  lumps[200] -= 384;
  CaseInfo spills = gpu;
  spills.parts = kWordLoads | kPacked8 | kSpills128;
  CHECK(compare_bins(expected, lumps, n, spills).find("lumps of 128") != std::string::npos);
  CHECK(compare_bins(expected, lumps, n, gpu).find("lumps of 128") == std::string::npos);
  const Variant check{"labXX", "check", "spills", nullptr, Expect::correct, kSpills128};
  CHECK(case_of(check, "uniform", 7, n, 0).parts == kSpills128);
  CHECK(case_of(check.with("check on 1 block", nullptr), "uniform", 7, n, 0).parts == kSpills128);
  const Variant undeclared{"labXX", "demo", "nothing declared", nullptr};
  CHECK(case_of(undeclared, "uniform", 7, n, 0).parts == 0);
}

TEST_CASE("compare_bins names a hazard the simulator saw first, even when the bins are right",
          "[cpu]") {
  std::vector<uint64_t> expected(256, 4);
  CaseInfo info{"labXX", "demo", "uniform", 7, 1024, 0, "grid 4 x block 256"};
  info.hazard = "a race on s_bins[7] between thread (0, 3) and thread (0, 9)";
  const std::string right = compare_bins(expected, expected, 1024, info);
  CHECK(right.find("likely cause: a race on s_bins[7]") != std::string::npos);
  CHECK(right.find("right bins this time") != std::string::npos);
  CHECK(right.find("the bins alone suggest") == std::string::npos);
  auto lost = expected;
  lost[9] -= 3;
  const std::string wrong = compare_bins(expected, lost, 1024, info);
  CHECK(wrong.find("wrong histogram") != std::string::npos);
  CHECK(wrong.find("likely cause: a race on s_bins[7]") < wrong.find("the bins alone suggest"));
}

TEST_CASE("the slack byte is a value the input does not hold, where there is one", "[cpu]") {
  const uint8_t first = DeviceInput::kSlackByte;
  CHECK(slack_byte_for(nullptr, 0) == first);
  std::vector<uint8_t> data = {1, 2, 3};
  CHECK(slack_byte_for(data.data(), data.size()) == first);
  data.push_back(first);  // the next value up, then past 255 to 0
  CHECK(slack_byte_for(data.data(), data.size()) == first + 1);
  data.clear();
  for (unsigned v = first; v < 256; ++v) data.push_back(uint8_t(v));
  CHECK(slack_byte_for(data.data(), data.size()) == 0);
  // Every value present: no byte is absent, the first choice stays.
  for (unsigned v = 0; v < first; ++v) data.push_back(uint8_t(v));
  CHECK(slack_byte_for(data.data(), data.size()) == first);
  // The same input always gets the same slack.
  const auto text = make_dataset(Dataset::text, 4099, 5);
  CHECK(slack_byte_for(text.data(), text.size()) == slack_byte_for(text.data(), text.size()));
}

TEST_CASE("split_problem names a split that does not add up, without overflow", "[cpu]") {
  CHECK(split_problem(3, 2, 5, 40, 16).empty());
  CHECK(split_problem(0, 0, 0, 0, 16).empty());
  CHECK(split_problem(13, 0, 0, 5, 16).find("longer than the input") != std::string::npos);
  // head > n makes (n - head) / 16 huge: the sum wraps back to n, the check must not be fooled.
  const size_t huge = (size_t(0) - 8) / 16;
  CHECK(!split_problem(13, huge, 0, 5, 16).empty());
  CHECK(split_problem(1, 1, 1, 40, 16).find("do not add up") != std::string::npos);
}

TEST_CASE("min_of and max_of work in constant expressions on the host", "[cpu]") {
  static_assert(min_of(3, 5) == 3 && max_of(3, 5) == 5, "");
  CHECK(min_of(size_t(7), size_t(2)) == 2);
  CHECK(max_of(uint32_t(0), uint32_t(9)) == 9);
}

TEST_CASE("small helpers: ceil_div, launch shape text, median", "[cpu]") {
  CHECK(ceil_div(0, 4) == 0);
  CHECK(ceil_div(1, 4) == 1);
  CHECK(ceil_div(8, 4) == 2);
  CHECK(ceil_div(9, 4) == 3);
  CHECK(LaunchShape{}.describe() == "no launch");
  CHECK(LaunchShape{4, 256, 1024}.describe() == "grid 4 x block 256, 1024 B shared");
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == 2.5);
  CHECK(!grading_sizes().empty());
  CHECK(grading_sizes().front() == 0);
}
