// Which GPU is here, if any. Any failure (no device, no driver, a driver older than the
// runtime, a build without code for this GPU) is recorded with its reason, so tests can skip or
// fail with a sentence a student can act on.
#pragma once

#include <cstddef>
#include <string>

namespace histo {

// True when this code was compiled for the CPU simulator (sim/): kernels run on the CPU, one
// CUDA thread at a time, so a race cannot lose counts and nothing is timed meaningfully.
#ifdef HISTO_SIM
inline constexpr bool kSimulator = true;
#else
inline constexpr bool kSimulator = false;
#endif

// True in a ThreadSanitizer build (the sim-tsan preset): races of the kernels are reported here.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

struct GpuStatus {
  bool available = false;   // a device and a driver that the runtime accepts
  bool runnable = false;    // and this build has kernels that run on it
  std::string reason;       // why not, when either is false
  int device = -1;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t global_bytes = 0;
  size_t l2_bytes = 0;
  size_t shared_per_block_optin = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;
};

// Probed once per process (device query plus a one-thread kernel launch), then cached.
const GpuStatus& gpu_status();

// The CUDA architectures this build was compiled for, e.g. "75-real;80-real;...".
const char* built_architectures();

// "13.0" from 13000.
std::string cuda_version_string(int version);

// A multi-line human summary: driver, runtime, device, compute capability, memory, advice.
std::string describe_gpu(const GpuStatus& status);

// Free and total device memory now, in bytes (0, 0 without a GPU).
void device_memory(size_t* free_bytes, size_t* total_bytes);

}  // namespace histo
