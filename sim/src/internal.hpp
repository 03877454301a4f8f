// Shared between the simulator's runtime API (runtime.cpp) and its scheduler (device.cpp).
#pragma once

#include <cuda_runtime.h>

#include "histo_sim/counters.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace histo_sim {

// Records an error for cudaGetLastError and the next synchronizing call; `detail` becomes the
// error's cudaGetErrorString text, so CUDA_CHECK's message carries it.
void set_launch_error(cudaError_t code, const std::string& detail);

// Dynamic shared memory a kernel may use: 48 KiB, or what cudaFuncSetAttribute allowed.
size_t dynamic_shared_limit(const void* kernel);

// Runs the deferred work that new work on `stream` must follow (its own queue; for legacy
// stream 0, every blocking stream's).
void before_stream_work(cudaStream_t stream);

// False for a stream that was destroyed (or never created).
bool stream_is_valid(cudaStream_t stream);

// Which bytes of one cudaMalloc allocation were written since cudaMalloc (the device-memory
// initcheck, hazards.cpp): cudaMemcpy and cudaMemset write them (runtime.cpp), and so do a
// kernel's stores and atomics (seen in the access trace). A bit per byte, made only once a
// write covers part of the allocation: one that is copied or set whole never needs them.
struct DeviceShadow {
  uintptr_t begin = 0;
  size_t bytes = 0;
  size_t unwritten = 0;         // bytes never written: 0 ends every check at once
  bool poisoned = false;        // forget() was called: the unwritten bytes hold a grader's poison
  std::vector<uint64_t> bits;   // empty while nothing (or everything) was written
  void written(uintptr_t address, size_t n);
  void forget(uintptr_t address, size_t n);  // garbage again (the graders' poison)
  // The first byte of [address, address + n) never written, or ~0.
  uintptr_t first_unwritten(uintptr_t address, size_t n) const;
};

// Memory a kernel may address as global memory: device allocations (with their shadow) and
// pinned host memory (shadow null: the host writes it directly, unseen), as sorted ranges (the
// access trace tells global accesses from the stack's).
struct DeviceRange {
  uintptr_t begin, end;
  DeviceShadow* shadow;
};
std::vector<DeviceRange> device_ranges();

// True when the shadow of written bytes is kept (the hazard checks can run: a traced build,
// HISTO_SIM_HAZARDS not 0).
bool initcheck_enabled();
// After a launch the trace saw only partly (a kernel compiled without the hooks: its plain
// stores are unseen), every allocation counts as written.
void assume_all_written();

// Where a code address is in the source (source_lines.cpp, from the executable's line tables):
// file:line ("lab05_per_thread_packed.cu:99", "?" where no line table says), the file's path
// ("" when unknown) and the line number. Frames of files whose names start with one of `skip`
// are passed over (an inlined helper's line is not the caller's).
struct SourceLocation {
  std::string file_line = "?";
  std::string path;
  unsigned line = 0;
};
SourceLocation source_location(uintptr_t pc, const std::vector<std::string>& skip = {});
// Looks up many addresses at once (one addr2line per object); source_location then answers
// from what it found.
void resolve_source_locations(const std::vector<uintptr_t>& pcs, const std::vector<std::string>& skip = {});
// source_location(pc, skip).file_line.
std::string source_line(uintptr_t pc, const std::vector<std::string>& skip = {});
// The text of line `line` of the file at `path`, without its indentation ("" when unreadable).
std::string source_text(const std::string& path, unsigned line);

// The occupancy calculator counts a kernel's static shared memory once a counted launch has
// shown how much of it the kernel uses.
void remember_static_shared(const std::vector<LaunchCounters>& launches);

// "byte 40 of the 1536-byte buffer cudaMalloc'd at grader.cpp:120" (hazard reports; "of a
// 1536-byte cudaMalloc allocation" where no line is known).
std::string describe_device_address(uint64_t address);

// The hazard checks (hazards.cpp): armed before a launch; after it, the first hazard found, as
// the sentence the launch fails with ("" when none).
void hazards_before_launch();
std::string hazards_after_launch();

}  // namespace histo_sim
