// lab06_overflow: three ways to keep 8-bit counters from wrapping, then the fastest histogram.
//
// Technique: lab05's per-thread packed counters (64 rows x 64 columns of words, 16 KiB per
//   block), now fed 32-bit words: each thread loads 4 bytes at a time and makes 4 increments
//   (the 4x unroll). One kernel template takes the overflow strategy as a policy:
//     OverflowCheck      test each counter after incrementing; at 128 spill it (a shared
//                        atomic into the block's 32-bit spill bins) and clear its top bit.
//     OverflowAvoidance  size the grid so no thread sees more than 63 words (252 bytes).
//     PeriodicMerge      a grid sized for the device; every 63 words each thread folds its
//                        row of counters into registers and clears it, between two barriers.
//   Then the capstone: 32 lane copies of a 32-bit histogram with shared atomics, 16-byte loads.
//   Stretch (optional): the periodic merge fed 16-byte vectors (histogram_merge_vec16).
// Since lab05: words instead of bytes, and three overflow strategies instead of one grid rule.
// Cost model: per byte one shared read-modify-write (the check adds a test and a branch). Per
//   merge: 64 shared reads and writes per thread and two barriers. Global atomics: 256 per
//   block (avoidance launches one block per 16128 bytes; check and merge launch a device-sized
//   grid). Stretch: the same, 16 increments per load, a merge every 15 vectors (240 bytes).
//   Capstone: one conflict-free shared atomic per byte (about 5 instructions with its byte
//   extraction and address); per block of 1024 threads (two per SM), 32 KiB zeroed and merged
//   and 256 global atomics; before the kernel, one cudaMemsetAsync of the 1 KiB output.
//   Where its time goes, NVIDIA H200 (Nsight Compute, 1 GiB uniform): DRAM reads at 91% of
//   peak, the shared-atomic pipe 74% busy, an instruction issued on 77% of scheduler cycles,
//   warps waiting mostly on their 16-byte loads: memory and instruction issue together bound
//   the loop, at 98% of the read-only probe. Fixed costs (event timings): about 5 us of launch
//   latency that every kernel pays, the probe too; the memset, 0.3-1.5 us; zeroing, barriers,
//   merge and global atomics together, about 3.5 us when nothing overlaps them, of which the
//   264 x 256 global atomics on the same 256 words take 0.7-2 us at the end. At 16 MiB the input
//   sits in L2: the probe reads it in 3.4 us past its launch, the capstone kernel needs 6.4 us,
//   with SMs busy only 65% of its cycles (ramp-up and tail) and the shared-atomic pipe 66% busy
//   while they are: 16 MiB is too little work to hide the fixed costs. Even with no zeroing and
//   no output at all, counting alone reached only 84-85% of the probe at 16 MiB (the handout).
// Limits: n < 2^32 (32-bit output bins); any alignment (head and tail bytes are counted apart).
// Build and grade without a GPU or the CUDA Toolkit (your kernels run in the CPU simulator):
//   cmake --workflow --preset sim                                   (once)
//   cmake --build --preset sim --target lab06_student_sim_grader    (after each change)
//   ctest --preset sim -L lab06
// With an NVIDIA GPU and the CUDA Toolkit: --preset student-gpu, target lab06_student_grader.
#include "lab06.h"

#include "histo/cuda_check.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab06 {

// ---- Helpers provided from lab05 --------------------------------------------------------------

__host__ __device__ unsigned packed_row(unsigned value) { return value / kCountersPerWord; }
__host__ __device__ uint32_t packed_increment(unsigned value) {
  return 1u << (8 * (value % kCountersPerWord));
}
__host__ __device__ PairSums split_pairs(uint32_t word) {
  return PairSums{word & 0x00FF00FFu, (word >> 8) & 0x00FF00FFu};
}
__host__ __device__ uint32_t unpack(PairSums sums, unsigned byte) {
  const uint32_t pair = (byte % 2 == 0) ? sums.even : sums.odd;
  return (byte < 2) ? (pair & 0xFFFFu) : (pair >> 16);
}
__host__ __device__ size_t interleaved_count(size_t thread, size_t num_threads, size_t units) {
  return thread < units ? (units - thread + num_threads - 1) / num_threads : 0;
}

