// Who wrote a graded call's output, and whether the host counted instead. A launcher must count
// on the device, in a kernel it launches; a histogram counted on the host is not the lab's
// work, however right its bins. The graders' bins (GuardedBins, grading.hpp)
// watch the call from the moment they are poisoned until the grader reads them back
// (end_call), and problem() says what happened instead:
//   - no kernel launched although n > 0 bytes were given;
//   - the host wrote into the output (cudaMemcpy, cudaMemcpyAsync, or a cudaMemset of a nonzero
//     value; the zeroing by histo::prepare_output is expected);
//   - device memory was copied to the host during the call (the input, to count it there);
//   - the CPU simulator also: host code read or wrote device memory directly (on a GPU that
//     crashes).
// On a GPU the copies are seen by the graders' wrappers of the CUDA runtime
// (common/src/runtime_watch.cpp, linked into the grader executables with the linker's --wrap);
// in the simulator by its runtime (sim/include/histo_sim_host_writes.h).
#pragma once

#include <cstddef>
#include <string>

namespace histo {

// Whether host code reading or writing device memory directly is seen (OutputWatch::problem):
// in the simulator, unless it runs under a sanitizer (sim-asan, sim-tsan), which leaves device
// memory unprotected. Never on a GPU, where such code crashes instead.
bool host_accesses_caught();

// Kernels launched so far in this process, each kernel<<<...>>> once (launch.cpp, with the
// student-callable code: in a split grader, the worker's): on a GPU counted where the launch
// pushes its configuration (the linker's --wrap), in the simulator by its runtime.
unsigned long long kernel_launches();

class OutputWatch {
 public:
  OutputWatch() = default;
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  // (Re)starts watching the device range [d_begin, d_begin + bytes): a graded call begins, no
  // launch, no write, no copy yet. Called right after the range was poisoned: in the simulator
  // the poison then counts as never written (its initcheck names a kernel that counts into the
  // output unzeroed).
  void start(const void* d_begin, size_t bytes);
  // The graded call is over: the grader reads the output back. Copies of device memory to the
  // host (and, in the simulator, host accesses to it) from here on are the grader's own.
  void end_call() const;
  // "" when a kernel was launched since start() (or n == 0), nothing but zeros reached the range
  // from the host, and the call copied no device memory to the host (nor, in the simulator,
  // touched it from host code); else a sentence naming what happened.
  std::string problem(size_t n) const;

 private:
  const void* d_begin_ = nullptr;
  unsigned long long launches_at_start_ = 0;
};

// GPU builds: what the host did to a watched range (copy_watch.cpp, in the process that runs the
// kernels: a split grader's worker). The graders' wrappers of the CUDA runtime
// (runtime_watch.cpp) report each copy and memset before it runs: `dst` is where it writes
// (bytes long), `src` where it reads (null for a __device__ variable), `to_host` whether it
// copies device memory to host memory. The simulator's runtime sees the same itself
// (histo_sim_host_writes.h).
struct CopyActivity {
  unsigned copies_in = 0, memsets_in = 0;  // into the watched range
  unsigned copies_out = 0;                 // device memory copied to the host during the call
  unsigned reserved = 0;
  unsigned long long bytes_in = 0, bytes_out = 0;
};
void watch_copies(const void* d_begin, size_t bytes);  // (re)starts watching: a call begins
void end_watched_call(const void* d_begin);            // the grader reads the output back
void unwatch_copies(const void* d_begin);
CopyActivity copy_activity(const void* d_begin);
void note_runtime_copy(const void* dst, const void* src, size_t bytes, bool to_host);
void note_runtime_memset(const void* dst, size_t bytes, int value);

}  // namespace histo
