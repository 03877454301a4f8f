#include "histo/cuda_check.hpp"
#include "histo/launch.hpp"

#include <sstream>
#include <stdexcept>

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

std::string LaunchShape::describe() const {
  if (grid == 0) return "no launch";
  std::ostringstream out;
  out << "grid " << grid << " x block " << block;
  if (shared_bytes) out << ", " << shared_bytes << " B shared";
  return out.str();
}

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

int device_sm_count() {
  static int cached[64] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && cached[device]) return cached[device];
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (device < 64) cached[device] = sms;
  return sms;
}

void check_launch_shape(const LaunchShape& shape, const char* who) {
  if (shape.block == 0 || shape.block > 1024 || shape.grid == 0 || shape.grid > 0x7FFFFFFFu)
    throw std::invalid_argument(std::string(who) + ": cannot launch " + shape.describe() +
                                " (blocks must hold 1..1024 threads, grids 1..2^31-1 blocks)");
}

}  // namespace histo