// ---- Your helpers -------------------------------------------------------------------------

__host__ __device__ AlignedSplit split_aligned(uintptr_t address, size_t n, size_t width) {
  // TODO(lab06) begin: split_aligned (about 4 lines)
  // Returns how n bytes at `address` split for width-byte loads (lab06.h, AlignedSplit): a head
  // up to the first multiple of `width` (0 when aligned, never more than n), whole units, a
  // tail. head + units * width + tail == n, head < width, tail < width.
  return AlignedSplit{0, 0, 0};
  // TODO(lab06) end
}

__host__ __device__ Spill spill_top_bits(uint32_t word) {
  // TODO(lab06) begin: spill_top_bits (1 line)
  // Splits a packed word in two (lab06.h, Spill): `spilled` holds 128 in each byte whose counter
  // is at 128 or more and 0 in the others; `remaining` is the rest. remaining + spilled == word,
  // and every counter of `remaining` is below 128.
  return Spill{word, 0};
  // TODO(lab06) end
}

__host__ __device__ unsigned avoidance_grid_size(size_t words) {
  // TODO(lab06) begin: avoidance_grid_size (about 2 lines)
  // Returns the fewest blocks of kBlockSize threads with which the interleaved partition of
  // `words` words gives no thread more than kMaxWordsPerThread words; at least 1 (block 0 also
  // counts the head and tail bytes), also for words == 0.
  return 1;
  // TODO(lab06) end
}

__host__ __device__ size_t merge_rounds(size_t share) {
  // TODO(lab06) begin: merge_rounds (1 line)
  // Returns the fewest rounds of at most kWordsPerMerge words that cover `share` words; 0 for
  // share == 0.
  return 1;
  // TODO(lab06) end
}

// ---- The packed kernel's pieces -------------------------------------------------------------

// The plain packed increment of lab05: thread tid owns column tid, so no atomic is needed.
__device__ void add_packed(uint32_t* s_packed, unsigned tid, unsigned value) {
  s_packed[packed_row(value) * kBlockSize + tid] += packed_increment(value);
}

// Overflow check: correct for any n and any grid; pays a test and a branch on every increment.
struct OverflowCheck {
  static constexpr bool kSpills = true;              // uses the block's 256 spill bins
  static constexpr bool kMergesPeriodically = false;  // counts everything, merges once
  static constexpr bool kGridFromDevice = true;       // any grid works: fill the device
  __device__ static void increment(uint32_t* s_packed, unsigned tid, unsigned value,
                                   uint32_t* s_spill) {
    // TODO(lab06) begin: the checked increment (about 5 lines)
    // Counts `value` once for thread tid, like add_packed, but no counter of tid's column ever
    // reaches 128 afterwards: whatever leaves the packed counter is added to s_spill[value]
    // (the block's 32-bit spill bins, shared by all its threads). Correct for any n and grid.
    // Placeholder: a plain increment with no check, which wraps after 255 counts.
    add_packed(s_packed, tid, value);
    (void)s_spill;
    // TODO(lab06) end
  }
};

// Overflow avoidance: the grid (avoidance_grid_size) keeps each thread within 63 words.
struct OverflowAvoidance {
  static constexpr bool kSpills = false;
  static constexpr bool kMergesPeriodically = false;
  static constexpr bool kGridFromDevice = false;  // the grid IS the overflow protection
  __device__ static void increment(uint32_t* s_packed, unsigned tid, unsigned value, uint32_t*) {
    add_packed(s_packed, tid, value);
  }
};

// Periodic merge: a device-sized grid; counters are folded and cleared every kWordsPerMerge words.
struct PeriodicMerge {
  static constexpr bool kSpills = false;
  static constexpr bool kMergesPeriodically = true;
  static constexpr bool kGridFromDevice = true;
  __device__ static void increment(uint32_t* s_packed, unsigned tid, unsigned value, uint32_t*) {
    add_packed(s_packed, tid, value);
  }
};

