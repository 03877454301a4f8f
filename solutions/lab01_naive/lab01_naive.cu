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
// Build and grade without a GPU or the CUDA Toolkit (your kernels run in the CPU simulator):
//   cmake --workflow --preset sim                                   (once)
//   cmake --build --preset sim --target lab01_student_sim_grader    (after each change)
//   ctest --preset sim -L lab01
// With an NVIDIA GPU and the CUDA Toolkit: --preset student-gpu, target lab01_student_grader.
#include "lab01.h"

#include "histo/cuda_check.hpp"
#include "histo/reference.hpp"

namespace lab01 {

__host__ __device__ Segment segment_bounds(size_t thread, size_t num_threads, size_t n) {
  // SOLUTION(lab01) begin
  // Round the segment length up so that num_threads segments cover all n elements; the last
  // busy thread gets the shorter remainder and any thread past it an empty segment.
  const size_t length = (n + num_threads - 1) / num_threads;
  const size_t begin = thread * length < n ? thread * length : n;
  const size_t end = begin + length < n ? begin + length : n;
  return Segment{begin, end};
  // SOLUTION(lab01) end
}

__host__ __device__ unsigned segmented_grid_size(size_t n) {
  // SOLUTION(lab01) begin
  const size_t threads = histo::ceil_div(n, kElementsPerThread);
  return static_cast<unsigned>(histo::ceil_div(threads, kBlockSize));
  // SOLUTION(lab01) end
}

// The first kernel: each thread counts its own segment into the global histogram.
__global__ void histogram_segmented_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                           uint32_t* d_bins) {
  // SOLUTION(lab01) begin
  // size_t throughout: the thread index fits in 32 bits, but the element indices segment_bounds
  // computes from it (thread * length) reach n, which can pass 2^31 and 2^32 - 1.
  const size_t thread = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t num_threads = size_t(gridDim.x) * blockDim.x;
  const Segment seg = segment_bounds(thread, num_threads, n);
  for (size_t i = seg.begin; i < seg.end; ++i) {
    // Other threads update the same bin at the same time: only an atomic read-modify-write
    // keeps every increment.
    atomicAdd(&d_bins[d_in[i]], 1u);
  }
  // SOLUTION(lab01) end
}

// Provided, and wrong on purpose. Your partition (segment_bounds, segmented_grid_size), but a
// plain ++: two threads can read the same old count, both add one, and both write it back, so
// one increment is lost. The grader and the benchmark show how many, once your partition works.
__global__ void histogram_racy_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                      uint32_t* d_bins) {
  const Segment seg = segment_bounds(blockIdx.x * size_t(blockDim.x) + threadIdx.x,
                                     size_t(gridDim.x) * blockDim.x, n);
  for (size_t i = seg.begin; i < seg.end; ++i) d_bins[d_in[i]]++;
}

histo::LaunchShape histogram_segmented(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                       cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab01 histogram_segmented");
  if (n == 0) return {};
  const histo::LaunchShape shape{segmented_grid_size(n), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab01 histogram_segmented");
  histogram_segmented_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram_racy(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                  cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab01 histogram_racy");
  if (n == 0) return {};
  const histo::LaunchShape shape{segmented_grid_size(n), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab01 histogram_racy");
  histogram_racy_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab01
