// Tests of common/ itself, GPU side: detection, argument checks, guards, the probe, timing.
#include "histo/catch_support.hpp"
#include "histo/gpu.hpp"
#include "histo/output_watch.hpp"
#include "histo/probe.hpp"
#include "histo/timing.hpp"

#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

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

TEST_CASE("the input's slack holds the slack byte chosen for that input", "[gpu]") {
  require_gpu();
  // Text with 'Z' (DeviceInput::kSlackByte, 0x5A) in it: the slack is another value.
  const std::string text = "ZZZ zebra, and a Zoo at the end of the line";
  const size_t offset = 5;
  DeviceInput input(text.data(), text.size(), offset);
  CHECK(input.slack_byte() == slack_byte_for(text.data(), text.size()));
  CHECK(text.find(char(input.slack_byte())) == std::string::npos);
  // Read back around the input: the slack before it, then the input, then the slack after.
  std::vector<uint8_t> around(offset + text.size() + DeviceInput::kSlack);
  CUDA_CHECK(cudaMemcpy(around.data(), input.get() - offset, around.size(), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < around.size(); ++i) {
    INFO("byte " << i << " of the allocation");
    const bool inside = i >= offset && i < offset + text.size();
    CHECK(around[i] == (inside ? uint8_t(text[i - offset]) : input.slack_byte()));
  }
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
  bandwidth_probe(data.get(), 64, sink.get(), 0);  // launches a kernel with <<<>>>
  CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(bins.work_problem(100).empty());
  const std::vector<uint32_t> counts(256, 1);
  CUDA_CHECK(cudaMemcpy(bins.get(), counts.data(), 256 * sizeof(uint32_t), cudaMemcpyHostToDevice));
  // The simulator's runtime sees the host's copies; on a GPU the graders' wrappers of the
  // runtime do (runtime_watch.cpp).
  CHECK(bins.work_problem(100).find("the host wrote into the output: 1 cudaMemcpy") != std::string::npos);
  bins.poison();  // starts afresh
  CHECK(bins.work_problem(100).find("no kernel was launched") != std::string::npos);
}

TEST_CASE("a graded call that copies device memory to the host counts on the host", "[gpu]") {
  // The hazard: a launcher that copies its input over, counts it on the host and hands the
  // counts to a kernel (by value, say), which writes them. The bins watch every copy of device
  // memory to the host until the grader reads them back.
  require_gpu();
  DeviceBuffer<uint8_t> data(64);
  CUDA_CHECK(cudaMemset(data.get(), 7, data.bytes()));
  std::vector<uint8_t> host(64);
  for (const cudaMemcpyKind kind : {cudaMemcpyDeviceToHost, cudaMemcpyDefault}) {
    INFO("copy kind " << int(kind));
    GuardedBins<uint32_t> bins(256);
    DeviceBuffer<uint32_t> sink(1);
    bandwidth_probe(data.get(), 64, sink.get(), 0);
    CUDA_CHECK(cudaMemcpy(host.data(), data.get(), 64, kind));
    CHECK(bins.work_problem(64).find("copied 64 bytes of device memory to the host during the "
                                     "graded call") != std::string::npos);
  }
  // Copies to the device, or within it, are no host counting; nor are the grader's own copies
  // once the call is over (fetch).
  GuardedBins<uint32_t> bins(256);
  DeviceBuffer<uint8_t> other(64);
  CUDA_CHECK(cudaMemcpy(other.get(), host.data(), 64, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(other.get(), data.get(), 64, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(other.get(), data.get(), 64, cudaMemcpyDefault));
  DeviceBuffer<uint32_t> sink(1);
  bandwidth_probe(data.get(), 64, sink.get(), 0);
  CHECK(bins.work_problem(64).empty());
  (void)bins.fetch();
  CUDA_CHECK(cudaMemcpy(host.data(), data.get(), 64, cudaMemcpyDeviceToHost));
  CHECK(bins.work_problem(64).empty());
  // Two calls in flight (two streams, say): reading back one call's bins is no copy of the
  // other's input.
  GuardedBins<uint32_t> first(256), second(256);
  bandwidth_probe(data.get(), 64, sink.get(), 0);
  (void)first.fetch();
  CHECK(first.guard_problem().empty());
  CHECK(second.work_problem(64).empty());
}

// Host code reading or writing device memory the way a launcher would: through a volatile
// pointer, so that the access happens here, once, whatever the compiler and its optimizations.
namespace {
uint8_t host_read(const uint8_t* d_p) { return *static_cast<const volatile uint8_t*>(d_p); }
void host_write(uint32_t* d_p, uint32_t value) { *static_cast<volatile uint32_t*>(d_p) = value; }
}  // namespace

TEST_CASE("host code touching device memory during a graded call is caught in the simulator",
          "[gpu]") {
  // The hazard: a launcher that reads d_in or writes d_bins through the pointer on the host. On a
  // GPU that crashes; in the simulator device memory is host memory, protected from host code
  // while a graded call runs, and the fault names the access. Only what every build says is
  // checked: the buffer is named by its size, and by the line that allocated it only where the
  // build records allocation sites (the traced Clang build; a GCC build has no line tables).
  if (!kSimulator) SKIP("a GPU crashes on it instead: nothing to check");
  if (!host_accesses_caught())
    SKIP("a sanitizer build (sim-asan, sim-tsan): device memory is not protected from the host "
         "under a sanitizer, so such accesses go unseen; the sim preset checks them");
  DeviceBuffer<uint8_t> data(64);
  CUDA_CHECK(cudaMemset(data.get(), 7, data.bytes()));
  {
    GuardedBins<uint32_t> bins(256);
    DeviceBuffer<uint32_t> sink(1);
    bandwidth_probe(data.get(), 64, sink.get(), 0);
    CHECK(host_read(data.get() + 5) == 7);  // the read goes through, and is recorded
    const std::string problem = bins.work_problem(64);
    INFO(problem);
    CHECK(problem.find("host code touched device memory outside the CUDA runtime's calls during "
                       "the graded call (a read of byte 5 of ") != std::string::npos);
    CHECK(problem.find("64-byte") != std::string::npos);
    if (problem.find("cudaMalloc'd at") != std::string::npos)
      CHECK(problem.find("cudaMalloc'd at test_common_gpu.cpp:") != std::string::npos);
  }
  {
    GuardedBins<uint32_t> bins(256);
    host_write(bins.get() + 3, 1);  // byte 12 of the bins, past the 64 guard words before them
    const std::string problem = bins.work_problem(0);
    INFO(problem);
    CHECK(problem.find("byte 268 of ") != std::string::npos);
#if defined(__x86_64__)
    CHECK(problem.find("(a write to byte 268 of ") != std::string::npos);
#endif
    (void)bins.fetch();  // the call is over: the grader's own accesses are not the launcher's
  }
  // Outside a graded call nothing is protected.
  CHECK(host_read(data.get()) == 7);
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
