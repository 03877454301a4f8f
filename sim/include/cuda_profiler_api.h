// The CPU simulator's cuda_profiler_api.h: no profiler runs here, so starting and stopping one
// succeeds and does nothing.
#pragma once
#include <cuda_runtime.h>
inline cudaError_t cudaProfilerStart() { return cudaSuccess; }
inline cudaError_t cudaProfilerStop() { return cudaSuccess; }
