// The CPU simulator's cuda.h: CUDA's driver API (cuInit, cuModuleLoad, CUdeviceptr, ...) is not
// simulated, only the runtime's (cuda_runtime.h).
#error "CPU simulator: <cuda.h> is CUDA's driver API, which is not simulated: only the runtime API (cuda_runtime.h) is"
