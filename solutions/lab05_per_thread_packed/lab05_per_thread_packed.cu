// lab05_per_thread_packed: one private histogram per thread, 8-bit counters packed four to a word.
//
// Technique: every thread keeps its own 256-bin histogram in shared memory and counts with plain
//   (non-atomic) adds: nobody else writes its counters. The counters are 8 bits wide, packed
//   four to a 32-bit word, and the block's 64 x 256 counters are laid out as 64 rows x 64
//   columns of words: row = value / 4, byte = value % 4, column = thread. At the end each
//   thread sums one row across all 64 columns and adds four bins to the output.
// Since lab04: lab04 gave each BLOCK one histogram and paid a shared atomic per element; here
//   each THREAD has one and pays a plain 32-bit read-modify-write of a word no other thread
//   touches, so contention (degenerate data) cannot slow the counting down.
// Cost model: per element one byte load, one shared read and one shared write, never a bank
//   conflict (thread t's column sits in bank t % 32 whatever the data). Per block: 16 KiB of
//   shared memory, one barrier, 64 x 64 shared reads in the merge and at most 256 global
//   atomics. Blocks are many and short: each thread counts at most 255 elements.
// Limits: an 8-bit counter wraps after 255 counts, so the grid grows with n (about n / 16320
//   blocks) to keep every thread within that budget; n < 2^32 (32-bit output bins).
// Build and grade without a GPU or the CUDA Toolkit (your kernels run in the CPU simulator):
//   cmake --workflow --preset sim                                   (once)
//   cmake --build --preset sim --target lab05_student_sim_grader    (after each change)
//   ctest --preset sim -L lab05
// With an NVIDIA GPU and the CUDA Toolkit: --preset student-gpu, target lab05_student_grader.
#include "lab05.h"

#include "histo/cuda_check.hpp"

namespace lab05 {

__host__ __device__ unsigned packed_row(unsigned value) {
  // SOLUTION(lab05) begin
  return value / kCountersPerWord;
  // SOLUTION(lab05) end
}

__host__ __device__ unsigned packed_shift(unsigned value) {
  // SOLUTION(lab05) begin
  return 8 * (value % kCountersPerWord);
  // SOLUTION(lab05) end
}

__host__ __device__ uint32_t packed_increment(unsigned value) { return 1u << packed_shift(value); }

__host__ __device__ PairSums split_pairs(uint32_t word) {
  // SOLUTION(lab05) begin
  // Bytes 0 and 2 stay where they are; bytes 1 and 3 move down by 8 to the same positions.
  return PairSums{word & 0x00FF00FFu, (word >> 8) & 0x00FF00FFu};
  // SOLUTION(lab05) end
}

__host__ __device__ uint32_t unpack(PairSums sums, unsigned byte) {
  // SOLUTION(lab05) begin
  const uint32_t pair = (byte % 2 == 0) ? sums.even : sums.odd;
  return (byte < 2) ? (pair & 0xFFFFu) : (pair >> 16);
  // SOLUTION(lab05) end
}

__host__ __device__ unsigned merge_column(unsigned step, unsigned thread) {
  // SOLUTION(lab05) begin
  return (step + thread) & (kBlockSize - 1);
  // SOLUTION(lab05) end
}

__host__ __device__ size_t interleaved_count(size_t thread, size_t num_threads, size_t n) {
  return thread < n ? (n - thread + num_threads - 1) / num_threads : 0;
}

__host__ __device__ unsigned packed_grid_size(size_t n) {
  // SOLUTION(lab05) begin
  // Thread 0 has the most elements, ceil(n / threads); it stays within budget exactly when
  // threads * kMaxPerThread >= n.
  return static_cast<unsigned>(histo::ceil_div(n, size_t(kBlockSize) * kMaxPerThread));
  // SOLUTION(lab05) end
}

// Counting phase: one thread's share of the input into its own column of s_packed.
__host__ __device__ void count_into_column(uint32_t* s_packed, unsigned column,
                                           const uint8_t* __restrict__ d_in, size_t n,
                                           size_t first, size_t stride) {
  // SOLUTION(lab05) begin
  // No barrier after zeroing: until the merge, this column is read and written by this thread only.
  for (unsigned row = 0; row < kRows; ++row) s_packed[row * kBlockSize + column] = 0;
  // The grid was sized so that this loop runs at most kMaxPerThread times: no counter can wrap.
#pragma unroll 4
  for (size_t i = first; i < n; i += stride) {
    const unsigned value = d_in[i];
    // A plain add, not an atomic: no other thread writes this word.
    s_packed[packed_row(value) * kBlockSize + column] += packed_increment(value);
  }
  // SOLUTION(lab05) end
}

// Merge phase, one row: what the block counted of values 4 row .. 4 row + 3.
__host__ __device__ RowCounts merge_row(const uint32_t* s_packed, unsigned row) {
  // SOLUTION(lab05) begin
  PairSums sums{0, 0};
  for (unsigned step = 0; step < kBlockSize; ++step) {
    // Rotated column: at each step the warp's 32 threads read 32 different banks. Reading column
    // `step` for everyone would put all 32 reads in bank step % 32, a 32-way conflict.
    const PairSums pair = split_pairs(s_packed[row * kBlockSize + merge_column(step, row)]);
    sums.even += pair.even;  // 64 x 255 = 16320: the 16-bit halves never carry into each other
    sums.odd += pair.odd;
  }
  RowCounts counts;
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) counts.count[byte] = unpack(sums, byte);
  return counts;
  // SOLUTION(lab05) end
}

