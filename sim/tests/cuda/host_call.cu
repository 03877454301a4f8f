// A kernel that calls host code: nvcc rejects it ("calling a __host__ function from a
// __global__ function is not allowed"), and so does the simulator's build. Never built by
// default: a test builds it and expects the build to fail.
#include <cuda_runtime.h>

#include <cstdio>

int host_side(int x) { return x + 1; }

__device__ int device_side(int x) { return 2 * x; }

__global__ void calls_host(int* p) { p[threadIdx.x] = device_side(host_side(p[threadIdx.x])); }

// A C library function CUDA has no device version of, writing through a pointer.
__global__ void formats(char* text, int* p) { snprintf(text, 8, "%d", p[threadIdx.x]); }

int main() {
  int* d_p;
  cudaMalloc(&d_p, 32 * sizeof(int));
  calls_host<<<1, 32>>>(d_p);
  return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
