// lab04_shared_privatized: one private histogram per block, in shared memory.
//
// Technique: privatization. Each block zeroes 256 counters in shared memory, counts its part
//   of the input into them with shared-memory atomics, and at the end adds its non-empty
//   counters to the global histogram: 256 global atomics per block instead of one per byte.
//   Then: 16-byte loads (uint4) with several in flight per thread; run aggregation (a thread
//   adds a run of equal bytes once); and partial privatization for wide histograms (uint16_t
//   values, up to 65536 bins: the low bins in shared memory, the rest straight to global).
// Since lab03: the same grid-stride partition, but the per-element atomic goes to shared
//   memory, private to the block: only the block's own threads contend for it, and it
//   completes in the SM instead of at the L2.
// Cost model: per element, one shared atomic (runs: one per run within a 16-byte vector); per
//   block, zeroing 256 counters and at most 256 global atomics for the merge; 1 KiB of shared
//   memory per block (wide: 4 B per privatized bin). With byte loads the load instructions
//   limit; with 16-byte loads, the shared atomics (bank conflicts on uniform data).
// Limits: n < 2^32 (32-bit counters). Wide histograms: 65536 bins x 4 B = 256 KiB, more than
//   one block may use (227 KiB on an H100/H200, 48 KiB without opting in), hence partial
//   privatization.
// Build and grade without a GPU or the CUDA Toolkit (your kernels run in the CPU simulator):
//   cmake --workflow --preset sim                                   (once)
//   cmake --build --preset sim --target lab04_student_sim_grader    (after each change)
//   ctest --preset sim -L lab04
// With an NVIDIA GPU and the CUDA Toolkit: --preset student-gpu, target lab04_student_grader.
#include "lab04.h"

#include "histo/cuda_check.hpp"
#include "histo/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab04 {

// ---- Helpers the grader also runs on the CPU -------------------------------------------------

__host__ __device__ AlignedSplit split_aligned(uintptr_t address, size_t n) {
  // TODO(lab04) begin: split_aligned (about 5 lines)
  // Returns how n bytes at `address` split for 16-byte loads (lab04.h, AlignedSplit): the head
  // reaches the first multiple of kVectorBytes (all n bytes when the data ends before it, 0 when
  // address is aligned), then whole vectors, then a tail of 0..15 bytes. head + 16 * vectors +
  // tail == n. The grader checks all 16 misalignments and n from 0 to past 2^32, on the CPU.
  return AlignedSplit{0, 0, 0};
  // TODO(lab04) end
}

__host__ __device__ uint32_t run_heads(uint4 v) {
  // TODO(lab04) begin: run_heads (about 5 lines)
  // Returns the mask of run starts in v: bit k (0..15) set when byte k (vector_byte) starts a
  // run of equal bytes, that is k == 0 or byte k differs from byte k - 1. Bits 16..31 are 0.
  return 0u;
  // TODO(lab04) end
}

__host__ __device__ uint32_t run_length(uint32_t heads, int k) {
  // TODO(lab04) begin: run_length (about 2 lines)
  // Returns the length of the run that starts at byte k (a set bit of `heads`, from run_heads):
  // the distance to the next run start above k, or to the end of the vector (byte 16) when
  // there is none. Bits of `heads` at or below k, and above bit 15, do not matter.
  return 0u;
  // TODO(lab04) end
}

__host__ __device__ uint32_t privatized_bins(uint32_t num_bins, size_t budget_bytes) {
  // TODO(lab04) begin: privatized_bins (about 2 lines)
  // Returns how many of the num_bins bins (the lowest ones) a block keeps in shared memory when
  // it may spend budget_bytes on 4-byte counters: as many as fit, at most num_bins; 0 when not
  // one fits. Runs on both sides (std::min is host-only: histo::min_of works on both).
  return 0u;
  // TODO(lab04) end
}

__host__ __device__ unsigned grid_for(size_t work, int sm_count, unsigned blocks_per_sm) {
  // Enough blocks to fill every SM once (a grid-stride loop covers any n with them): more
  // would only add private histograms to zero and merge. No block past the data either.
  const size_t resident = size_t(sm_count > 0 ? sm_count : 1) * (blocks_per_sm ? blocks_per_sm : 1);
  const size_t needed = histo::ceil_div(work, kBlockSize);
  return unsigned(needed < resident ? needed : resident);
}

// ---- Shared-memory building blocks -----------------------------------------------------------

