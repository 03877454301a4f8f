// lab05's entries in the registry that drives the graders, the benchmark and the report.
#include "lab05.h"

namespace lab05 {

const std::vector<histo::Variant>& variants() {
  static const std::vector<histo::Variant> list = {
      {"lab05", "packed",
       "per-thread 8-bit counters packed 4 per word, 64x64 layout, grid sized for 255 per thread",
       histogram_packed},
  };
  return list;
}

}  // namespace lab05
