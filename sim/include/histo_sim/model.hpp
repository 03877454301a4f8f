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

// `scale` multiplies every count: counters of a smaller simulated input standing in for a
// larger one. The launch shape is the entries' own grid: the caller sets it to the grid the
// launcher chose for the larger input (set_shape_only).
Prediction predict(const std::vector<LaunchCounters>& launches, const GpuShape& gpu,
                   double scale = 1.0);

// Counters for a larger input from two simulated ones, linearly in the input's size: `large`
// plus (large - small) x t, where t = (target - large size) / (large size - small size). Work
// per byte and work per block both grow linearly as long as the grid either stays the
// device's size or grows with the input at all three sizes.
LaunchCounters extrapolate(const LaunchCounters& small, const LaunchCounters& large, double t);

}  // namespace histo_sim
