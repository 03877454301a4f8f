#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/gpu.hpp"

#include <sstream>
#include <string>

namespace histo {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::ostringstream msg;
  const std::string text = cudaGetErrorString(code);
  // The CPU simulator fails a launch (cudaErrorLaunchFailure, its only source) with a text that
  // opens with the kernel, its line and the cause; where the launcher learned of it comes after.
  if (kSimulator && code == cudaErrorLaunchFailure) {
    msg << text << " [the launch failed: " << call << " returned " << cudaGetErrorName(code)
        << " at " << file << ":" << line << "]";
    throw CudaError(code, msg.str());
  }
  msg << file << ":" << line << ": " << call << " failed: " << cudaGetErrorName(code) << " ("
      << text << ")";
  if (code == cudaErrorNoKernelImageForDevice || code == cudaErrorInvalidDeviceFunction)
    msg << ". This build has no code for this GPU: rebuild with its architecture in "
           "CMAKE_CUDA_ARCHITECTURES (see histo_doctor).";
  // (The CPU simulator's launch failures carry their own explanation in the error string.)
  if (!kSimulator && (code == cudaErrorIllegalAddress || code == cudaErrorMisalignedAddress ||
                      code == cudaErrorLaunchFailure))
    msg << ". A kernel accessed memory it must not (check index bounds and vector-load "
           "alignment; compute-sanitizer names the line). The CUDA context is now unusable: "
           "later GPU calls in this process fail too.";
  if (code == cudaErrorLaunchTimeout)
    msg << ". The kernel ran too long (an endless loop?).";
  throw CudaError(code, msg.str());
}

void* device_alloc(size_t bytes) {
  void* ptr = nullptr;
  if (bytes == 0) return nullptr;
  cudaError_t err = cudaMalloc(&ptr, bytes);
  if (err == cudaSuccess) return ptr;
  cudaGetLastError();  // an allocation failure is not sticky: clear it for later calls
  size_t free_bytes = 0, total_bytes = 0;
  cudaMemGetInfo(&free_bytes, &total_bytes);
  std::ostringstream msg;
  msg << "cudaMalloc of " << bytes << " bytes (" << (bytes >> 20) << " MiB) failed: "
      << cudaGetErrorName(err) << " (" << cudaGetErrorString(err) << "); the device has "
      << (free_bytes >> 20) << " MiB free of " << (total_bytes >> 20) << " MiB";
  throw CudaError(err, msg.str());
}

}  // namespace histo
