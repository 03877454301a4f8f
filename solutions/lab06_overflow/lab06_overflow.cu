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
  // SOLUTION(lab06) begin
  const size_t to_boundary = (width - address % width) % width;
  const size_t head = to_boundary < n ? to_boundary : n;
  const size_t units = (n - head) / width;
  return AlignedSplit{head, units, n - head - units * width};
  // SOLUTION(lab06) end
}

__host__ __device__ Spill spill_top_bits(uint32_t word) {
  // SOLUTION(lab06) begin
  // A set top bit is worth exactly 128 in its byte: moving it out leaves 0..127 behind.
  return Spill{word & ~kTopBits, word & kTopBits};
  // SOLUTION(lab06) end
}

__host__ __device__ unsigned avoidance_grid_size(size_t words) {
  // SOLUTION(lab06) begin
  // Count in words throughout: a block takes 64 threads x 63 words. (Dividing BYTES by
  // 64 x (255 / 4), as the CUDA Handbook's formula does, launches four times the blocks needed.)
  const size_t blocks = histo::ceil_div(words, size_t(kBlockSize) * kMaxWordsPerThread);
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
  // SOLUTION(lab06) end
}

__host__ __device__ size_t merge_rounds(size_t share) {
  // SOLUTION(lab06) begin
  return histo::ceil_div(share, kWordsPerMerge);
  // SOLUTION(lab06) end
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
    // SOLUTION(lab06) begin
    uint32_t* word = &s_packed[packed_row(value) * kBlockSize + tid];
    const Spill spill = spill_top_bits(*word + packed_increment(value));
    *word = spill.remaining;
    // Every counter was below 128 before this increment, so only value's can have reached 128.
    // Shared atomic: other threads of the block spill into the same bins.
    if (spill.spilled) atomicAdd(&s_spill[value], kSpillCount);
    // SOLUTION(lab06) end
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
  // SOLUTION(lab06) begin
  const unsigned tid = threadIdx.x;
  const size_t thread = size_t(blockIdx.x) * kBlockSize + tid;
  const size_t num_threads = size_t(gridDim.x) * kBlockSize;
  // The busiest thread's share: one number for the whole grid, so every thread runs the same
  // rounds and reaches every barrier, including threads whose words have run out.
  const size_t share = interleaved_count(0, num_threads, words);
  const size_t per_round = Policy::kMergesPeriodically ? kWordsPerMerge : share;
  const size_t rounds = Policy::kMergesPeriodically ? merge_rounds(share) : (share > 0 ? 1 : 0);
  for (size_t round = 0; round < rounds; ++round) {
    const size_t round_end = thread + (round + 1) * per_round * num_threads;
    const size_t end = round_end < words ? round_end : words;
#pragma unroll 4
    for (size_t w = thread + round * per_round * num_threads; w < end; w += num_threads) {
      const uint32_t word = d_words[w];  // the 4x unroll: one load, four increments
      Policy::increment(s_packed, tid, word & 0xFFu, s_spill);
      Policy::increment(s_packed, tid, (word >> 8) & 0xFFu, s_spill);
      Policy::increment(s_packed, tid, (word >> 16) & 0xFFu, s_spill);
      Policy::increment(s_packed, tid, word >> 24, s_spill);
    }
    // The merge reads every column of a row: all threads must have finished this round.
    __syncthreads();
    merge_and_clear_row(s_packed, tid, totals);
    // Thread r clears row r, which every thread increments into: nobody may count the next
    // round before all rows are clear (and the spill bins are read after the last round).
    __syncthreads();
  }
  // SOLUTION(lab06) end
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
  // SOLUTION(lab06) begin
  // Bin b of copy c sits at b * 32 + c: bank c. A warp's 32 atomics land in 32 banks whatever
  // the data. Still atomic: lane c of every warp of the block shares copy c.
  uint32_t* s_copy = s_copies + lane;
  // __byte_perm(word, 0, 0x444k) is byte k of the word, zero-extended: one instruction where a
  // shift and a mask are two. The loop issues instructions on most cycles, so each one counts
  // (measured on an H200: 98% of the probe with these, 96% with shift-and-mask).
  atomicAdd(&s_copy[__byte_perm(word, 0, 0x4440) * kLaneCopies], 1u);
  atomicAdd(&s_copy[__byte_perm(word, 0, 0x4441) * kLaneCopies], 1u);
  atomicAdd(&s_copy[__byte_perm(word, 0, 0x4442) * kLaneCopies], 1u);
  atomicAdd(&s_copy[(word >> 24) * kLaneCopies], 1u);
  // SOLUTION(lab06) end
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
  // SOLUTION(lab06) begin
  __shared__ __align__(16) uint32_t s_copies[histo::kNumBins * kLaneCopies];  // 32 KiB
  const unsigned lane = threadIdx.x % 32;
  // 16-byte stores: a quarter of the store instructions of single words.
  uint4* s_vectors = reinterpret_cast<uint4*>(s_copies);
  for (unsigned i = threadIdx.x; i < histo::kNumBins * kLaneCopies / 4; i += kCapstoneBlockSize)
    s_vectors[i] = make_uint4(0, 0, 0, 0);
  // Every copy is shared by all the block's warps: all of it must be zero before anyone counts.
  __syncthreads();

  const AlignedSplit split = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kVectorBytes);
  if (blockIdx.x == 0) {  // the 0..15 unaligned bytes at each end
    if (threadIdx.x < split.head)
      atomicAdd(&s_copies[d_in[threadIdx.x] * kLaneCopies + lane], 1u);
    if (threadIdx.x < split.tail)
      atomicAdd(&s_copies[d_in[n - split.tail + threadIdx.x] * kLaneCopies + lane], 1u);
  }
  const uint4* d_vectors = reinterpret_cast<const uint4*>(d_in + split.head);
  const size_t stride = size_t(gridDim.x) * kCapstoneBlockSize;
  size_t v = size_t(blockIdx.x) * kCapstoneBlockSize + threadIdx.x;
  // Grid-stride, two vectors per trip: both loads are issued before either is counted, so each
  // thread keeps 32 bytes in flight. __ldg: the read-only path (the input never changes here).
  for (; v + stride < split.units; v += 2 * stride) {
    const uint4 first = __ldg(&d_vectors[v]);
    const uint4 second = __ldg(&d_vectors[v + stride]);
    add_vector_to_copy(s_copies, lane, first);
    add_vector_to_copy(s_copies, lane, second);
  }
  if (v < split.units) add_vector_to_copy(s_copies, lane, __ldg(&d_vectors[v]));
  // The merge reads every copy: all counting in the block must be done.
  __syncthreads();

  // Every thread merges: kMergeThreadsPerBin neighbouring threads share a bin, each summing
  // kCopiesPerMergeThread copies, then a shuffle adds their partial sums.
  const unsigned bin = threadIdx.x / kMergeThreadsPerBin;
  const unsigned part = threadIdx.x % kMergeThreadsPerBin;
  const uint32_t* s_part = &s_copies[bin * kLaneCopies + part * kCopiesPerMergeThread];
  uint32_t sum = 0;
  // Rotated by bin: the warp's threads with the same `part` read different banks at every step.
