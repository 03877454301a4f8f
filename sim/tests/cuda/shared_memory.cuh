// Dynamic shared memory of any element type, as NVIDIA's samples write it: a template cannot
// declare `extern __shared__ T s[];` for two types T in one program (the declarations clash),
// so the array is declared once, as ints, and converted.
#pragma once

template <class T>
struct SharedMemory {
  __device__ inline operator T*() {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
  __device__ inline operator const T*() const {
    extern __shared__ int __smem[];
    return (T*)__smem;
  }
};
