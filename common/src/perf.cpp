// count_cost (histo/perf.hpp): the simulator's counters for one launcher call.
#include "histo/perf.hpp"

#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/reference.hpp"

#include <stdexcept>
#include <vector>

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#endif

namespace histo {

bool cost_counts_available(std::string* why) {
#ifdef HISTO_SIM
  if (histo_sim::counters_available()) return true;
  if (why) *why = histo_sim::counters_unavailable_reason();
  return false;
#else
  if (why)
    *why = "the [perf] tests count in the CPU simulator (cmake --workflow --preset sim, then "
           "ctest --preset sim -L perf); a GPU build has no counters of its own";
  return false;
#endif
}

CostCounts count_cost(const Variant& variant, Dataset dataset, size_t n) {
  std::string why;
  if (!cost_counts_available(&why)) throw std::runtime_error(why);
#ifdef HISTO_SIM
  // The H200's shape, so grids come out as on that GPU (every cached answer about the device
  // is asked again).
  histo_sim::select_gpu("h200");
  forget_device_cache();
  const std::vector<uint8_t> data = make_dataset(dataset, n, 2026);
  DeviceBuffer<uint8_t> d_in(n);
  d_in.upload(data.data(), n);
  DeviceBuffer<uint32_t> d_bins(kNumBins);
  auto run = [&] {
    histo_sim::counters_begin();
    variant.launch(d_in.get(), n, d_bins.get(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    return histo_sim::counters_end();
  };
  run();  // learns each kernel's static shared memory, which sizes the launcher's grid
  forget_device_cache();
  const std::vector<histo_sim::LaunchCounters> launches = run();
  CostCounts c;
  c.input = std::string(dataset_name(dataset)) + ", " + std::to_string(n) +
            " bytes, in the CPU simulator with the " + histo_sim::current_gpu().name + "'s shape";
  c.correct = d_bins.download() == reference_histogram(data.data(), n);
  std::vector<uint64_t> loads_per_sm(size_t(histo_sim::current_gpu().sm_count), 0);
  for (const histo_sim::LaunchCounters& l : launches) {
    for (size_t sm = 0; sm < l.global_load_requests_per_sm.size() && sm < loads_per_sm.size(); ++sm)
      loads_per_sm[sm] += l.global_load_requests_per_sm[sm];
    ++c.launches;
    c.blocks += l.grid;
    c.load_requests += l.global_load_requests;
    c.load_sectors += l.global_load_sectors;
    c.atomic_requests += l.global_atomic_requests;
    c.atomic_passes += l.global_atomic_sectors;
    c.shared_instructions += l.shared_load_instructions + l.shared_store_instructions;
    c.shared_wavefronts += l.shared_load_wavefronts + l.shared_store_wavefronts;
    c.shared_conflicts += l.shared_load_conflicts() + l.shared_store_conflicts();
    c.shared_atomic_instructions += l.shared_atomic_instructions;
    c.shared_atomic_wavefronts += l.shared_atomic_wavefronts;
  }
  c.sms = loads_per_sm.size();
  for (uint64_t loads : loads_per_sm) c.loading_sms += loads > 0;
  return c;
#else
  (void)variant, (void)dataset, (void)n;
  return {};
#endif
}

}  // namespace histo
