// lab01 grader. CPU tests check your partition arithmetic (they run without a GPU); GPU tests
// compare your kernel with the CPU reference on every dataset, awkward sizes and alignments.
#include "lab01.h"

#include "histo/catch_support.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <string>

using namespace lab01;

namespace {

// n values that hit the edge cases of a rounded-up partition.
const size_t kSizes[] = {0, 1, 2, 3, 255, 256, 257, 1000, 65536, 65537, 1000003, 4294967295ull};
const size_t kThreadCounts[] = {1, 2, 3, 7, 256, 1000, 65536};

}  // namespace

TEST_CASE("segment_bounds covers 0..n with contiguous non-overlapping segments", "[cpu]") {
  for (size_t n : kSizes) {
    for (size_t threads : kThreadCounts) {
      INFO("n = " << n << ", num_threads = " << threads);
      const size_t longest = histo::ceil_div(n, threads);
      size_t expected_begin = 0;
      for (size_t t = 0; t < threads; ++t) {
        const Segment seg = segment_bounds(t, threads, n);
        INFO("thread " << t << " got [" << seg.begin << ", " << seg.end << ")");
        REQUIRE(seg.begin <= seg.end);
        REQUIRE(seg.end <= n);
        // Empty segments may sit anywhere after the data runs out; others must follow on.
        if (seg.begin != seg.end) REQUIRE(seg.begin == expected_begin);
        REQUIRE(seg.end - seg.begin <= longest);
        expected_begin = std::max(expected_begin, seg.end);
      }
      INFO("the segments end at " << expected_begin << ": elements up to n are never counted");
      REQUIRE(expected_begin == n);
    }
  }
}

TEST_CASE("segmented_grid_size launches just enough threads", "[cpu]") {
  CHECK(segmented_grid_size(0) == 0);
  for (size_t n : kSizes) {
    if (n == 0) continue;
    INFO("n = " << n);
    const size_t grid = segmented_grid_size(n);
    REQUIRE(grid >= 1);
    // Enough threads for at most kElementsPerThread each, and not a whole block more.
    CHECK(grid * kBlockSize * kElementsPerThread >= n);
    CHECK((grid - 1) * kBlockSize * kElementsPerThread < n);
  }
}

TEST_CASE("the segmented partition counts every element once, emulated on the CPU", "[cpu]") {
  // Replays the kernel's partition sequentially: if the segments are right, this histogram
  // equals the reference whatever the grid.
  const size_t n = 1000003;
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_dataset(histo::Dataset::text, n, seed);
  const size_t threads = size_t(segmented_grid_size(n)) * kBlockSize;
  std::vector<uint64_t> bins(histo::kNumBins, 0);
  for (size_t t = 0; t < threads; ++t) {
    const Segment seg = segment_bounds(t, threads, n);
    for (size_t i = seg.begin; i < seg.end && i < n; ++i) ++bins[data[i]];
  }
  histo::CaseInfo info{"lab01", "segmented (CPU emulation)", "text", seed, n, 0,
                       std::to_string(threads) + " emulated threads"};
  info.grid = segmented_grid_size(n);
  info.cpu_emulation = true;
  info.parts = histo::kByteLoads;  // a replay of the partition alone
  const std::string report =
      histo::compare_bins(histo::widen(histo::reference_histogram(data.data(), n)), bins, n, info);
  histo::check_report(report);
}

TEST_CASE("histogram_segmented matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "segmented"));
}

TEST_CASE("histogram_segmented counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "segmented"));
}

TEST_CASE("histogram_segmented counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "segmented"));
}

TEST_CASE("histogram_segmented runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "segmented"));
}

TEST_CASE("histogram_segmented rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "segmented"));
}

TEST_CASE("the racy kernel loses counts: plain ++ is not atomic", "[gpu]") {
  // Not your code: a demonstration. 16 Mi bytes of one value means 65536 threads incrementing
  // the same counter; without atomics most increments overwrite each other.
  histo::require_parallel_gpu("no increment can overwrite another");
  const size_t n = std::min<size_t>(size_t(16) << 20, histo::grading_size_limit());
  const auto data = histo::make_dataset(histo::Dataset::degenerate, n, histo::test_seed());
  histo::DeviceInput input(data.data(), n, 0);
  histo::GuardedBins<uint32_t> bins(histo::kNumBins);
  histogram_racy(input.get(), n, bins.get(), 0);
  CUDA_CHECK(cudaDeviceSynchronize());
  uint64_t counted = 0;
  for (uint64_t b : bins.fetch()) counted += b;
  WARN("racy kernel: counted " << counted << " of " << n << " bytes; lost " << (n - counted)
                               << " (" << 100.0 * double(n - counted) / double(n) << "%)");
  CHECK(counted < n);
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: histogram_segmented reads each byte once and adds it with one atomic",
          "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "segmented");
  const size_t n = size_t(4) << 20;
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, n);
  // A warp-wide instruction serves 32 lanes, so one per 32 bytes is one per byte per thread.
  const double per_32_bytes = 32.0 / double(n);
  histo::check_cost(c, "global load requests per 32 input bytes", c.load_requests * per_32_bytes,
                    1.25,
                    "the segmented loop gives 1.00: each thread reads each byte of its segment "
                    "once, one warp-wide load for the warp's 32 bytes, and reads nothing else",
                    "the kernel reads global memory more than once per byte: the byte is read "
                    "again where it is used (d_in[i] twice in the loop body), or the bin is read "
                    "before it is updated (a loop around atomicCAS instead of one atomicAdd)",
                    /*at_least=*/false, &histo::CostLine::load_requests);
  histo::check_cost(c, "global atomic requests per 32 input bytes",
                    c.atomic_requests * per_32_bytes, 1.25,
                    "the segmented loop gives 1.00: one atomicAdd of 1 per byte, a warp-wide "
                    "atomic for the warp's 32 bytes",
                    "more than one atomic per byte: a compare-and-swap loop that retries, or an "
                    "extra atomic per byte (an atomicAdd of 0 to read the bin, an atomicExch)",
                    /*at_least=*/false, &histo::CostLine::atomic_requests);
}

TEST_CASE("cost: histogram_segmented keeps every SM reading", "[gpu][perf]") {
  // 16 MiB: 256 blocks of 256 threads x 256 bytes, about two per SM of the H200's 132.
  const histo::Variant& v = histo::find_variant(variants(), "segmented");
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, size_t(16) << 20);
  histo::check_cost(c, "blocks launched", double(c.blocks), double(c.sms),
                    "segmented_grid_size gives 256 here, so every SM gets a block",
                    "segmented_grid_size returns a fixed or too small grid: it must grow with n, "
                    "ceil(n / (kBlockSize x kElementsPerThread)) blocks",
                    /*at_least=*/true);
  histo::check_cost(c, "SMs whose blocks read the input", double(c.loading_sms), double(c.sms),
                    "the segmented partition gives 132: every block's threads get bytes, so "
                    "every SM reads",
                    "the kernel divides the input among one block's threads, not the grid's: "
                    "num_threads is blockDim.x instead of gridDim.x * blockDim.x (or only block "
                    "0 counts), so segment_bounds gives every thread past block 0 an empty "
                    "segment and one SM reads the whole input while the others wait",
                    /*at_least=*/true);
}
