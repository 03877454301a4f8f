#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"
#endif

#include <catch2/catch_get_random_seed.hpp>
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <iostream>
#include <stdexcept>

namespace histo {

void require_parallel_gpu(const char* why) {
  if (kSimulator) SKIP("the CPU simulator runs one CUDA thread at a time, so " << why
                       << ": this test runs on a GPU ("
                       << (kThreadSanitizer ? "ThreadSanitizer, in this build, reports the race"
                                            : "the sim-tsan preset reports the race")
                       << ")");
  require_gpu();
}

CostCounts require_cost(const Variant& variant, Dataset dataset, size_t n) {
  std::string why;
  if (!cost_counts_available(&why)) SKIP(why);
  const CostCounts counts = count_cost(variant, dataset, n, test_seed());
  if (counts.collected)
    SKIP("collected for Nsight Compute (pass 1 of 2): " << variant.id() << " ran on "
         << counts.data << "; pass 2 (HISTO_PERF_NCU=<the grouped counts>) checks the bounds");
  if (!counts.correct)
    FAIL(variant.id() << " gives wrong bins on " << counts.input
                      << ": fix what its other tests report first; the cost of a wrong kernel "
                         "grades nothing");
  return counts;
}

const char* const kCostLinePrefix = "[perf] ";

void check_cost(const CostCounts& counts, const char* counter, double value, double bound,
                const char* technique_gives, const char* likely_cause, bool at_least,
                LineCounter line) {
  const bool ok = at_least ? value >= bound : value <= bound;
  // One line per bound checked, passed or not, in both engines: grading/histo_grading/ncu.py
  // reads it to compare the simulator's value with Nsight Compute's.
  // Printed as it is, not as a Catch2 message, which the console reporter would wrap.
  std::cout << kCostLinePrefix << counter << " = " << value << " (bound: "
            << (at_least ? "at least " : "at most ") << bound << ", " << (ok ? "met" : "missed")
            << ") on " << counts.data << "; counted " << counts.where << std::endl;
  // Where the count is and how far the goal is: only for a bound missed (the distance runs
  // the kernel on 1 GiB).
  std::string where, distance;
  if (!ok) {
    where = top_line(counts, line);
    distance = distance_to_goal(counts);
  }
  INFO(counter << " = " << value << " on " << counts.input << "; the bound is "
               << (at_least ? "at least " : "at most ") << bound << "; " << technique_gives << "."
               << (where.empty() ? "" : "\nWhere: " + where + ".")
               << (distance.empty() ? "" : "\n" + distance + ".")
               << "\nLikely cause: " << likely_cause);
  CHECK(ok);
}

void require_gpu() {
  const GpuStatus& s = gpu_status();
  if (!s.available) SKIP("no usable GPU: " << s.reason);
  if (!s.runnable) FAIL(s.reason);
}

DeviceMemory require_device_memory(size_t bytes) {
  require_gpu();
  const size_t headroom = size_t(256) << 20;
#ifdef HISTO_SIM
  if (const char* why = histo_sim::LargeInputs::unavailable_reason())
    SKIP("needs " << (bytes >> 20) << " MiB of device memory in the CPU simulator: " << why);
  return DeviceMemory(std::make_shared<histo_sim::LargeInputs>(bytes + headroom));
#else
  size_t free_bytes = 0, total_bytes = 0;
  device_memory(&free_bytes, &total_bytes);
  if (free_bytes < bytes + headroom)
    SKIP("needs " << (bytes >> 20) << " MiB of device memory plus headroom; "
                  << gpu_status().name << " has " << (free_bytes >> 20) << " MiB free");
  return DeviceMemory(nullptr);
#endif
}

uint64_t test_seed() { return Catch::getSeed(); }

void check_report(const std::string& report) {
  if (!report.empty()) FAIL(report);
  SUCCEED("matches the reference");
}

void check_byte_sweep(const Variant& variant) {
  require_gpu();
  const std::string report = grade_byte_sweep(variant, test_seed());
  if (!report.empty()) FAIL(report);
  SUCCEED(variant.id() << " matches the reference on every dataset, size and alignment");
}

namespace {
// The simulator runs a warp collective per element about 30x slower than a plain atomic
// (sim/README.md, "Speed"): minutes per gigabyte. Such a kernel's inputs of gigabytes are
// graded on a GPU only; the same lab's plain kernels check the index arithmetic here.
void require_large_input_speed(const Variant& variant) {
  if (kSimulator && variant.has(kWarpAggregation))
    SKIP("64-bit indexing of " << variant.id() << " is checked only on a GPU: its warp "
         "collective per element takes minutes per gigabyte in the CPU simulator");
}
}  // namespace

void check_large_input(const Variant& variant) {
  require_large_input_speed(variant);
  const size_t n = (size_t(1) << 31) + 4099, offset = 5;
  const DeviceMemory device = require_device_memory(n + DeviceInput::kSlack + offset);
  DeviceBuffer<uint8_t> buffer(offset + n + DeviceInput::kSlack);
  // Three runs of three values with boundaries that are not multiples of anything useful.
  const uint8_t values[3] = {17, 200, 3};
  const uint8_t slack = slack_byte_for(values, 3);
  CUDA_CHECK(cudaMemset(buffer.get(), slack, buffer.bytes()));
  uint8_t* d_in = buffer.get() + offset;
  const size_t a = (size_t(1) << 30) + 7, b = (size_t(1) << 31) - 3;
  CUDA_CHECK(cudaMemset(d_in, values[0], a));
  CUDA_CHECK(cudaMemset(d_in + a, values[1], b - a));
  CUDA_CHECK(cudaMemset(d_in + b, values[2], n - b));
  std::vector<uint64_t> expected(kNumBins, 0);
  expected[values[0]] = a;
  expected[values[1]] = b - a;
  expected[values[2]] = n - b;

  GuardedBins<uint32_t> bins(kNumBins);
  CaseInfo info = case_of(variant, "three memset runs (17, 200, 3)", 0, n, offset);
  info.slack_byte = slack;
  const LaunchShape shape = variant.launch(d_in, n, bins.get(), 0);
  info.shape = shape.describe();
  info.grid = shape.grid;
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report =
      compare_bins(expected, bins.fetch(), n, info, bins.guard_problem(), bins.work_problem(n));
  if (!report.empty())
    FAIL(report << "\n  (n is past 2^31: look for int index arithmetic that wraps)");
  SUCCEED(variant.id() << " counts " << n << " bytes correctly");
}

const char* const kStreamOrderHint =
    "\n  (this test launches on a non-blocking stream while the input is still being copied on "
    "it, then waits for that stream only: every memset and kernel launch of the launcher must use "
    "its `stream` argument, never stream 0)";
const char* const kLargeInputHint =
    "\n  (n is near 2^32: look for int or unsigned index arithmetic that wraps, e.g. an element "
    "index or a segment end computed in 32 bits)";

void check_max_input(const Variant& variant) {
  require_large_input_speed(variant);
  const size_t n = kMaxElements32, offset = 5;
  const DeviceMemory device = require_device_memory(n + DeviceInput::kSlack + offset);
  const uint8_t values[3] = {17, 200, 3};
  const RunsInput input(n, 1, values, offset);
  std::vector<uint64_t> expected(kNumBins, 0);
  for (int k = 0; k < 3; ++k) expected[input.value(k)] += input.run_length(k);

  GuardedBins<uint32_t> bins(kNumBins);
  CaseInfo info = case_of(variant, input.describe(), 0, n, offset);
  info.slack_byte = input.slack_byte();
  const LaunchShape shape = variant.launch(input.get(), n, bins.get(), 0);
  info.shape = shape.describe();
  info.grid = shape.grid;
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::string report =
      compare_bins(expected, bins.fetch(), n, info, bins.guard_problem(), bins.work_problem(n));
  if (!report.empty()) FAIL(report << kLargeInputHint);
  SUCCEED(variant.id() << " counts n = 2^32 - 1 bytes exactly");
}

void check_stream_order(const Variant& variant) {
  require_gpu();
  const size_t n = std::min<size_t>((size_t(64) << 20) + 3, grading_size_limit());
  const uint64_t seed = test_seed();
  const std::vector<uint8_t> data = make_dataset(Dataset::text, n, seed);
  GuardedBins<uint32_t> bins(kNumBins);
  StreamedInput input(data.data(), n, 3);
  CaseInfo info = case_of(variant, "text", seed, n, 3);
  const LaunchShape shape = variant.launch(input.get(), n, bins.get(), input.stream());
  info.shape = shape.describe() + " on a non-blocking stream";
  info.grid = shape.grid;
  input.synchronize();
  const std::string report = compare_bins(widen(reference_histogram(data.data(), n)),
                                          bins.fetch(), n, info, bins.guard_problem(),
                                          bins.work_problem(n));
  if (!report.empty()) FAIL(report << kStreamOrderHint);
  SUCCEED(variant.id() << " runs in order on the stream it is given");
}

void check_bad_arguments(const Variant& variant) {
  require_gpu();
  DeviceBuffer<uint8_t> input(64);
  CUDA_CHECK(cudaMemset(input.get(), 1, 64));
  GuardedBins<uint32_t> bins(kNumBins);
  std::vector<uint8_t> host(64, 1);
  uint32_t host_bins[kNumBins];

  CHECK_THROWS_AS(variant.launch(input.get(), 64, nullptr, 0), std::invalid_argument);
  CHECK_THROWS_AS(variant.launch(nullptr, 64, bins.get(), 0), std::invalid_argument);
  CHECK_THROWS_AS(variant.launch(host.data(), 64, bins.get(), 0), std::invalid_argument);
  CHECK_THROWS_AS(variant.launch(input.get(), 64, host_bins, 0), std::invalid_argument);
  // Refused before any memory is touched, so the small buffer is safe to pass.
  CHECK_THROWS_AS(variant.launch(input.get(), kMaxElements32 + 1, bins.get(), 0),
                  std::length_error);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<uint64_t> untouched = bins.fetch();
  for (size_t b = 0; b < untouched.size(); ++b) {
    INFO("bin " << b << " changed by a call that should have been rejected");
    REQUIRE(untouched[b] == 0xA5A5A5A5u);
  }

  // n == 0: nothing to count, but the output is still overwritten with zeros.
  CHECK(variant.launch(nullptr, 0, bins.get(), 0).grid == 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  check_report(compare_bins(std::vector<uint64_t>(kNumBins, 0), bins.fetch(), 0,
                            case_of(variant, "empty", 0, 0, 0, "no launch"),
                            bins.guard_problem()));
}

void check_byte_cases(const std::vector<Variant>& variants, const std::vector<size_t>& sizes,
                      const std::vector<size_t>& offsets, const std::vector<Dataset>& datasets) {
  require_gpu();
  const uint64_t seed = test_seed();
  FailureReports reports;
  size_t graded = 0;
  for (const Variant& variant : variants) {
    if (variant.expect != Expect::correct) continue;
    for (Dataset ds : datasets) {
      const uint64_t ds_seed = seed + uint64_t(ds);
      for (size_t n : sizes) {
        if (n > grading_size_limit() || reports.full()) continue;
        const std::vector<uint8_t> data = make_dataset(ds, n, ds_seed);
        for (size_t offset : offsets) {
          if (reports.full()) break;
          reports.record(grade_byte_case(variant, data.data(), n, offset, dataset_name(ds), ds_seed));
          ++graded;
        }
      }
    }
  }
  if (!reports.text().empty()) FAIL(reports.text());
  if (graded == 0)
    SKIP("every size is above the largest input graded here (" << grading_size_limit()
         << " bytes): nothing to run");
  SUCCEED(graded << " cases match the reference");
}

const Variant& find_variant(const std::vector<Variant>& variants, const char* name) {
  for (const Variant& v : variants)
    if (std::string(v.name) == name) return v;
  FAIL("no variant named " << name << " is registered");
  throw std::logic_error("unreachable");  // FAIL throws
}

}  // namespace histo
