// A dynamic shared array at file scope, which the simulator cannot give a meaning: the build
// must stop with one sentence saying what to write instead (sim/wrap_source.cmake).
#include "histo/kernel_launch.cuh"

extern __shared__ unsigned int file_scope_bins[];

__global__ void uses_file_scope_bins() { file_scope_bins[threadIdx.x] = 0; }

int main() { return 0; }