#pragma unroll
  for (unsigned i = 0; i < kCopiesPerMergeThread; ++i)
    sum += s_part[(i + bin) % kCopiesPerMergeThread];
#pragma unroll
  for (unsigned offset = kMergeThreadsPerBin / 2; offset > 0; offset /= 2)
    sum += __shfl_xor_sync(0xFFFFFFFFu, sum, offset);
  if (part == 0 && sum) atomicAdd(&d_bins[bin], sum);  // other blocks add to the same bins
  // SOLUTION(lab06) end
}

// ---- Stretch (optional): per-thread packed counters with 16-byte loads ----------------------

// Predecessor: histogram_unrolled_kernel<PeriodicMerge>. Difference: each load is one 16-byte
// vector (sixteen packed increments), merged every kVectorsPerMerge vectors.
__global__ void __launch_bounds__(kBlockSize)
    histogram_merge_vec16_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // SOLUTION(lab06) begin
  __shared__ uint32_t s_packed[kSharedWords];
  const unsigned tid = threadIdx.x;
  // Column tid is this thread's alone until the first merge: no barrier needed after zeroing.
  for (unsigned row = 0; row < kRows; ++row) s_packed[row * kBlockSize + tid] = 0;
  const AlignedSplit split = split_aligned(reinterpret_cast<uintptr_t>(d_in), n, kVectorBytes);
  if (blockIdx.x == 0) count_head_and_tail(d_in, n, split, d_bins);
  const uint4* d_vectors = reinterpret_cast<const uint4*>(d_in + split.head);
  const size_t thread = size_t(blockIdx.x) * kBlockSize + tid;
  const size_t num_threads = size_t(gridDim.x) * kBlockSize;
  // As in count_in_rounds: the busiest thread's share sets the rounds for every thread.
  const size_t rounds =
      histo::ceil_div(interleaved_count(0, num_threads, split.units), kVectorsPerMerge);
  // Four plain packed increments into this thread's column, bytes in address order.
  auto add_word = [&](uint32_t word) {
    add_packed(s_packed, tid, word & 0xFFu);
    add_packed(s_packed, tid, (word >> 8) & 0xFFu);
    add_packed(s_packed, tid, (word >> 16) & 0xFFu);
    add_packed(s_packed, tid, word >> 24);
  };
  uint32_t totals[kCountersPerWord] = {0, 0, 0, 0};
  for (size_t round = 0; round < rounds; ++round) {
    const size_t round_end = thread + (round + 1) * kVectorsPerMerge * num_threads;
    const size_t end = round_end < split.units ? round_end : split.units;
#pragma unroll 3
    for (size_t v = thread + round * kVectorsPerMerge * num_threads; v < end; v += num_threads) {
      const uint4 vector = __ldg(&d_vectors[v]);
      add_word(vector.x);
      add_word(vector.y);
      add_word(vector.z);
      add_word(vector.w);
    }
    // The merge reads every column of a row: all threads must have finished this round.
    __syncthreads();
    merge_and_clear_row(s_packed, tid, totals);
    // Every row must be clear before anyone counts into it again.
    __syncthreads();
  }
  for (unsigned byte = 0; byte < kCountersPerWord; ++byte)
    if (totals[byte]) atomicAdd(&d_bins[tid * kCountersPerWord + byte], totals[byte]);
  // SOLUTION(lab06) end
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