// Lab05's merge, plus clearing: thread `row` folds row `row` (values 4 row .. 4 row + 3) over
// the 64 columns into its four running totals and zeroes the row for the next round.
__device__ void merge_and_clear_row(uint32_t* s_packed, unsigned row,
                                    uint32_t totals[kCountersPerWord]) {
  PairSums sums{0, 0};
  for (unsigned step = 0; step < kBlockSize; ++step) {
    // Rotated column: at each step the warp's 32 threads read 32 different banks (lab05).
    uint32_t& word = s_packed[row * kBlockSize + ((step + row) & (kBlockSize - 1))];
    const PairSums pair = split_pairs(word);
    word = 0;
    sums.even += pair.even;  // at most 64 x 252: the 16-bit halves never carry
    sums.odd += pair.odd;
  }
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) totals[byte] += unpack(sums, byte);
}

// The bytes before the first aligned load and after the last one (fewer than a load's width
// at each end): one thread per byte adds it to the output.
__device__ void count_head_and_tail(const uint8_t* d_in, size_t n, AlignedSplit split,
                                    uint32_t* d_bins) {
  const unsigned tid = threadIdx.x;
  if (tid < split.head) atomicAdd(&d_bins[d_in[tid]], 1u);
  if (tid < split.tail) atomicAdd(&d_bins[d_in[n - split.tail + tid]], 1u);
}

// Count this thread's words of the interleaved partition into its column, merging into
// `totals` as the policy requires. Every thread of the block must reach every barrier.
template <class Policy>
__device__ void count_in_rounds(const uint32_t* __restrict__ d_words, size_t words,
                                uint32_t* s_packed, uint32_t* s_spill,
                                uint32_t totals[kCountersPerWord]) {
  // TODO(lab06) begin: count in rounds, merging as the policy requires (about 15 lines)
  // Counts this thread's words of the interleaved partition of d_words[0, words) (4 bytes per
  // word, Policy::increment per byte) and leaves the block's counts of values 4 tid .. 4 tid + 3
  // in `totals` (merge_and_clear_row), with s_packed all clear. With
  // Policy::kMergesPeriodically no thread counts more than kWordsPerMerge words between two
  // merges. Every thread of the block must reach the same barriers, including threads that have
  // no words (any grid, any n); racecheck must find no hazard.
  // TODO(lab06) end
}

// Predecessor: lab05's histogram_packed_kernel. Difference: 32-bit loads feeding four increments
// each, and the overflow strategy chosen by the Policy template parameter.
template <class Policy>
__global__ void __launch_bounds__(kBlockSize)
    histogram_unrolled_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  __shared__ uint32_t s_packed[kSharedWords];
  // The check's spill bins (one 32-bit count per value); one unused word for the others.
  __shared__ uint32_t s_spill[Policy::kSpills ? histo::kNumBins : 1];
  const unsigned tid = threadIdx.x;
  // Column tid is this thread's alone until the first merge: no barrier needed after zeroing.
  for (unsigned row = 0; row < kRows; ++row) s_packed[row * kBlockSize + tid] = 0;
  if constexpr (Policy::kSpills) {
    for (unsigned bin = tid; bin < histo::kNumBins; bin += kBlockSize) s_spill[bin] = 0;
    // Any thread may spill into any bin: every bin must be zero before anyone counts.
    __syncthreads();
  }
  const AlignedSplit split = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kBytesPerWord);
  if (blockIdx.x == 0) count_head_and_tail(d_in, n, split, d_bins);
  uint32_t totals[kCountersPerWord] = {0, 0, 0, 0};  // values 4 tid .. 4 tid + 3, this block
  count_in_rounds<Policy>(reinterpret_cast<const uint32_t*>(d_in + split.head), split.units,
                          s_packed, s_spill, totals);
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte) {
    uint32_t count = totals[byte];
    if constexpr (Policy::kSpills) count += s_spill[tid * kCountersPerWord + byte];
    // Other blocks add to the same bins: atomic. Empty bins cost nothing.
    if (count) atomicAdd(&d_bins[tid * kCountersPerWord + byte], count);
  }
}

