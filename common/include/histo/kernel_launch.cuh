// Launching a kernel so that one source builds both for a GPU and for the CPU simulator.
//
//   histo::launch(kernel, grid, block, dynamic_shared_bytes, stream, args...);
//
// is exactly `kernel<<<grid, block, dynamic_shared_bytes, stream>>>(args...)` in a GPU build. In
// a sim build (sim/README.md) the same call runs the grid on the CPU. Like <<<>>>, it reports a
// bad configuration through cudaGetLastError (CUDA_CHECK_LAUNCH after it). Every launch is counted
// (histo::kernel_launches, output_watch.hpp): graders fail a launcher that launched nothing.
//
//   T* p = histo::dynamic_shared<T>();
//
// is the block's dynamic shared memory, the array that `extern __shared__ T p[];` declares.
#pragma once

#include <cuda_runtime.h>

#include "histo/output_watch.hpp"

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace histo {

template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, size_t dynamic_shared,
            cudaStream_t stream, Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "the kernel takes a different number of arguments");
  count_kernel_launch();
#ifdef HISTO_SIM
  ::histo_sim::launch_kernel(kernel, grid, block, dynamic_shared, stream, std::forward<Args>(args)...);
#else
  kernel<<<grid, block, dynamic_shared, stream>>>(std::forward<Args>(args)...);
#endif
}

template <typename T>
__device__ __forceinline__ T* dynamic_shared() {
#ifdef HISTO_SIM
  return ::histo_sim::dynamic_shared<T>();
#else
  extern __shared__ __align__(16) unsigned char histo_dynamic_shared_memory[];
  return reinterpret_cast<T*>(histo_dynamic_shared_memory);
#endif
}

}  // namespace histo
