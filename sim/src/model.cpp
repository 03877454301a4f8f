// The cost model (histo_sim/model.hpp). Per launch, on the named GPU:
//   DRAM reads          dram bytes / read bandwidth
//   load latency        a warp's global load requests x what one costs in a latency-bound loop,
//                       for the warps that do not fit on the device at once in turns: requests
//                       / min(warps, resident warps) x load_request_ns
//   load sectors        the 32-byte sectors global loads move / (SMs x each SM's sector rate):
//                       what uncoalesced loads pay
//   shared memory       the busiest SM's wavefronts (blocks dealt round-robin) / its rate
//   atomics, one word   the busiest word's atomic sector passes / the one-word rate
//   atomics, region     all atomic sector passes / the rate into a 1 KiB region (the footprint
//                       of every lab's bins) or, for a footprint past 64 KiB, the spread rate
// plus the launcher's fixed cost (a 1 KiB memset, then the kernel). Launches of one call add.
// Not modelled: instruction issue (ALU-heavy loops such as run detection), L2 hits, the
// divergence of lanes inside a warp, and the last partial wave.
#include "histo_sim/model.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace histo_sim {
namespace {

// The bounds of one launch, in model.hpp's order.
std::vector<Bound> launch_bounds(const LaunchCounters& c, const GpuShape& gpu, double scale) {
  std::vector<Bound> b;
  b.push_back({"DRAM reads", scale * c.dram_read_bytes / (gpu.dram_read_gbps * 1e9)});
  // Resident warps: the occupancy calculator's answer for this kernel on this GPU's shape.
  int per_sm = 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c.kernel, int(c.block), 0) != cudaSuccess)
    per_sm = 1;
  const double warps_per_block = (c.block + 31) / 32;
  const double resident = std::max(1.0, double(std::max(per_sm, 1)) * gpu.sm_count * warps_per_block);
  const double warps = std::max(1.0, c.grid * warps_per_block);
  b.push_back({"load latency",
               scale * c.global_load_requests / std::min(warps, resident) * gpu.load_request_ns * 1e-9});
  b.push_back({"load sectors", scale * c.global_load_sectors /
                                   (gpu.sm_count * gpu.load_sectors_per_sm_per_s)});
  uint64_t busiest = 0, busiest_atomic = 0;
  for (size_t sm = 0; sm < c.shared_wavefronts_per_sm.size(); ++sm) {
    busiest = std::max(busiest, c.shared_wavefronts_per_sm[sm]);
    busiest_atomic = std::max(busiest_atomic, c.shared_atomic_wavefronts_per_sm[sm]);
  }
  b.push_back({"shared memory", scale * (busiest / gpu.shared_wavefronts_per_sm_per_s +
                                         busiest_atomic / gpu.shared_atomic_wavefronts_per_sm_per_s)});
  b.push_back({"atomics on one word", scale * c.busiest_address_sectors / gpu.atomic_one_address_per_s});
  const double rate = c.atomic_footprint_bytes <= 65536 ? gpu.atomic_region_1k_per_s : gpu.atomic_spread_per_s;
  b.push_back({"global atomics", scale * c.global_atomic_sectors / rate});
  return b;
}

}  // namespace

Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu, double scale) {
  Prediction p;
  for (const LaunchCounters& c : launches) {
    std::vector<Bound> b = launch_bounds(c, gpu, scale);
    if (p.bounds.empty()) p.bounds.assign(b.size(), Bound{nullptr, 0});
    double largest = 0;
    for (size_t i = 0; i < b.size(); ++i) {
      p.bounds[i].resource = b[i].resource;
      p.bounds[i].seconds += b[i].seconds;
      largest = std::max(largest, b[i].seconds);
    }
    p.seconds += gpu.launch_us * 1e-6 + largest;
  }
  std::sort(p.bounds.begin(), p.bounds.end(),
            [](const Bound& x, const Bound& y) { return x.seconds > y.seconds; });
  p.binding = p.bounds.empty() ? "launch" : p.bounds.front().resource;
  if (!p.bounds.empty() && p.bounds.front().seconds < gpu.launch_us * 1e-6 * launches.size())
    p.binding = "launch overhead";
  return p;
}

LaunchCounters extrapolate(const LaunchCounters& small, const LaunchCounters& large, double t) {
  LaunchCounters c = large;
  auto grow = [t](uint64_t a, uint64_t b) {
    const double v = double(b) + (double(b) - double(a)) * t;
    return v > 0 ? uint64_t(v + 0.5) : uint64_t(0);
  };
  for (uint64_t LaunchCounters::*f :
       {&LaunchCounters::global_load_requests, &LaunchCounters::global_load_sectors,
        &LaunchCounters::global_store_requests, &LaunchCounters::global_store_sectors,
        &LaunchCounters::global_atomic_requests, &LaunchCounters::global_atomic_sectors,
        &LaunchCounters::shared_load_instructions, &LaunchCounters::shared_load_wavefronts,
        &LaunchCounters::shared_load_ideal, &LaunchCounters::shared_store_instructions,
        &LaunchCounters::shared_store_wavefronts, &LaunchCounters::shared_store_ideal,
        &LaunchCounters::shared_atomic_instructions, &LaunchCounters::shared_atomic_wavefronts,
        &LaunchCounters::shared_atomic_ideal, &LaunchCounters::dram_read_bytes,
        &LaunchCounters::global_atomic_addresses, &LaunchCounters::busiest_address_sectors,
        &LaunchCounters::load_rounds, &LaunchCounters::warps})
    c.*f = grow(small.*f, large.*f);
  for (size_t sm = 0; sm < c.shared_wavefronts_per_sm.size() && sm < small.shared_wavefronts_per_sm.size(); ++sm) {
    c.shared_wavefronts_per_sm[sm] = grow(small.shared_wavefronts_per_sm[sm], large.shared_wavefronts_per_sm[sm]);
    c.shared_atomic_wavefronts_per_sm[sm] =
        grow(small.shared_atomic_wavefronts_per_sm[sm], large.shared_atomic_wavefronts_per_sm[sm]);
  }
  return c;
}

}  // namespace histo_sim
