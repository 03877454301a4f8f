// lab01_naive: the first parallel histogram, as a CPU programmer would write it.
//
// Technique: segmented partitioning. The input is cut into one contiguous segment per thread;
//   each thread walks its segment and adds 1 to the global bin of every byte with atomicAdd.
// Since: the sequential CPU loop (common/src/reference.cpp), which this parallelizes.
// Cost model: one global atomic per input byte. Atomics on the same address serialize in the
//   L2 cache, so throughput falls as fewer distinct values occur (degenerate input: every
//   thread hits one counter). Reads are uncoalesced: neighbouring threads read bytes
//   kElementsPerThread apart, so each 32-byte memory sector serves one thread at a time.
// Limits: n < 2^32 (32-bit counters); about 4 GB/s on an H200, a thousand times below what
//   the memory can deliver (see README.md for the measured numbers).
// Build and grade:  cmake --preset student && cmake --build --preset student
//                   ctest --preset student -L lab01
#include "lab01.h"

#include "histo/cuda_check.hpp"
#include "histo/kernel_launch.cuh"
#include "histo/reference.hpp"

namespace lab01 {

__host__ __device__ Segment segment_bounds(size_t thread, size_t num_threads, size_t n) {
  // TODO(lab01) begin: segment_bounds (about 4 lines)
  // Give thread `thread` of `num_threads` its contiguous segment [begin, end) of [0, n):
  // segments of ceil(n / num_threads) elements, clamped to n so that late threads get an
  // empty segment. The grader checks this on the CPU: no gaps, no overlaps, nothing past n.
  return Segment{0, 0};
  // TODO(lab01) end
}

__host__ __device__ unsigned segmented_grid_size(size_t n) {
  // TODO(lab01) begin: segmented_grid_size (about 2 lines)
  // The fewest blocks of kBlockSize threads so that every thread has at most
  // kElementsPerThread elements (histo::ceil_div helps). Return 0 for n == 0.
  return 0;
  // TODO(lab01) end
}

// The first kernel: each thread counts its own segment into the global histogram.
__global__ void histogram_segmented_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                           uint32_t* d_bins) {
  // TODO(lab01) begin: the kernel body (about 6 lines)
  // 1. This thread's global index and the total number of threads in the grid. Use size_t:
  //    blockIdx.x * blockDim.x overflows 32 bits once n passes 2^32 / kElementsPerThread...
  // 2. segment_bounds() gives its segment.
  // 3. For each byte in the segment, add 1 to d_bins[byte] with atomicAdd (why not ++? Run the
  //    racy kernel's test and read README.md).
  // TODO(lab01) end
}

// Provided, and wrong on purpose. Same partition as histogram_segmented_kernel, but a plain
// ++: two threads can read the same old count, both add one, and both write it back, so one
// increment is lost. The grader and the benchmark show how many.
__global__ void histogram_racy_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                      uint32_t* d_bins) {
  const size_t thread = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t length = histo::ceil_div(n, size_t(gridDim.x) * blockDim.x);
  for (size_t i = thread * length; i < n && i < (thread + 1) * length; ++i) d_bins[d_in[i]]++;
}

histo::LaunchShape histogram_segmented(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                       cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab01 histogram_segmented");
  if (n == 0) return {};
  const histo::LaunchShape shape{segmented_grid_size(n), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab01 histogram_segmented");
  histo::launch(histogram_segmented_kernel, shape.grid, shape.block, 0, stream, d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram_racy(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                  cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab01 histogram_racy");
  if (n == 0) return {};
  const histo::LaunchShape shape{
      unsigned(histo::ceil_div(histo::ceil_div(n, kElementsPerThread), kBlockSize)), kBlockSize,
      0};
  histo::launch(histogram_racy_kernel, shape.grid, shape.block, 0, stream, d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab01
