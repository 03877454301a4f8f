// The cost model (histo_sim/model.hpp). Per launch, on the named GPU:
//   DRAM reads          dram bytes / read bandwidth; nothing for an input that stays in the L2
//                       (at most l2_resident_bytes: a launch repeated on it, as a timing loop
//                       repeats it, reads it from the L2)
//   L2 reads            dram bytes / the L2's read bandwidth
//   load latency        a warp's chain of loads, each round of loads waited for in turn: its
//                       rounds x what one costs in a latency-bound loop (load_request_ns, or
//                       l2_load_request_ns for an input in the L2), plus its shared loads x a
//                       shared load's latency (a counter's read-modify-write waits for the
//                       read); blocks beyond those the device holds at once run in further
//                       waves, the last partial one a whole wave. A round is the loads issued
//                       before the first wait: with nvcc's SASS, the loads its main load loop
//                       keeps in flight (loads_per_round); without it, the access trace's runs
//                       of loads with nothing between, as many in flight as a run has
//                       different load instructions (counters.cpp)
//   load sectors        the 32-byte sectors global loads move / (SMs x each SM's sector rate):
//                       what uncoalesced loads pay
//   shared memory       the busiest SM's wavefronts (blocks dealt round-robin) / its rate
//   atomics, one sector the busiest sector's atomic passes / the one-sector rate (the L2 applies
//                       the passes into one sector one after another, whichever words they hit);
//                       or, where more, a 128-byte line that takes both ATOM and RED passes: its
//                       passes go one after another at that rate, and each switch between the
//                       kinds costs what one pass loses when ATOM and RED alternate on one word
//                       (the mixed rate). A line switches at most twice per pass of its less
//                       frequent kind
//   atomics, region     all atomic sector passes / the rate into a 1 KiB region (the footprint
//                       of every lab's bins) or, for a footprint past 64 KiB, the spread rate
//   constant loads      the distinct addresses each load of __constant__ memory reads / (SMs x
//                       each SM's rate): the constant cache serves a warp's addresses in turn
//   store sectors       the 32-byte sectors global stores write / (SMs x each SM's sector rate)
//   store lines         the 128-byte lines store requests write / (SMs x each SM's line rate):
//                       what uncoalesced stores pay (a transpose's column writes)
//   instruction issue   with nvcc's SASS: the warp instructions the launch executes (SASS
//                       instructions per memory instruction x the counted memory instructions,
//                       resources.cpp) / (the SMs the grid occupies x 4 per cycle x the clock)
// plus the launcher's fixed cost (a 1 KiB memset, then the kernel). Launches of one call add.
// Not modelled: lanes diverging inside a warp, and how far the atomics at a block's end
// overlap other blocks' loads.
#include "histo_sim/model.hpp"

#include <cuda_runtime.h>