// Sets s_bins[0, count) to zero, the block's threads sharing the work. The caller puts a
// barrier after it.
__device__ void zero_shared_bins(uint32_t* s_bins, uint32_t count) {
  // TODO(lab04) begin: zero_shared_bins (about 1 line)
  // Called by every thread of the block: afterwards (once the caller's barrier has passed)
  // s_bins[0, count) are all zero, whatever count and blockDim.x are.
  // TODO(lab04) end
}

// Adds s_bins[0, count) to d_bins[0, count) with global atomics, skipping empty bins. The
// caller puts a barrier before it.
__device__ void merge_shared_bins(const uint32_t* s_bins, uint32_t count, uint32_t* d_bins) {
  // TODO(lab04) begin: merge_shared_bins (about 4 lines)
  // Called by every thread of the block: adds each of s_bins[0, count) to d_bins once, while
  // every other block adds its own bins to the same d_bins. An empty bin costs no global atomic.
  // TODO(lab04) end
}

// From lab03's histogram_global_kernel: each block counts into its own 256 bins in shared
// memory, then merges them into the global bins once.
__global__ void __launch_bounds__(kBlockSize)
    histogram_shared_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // The block's private histogram: 256 counters x 4 B = 1 KiB of shared memory. 32-bit
  // counters: a block counts at most n < 2^32 bytes, so none can wrap.
  // TODO(lab04) begin: the per-block histogram (about 10 lines)
  // Adds this block's share of the input (the interleaved partition of lab03) to d_bins through
  // a private 256-bin histogram in shared memory: one shared atomic per byte, then at most 256
  // global atomics per block. Every byte below n counted exactly once; no thread may read a
  // private counter before it is zero nor merge before every count of its block has landed
  // (compute-sanitizer racecheck checks this).
  // TODO(lab04) end
}

// ---- 16-byte loads and run aggregation -------------------------------------------------------

// Adds the 16 bytes of v to the shared bins: one shared atomic per byte.
__device__ void add_vector_bytes(uint32_t* s_bins, uint4 v) {
  // TODO(lab04) begin: add_vector_bytes (about 2 lines)
  // Adds each of the 16 bytes of v (vector_byte) to the block's shared bins, which the other
  // threads of the block update at the same time.
  // TODO(lab04) end
}

// Adds the 16 bytes of v to the shared bins: one shared atomic per run of equal bytes, adding
// the run's length.
__device__ void add_vector_runs(uint32_t* s_bins, uint4 v) {
  // TODO(lab04) begin: add_vector_runs (about 6 lines)
  // The same counts as add_vector_bytes, but one shared atomic per run of equal bytes
  // (run_heads, run_length) instead of one per byte.
  // TODO(lab04) end
}

template <bool kAggregateRuns>
__device__ void add_vector(uint32_t* s_bins, uint4 v) {
  if constexpr (kAggregateRuns)
    add_vector_runs(s_bins, v);
  else
    add_vector_bytes(s_bins, v);
}

// From histogram_shared_kernel: the input is read as aligned 16-byte vectors, kVectorsPerThread
// loads in flight per thread; the bytes before the first 16-byte boundary (head) and after the
// last whole vector (tail) are read one by one. kAggregateRuns: one atomic per run of equal
// bytes in a vector instead of one per byte (shared_runs).
template <bool kAggregateRuns>
__global__ void __launch_bounds__(kBlockSize)
    histogram_vec16_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // TODO(lab04) begin: the 16-byte kernel (about 25 lines)
  // The per-block histogram of histogram_shared_kernel, but the input is read as aligned
  // 16-byte vectors (split_aligned gives the head, the vectors and the tail), neighbouring
  // threads reading neighbouring vectors, kVectorsPerThread vector loads in flight per thread;
  // add_vector<kAggregateRuns>(s_bins, v) counts one vector. Every byte of [d_in, d_in + n)
  // counted exactly once at any alignment and any n, and no byte outside it read.
  // TODO(lab04) end
}

// ---- Wide histograms: partial privatization --------------------------------------------------

