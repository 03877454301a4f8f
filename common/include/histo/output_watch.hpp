// Who wrote a graded call's output. A launcher must count on the device, in a kernel it
// launches through histo::launch; a histogram counted on the host and copied into d_bins is not
// the lab's work, however right its bins. The graders' bins (GuardedBins, grading.hpp) watch
// their buffer from the moment it is poisoned, and problem() says what happened instead:
//   - every build: no kernel launched through histo::launch although n > 0 bytes were given;
//   - the CPU simulator also: the host wrote into the output (cudaMemcpy, cudaMemcpyAsync, or a
//     cudaMemset of a nonzero value; the zeroing by histo::prepare_output is expected).
#pragma once

#include <cstddef>
#include <string>

namespace histo {

// histo::launch (kernel_launch.cuh) calls this for every launch.
void count_kernel_launch();
// Kernels launched through histo::launch so far in this process.
unsigned long long kernel_launches();

class OutputWatch {
 public:
  OutputWatch() = default;
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  // (Re)starts watching the device range [d_begin, d_begin + bytes): no launch, no write yet.
  // Called right after the range was poisoned: in the simulator the poison then counts as
  // never written (its initcheck names a kernel that counts into the output unzeroed).
  void start(const void* d_begin, size_t bytes);
  // "" when a kernel was launched since start() (or n == 0) and nothing but zeros reached the
  // range from the host (simulator); else a sentence naming what happened.
  std::string problem(size_t n) const;

 private:
  const void* d_begin_ = nullptr;
  unsigned long long launches_at_start_ = 0;
};

}  // namespace histo