#include "internal.hpp"
#include "trace.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace histo_sim {
namespace {

// Whether a launch's input stays in the L2 between launches.
bool l2_resident(const LaunchCounters& c, const GpuShape& gpu) {
  return gpu.l2_resident_bytes > 0 && gpu.l2_read_gbps > 0 && double(c.dram_read_bytes) <= gpu.l2_resident_bytes;
}

// The bounds of one launch: one per Resource (model.hpp), at its index.
std::vector<Bound> launch_bounds(const LaunchCounters& c, const GpuShape& gpu) {
  std::vector<Bound> b(static_cast<size_t>(Resource::count));
  auto bound = [&](Resource r, double seconds) { b[size_t(r)] = {resource_name(r), seconds}; };
  const bool resident = l2_resident(c, gpu);
  const KernelResources r = kernel_resources(c.kernel);
  bound(Resource::dram_reads, resident ? 0.0 : c.dram_read_bytes / (gpu.dram_read_gbps * 1e9));
  // Resident warps: the occupancy calculator's answer for this kernel on this GPU's shape.
  int per_sm = 1;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, c.kernel, int(c.block), 0) != cudaSuccess)
    per_sm = 1;
  const double warps_per_block = (c.block + 31) / 32;
  const double resident_blocks = std::max(1.0, double(std::max(per_sm, 1)) * gpu.sm_count);
  const double warps = std::max(1.0, c.grid * warps_per_block);
  // A warp's chain: each round of global loads, then each shared load it waits for (a counter's
  // read before its write), one after another. Warps hide each other's chains; the blocks that do
  // not fit on the device at once wait for a wave of their own, the last one too.
  const double rounds = r.sass ? c.global_load_requests / std::max(1.0, r.loads_per_round)
                               : double(c.load_chain_rounds ? c.load_chain_rounds : c.global_load_requests);
  const double request_ns = resident && gpu.l2_load_request_ns > 0 ? gpu.l2_load_request_ns : gpu.load_request_ns;
  const double chain_ns = rounds * request_ns + c.shared_load_instructions * gpu.shared_load_latency_ns;
  const double waves = std::max(1.0, std::ceil(c.grid / resident_blocks));
  bound(Resource::load_latency, chain_ns / warps * waves * 1e-9);
  bound(Resource::load_sectors, c.global_load_sectors / (gpu.sm_count * gpu.load_sectors_per_sm_per_s));
  uint64_t busiest = 0, busiest_atomic = 0;
  for (size_t sm = 0; sm < c.shared_wavefronts_per_sm.size(); ++sm) {
    busiest = std::max(busiest, c.shared_wavefronts_per_sm[sm]);
    busiest_atomic = std::max(busiest_atomic, c.shared_atomic_wavefronts_per_sm[sm]);
  }
  bound(Resource::shared_memory,
        busiest / gpu.shared_wavefronts_per_sm_per_s + busiest_atomic / gpu.shared_atomic_wavefronts_per_sm_per_s);
  const double switch_s = gpu.atomic_mixed_kinds_per_s > 0
                             ? 1 / gpu.atomic_mixed_kinds_per_s - 1 / gpu.atomic_one_sector_per_s : 0.0;
  const double mixed_line_s =
      c.mixed_line_passes / gpu.atomic_one_sector_per_s + 2.0 * c.mixed_line_minority * std::max(0.0, switch_s);
  bound(Resource::atomics_on_one_sector,
        std::max(c.busiest_sector_passes / gpu.atomic_one_sector_per_s, mixed_line_s));
  bound(Resource::constant_loads, c.constant_addresses / (gpu.sm_count * gpu.constant_addresses_per_sm_per_s));
  bound(Resource::store_sectors, c.global_store_sectors / (gpu.sm_count * gpu.store_sectors_per_sm_per_s));
  bound(Resource::store_lines, c.global_store_lines / (gpu.sm_count * gpu.store_lines_per_sm_per_s));
  const double rate = c.atomic_footprint_bytes <= 65536 ? gpu.atomic_region_1k_per_s : gpu.atomic_spread_per_s;
  bound(Resource::global_atomics, c.global_atomic_sectors / rate);
  bound(Resource::l2_reads, gpu.l2_read_gbps > 0 ? c.dram_read_bytes / (gpu.l2_read_gbps * 1e9) : 0.0);
  const double issue_per_s = std::min<double>(c.grid, gpu.sm_count) * gpu.issue_per_sm_per_cycle * gpu.clock_mhz * 1e6;
  bound(Resource::instruction_issue, r.sass ? issued_instructions(c) / issue_per_s : 0.0);
  return b;
}

}  // namespace

Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu) {
  Prediction p;
  p.l2_resident = !launches.empty();
  p.issue_known = !launches.empty();
  for (const LaunchCounters& c : launches) {
    p.l2_resident = p.l2_resident && l2_resident(c, gpu);
    p.issue_known = p.issue_known && kernel_resources(c.kernel).sass;
    std::vector<Bound> b = launch_bounds(c, gpu);
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

double issued_instructions(const LaunchCounters& c) {
  const KernelResources r = kernel_resources(c.kernel);
  if (!r.sass) return 0;
  const uint64_t counts[6] = {c.global_load_requests,      c.global_store_requests,
                              c.global_atomic_requests,    c.shared_load_instructions,
                              c.shared_store_instructions, c.shared_atomic_instructions};
  double total = double(c.warps) * r.instructions_per_warp;
  for (int k = 0; k < 6; ++k) total += double(counts[k]) * r.instructions_per[k];
  return total;
}

BindingAndNext binding_and_next(const Prediction& p, const GpuShape& gpu, size_t launches) {
  auto named = [](const Bound& b) {
    char us[32];
    std::snprintf(us, sizeof us, "%.1f", b.seconds * 1e6);
    return std::string(b.resource) + ", " + us + " us";
  };
  if (p.bounds.empty()) return {"-", "-"};
  if (p.binding == "launch overhead")
    return {named(Bound{"launch overhead", gpu.launch_us * 1e-6 * double(launches)}), named(p.bounds[0])};
  return {named(p.bounds[0]), p.bounds.size() > 1 ? named(p.bounds[1]) : "-"};
}

namespace {

// How a sampled launch's counters reach the whole grid: MemoryCounts and each site's counts, and
// these, grow with the blocks; the per-SM vectors are spread over the SMs (below); the launch's
// shape, its atomics' footprint and its static shared memory are the same for any number of
// blocks.
constexpr uint64_t LaunchCounters::*kGrowWithBlocks[] = {
    &LaunchCounters::global_atomic_addresses, &LaunchCounters::busiest_sector_passes,
    &LaunchCounters::mixed_line_passes, &LaunchCounters::mixed_line_minority,
    &LaunchCounters::global_store_lines, &LaunchCounters::load_rounds, &LaunchCounters::load_chain_rounds, &LaunchCounters::warps,
    &LaunchCounters::blocks_run};
// LaunchCounters' fields as the list above sorts them: a field added to LaunchCounters and not to
// one of the lists above changes its size, and this fails to compile until it is placed.
struct AccountedFields : MemoryCounts {
  const void* kernel;
  unsigned grid, block;
  uint64_t grow_with_blocks[sizeof kGrowWithBlocks / sizeof kGrowWithBlocks[0]];
  uint64_t atomic_footprint_bytes;
  std::vector<uint64_t> per_sm[3];
  size_t static_shared_bytes;
  std::vector<SiteCounts> sites;
};
static_assert(sizeof(AccountedFields) == sizeof(LaunchCounters),
              "a LaunchCounters field that scaled_to_grid does not account for");

}  // namespace

LaunchCounters scaled_to_grid(const LaunchCounters& sampled) {
  if (sampled.blocks_run == 0 || sampled.blocks_run >= sampled.grid) return sampled;
  LaunchCounters c = sampled;
  const double f = double(sampled.grid) / double(sampled.blocks_run);
  static_cast<MemoryCounts&>(c) = sampled.scaled(f);
  for (SiteCounts& s : c.sites) s.counts = s.counts.scaled(f);
  for (uint64_t LaunchCounters::*field : kGrowWithBlocks) c.*field = uint64_t(double(sampled.*field) * f + 0.5);
  // Per SM: the mean block's share times the blocks the SM gets, grid / SMs or one more.
  for (std::vector<uint64_t> LaunchCounters::*per_sm :
       {&LaunchCounters::shared_wavefronts_per_sm, &LaunchCounters::shared_atomic_wavefronts_per_sm,
        &LaunchCounters::global_load_requests_per_sm}) {
    std::vector<uint64_t>& v = c.*per_sm;
    uint64_t total = 0;
    for (uint64_t x : v) total += x;
    const double per_block = double(total) / double(sampled.blocks_run);
    for (size_t sm = 0; sm < v.size(); ++sm) {
      const uint64_t blocks = sampled.grid / v.size() + (sm < sampled.grid % v.size() ? 1 : 0);
      v[sm] = uint64_t(per_block * double(blocks) + 0.5);
    }
  }
  return c;
}

std::vector<LaunchCounters> sampled_counters(const std::function<void()>& call) {
  counters_begin();
  set_sampled_blocks(kSampledBlocks);
  trace::set_block_budget(kSampledBlockRequests);
  auto reset = [] {
    set_sampled_blocks(0);
    trace::set_block_budget(0);
  };
  cudaError_t status = cudaSuccess;
  try {
    call();
    status = cudaDeviceSynchronize();
  } catch (...) {
    reset();
    counters_end();
    throw;
  }
  const bool over = trace::over_budget();
  reset();
  std::vector<LaunchCounters> launches = counters_end();
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("a sampled launch failed: ") + cudaGetErrorString(status));
  if (over)
    throw std::runtime_error("a block of the kernel made more than " + std::to_string(kSampledBlockRequests) +
                             " warp-wide memory requests at this size, too many to simulate: its share of the "
                             "input grows with the input (a grid that does not grow with n, or the "
                             "work of one block's threads)");
  for (LaunchCounters& c : launches) c = scaled_to_grid(c);
  return launches;
}

}  // namespace histo_sim
