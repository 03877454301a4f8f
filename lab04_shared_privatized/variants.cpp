// lab04's entries in the registry that drives the graders, the benchmark and the report. The
// wide (uint16_t) launcher has another shape: lab04.h declares it and the grader tests it.
#include "lab04.h"

namespace lab04 {

// Every lab04 kernel: a block's bins in shared memory, zeroed, counted with shared atomics and
// merged, with a barrier between each phase.
constexpr unsigned kSharedParts = histo::kSharedBins | histo::kBarriers;

const std::vector<histo::Variant>& variants() {
  static const std::vector<histo::Variant> list = {
      {"lab04", "shared", "per-block histogram in shared memory, byte loads, merged once",
       histogram_shared, histo::Expect::correct, kSharedParts | histo::kByteLoads},
      {"lab04", "shared_vec16",
       "per-block shared histogram, 16-byte loads, several in flight per thread",
       histogram_shared_vec16, histo::Expect::correct, kSharedParts | histo::kVectorLoads},
      {"lab04", "shared_runs",
       "per-block shared histogram, 16-byte loads, one atomic per run of equal bytes",
       histogram_shared_runs, histo::Expect::correct,
       kSharedParts | histo::kVectorLoads | histo::kRunAggregation},
  };
  return list;
}

}  // namespace lab04