// From histogram_shared_kernel: 16-bit values and up to 65536 bins. Only bins
// [0, private_bins) live in shared memory (dynamic: the launcher sizes it); a range test sends
// every other value straight to its global bin.
__global__ void __launch_bounds__(kBlockSize)
    histogram_wide_kernel(const uint16_t* __restrict__ d_in, size_t n, uint32_t* d_bins,
                          uint32_t num_bins, uint32_t private_bins) {
  extern __shared__ uint32_t s_wide[];  // private_bins counters: the launch's dynamic shared memory
  // TODO(lab04) begin: the wide kernel with its range test (about 15 lines)
  // Adds this block's share of the n values to d_bins[0, num_bins): values below private_bins
  // through the block's private counters s_wide (merged once at the end), the other values
  // below num_bins straight to d_bins, values >= num_bins not at all (as in the reference).
  // private_bins may be 0 (no shared memory) or num_bins (every bin private).
  // TODO(lab04) end
}

// ---- Launchers -------------------------------------------------------------------------------

namespace {

// Blocks of `kernel` one SM holds at once with `dynamic_shared` bytes each, at most kBlocksPerSm.
// Launching more per SM than fit would run them as a second, partial wave: with equal work per
// block that leaves the GPU mostly idle while the last blocks finish.
template <typename Kernel>
unsigned resident_blocks_per_sm(Kernel kernel, size_t dynamic_shared, const char* who) {
  return std::min(histo::resident_blocks_per_sm(kernel, kBlockSize, dynamic_shared, who),
                  kBlocksPerSm);
}

template <bool kAggregateRuns>
histo::LaunchShape launch_vec16(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                cudaStream_t stream, const char* who) {
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream, who);
  if (n == 0) return {};
  auto* kernel = histogram_vec16_kernel<kAggregateRuns>;
  // One work item per 16 bytes: a tiny input gets one block (whose first threads read the
  // head and tail), a large one fills the GPU.
  const histo::LaunchShape shape{
      grid_for(histo::ceil_div(n, kVectorBytes), histo::device_sm_count(),
               resident_blocks_per_sm(kernel, 0, who)),
      kBlockSize, histo::kNumBins * sizeof(uint32_t)};
  histo::check_launch_shape(shape, who);
  kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace

histo::LaunchShape histogram_shared(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                    cudaStream_t stream) {
  const char* who = "lab04 histogram_shared";
  histo::prepare_output(d_in, n, d_bins, histo::kNumBins, sizeof(uint32_t), stream, who);
  if (n == 0) return {};
  const unsigned blocks_per_sm = resident_blocks_per_sm(histogram_shared_kernel, 0, who);
  const histo::LaunchShape shape{grid_for(n, histo::device_sm_count(), blocks_per_sm), kBlockSize,
                                 histo::kNumBins * sizeof(uint32_t)};
  histo::check_launch_shape(shape, who);
  histogram_shared_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

histo::LaunchShape histogram_shared_vec16(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                          cudaStream_t stream) {
  return launch_vec16<false>(d_in, n, d_bins, stream, "lab04 histogram_shared_vec16");
}

histo::LaunchShape histogram_shared_runs(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                         cudaStream_t stream) {
  return launch_vec16<true>(d_in, n, d_bins, stream, "lab04 histogram_shared_runs");
}

histo::LaunchShape histogram_wide(const uint16_t* d_in, size_t n, uint32_t* d_bins,
                                  uint32_t num_bins, size_t shared_budget_bytes,
                                  cudaStream_t stream) {
  const char* who = "lab04 histogram_wide";
  // Checked before prepare_output, so a rejected call writes nothing.
  if (num_bins == 0 || num_bins > kMaxWideBins)
    throw std::invalid_argument(std::string(who) + ": num_bins = " + std::to_string(num_bins) +
                                " is outside 1..65536 (one bin per uint16_t value at most)");
  histo::prepare_output(d_in, n, d_bins, num_bins, sizeof(uint32_t), stream, who);
  if (n == 0) return {};
  // The budget is a ceiling: a budget past what one block may opt into is clamped to it.
  const size_t budget = std::min(shared_budget_bytes, histo::shared_optin_bytes());
  const uint32_t private_bins = privatized_bins(num_bins, budget);
  const size_t shared_bytes = size_t(private_bins) * sizeof(uint32_t);
  // Past 48 KiB a kernel must opt in to more dynamic shared memory.
  if (shared_bytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(histogram_wide_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    int(shared_bytes)));
  const histo::LaunchShape shape{
      grid_for(n, histo::device_sm_count(),
               resident_blocks_per_sm(histogram_wide_kernel, shared_bytes, who)),
      kBlockSize, shared_bytes};
  histo::check_launch_shape(shape, who);
  histogram_wide_kernel<<<shape.grid, shape.block, shared_bytes, stream>>>(d_in, n, d_bins,
                                                                           num_bins, private_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab04
