// GPU detection: a device query and one tiny kernel launch, so that "no code for this GPU"
// shows up here rather than as a failure in the middle of a lab.
#include "histo/cuda_check.hpp"
#include "histo/gpu.hpp"

#include <sstream>

#if defined(HISTO_SIM) && !defined(HISTO_CUDA_ARCHITECTURES)
#define HISTO_CUDA_ARCHITECTURES "none: the CPU simulator (sim/) runs the kernels"
#endif
#ifndef HISTO_CUDA_ARCHITECTURES
#define HISTO_CUDA_ARCHITECTURES "unknown"
#endif

namespace histo {
namespace {

__global__ void probe_kernel(int* d_flag) { *d_flag = 42; }

std::string error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

GpuStatus probe() {
  GpuStatus s;
  cudaRuntimeGetVersion(&s.runtime_version);
  cudaDriverGetVersion(&s.driver_version);  // 0 when no driver is installed
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    cudaGetLastError();
    if (s.driver_version == 0)
      s.reason = "no NVIDIA driver is installed";
    else if (err == cudaErrorInsufficientDriver)
      s.reason = "the NVIDIA driver (CUDA " + cuda_version_string(s.driver_version) +
                 ") is older than this build's runtime (CUDA " +
                 cuda_version_string(s.runtime_version) + "): update the driver";
    else if (err != cudaSuccess)
      s.reason = "cudaGetDeviceCount failed: " + error_text(err);
    else
      s.reason = "the driver sees no CUDA device";
    return s;
  }
  err = cudaGetDevice(&s.device);
  cudaDeviceProp prop{};
  if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, s.device);
  if (err != cudaSuccess) {
    cudaGetLastError();
    s.reason = "cannot query the device: " + error_text(err);
    return s;
  }
  s.available = true;
  s.name = prop.name;
  s.cc_major = prop.major;
  s.cc_minor = prop.minor;
  s.sm_count = prop.multiProcessorCount;
  s.global_bytes = prop.totalGlobalMem;
  s.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
  s.shared_per_block_optin = prop.sharedMemPerBlockOptin;

  int* d_flag = nullptr;
  err = cudaMalloc(&d_flag, sizeof(int));
  if (err == cudaSuccess) {
    probe_kernel<<<1, 1>>>(d_flag);
    err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    int h_flag = 0;
    if (err == cudaSuccess) err = cudaMemcpy(&h_flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
    if (err == cudaSuccess && h_flag != 42) err = cudaErrorUnknown;
    cudaFree(d_flag);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    std::ostringstream why;
    why << "a test kernel does not run on " << s.name << " (compute capability " << s.cc_major
        << "." << s.cc_minor << "): " << error_text(err);
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction ||
        err == cudaErrorUnsupportedPtxVersion)
      why << ". This build targets " << HISTO_CUDA_ARCHITECTURES << "; reconfigure with "
          << "-DCMAKE_CUDA_ARCHITECTURES=" << s.cc_major << s.cc_minor
          << " (or the gpu preset, which uses native)";
    s.reason = why.str();
    return s;
  }
  s.runnable = true;
  return s;
}

}  // namespace

const GpuStatus& gpu_status() {
  static const GpuStatus status = probe();
  return status;
}

const char* built_architectures() { return HISTO_CUDA_ARCHITECTURES; }

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

void device_memory(size_t* free_bytes, size_t* total_bytes) {
  *free_bytes = *total_bytes = 0;
  if (!gpu_status().available) return;
  CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
}

std::string describe_gpu(const GpuStatus& s) {
  std::ostringstream out;
  if (kSimulator) {
    // A sim build uses no driver, runtime or GPU: the versions and the compute capability its
    // runtime stand-in reports are made up, so they are not shown.
    out << "Kernels run on:            the CPU simulator (this is a sim build): no GPU, no CUDA "
           "driver and no CUDA runtime are used\n"
        << "Simulated device:          " << s.name << ", " << s.sm_count << " SMs, "
        << (s.global_bytes >> 20) << " MiB, " << (s.shared_per_block_optin >> 10)
        << " KiB shared memory per block: grids are sized from it\n"
        << "Advice: [gpu] tests run here as simulator tests (label sim): they time nothing, and "
           "a block's threads take turns (the sim-tsan preset reports races). For timing and "
           "real concurrency, build the student-gpu preset on a machine with an NVIDIA GPU and "
           "the CUDA Toolkit.\n";
    return out.str();
  }
  out << "CUDA runtime (this build): " << cuda_version_string(s.runtime_version) << "\n"
      << "CUDA driver:               "
      << (s.driver_version ? cuda_version_string(s.driver_version) : std::string("none")) << "\n"
      << "Built for architectures:   " << HISTO_CUDA_ARCHITECTURES << "\n";
  if (!s.available) {
    out << "GPU:                       none usable: " << s.reason << "\n"
        << "Advice: CPU tests still run; GPU tests are reported as skipped. To run them, use a "
           "machine with an NVIDIA GPU and a driver at least as new as the runtime.\n";
    return out.str();
  }
  out << "GPU " << s.device << ":                     " << s.name << ", compute capability "
      << s.cc_major << "." << s.cc_minor << ", " << s.sm_count << " SMs, "
      << (s.global_bytes >> 20) << " MiB, L2 " << (s.l2_bytes >> 20) << " MiB, "
      << (s.shared_per_block_optin >> 10) << " KiB shared memory per block (opt-in)\n";
  if (!s.runnable)
    out << "Problem: " << s.reason << "\n";
  else
    out << "Status: kernels of this build run on this GPU.\n";
  if (s.driver_version && s.driver_version < s.runtime_version)
    out << "Advice: the driver is older than the runtime; update it.\n";
  return out.str();
}

}  // namespace histo
