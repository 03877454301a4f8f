// The CPU simulator's grading hooks: what the host did during a graded call whose output range
// a grader watches. Into the range: cudaMemcpy, cudaMemcpyAsync or a cudaMemset of a nonzero
// value (zeroing is not counted: it cannot put a count into a bin). Anywhere: launches, copies
// of device memory to the host, and host code reading or writing device memory directly (every
// device allocation is protected from the host until the call ends: sim/src/host_access.cpp). Also
// which device bytes hold a grader's poison, garbage as far as the initcheck is concerned; and
// whether the hazard checks saw a graded case's launches. The graders' bins watch themselves
// through histo::OutputWatch (common/include/histo/output_watch.hpp); nothing else needs this
// header.
#pragma once

#include <cstddef>
#include <string>

namespace histo_sim {

// Starts (or restarts) watching [begin, begin + bytes): a graded call begins, nothing seen yet.
void watch_host_writes(const void* begin, size_t bytes);
// The graded call is over (the grader reads its output back): what the host does from here on
// is the grader's, not the launcher's.
void end_graded_call(const void* begin);
// Stops watching the range that starts at `begin`.
void unwatch_host_writes(const void* begin);

// What the host did since the range was watched (copies and accesses until the call ended).
struct HostActivity {
  unsigned copies_in = 0;   // cudaMemcpy / cudaMemcpyAsync into the range
  unsigned memsets_in = 0;  // nonzero cudaMemset / cudaMemsetAsync into it
  size_t bytes_in = 0;      // bytes of the range they wrote
  unsigned copies_out = 0;  // copies of device memory (anywhere) to host memory
  size_t bytes_out = 0;
  unsigned host_accesses = 0;  // reads or writes of device memory by host code
  std::string first_access;    // "a read of byte 0 of the ... buffer cudaMalloc'd at F:L at F:L"
};
HostActivity host_activity(const void* begin);

// Kernels launched so far in this process (every kernel<<<...>>>, one with a bad configuration
// included): a graded call that launched none counted on the host.
unsigned long long kernel_launches();

// Whether host code touching device memory is caught at all (HostActivity::host_accesses): not
// under AddressSanitizer or ThreadSanitizer (the sim-asan and sim-tsan presets), which handle
// faults their own way, so device memory is never protected there (host_access.cpp).
bool host_accesses_caught();

// [begin, begin + bytes) of device memory was just filled with poison that stands for the
// garbage of fresh memory: the hazard checks' initcheck counts it as never written, so a kernel
// that counts into it before zeroing it is named (the launcher forgot to zero its output).
void poisoned(const void* begin, size_t bytes);

// Whether the hazard checks saw the launches of a graded case: begin_hazard_coverage() before
// them; hazards_covered() after them is true when at least one kernel ran since, and every one
// had each plain load and store checked (a traced build, HISTO_SIM_HAZARDS not 0) and passed.
void begin_hazard_coverage();
bool hazards_covered();

}  // namespace histo_sim