// ---- The capstone ---------------------------------------------------------------------------

// Lane `lane` adds the four bytes of `word` to its own copy of the histogram.
__device__ void add_word_to_copy(uint32_t* s_copies, unsigned lane, uint32_t word) {
  // TODO(lab06) begin: add_word_to_copy (about 2 lines)
  // Adds each of the 4 bytes of `word` to copy `lane` of the histogram (bin b of copy c is
  // s_copies[b * kLaneCopies + c]), which other warps' lane `lane` update at the same time.
  // TODO(lab06) end
}

__device__ void add_vector_to_copy(uint32_t* s_copies, unsigned lane, uint4 vector) {
  add_word_to_copy(s_copies, lane, vector.x);
  add_word_to_copy(s_copies, lane, vector.y);
  add_word_to_copy(s_copies, lane, vector.z);
  add_word_to_copy(s_copies, lane, vector.w);
}

// Predecessor: lab04's per-block shared histogram with 16-byte loads. Difference: 32 copies of
// the histogram (copy = lane = bank), so shared atomics never conflict, and two loads in flight.
__global__ void __launch_bounds__(kCapstoneBlockSize)
    histogram_capstone_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // TODO(lab06) begin: the capstone kernel (about 35 lines)
  // The fastest correct histogram you can build. Contract: this block adds its share of
  // [d_in, d_in + n) to d_bins so that, over the launcher's grid (device-sized, blocks of
  // kCapstoneBlockSize threads, kVectorsInFlight 16-byte vectors per thread and trip), every
  // byte at any alignment and any n below 2^32 is counted exactly once and no byte outside is
  // read. Static shared memory up to kCapstoneSharedBytes (32 KiB). README.md, Hints, has the
  // design that reached the read-bandwidth limit on an H200.
  // Placeholder: returns without counting anything. The grader fails until you replace it.
  return;
  // TODO(lab06) end
}

// ---- Stretch (optional): per-thread packed counters with 16-byte loads ----------------------

// Predecessor: histogram_unrolled_kernel<PeriodicMerge>. Difference: each load is one 16-byte
// vector (sixteen packed increments), merged every kVectorsPerMerge vectors.
__global__ void __launch_bounds__(kBlockSize)
    histogram_merge_vec16_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // TODO(lab06) begin: stretch (optional): the periodic merge with 16-byte loads (about 30 lines)
  // The same result as histogram_merge: every byte of d_in[0, n) counted once into d_bins (which
  // the launcher has zeroed), for any n < 2^32, any alignment of d_in and ANY grid (the grader
  // runs it on one and three blocks). Keep lab06's per-thread packed layout (s_packed, 64 x 64
  // words, column = thread) and its 8-bit counters: no counter may ever pass 255. Read the
  // aligned part of the input as 16-byte vectors; the bytes before and after it are few.
  // Every thread of a block must reach every barrier the block executes.
  // Placeholder: returns without counting anything. The stretch test fails until you replace it.
  return;
  // TODO(lab06) end
}

// ---- Launchers ------------------------------------------------------------------------------

