// The cost model: a predicted time for one launch on a named GPU, from the simulator's counters
// (histo_sim/counters.hpp) and that GPU's shape and constants (histo_sim/gpus.hpp). One bound
// per resource; the largest is the binding resource. A prediction, never a measurement: every
// tool that shows one says so, and which GPU's model made it.
#pragma once

#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"

#include <functional>
#include <string>
#include <vector>

namespace histo_sim {

// The resources the model bounds (model.cpp says how each is computed), and their names, by
// Resource: a Prediction's `bounds` hold one per resource, in this order.
enum class Resource {
  dram_reads, load_latency, load_sectors, shared_memory, atomics_on_one_sector, global_atomics, l2_reads,
  instruction_issue, store_sectors, store_lines, constant_loads, count
};
inline constexpr const char* kResources[] = {"DRAM reads",    "load latency",          "load sectors",
                                             "shared memory", "atomics on one sector", "global atomics",
                                             "L2 reads",      "instruction issue",     "store sectors",
                                             "store lines",   "constant loads"};
static_assert(sizeof kResources / sizeof kResources[0] == size_t(Resource::count), "a name per Resource");
inline const char* resource_name(Resource r) { return kResources[size_t(r)]; }

struct Bound {
  const char* resource;  // "DRAM reads", "shared memory", ...
  double seconds;
};

struct Prediction {
  double seconds = 0;          // launch cost + the binding bound
  bool l2_resident = false;    // every launch's input stays in the L2 (read from there when
                               // launched again, as a timing loop does)
  bool issue_known = false;    // nvcc's SASS gave the instruction-issue bound
  std::string binding;         // the resource of the largest bound
  std::vector<Bound> bounds;   // every bound, largest first
};

// The launches of one call, in order: their times add.
Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu);

// The binding bound and the next one, each with its predicted time, as the tools show them:
// "load latency, 3857.1 us" and "shared memory, 400.2 us". Where the fixed cost of the call's
// `launches` exceeds every bound, the binding one is "launch overhead, 6.1 us" and the next the
// largest bound; "-" where there is none.
struct BindingAndNext {
  std::string binding, next;
};
BindingAndNext binding_and_next(const Prediction& p, const GpuShape& gpu, size_t launches);

// The counters of a whole launch from those of its sampled blocks (set_sampled_blocks): every
// count x grid / blocks_run, and each SM's shared wavefronts the sampled blocks' mean times the
// blocks the SM gets (blocks are dealt round-robin). A launch that ran every block is returned
// as it is.
LaunchCounters scaled_to_grid(const LaunchCounters& sampled);

// The warp instructions a launch executes, estimated from nvcc's SASS of its kernel and the
// counted memory instructions (0 where the build had no SASS figures).
double issued_instructions(const LaunchCounters& c);
// The counters of `call` on an input too large to simulate: each launch on the grid its launcher
// picks, kSampledBlocks of its blocks simulated (set_sampled_blocks) and their counts scaled to
// the whole grid. The call's output is incomplete: check nothing with it. Throws
// std::runtime_error where a sampled block makes more than kSampledBlockRequests warp-level
// requests (it is then no longer recorded: a block of a lab kernel makes at most a few hundred
// thousand on 1 GiB).
inline constexpr unsigned kSampledBlocks = 16;
inline constexpr uint64_t kSampledBlockRequests = uint64_t(1) << 20;
std::vector<LaunchCounters> sampled_counters(const std::function<void()>& call);

}  // namespace histo_sim
