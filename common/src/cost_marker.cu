// The marker kernels that delimit one count_cost call in Nsight Compute's CSV (histo/perf.hpp,
// pass 1 of the GRADE_NCU mode): grading/histo_grading/ncu.py groups the kernels launched
// between a histo_cost_begin and its histo_cost_end, and reads the call's index from the
// markers' grid (index + 1 blocks of one thread: nothing else to count).
#include "histo/cuda_check.hpp"
#include "histo/perf.hpp"

namespace histo {

__global__ void histo_cost_begin() {}
__global__ void histo_cost_end() {}

void launch_cost_marker(bool begin, unsigned index) {
  if (begin)
    histo_cost_begin<<<index + 1, 1>>>();
  else
    histo_cost_end<<<index + 1, 1>>>();
  CUDA_CHECK_LAUNCH();
}

}  // namespace histo
