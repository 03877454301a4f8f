// Bit helpers that work on both sides: one instruction on the GPU (__ffs, __popc), a plain loop
// on the CPU, where the graders call them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace histo {

// The index of the lowest set bit, -1 when x == 0.
__host__ __device__ inline int lowest_set_bit(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __ffs(x) - 1;
#else
  for (int b = 0; b < 32; ++b)
    if ((x >> b) & 1u) return b;
  return -1;
#endif
}

// The number of set bits.
__host__ __device__ inline int set_bit_count(uint32_t x) {
#ifdef __CUDA_ARCH__
  return __popc(x);
#else
  int count = 0;
  for (; x != 0; x &= x - 1) ++count;
  return count;
#endif
}

}  // namespace histo