// Merge phase: thread t adds the block's counts of row t (values 4t .. 4t+3) to the output.
__device__ void merge_row_into_output(const uint32_t* s_packed, uint32_t* d_bins) {
  // SOLUTION(lab05) begin
  const unsigned row = threadIdx.x;
  const RowCounts counts = merge_row(s_packed, row);
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) {
    // Other blocks add to the same bins: atomic. Empty bins cost nothing.
    if (counts.count[byte]) atomicAdd(&d_bins[row * kCountersPerWord + byte], counts.count[byte]);
  }
  // SOLUTION(lab05) end
}

// Predecessor: lab04's per-block shared histogram. Difference: one packed 8-bit histogram per
// thread, plain adds instead of shared atomics, and a grid sized so no counter can overflow.
__global__ void __launch_bounds__(kBlockSize)
    histogram_packed_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // 64 rows x 64 columns of packed words. Word (row, column) is at row * 64 + column, so its
  // bank is column % 32: a warp's threads always hit 32 different banks while counting.
  __shared__ uint32_t s_packed[kSharedWords];
  // Interleaved: at every step the block's 64 threads read 64 neighbouring bytes. size_t: grids
  // pass 2^16 blocks.
  count_into_column(s_packed, threadIdx.x, d_in, n, size_t(blockIdx.x) * kBlockSize + threadIdx.x,
                    size_t(gridDim.x) * kBlockSize);
  // The merge reads every column of a row: all threads must have finished counting first.
  __syncthreads();
  merge_row_into_output(s_packed, d_bins);
}

