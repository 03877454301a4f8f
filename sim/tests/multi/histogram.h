// The launcher kernels.cu defines and main.cpp calls: a program of several sources, as NVIDIA's
// samples are laid out (a .cu with the kernels, a .cpp with main).
#pragma once

#include <cstddef>

// Counts the n bytes at d_in into the 256 bins at d_bins (zeroed first); returns the CUDA error
// of the launch.
int histogram_256(const unsigned char* d_in, size_t n, unsigned* d_bins);
