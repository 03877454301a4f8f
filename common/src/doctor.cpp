// histo_doctor: is this machine ready for the labs? Prints the CUDA driver and runtime, the
// device and its compute capability, the architectures this build targets, and advice. In a
// simulator build (HISTO_SIM) it says so instead: there is no driver, runtime or GPU to report.
// Exit status: 0 when the GPU works or there is none (GPU tests will be skipped), 1 when a GPU
// is present but this build cannot run on it.
#include "histo/gpu.hpp"

#include <cstdio>

int main() {
  const histo::GpuStatus& status = histo::gpu_status();
  std::printf("%s", histo::describe_gpu(status).c_str());
  if (histo::kSimulator) {
    std::printf("Result: ready: kernels run in the CPU simulator (no GPU in this build)\n");
    return 0;
  }
  if (!status.available) {
    std::printf("Result: no GPU; GPU tests will be reported as skipped.\n");
    return 0;
  }
  std::printf("Result: %s\n", status.runnable ? "ready" : "NOT READY (see Problem above)");
  return status.runnable ? 0 : 1;
}
