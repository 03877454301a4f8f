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

// The resources the model bounds, in the order launch_bounds computes them.
inline constexpr const char* kResources[] = {"DRAM reads",    "load latency",        "load sectors",
                                             "shared memory", "atomics on one word", "global atomics"};

struct Bound {
  const char* resource;  // "DRAM reads", "shared memory", ...
  double seconds;
};

struct Prediction {
  double seconds = 0;          // launch cost + the binding bound
  std::string binding;         // the resource of the largest bound
  std::vector<Bound> bounds;   // every bound, largest first
};

// The launches of one call, in order: their times add.
Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu);

// The counters of a whole launch from those of its sampled blocks (set_sampled_blocks): every
// count x grid / blocks_run, and each SM's shared wavefronts the sampled blocks' mean times the
// blocks the SM gets (blocks are dealt round-robin). A launch that ran every block is returned
// as it is.
LaunchCounters scaled_to_grid(const LaunchCounters& sampled);

// The counters of `call` on an input too large to simulate: each launch on the grid its launcher
// picks, kSampledBlocks of its blocks simulated (set_sampled_blocks) and their counts scaled to
// the whole grid. The call's output is incomplete: check nothing with it.
inline constexpr unsigned kSampledBlocks = 16;
std::vector<LaunchCounters> sampled_counters(const std::function<void()>& call);

}  // namespace histo_sim
