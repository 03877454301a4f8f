// Catch2 glue for the graders: skip GPU tests cleanly where there is no GPU, pick seeds, and
// run the standard checks with their reports as failure messages.
#pragma once

#include "histo/datasets.hpp"
#include "histo/grading.hpp"
#include "histo/perf.hpp"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace histo {

// SKIPs the current test with the reason when no GPU is usable (no device, no driver, driver
// too old). FAILs when a GPU is there but this build has no code for it: that needs a fix.
void require_gpu();

// require_gpu() for a test that needs threads really running at once (a race demonstration):
// SKIPs in the CPU simulator, saying `why` it cannot show there.
void require_parallel_gpu(const char* why);

// SKIPs unless the device can hold `bytes` (with headroom), saying how much it has. In the CPU
// simulator the device holds them while the returned object lives (histo_sim::LargeInputs: its
// pages backed only where written, memset runs of gigabytes sharing pages, launches without the
// hazard checks); a sanitizer build of it skips, saying why.
class DeviceMemory {
 public:
  explicit DeviceMemory(std::shared_ptr<void> hold) : hold_(std::move(hold)) {}

 private:
  std::shared_ptr<void> hold_;
};
[[nodiscard]] DeviceMemory require_device_memory(size_t bytes);

// The run's seed (Catch2's --rng-seed), for datasets: failures print it for re-runs.
uint64_t test_seed();

// Passes when `report` (from compare_bins or a grade_* helper) is empty; fails with it
// otherwise. Every test ends in an assertion, so reports (JUnit too) list it.
void check_report(const std::string& report);

// grade_byte_sweep() as a Catch2 check: fails with the report, passes otherwise.
void check_byte_sweep(const Variant& variant);

// Runs the launcher on n = 2^31 + 4099 bytes built on the device by three memsets (so the
// expected bins are known without a CPU pass): catches 32-bit index arithmetic. SKIPs when the
// GPU lacks the memory.
void check_large_input(const Variant& variant);

// Runs the launcher on n = 2^32 - 1 bytes (kMaxElements32, the largest n a launcher with 32-bit
// counters accepts), built on the device by memsets, and checks every bin exactly: catches a
// 32-bit element index that wraps near 2^32. SKIPs when the GPU lacks the memory (4 GiB).
void check_max_input(const Variant& variant);

// Runs the launcher on a non-blocking stream with the input's copy still in flight on it
// (StreamedInput), then waits for that stream only: catches a launcher that ignores its
// `stream` argument.
void check_stream_order(const Variant& variant);

// What a failure of a stream-order test most likely means, appended to its report.
extern const char* const kStreamOrderHint;
// What a failure of a [large] test most likely means, appended to its report.
extern const char* const kLargeInputHint;

// The launcher rejects bad arguments with a clear exception (null output, null input with
// n > 0, a host pointer, n past the 32-bit counters' range) and writes nothing; n == 0 gives
// all-zero bins.
void check_bad_arguments(const Variant& variant);

// Every variant of `variants` that must be exact (Expect::correct) on each dataset at each size
// and each offset (bytes past an aligned allocation), all combinations, graded like the sweep:
// for tests that add adversarial cases of their own (the private tests, grading/private/).
// Sizes above grading_size_limit() are left out; SKIPs when that leaves none. Fails with the
// first reports.
void check_byte_cases(const std::vector<Variant>& variants, const std::vector<size_t>& sizes,
                      const std::vector<size_t>& offsets, const std::vector<Dataset>& datasets);

// The [perf] tests: the counts of one launcher call (histo/perf.hpp), the simulator's or
// Nsight Compute's. SKIPs where nothing can be counted (a GPU build outside the GRADE_NCU mode,
// a simulator built without Clang), saying why, and in that mode's pass 1 ("collected for
// Nsight Compute"); FAILs when the kernel's bins are wrong (a wrong kernel's cost grades
// nothing).
CostCounts require_cost(const Variant& variant, Dataset dataset, size_t n);

// One [perf] bound: passes when value <= bound (or >= bound with at_least); otherwise fails
// with what was measured and where, the bound, what the lab's technique gives, the source line
// that holds most of `line` (the count the bound is about; none for counts no line holds, such
// as blocks launched: histo::top_line), how far the kernel is from the technique on the H200's
// cost model (histo::distance_to_goal) and a likely cause in the student's terms. Either way it
// prints one line on stdout,
//   [perf] COUNTER = VALUE (bound: at most BOUND, met|missed) on DATASET, N bytes; counted WHERE
// that grading/histo_grading/ncu.py reads to compare the simulator with Nsight Compute.
extern const char* const kCostLinePrefix;
void check_cost(const CostCounts& counts, const char* counter, double value, double bound,
                const char* technique_gives, const char* likely_cause, bool at_least = false,
                LineCounter line = nullptr);

// Finds a registered variant by name or FAILs.
const Variant& find_variant(const std::vector<Variant>& variants, const char* name);

}  // namespace histo