namespace {

// A grid for a grid-stride kernel: every block the device holds at once, but never more blocks
// than there is work for (one unit per thread), and at least one.
template <auto kernel, unsigned block_size>
unsigned device_grid_size(size_t units) {
  const size_t resident =
      size_t(histo::resident_blocks_per_sm(kernel, block_size, 0, "lab06")) * histo::device_sm_count();
  const size_t needed = std::max<size_t>(1, histo::ceil_div(units, block_size));
  return static_cast<unsigned>(std::min(resident, needed));
}

// grid == 0: the policy's own grid. Any other value is used as given (check and merge only).
template <class Policy>
histo::LaunchShape launch_unrolled(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                   unsigned grid, cudaStream_t stream, const char* who) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream, who);
  if (n == 0) return {};
  const size_t words = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kBytesPerWord).units;
  if (grid == 0) {
    grid = Policy::kGridFromDevice
               ? device_grid_size<histogram_unrolled_kernel<Policy>, kBlockSize>(words)
               : avoidance_grid_size(words);
  }
  const size_t shared_words = kSharedWords + (Policy::kSpills ? histo::kNumBins : 0);
  const histo::LaunchShape shape{grid, kBlockSize, shared_words * sizeof(uint32_t)};
  histo::check_launch_shape(shape, who);
  histogram_unrolled_kernel<Policy><<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

void require_grid(unsigned grid, const char* who) {
  if (grid == 0) throw std::invalid_argument(std::string(who) + ": grid must be at least 1");
}

}  // namespace

histo::LaunchShape histogram_check(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                   cudaStream_t stream) {
  return launch_unrolled<OverflowCheck>(d_in, n, d_bins, 0, stream, "lab06 histogram_check");
}

histo::LaunchShape histogram_avoid(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                   cudaStream_t stream) {
  return launch_unrolled<OverflowAvoidance>(d_in, n, d_bins, 0, stream, "lab06 histogram_avoid");
}

histo::LaunchShape histogram_merge(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                   cudaStream_t stream) {
  return launch_unrolled<PeriodicMerge>(d_in, n, d_bins, 0, stream, "lab06 histogram_merge");
}

histo::LaunchShape histogram_check_on_grid(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                           unsigned grid, cudaStream_t stream) {
  require_grid(grid, "lab06 histogram_check_on_grid");
  return launch_unrolled<OverflowCheck>(d_in, n, d_bins, grid, stream,
                                        "lab06 histogram_check_on_grid");
}

histo::LaunchShape histogram_merge_on_grid(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                           unsigned grid, cudaStream_t stream) {
  require_grid(grid, "lab06 histogram_merge_on_grid");
  return launch_unrolled<PeriodicMerge>(d_in, n, d_bins, grid, stream,
                                        "lab06 histogram_merge_on_grid");
}

namespace {

// The stretch kernel on a device-sized grid (grid == 0) or on `grid` blocks.
histo::LaunchShape launch_merge_vec16(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                      unsigned grid, cudaStream_t stream, const char* who) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream, who);
  if (n == 0) return {};
  const size_t vectors = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kVectorBytes).units;
  if (grid == 0) grid = device_grid_size<histogram_merge_vec16_kernel, kBlockSize>(vectors);
  const histo::LaunchShape shape{grid, kBlockSize, kSharedWords * sizeof(uint32_t)};
  histo::check_launch_shape(shape, who);
  histogram_merge_vec16_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace

histo::LaunchShape histogram_merge_vec16(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                         cudaStream_t stream) {
  return launch_merge_vec16(d_in, n, d_bins, 0, stream, "lab06 histogram_merge_vec16");
}

histo::LaunchShape histogram_merge_vec16_on_grid(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                                 unsigned grid, cudaStream_t stream) {
  require_grid(grid, "lab06 histogram_merge_vec16_on_grid");
  return launch_merge_vec16(d_in, n, d_bins, grid, stream,
                            "lab06 histogram_merge_vec16_on_grid");
}

histo::LaunchShape histogram_capstone(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                      cudaStream_t stream) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream,
                        "lab06 histogram_capstone");
  if (n == 0) return {};
  const size_t vectors = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kVectorBytes).units;
  // Work in units of one trip of the loop: kVectorsInFlight vectors per thread.
  const unsigned grid = device_grid_size<histogram_capstone_kernel, kCapstoneBlockSize>(
      histo::ceil_div(vectors, kVectorsInFlight));
  const histo::LaunchShape shape{grid, kCapstoneBlockSize, kCapstoneSharedBytes};
  histo::check_launch_shape(shape, "lab06 histogram_capstone");
  histogram_capstone_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab06
