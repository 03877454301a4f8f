#include "histo/cuda_check.hpp"
#include "histo/launch.hpp"
#include "histo/output_watch.hpp"

#ifdef HISTO_SIM
#include "histo_sim_host_writes.h"
#endif

#include <atomic>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>

namespace histo {
namespace {

// Device-accessible means device memory, managed memory, or mapped pinned host memory.
void require_device_pointer(const void* ptr, const char* what, const char* who) {
  cudaPointerAttributes attr{};
  cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw std::invalid_argument(std::string(who) + ": " + what +
                                " is not a pointer the CUDA runtime knows (" +
                                cudaGetErrorString(err) + ")");
  }
  const bool device_visible = attr.type == cudaMemoryTypeDevice ||
                              attr.type == cudaMemoryTypeManaged ||
                              (attr.type == cudaMemoryTypeHost && attr.devicePointer == ptr);
  if (!device_visible)
    throw std::invalid_argument(std::string(who) + ": " + what +
                                " points to host memory; copy the data to the device "
                                "(cudaMalloc + cudaMemcpy) and pass the device pointer");
}

}  // namespace

#ifdef HISTO_SIM
unsigned long long kernel_launches() { return histo_sim::kernel_launches(); }
#else
namespace {
std::atomic<unsigned long long> g_kernel_launches{0};
}  // namespace

unsigned long long kernel_launches() { return g_kernel_launches.load(std::memory_order_relaxed); }
#endif

void prepare_output(const void* d_in, size_t n, void* d_bins, size_t num_bins,
                    size_t bytes_per_bin, cudaStream_t stream, const char* who) {
  if (d_bins == nullptr) throw std::invalid_argument(std::string(who) + ": d_bins is null");
  if (n > 0 && d_in == nullptr)
    throw std::invalid_argument(std::string(who) + ": d_in is null but n = " + std::to_string(n));
  if (bytes_per_bin == 4 && n > kMaxElements32)
    throw std::length_error(std::string(who) + ": n = " + std::to_string(n) +
                            " elements could overflow a 32-bit bin (at most 4294967295 fit); "
                            "use 64-bit counters (lab03 histogram64) or split the input");
  require_device_pointer(d_bins, "d_bins", who);
  if (n > 0) require_device_pointer(d_in, "d_in", who);
  // The output is overwritten, never accumulated: zero it in stream order before the kernel.
  CUDA_CHECK(cudaMemsetAsync(d_bins, 0, num_bins * bytes_per_bin, stream));
}

namespace {
int g_sm_count[64] = {};  // per device, asked once
std::mutex g_occupancy_mutex;
std::map<std::tuple<int, const void*, unsigned, size_t>, unsigned> g_occupancy;
}  // namespace

int device_sm_count() {
  int* cached = g_sm_count;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && cached[device]) return cached[device];
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (device < 64) cached[device] = sms;
  return sms;
}

void forget_device_cache() {
  std::lock_guard<std::mutex> lock(g_occupancy_mutex);
  g_occupancy.clear();
  for (int& sms : g_sm_count) sms = 0;
}

unsigned resident_blocks_per_sm(const void* kernel, unsigned block, size_t dynamic_shared,
                                const char* who) {
  auto& mutex = g_occupancy_mutex;
  auto& cache = g_occupancy;
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto key = std::make_tuple(device, kernel, block, dynamic_shared);
  std::lock_guard<std::mutex> lock(mutex);
  const auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, int(block), dynamic_shared));
  if (blocks < 1)
    throw std::invalid_argument(std::string(who) + ": a block of " + std::to_string(block) +
                                " threads with " + std::to_string(dynamic_shared) +
                                " B of dynamic shared memory does not fit on this GPU");
  return cache[key] = unsigned(blocks);
}

size_t shared_optin_bytes() {
  static int cached[64] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && cached[device]) return size_t(cached[device]);
  int bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (device < 64) cached[device] = bytes;
  return size_t(bytes);
}

void check_launch_shape(const LaunchShape& shape, const char* who) {
  // Launchers return before this when n == 0, so an empty grid here is a grid-size bug.
  if (shape.grid == 0)
    throw std::invalid_argument(std::string(who) +
                                ": the launcher computed an empty grid (0 blocks) for a non-empty "
                                "input, so nothing would run: the grid-size function must return "
                                "at least 1 block when n > 0");
  if (shape.block == 0 || shape.block > 1024 || shape.grid == 0 || shape.grid > 0x7FFFFFFFu)
    throw std::invalid_argument(std::string(who) + ": cannot launch " + shape.describe() +
                                " (blocks must hold 1..1024 threads, grids 1..2^31-1 blocks)");
}

}  // namespace histo

#ifndef HISTO_SIM
// Every kernel<<<grid, block, shared, stream>>>(...) begins with the call that pushes its
// configuration (nvcc's generated host code, and Clang's). histo_common is linked with the
// linker's --wrap for it (common/CMakeLists.txt), so each launch in the executable, a lab's
// included, is counted here before it goes on to the CUDA runtime's own.
extern "C" unsigned __real___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                                       cudaStream_t stream);
extern "C" unsigned __wrap___cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                                       cudaStream_t stream) {
  histo::g_kernel_launches.fetch_add(1, std::memory_order_relaxed);
  return __real___cudaPushCallConfiguration(grid, block, shared, stream);
}
#endif
