// goal_counters (perf.hpp): the kernel and the read probe on the cost model's goal size, in the
// simulator. Beside the engine, apart from the grading layer (perf.cpp): it writes the input
// straight into device memory, which in a split grader only the worker holds.
#include "histo/perf.hpp"

#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/probe.hpp"
#include "histo/reference.hpp"
#include "histo_sim/model.hpp"

namespace histo {

std::pair<std::vector<histo_sim::LaunchCounters>, std::vector<histo_sim::LaunchCounters>>
goal_counters(const Variant& variant, Dataset dataset, size_t bytes) {
  histo_sim::set_device_memory(bytes + (size_t(256) << 20));
  std::pair<std::vector<histo_sim::LaunchCounters>, std::vector<histo_sim::LaunchCounters>> result;
  try {
    DeviceBuffer<uint8_t> d_in(bytes);
    DeviceBuffer<uint32_t> d_bins(kNumBins);
    DeviceBuffer<uint32_t> d_sink(1);
    // Marks the input written (the hazard checks), then fills it in place: the simulator's
    // device memory is the host's, so no second GiB is needed for a host copy.
    CUDA_CHECK(cudaMemset(d_in.get(), 0, bytes));
    generate(dataset, 2026, d_in.get(), bytes);
    result.first = histo_sim::sampled_counters([&] { variant.launch(d_in.get(), bytes, d_bins.get(), 0); });
    result.second = histo_sim::sampled_counters([&] { bandwidth_probe(d_in.get(), bytes, d_sink.get(), 0); });
  } catch (...) {
    histo_sim::set_device_memory(size_t(1) << 30);
    throw;
  }
  histo_sim::set_device_memory(size_t(1) << 30);
  return result;
}

}  // namespace histo