histo::LaunchShape histogram_packed(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                    cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab05 histogram_packed");
  if (n == 0) return {};
  const histo::LaunchShape shape{packed_grid_size(n), kBlockSize,
                                 kSharedWords * sizeof(uint32_t)};
  histo::check_launch_shape(shape, "lab05 histogram_packed");
  histogram_packed_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

// ---------------------------------------------------------------------------------------------
// The two other layouts, provided (you do not edit them): the benchmark measures all three and
// Nsight Compute counts their shared-memory bank conflicts (scripts/report.sh). The CUDA
// Handbook draws three ways to lay out 64 threads x 256 8-bit counters; the packed kernel above
// is its third. These two address every counter as a byte, so each increment is an 8-bit shared
// load and an 8-bit shared store:
//   per row:    thread t's whole histogram is row t, 256 bytes: counter (t, v) is byte
//               t * 256 + v, in bank (v / 4) % 32 whatever the thread. Threads of a warp whose
//               values fall in the same bank collide; on degenerate data all 32 of them do.
//   per column: value v's counters form row v, one byte per thread: counter (t, v) is byte
//               v * 64 + t. Four neighbouring threads share a word, so only 16 banks hold the
//               counters of even values (and 16 those of odd ones): different values collide.
// Both keep the 255-per-counter budget with tiles: block b counts the bytes
// [b * kLayoutTile, (b + 1) * kLayoutTile) with its 64 threads striding through them, so no
// thread sees more than kMaxPerThread elements.
// (kLayoutTile, in lab05.h, is the tile.)

enum class Layout { per_row, per_column };

// The byte that holds thread `thread`'s counter for `value`.
template <Layout L>
__device__ __forceinline__ unsigned layout_byte(unsigned thread, unsigned value) {
  return L == Layout::per_row ? thread * histo::kNumBins + value : value * kBlockSize + thread;
}

// Counting and merge for both layouts. Only the counting differs from the packed kernel in what
// it costs: the merge reads 32-bit words without bank conflicts in both, like the packed merge.
template <Layout L>
__device__ void count_and_merge_layout(const uint8_t* __restrict__ d_in, size_t n,
                                       uint32_t* d_bins) {
  __shared__ uint32_t s_words[kSharedWords];  // 16 KiB: 64 threads x 256 8-bit counters
  uint8_t* s_bytes = reinterpret_cast<uint8_t*>(s_words);
  const unsigned tid = threadIdx.x;
  // Threads zero words that other threads' counters live in: the barrier orders that first.
  for (unsigned w = tid; w < kSharedWords; w += kBlockSize) s_words[w] = 0;
  __syncthreads();
  const size_t begin = size_t(blockIdx.x) * kLayoutTile;
  const size_t end = n - begin < kLayoutTile ? n : begin + kLayoutTile;
#pragma unroll 4
  for (size_t i = begin + tid; i < end; i += kBlockSize) {
    // A plain 8-bit add, not an atomic: no other thread writes this byte.
    ++s_bytes[layout_byte<L>(tid, d_in[i])];
  }
  // The merge reads every thread's counters: all threads must have finished counting.
  __syncthreads();
  // Thread t merges values 4t .. 4t+3 over the 64 threads' counters.
  uint32_t sums[4] = {0, 0, 0, 0};
  for (unsigned step = 0; step < kBlockSize; ++step) {
    if (L == Layout::per_row) {
      // Word (row step, column t) holds thread `step`'s counters for values 4t .. 4t+3; the
      // warp reads 32 consecutive words: 32 banks.
      const uint32_t word = s_words[step * kBlockSize + tid];
      for (unsigned b = 0; b < 4; ++b) sums[b] += (word >> (8 * b)) & 0xFFu;
    } else {
      // Words 64t .. 64t+63 hold values 4t .. 4t+3, 16 words (64 threads) each. Visiting them
      // in the order step ^ t puts the warp's 32 reads in 32 different banks at every step.
      const unsigned m = step ^ tid;
      const uint32_t word = s_words[tid * kBlockSize + m];
      const uint32_t total =
          (word & 0xFFu) + ((word >> 8) & 0xFFu) + ((word >> 16) & 0xFFu) + (word >> 24);
      for (unsigned b = 0; b < 4; ++b) sums[b] += (m / 16 == b) ? total : 0;
    }
  }
  for (unsigned b = 0; b < 4; ++b)
    if (sums[b]) atomicAdd(&d_bins[4 * tid + b], sums[b]);  // other blocks add to these bins too
}

// Predecessor: histogram_packed_kernel. Difference: byte counters, one histogram per row.
__global__ void __launch_bounds__(kBlockSize)
    histogram_per_row_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  count_and_merge_layout<Layout::per_row>(d_in, n, d_bins);
}

// Predecessor: histogram_packed_kernel. Difference: byte counters, one histogram per column.
__global__ void __launch_bounds__(kBlockSize)
    histogram_per_column_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  count_and_merge_layout<Layout::per_column>(d_in, n, d_bins);
}

histo::LaunchShape histogram_per_row(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                     cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab05 histogram_per_row");
  if (n == 0) return {};
  const histo::LaunchShape shape{static_cast<unsigned>(histo::ceil_div(n, kLayoutTile)),
                                 kBlockSize, kSharedWords * sizeof(uint32_t)};
  histo::check_launch_shape(shape, "lab05 histogram_per_row");
  histogram_per_row_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram_per_column(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                        cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab05 histogram_per_column");
  if (n == 0) return {};
  const histo::LaunchShape shape{static_cast<unsigned>(histo::ceil_div(n, kLayoutTile)),
                                 kBlockSize, kSharedWords * sizeof(uint32_t)};
  histo::check_launch_shape(shape, "lab05 histogram_per_column");
  histogram_per_column_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab05
