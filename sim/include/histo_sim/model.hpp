// The cost model: a predicted time for one launch on a named GPU, from the simulator's counters
// (histo_sim/counters.hpp) and that GPU's shape and constants (histo_sim/gpus.hpp). One bound
// per resource; the largest is the binding resource. A prediction, never a measurement: every
// tool that shows one says so, and which GPU's model made it.
#pragma once

#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"

#include <string>
#include <vector>

namespace histo_sim {

struct Bound {
  const char* resource;  // "DRAM reads", "shared memory", ...
  double seconds;
};

struct Prediction {
  double seconds = 0;          // launch cost + the binding bound
  std::string binding;         // the resource of the largest bound
  std::vector<Bound> bounds;   // every bound, largest first
};

// `scale` multiplies every count (counters of a smaller simulated input standing in for a
// larger one: the launch shape comes from `grid`, which the caller scales the same way).
Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu,
                   double scale = 1.0);

}  // namespace histo_sim
