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
  // TODO(lab05) begin: packed_row (1 line)
  // Returns the row (0..63) of the word that holds value's 8-bit counter (lab05.h: four
  // consecutive values share one word).
  return 0;
  // TODO(lab05) end
}

__host__ __device__ unsigned packed_shift(unsigned value) {
  // TODO(lab05) begin: packed_shift (1 line)
  // Returns the bit position (0, 8, 16 or 24) of value's 8-bit counter inside its word. No two
  // values of one row may share a counter.
  return 0;
  // TODO(lab05) end
}

__host__ __device__ uint32_t packed_increment(unsigned value) { return 1u << packed_shift(value); }

__host__ __device__ PairSums split_pairs(uint32_t word) {
  // TODO(lab05) begin: split_pairs (1 line)
  // Returns the word's four 8-bit counters as two pairs of 16-bit halves (lab05.h, PairSums):
  // `even` holds byte 0 in bits 0-15 and byte 2 in bits 16-31, `odd` bytes 1 and 3 the same
  // way, so 64 splits can be added without one half carrying into the other.
  return PairSums{0, 0};
  // TODO(lab05) end
}

__host__ __device__ uint32_t unpack(PairSums sums, unsigned byte) {
  // TODO(lab05) begin: unpack (2 lines)
  // Returns the (summed) count of counter `byte` (0..3) from pair sums built by split_pairs:
  // unpack(split_pairs(w), b) is byte b of w, and sums of splits unpack to sums of bytes.
  return 0;
  // TODO(lab05) end
}

__host__ __device__ unsigned merge_column(unsigned step, unsigned thread) {
  // TODO(lab05) begin: merge_column (1 line)
  // Returns the column (0..63) that thread `thread` reads at step `step` (0..63) of the merge.
  // Over the 64 steps each thread visits every column once, and at every step the 32 threads
  // of a warp read 32 different banks.
  return step;
  // TODO(lab05) end
}

__host__ __device__ size_t interleaved_count(size_t thread, size_t num_threads, size_t n) {
  return thread < n ? (n - thread + num_threads - 1) / num_threads : 0;
}

__host__ __device__ unsigned packed_grid_size(size_t n) {
  // TODO(lab05) begin: packed_grid_size (1 line)
  // Returns the fewest blocks of kBlockSize threads with which the interleaved partition gives
  // no thread more than kMaxPerThread elements; 0 for n == 0. The grader checks n up to 2^32 - 1.
  return 0;
  // TODO(lab05) end
}

// Counting phase: one thread's share of the input into its own column of s_packed.
__host__ __device__ void count_into_column(uint32_t* s_packed, unsigned column,
                                           const uint8_t* __restrict__ d_in, size_t n,
                                           size_t first, size_t stride) {
  // TODO(lab05) begin: count into this thread's column (about 5 lines)
  // Afterwards column `column` of s_packed (word row * kBlockSize + column) holds the 8-bit
  // counts of d_in[first], d_in[first + stride], ... below n, and nothing else: it starts from
  // zero. No other column changes. The launcher's grid guarantees no counter passes 255.
  // TODO(lab05) end
}

// Merge phase, one row: what the block counted of values 4 row .. 4 row + 3.
__host__ __device__ RowCounts merge_row(const uint32_t* s_packed, unsigned row) {
  // TODO(lab05) begin: merge one row (about 9 lines)
  // Returns the block's counts of values 4 row .. 4 row + 3: each counter of row `row` summed
  // over the 64 columns, which are read in merge_column's order (no bank conflicts).
  return RowCounts{{0, 0, 0, 0}};
  // TODO(lab05) end
}

// Merge phase: thread t adds the block's counts of row t (values 4t .. 4t+3) to the output.
__device__ void merge_row_into_output(const uint32_t* s_packed, uint32_t* d_bins) {
  // TODO(lab05) begin: add row threadIdx.x to the output (about 4 lines)
  // Thread t adds the four counts of row t (merge_row) to d_bins, which every other block
  // updates too; a zero count costs no global atomic.
  // TODO(lab05) end
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
