// lab03_global_atomics: what a global atomic costs, and three ways to live with it.
//
// Technique: interleaved (grid-stride) partitioning as in lab02, every count an atomicAdd on a
//   counter in global memory. Three kernels build on that baseline: the letter histogram of
//   Programming Massively Parallel Processors (Kirk, Hwu; 26 letters into 7 bins), 64-bit
//   counters for inputs of 2^32 elements and more, and warp-aggregated atomics: the lanes of a
//   warp that hold the same byte find each other with __match_any_sync, and one of them adds
//   the whole group's count.
// Since lab02: the same partition and the same device-sized grid; new are the letter bins, the
//   counter width and the aggregation.
// Cost model: one global atomic per element (aggregated: one per distinct value in a warp per
//   trip, plus one __match_any_sync per element). A global atomic is a read-modify-write done
//   at the L2 slice that owns the address; atomics on one address queue there one after the
//   other, so throughput falls as fewer distinct values occur. The benchmark's --sweep mode
//   measures inputs with 256, 64, 16, 4 and 1 distinct values.
// Limits: a 32-bit counter holds its count modulo 2^32, so the 32-bit launchers refuse
//   n >= 2^32 (std::length_error) instead of returning wrapped bins; histogram64 takes any n.
//   Every count still crosses to L2: a few GB/s on an H200 in the course's reference
//   measurements (README.md). lab04 moves the counting into shared memory.
// Build and grade without a GPU or the CUDA Toolkit (your kernels run in the CPU simulator):
//   cmake --workflow --preset sim                                   (once)
//   cmake --build --preset sim --target lab03_student_sim_grader    (after each change)
//   ctest --preset sim -L lab03
// With an NVIDIA GPU and the CUDA Toolkit: --preset student-gpu, target lab03_student_grader.
#include "lab03.h"

#include "histo/cuda_check.hpp"
#include "histo/reference.hpp"

namespace lab03 {

__host__ __device__ int letter_bin(uint8_t c) {
  // TODO(lab03) begin: letter_bin (about 2 lines)
  // Returns the letter bin of byte c: 'a'..'d' -> 0, 'e'..'h' -> 1, ..., 'y' and 'z' -> 6
  // (kLettersPerBin letters per bin). Every other byte returns -1: upper case, digits, spaces,
  // punctuation, bytes >= 128. The grader checks all 256 byte values on the CPU.
  return -1;
  // TODO(lab03) end
}

__host__ __device__ int leader_of(uint32_t peers) {
  // TODO(lab03) begin: leader_of (about 1 line)
  // Returns the lane that adds for the group `peers` (a non-zero mask of lanes holding one
  // value): the lowest lane in it. Runs on the GPU and, in the grader, on the CPU.
  return 0;
  // TODO(lab03) end
}

__host__ __device__ uint32_t group_count(uint32_t peers) {
  // TODO(lab03) begin: group_count (about 1 line)
  // Returns how many lanes the leader of `peers` counts for: the lanes in the mask. Runs on the
  // GPU and on the CPU.
  return 1;
  // TODO(lab03) end
}

__host__ __device__ unsigned grid_for(size_t n, int sm_count) {
  // Enough blocks to fill every SM (a grid-stride loop covers any n with them), but never a
  // block past the data: a 100-byte input needs one block, not a thousand.
  const size_t resident = size_t(sm_count > 0 ? sm_count : 1) * kBlocksPerSm;
  const size_t needed = histo::ceil_div(n, kBlockSize);
  return unsigned(needed < resident ? needed : resident);
}

// The baseline, lab02's interleaved kernel: each thread strides through the input by the
// grid's width and adds 1 to the global bin of every byte it reads.
__global__ void histogram_global_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                        uint32_t* d_bins) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    // Threads all over the grid add to the same 256 counters at once: only an atomic
    // read-modify-write keeps every count. The L2 performs it; same-address atomics queue.
    atomicAdd(&d_bins[d_in[i]], 1u);
  }
}

// From histogram_global_kernel: 7 letter bins instead of 256, and bytes that are no letter
// skipped.
__global__ void letter_histogram_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                        uint32_t* d_bins) {
  // TODO(lab03) begin: the letter kernel (about 6 lines)
  // Counts this thread's share of the input (the interleaved partition, as in
  // histogram_global_kernel) into the kNumLetterBins bins at d_bins, by letter_bin(). Bytes
  // that are no letter are not counted; d_bins has 7 counters, not 256.
  // TODO(lab03) end
}

// From histogram_global_kernel: 64-bit counters, so no bin wraps however large n is.
__global__ void histogram64_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                   unsigned long long* d_bins) {
  // TODO(lab03) begin: the 64-bit kernel (about 5 lines)
  // The byte histogram of histogram_global_kernel into 64-bit counters: correct for any n the
  // device holds, including n past 2^32 (and bins past 2^32).
  // TODO(lab03) end
}

// From histogram_global_kernel: the lanes of a warp that read the same byte add once,
// together: one atomic per distinct value in the warp instead of one per lane.
__global__ void histogram_aggregated_kernel(const uint8_t* __restrict__ d_in, size_t n,
                                            uint32_t* d_bins) {
  // TODO(lab03) begin: the warp-aggregated kernel (about 14 lines)
  // The same histogram as histogram_global_kernel (every element below n counted exactly once),
  // but the lanes of a warp that hold the same byte are counted by ONE atomic per group, issued
  // by leader_of(group) and adding group_count(group). Edge cases: n that ends inside a warp (a
  // lane without an element must not read or be counted), any grid, n near 2^32. Warp
  // intrinsics need every lane they name to take part: README.md, Hints.
  // TODO(lab03) end
}

histo::LaunchShape histogram_global(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                    cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab03 histogram_global");
  if (n == 0) return {};
  const histo::LaunchShape shape{grid_for(n, histo::device_sm_count()), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab03 histogram_global");
  histogram_global_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram_aggregated(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                        cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab03 histogram_aggregated");
  if (n == 0) return {};
  const histo::LaunchShape shape{grid_for(n, histo::device_sm_count()), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab03 histogram_aggregated");
  histogram_aggregated_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape letter_histogram(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                    cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, kNumLetterBins, sizeof(uint32_t), stream,
                        "lab03 letter_histogram");
  if (n == 0) return {};
  const histo::LaunchShape shape{grid_for(n, histo::device_sm_count()), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab03 letter_histogram");
  letter_histogram_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram64(const uint8_t* d_in, size_t n, unsigned long long* d_bins,
                               cudaStream_t stream) {
  // 8-byte counters: prepare_output sets no 2^32 limit on n for them.
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(unsigned long long), stream,
                        "lab03 histogram64");
  if (n == 0) return {};
  const histo::LaunchShape shape{grid_for(n, histo::device_sm_count()), kBlockSize, 0};
  histo::check_launch_shape(shape, "lab03 histogram64");
  histogram64_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab03
