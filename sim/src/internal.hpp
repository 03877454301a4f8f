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

// Memory a kernel may address as global memory: device allocations and pinned host memory,
// as sorted [begin, end) ranges (the access trace tells global accesses from the stack's).
std::vector<std::pair<uintptr_t, uintptr_t>> device_ranges();

// The occupancy calculator counts a kernel's static shared memory once a counted launch has
// shown how much of it the kernel uses.
void remember_static_shared(const std::vector<LaunchCounters>& launches);

// "byte 40 of a 1536-byte cudaMalloc allocation" (hazard reports).
std::string describe_device_address(uint64_t address);

// The hazard checks (hazards.cpp): armed before a launch; after it, the first hazard found, as
// the sentence the launch fails with ("" when none).
void hazards_before_launch();
std::string hazards_after_launch();

}  // namespace histo_sim
