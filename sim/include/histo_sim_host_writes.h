// The CPU simulator's grading hook: what the host wrote into a watched device range (the output
// of a graded call) with cudaMemcpy, cudaMemcpyAsync or a cudaMemset of a nonzero value. Zeroing
// is not counted: it cannot put a count into a bin. The graders' bins watch themselves through
// histo::OutputWatch (common/include/histo/output_watch.hpp); nothing else needs this header.
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

}  // namespace histo_sim
