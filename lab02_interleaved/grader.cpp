// lab02 grader. CPU tests check your grid-stride arithmetic (they run without a GPU); GPU tests
// compare your kernel with the CPU reference on every dataset, awkward sizes and alignments.
#include "lab02.h"

#include "histo/catch_support.hpp"
#include "histo/reference.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

using namespace lab02;

TEST_CASE("the grid-stride partition visits every index once, in coalesced rounds", "[cpu]") {
  for (unsigned grid : {1u, 2u, 3u, 7u}) {
    for (unsigned block : {1u, 32u, 96u, 256u}) {
      const size_t step = grid_stride_step(grid, block);
      INFO("grid " << grid << " x block " << block);
      REQUIRE(step == size_t(grid) * block);
      for (size_t n : {size_t(0), size_t(1), size_t(33), step - 1, step, step + 1, 5 * step + 3}) {
        INFO("n = " << n);
        std::vector<int> visits(n, 0);
        for (unsigned b = 0; b < grid; ++b)
          for (unsigned t = 0; t < block; ++t)
            for (size_t i = grid_stride_start(b, block, t); i < n; i += step) ++visits[i];
        for (size_t i = 0; i < n; ++i) {
          INFO("index " << i << " visited " << visits[i] << " times");
          REQUIRE(visits[i] == 1);
        }
      }
      // Coalescing: within a block, thread t + 1 starts on the byte after thread t.
      for (unsigned t = 0; t + 1 < block; ++t)
        REQUIRE(grid_stride_start(grid - 1, block, t + 1) == grid_stride_start(grid - 1, block, t) + 1);
    }
  }
  // 64-bit arithmetic: a large grid of large blocks passes 2^32, where an index computed in 32
  // bits wraps to a small one (block 4194304 x 1024 is exactly 2^32).
  CHECK(grid_stride_start(4194303u, 1024u, 1023u) == 4294967295ull);
  CHECK(grid_stride_start(4194304u, 1024u, 0u) == 4294967296ull);
  CHECK(grid_stride_start(4194304u, 1024u, 5u) == 4294967301ull);
  CHECK(grid_stride_start(2147483647u, 1024u, 1023u) == 2199023255551ull);  // 2^41 - 1
  CHECK(grid_stride_step(4194304u, 1024u) == 4294967296ull);
  CHECK(grid_stride_step(2147483647u, 1024u) == 2199023254528ull);
}

TEST_CASE("interleaved_grid_size fills the device but never exceeds what n needs", "[cpu]") {
  for (int sms : {1, 20, 132}) {
    const size_t fill = size_t(sms) * kBlocksPerSm;
    INFO(sms << " SMs");
    CHECK(interleaved_grid_size(0, sms) == 0);
    CHECK(interleaved_grid_size(1, sms) == 1);
    CHECK(interleaved_grid_size(kBlockSize, sms) == 1);
    CHECK(interleaved_grid_size(kBlockSize + 1, sms) == (fill >= 2 ? 2u : 1u));
    // Large inputs: the grid stops growing with n.
    CHECK(interleaved_grid_size(size_t(1) << 30, sms) == fill);
    CHECK(interleaved_grid_size(4294967295ull, sms) == fill);
  }
}

TEST_CASE("the interleaved partition counts every element once, emulated on the CPU", "[cpu]") {
  const size_t n = 1000003;
  const uint64_t seed = histo::test_seed();
  const auto data = histo::make_dataset(histo::Dataset::image, n, seed);
  const unsigned grid = interleaved_grid_size(n, 132);
  const size_t step = grid_stride_step(grid, kBlockSize);
  std::vector<uint64_t> bins(histo::kNumBins, 0);
  for (unsigned b = 0; b < grid; ++b)
    for (unsigned t = 0; t < kBlockSize; ++t)
      for (size_t i = grid_stride_start(b, kBlockSize, t); i < n && step > 0; i += step) ++bins[data[i]];
  histo::CaseInfo info{"lab02", "interleaved (CPU emulation)", "image", seed, n, 0,
                       "grid " + std::to_string(grid) + " x block 256 (132 SMs)"};
  info.grid = grid;
  info.cpu_emulation = true;
  info.parts = histo::kByteLoads;  // a replay of the partition alone
  const std::string report =
      histo::compare_bins(histo::widen(histo::reference_histogram(data.data(), n)), bins, n, info);
  histo::check_report(report);
}

TEST_CASE("histogram_interleaved matches the CPU reference on every dataset", "[gpu]") {
  histo::check_byte_sweep(histo::find_variant(variants(), "interleaved"));
}

TEST_CASE("histogram_interleaved counts inputs past 2^31 bytes", "[gpu][large]") {
  histo::check_large_input(histo::find_variant(variants(), "interleaved"));
}

TEST_CASE("histogram_interleaved counts n = 2^32 - 1 bytes exactly", "[gpu][large]") {
  histo::check_max_input(histo::find_variant(variants(), "interleaved"));
}

TEST_CASE("histogram_interleaved runs in order on the non-blocking stream it is given", "[gpu]") {
  histo::check_stream_order(histo::find_variant(variants(), "interleaved"));
}

TEST_CASE("histogram_interleaved rejects bad arguments and zeroes the output for n == 0", "[gpu]") {
  histo::check_bad_arguments(histo::find_variant(variants(), "interleaved"));
}

TEST_CASE("the read-only probes read any size and alignment without faults", "[gpu]") {
  histo::require_gpu();
  const size_t n = std::min<size_t>(size_t(1) << 20, histo::grading_size_limit());
  const auto data = histo::make_dataset(histo::Dataset::uniform, n, histo::test_seed());
  histo::DeviceBuffer<uint32_t> sink(1);
  for (const histo::ReadProbe& probe : probes()) {
    for (size_t offset : {0, 3}) {
      histo::DeviceInput input(data.data(), n, offset);
      for (size_t size : {size_t(0), size_t(1), size_t(257), n}) probe.run(input.get(), size, sink.get(), 0);
    }
  }
  CUDA_CHECK(cudaDeviceSynchronize());
  SUCCEED("both probes ran");
}

// ---- Cost ([perf]): counted by the CPU simulator with the H200's shape (histo/perf.hpp) ------

TEST_CASE("cost: histogram_interleaved reads a warp's 32 bytes from one sector", "[gpu][perf]") {
  const histo::Variant& v = histo::find_variant(variants(), "interleaved");
  const histo::CostCounts c = histo::require_cost(v, histo::Dataset::uniform, size_t(4) << 20);
  histo::check_cost(c, "global load sectors per request", c.per(c.load_sectors, c.load_requests), 1.5,
                    "the interleaved partition gives 1.00: lane l reads byte base + l, so a warp's "
                    "32 bytes share one 32-byte sector",
                    "each thread reads a contiguous chunk of its own (lab01's segmented indexing), "
                    "or the index steps by something other than 1 between neighbouring threads, "
                    "so each lane's byte sits in its own sector (32 per request)",
                    /*at_least=*/false, &histo::CostLine::load_sectors);
}
