// The CPU simulator's grading hooks: what the host wrote into a watched device range (the output
// of a graded call) with cudaMemcpy, cudaMemcpyAsync or a cudaMemset of a nonzero value (zeroing
// is not counted: it cannot put a count into a bin); and which device bytes hold a grader's
// poison, garbage as far as the initcheck is concerned; and whether the hazard checks saw a
// graded case's launches. The graders' bins watch themselves
// through histo::OutputWatch (common/include/histo/output_watch.hpp); nothing else needs this
// header.
#pragma once

#include <cstddef>
#include <string>

namespace histo_sim {

// Starts (or restarts) watching [begin, begin + bytes): nothing written yet.
void watch_host_writes(const void* begin, size_t bytes);
// Stops watching the range that starts at `begin`.
void unwatch_host_writes(const void* begin);
// "" when the host wrote nothing into the range since it was watched; else what it wrote, e.g.
// "1 cudaMemcpy/cudaMemcpyAsync (1024 bytes)".
std::string host_writes_into(const void* begin);

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
