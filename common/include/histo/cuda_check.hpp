// CUDA error handling for every lab: one CUDA_CHECK that names the failing call and where it
// was made, and throws (never exits) so that a grader or the benchmark can report the error.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace histo {

// A failed CUDA runtime call: what() reads "file:line: call failed: cudaErrorX (description)".
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

}  // namespace histo

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t histo_err_ = (call);                                         \
    if (histo_err_ != cudaSuccess)                                           \
      ::histo::throw_cuda_error(histo_err_, #call, __FILE__, __LINE__);      \
  } while (0)

// After a kernel launch: reports a bad launch configuration at once. Errors inside the kernel
// surface at the next synchronizing call, which is also wrapped in CUDA_CHECK.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
