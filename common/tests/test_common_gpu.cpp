// Tests of common/ itself, GPU side: detection, argument checks, guards, the probe, timing.
#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/probe.hpp"
#include "histo/timing.hpp"

#include <catch2/catch_test_macros.hpp>

using namespace histo;

TEST_CASE("GPU detection gives a reason whenever it finds no usable GPU", "[cpu]") {
  const GpuStatus& s = gpu_status();
  if (!s.available || !s.runnable) CHECK(!s.reason.empty());
  if (s.available) CHECK(s.sm_count > 0);
  if (kSimulator) {
    // No driver, runtime or compute capability is invented for the simulator.
    CHECK(describe_gpu(s).find("the CPU simulator") != std::string::npos);
    CHECK(describe_gpu(s).find("compute capability") == std::string::npos);
    CHECK(describe_gpu(s).find("CUDA driver:") == std::string::npos);
  } else {
    CHECK(describe_gpu(s).find("CUDA runtime") != std::string::npos);
  }
}

TEST_CASE("guard words catch writes just outside the bins", "[gpu]") {
  require_gpu();
  GuardedBins<uint32_t> bins(256);
  CHECK(bins.guard_problem().empty());
  CUDA_CHECK(cudaMemset(bins.get() + 256, 0, sizeof(uint32_t)));  // one word past the end
  CHECK(bins.guard_problem().find("1 of the 64 words after") != std::string::npos);
  GuardedBins<uint32_t> before(256);
  CUDA_CHECK(cudaMemset(before.get() - 1, 0, sizeof(uint32_t)));
  CHECK(before.guard_problem().find("1 of the 64 words before") != std::string::npos);
}

TEST_CASE("the bins tell a kernel's counts from counts the host copied in", "[gpu]") {
  // The hazard: a launcher that counts on the host and copies the bins in passes every
  // comparison. The bins watch who writes them from the moment they are poisoned.
  require_gpu();
  GuardedBins<uint32_t> bins(256);
  CHECK(bins.work_problem(0).empty());  // nothing to count: no launch needed
  CHECK(bins.work_problem(100).find("no kernel was launched") != std::string::npos);
  CUDA_CHECK(cudaMemset(bins.get(), 0, 256 * sizeof(uint32_t)));  // zeroing is expected
  DeviceBuffer<uint8_t> data(64);
  CUDA_CHECK(cudaMemset(data.get(), 7, data.bytes()));
  DeviceBuffer<uint32_t> sink(1);
  bandwidth_probe(data.get(), 64, sink.get(), 0);  // launches a kernel through histo::launch
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(bins.work_problem(100).empty());
  const std::vector<uint32_t> counts(256, 1);
  CUDA_CHECK(cudaMemcpy(bins.get(), counts.data(), 256 * sizeof(uint32_t), cudaMemcpyHostToDevice));
  // Only the simulator sees the host's copies; on a GPU the launch check is what remains.
  if (kSimulator) CHECK(bins.work_problem(100).find("cudaMemcpy") != std::string::npos);
  bins.poison();  // starts afresh
  CHECK(bins.work_problem(100).find("no kernel was launched") != std::string::npos);
}

TEST_CASE("an impossible allocation throws a CudaError that names the sizes", "[gpu]") {
  require_gpu();
  try {
    DeviceBuffer<uint8_t> huge(size_t(1) << 50);
    FAIL("a 1 PiB allocation succeeded");
  } catch (const CudaError& e) {
    CHECK(std::string(e.what()).find("MiB free") != std::string::npos);
  }
  DeviceBuffer<uint8_t> fine(1024);  // the failure must not poison later calls
  CHECK(fine.get() != nullptr);
}

TEST_CASE("the bandwidth probe reads any alignment and size without faults", "[gpu]") {
  require_gpu();
  DeviceBuffer<uint8_t> data(1 << 20);
  CUDA_CHECK(cudaMemset(data.get(), 7, data.bytes()));
  DeviceBuffer<uint32_t> sink(1);
  CUDA_CHECK(cudaMemset(sink.get(), 0xA5, sizeof(uint32_t)));
  for (size_t offset : {0, 1, 15})
    for (size_t n : {size_t(0), size_t(1), size_t(17), size_t(1000), (size_t(1) << 20) - 16})
      bandwidth_probe(data.get() + offset, n, sink.get(), 0);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  // The sink is written only when the checksum hits the impossible value: never, here.
  CHECK(sink.download()[0] == 0xA5A5A5A5u);
}

TEST_CASE("time_median times a kernel and reports sane numbers", "[gpu]") {
  require_gpu();
  DeviceBuffer<uint8_t> data(size_t(64) << 20);
  CUDA_CHECK(cudaMemset(data.get(), 1, data.bytes()));
  DeviceBuffer<uint32_t> sink(1);
  int resets = 0;
  const Timing t = time_median([&](cudaStream_t s) { bandwidth_probe(data.get(), data.size(), sink.get(), s); },
                               [&](cudaStream_t) { ++resets; }, 0, TimingOptions{1, 3, 5, 100});
  CHECK(t.reps >= 3);
  CHECK(resets == 1 + t.reps);
  CHECK(t.min_ms > 0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);
}
