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
// Build and grade:  cmake --workflow --preset student   (once), then
//                   ctest --preset student -L lab04
#include "lab04.h"

#include "histo/cuda_check.hpp"
#include "histo/kernel_launch.cuh"
#include "histo/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace lab04 {

// ---- Helpers the grader also runs on the CPU -------------------------------------------------

__host__ __device__ AlignedSplit split_aligned(uintptr_t address, size_t n) {
  // TODO(lab04) begin: split_aligned (about 5 lines)
  // head: the bytes from address up to the next multiple of kVectorBytes (0 when address is
  // already aligned), but never more than n. vectors: whole 16-byte vectors in what is left.
  // tail: the rest (0..15). The grader checks all 16 misalignments and n from 0 up, on the CPU.
  return AlignedSplit{0, 0, 0};
  // TODO(lab04) end
}

__host__ __device__ uint32_t run_heads(uint4 v) {
  // TODO(lab04) begin: run_heads (about 5 lines)
  // Start from bit 0 set (byte 0 always starts a run); for k = 1..15 set bit k when
  // vector_byte(v, k) != vector_byte(v, k - 1). With a constant k (#pragma unroll) the GPU
  // needs no memory for this: vector_byte() then picks a register and a shift.
  return 0u;
  // TODO(lab04) end
}

__host__ __device__ uint32_t run_length(uint32_t heads, int k) {
  // TODO(lab04) begin: run_length (about 2 lines)
  // Shift heads right by k + 1 (keep only bits 0..15 first): bit j of the result is set when a
  // run starts at byte k + 1 + j. The lowest such bit gives the length (lowest_set_bit() + 1);
  // with none left, the run goes to the end of the vector: 16 - k.
  return 0u;
  // TODO(lab04) end
}

__host__ __device__ uint32_t privatized_bins(uint32_t num_bins, size_t budget_bytes) {
  // TODO(lab04) begin: privatized_bins (about 2 lines)
  // As many 4-byte counters as budget_bytes holds, but never more than num_bins.
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
  // A block-stride loop: thread t zeroes bins t, t + blockDim.x, ... below count.
  // TODO(lab04) end
}

// Adds s_bins[0, count) to d_bins[0, count) with global atomics, skipping empty bins. The
// caller puts a barrier before it.
__device__ void merge_shared_bins(const uint32_t* s_bins, uint32_t count, uint32_t* d_bins) {
  // TODO(lab04) begin: merge_shared_bins (about 4 lines)
  // The same block-stride loop: read s_bins[b]; if it is not 0, atomicAdd it to d_bins[b] (all
  // blocks merge into the same global bins). Skipping empty bins saves global atomics on
  // inputs with few distinct values.
  // TODO(lab04) end
}

// From lab03's histogram_global_kernel: each block counts into its own 256 bins in shared
// memory, then merges them into the global bins once.
__global__ void __launch_bounds__(kBlockSize)
    histogram_shared_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // The block's private histogram: __shared__ uint32_t s_bins[256], 256 counters x 4 B = 1 KiB.
  // 32-bit counters: a block counts at most n < 2^32 bytes, so none can wrap.
  // TODO(lab04) begin: the per-block histogram (about 10 lines)
  // 0. Declare the private histogram: __shared__ uint32_t s_bins[histo::kNumBins];
  // 1. zero_shared_bins(s_bins, histo::kNumBins), then __syncthreads(). Why is the barrier
  //    needed? (What if a fast thread adds to a bin that a slow thread has not zeroed yet?)
  // 2. The grid-stride loop of lab03 over single bytes, with atomicAdd(&s_bins[byte], 1u):
  //    still an atomic (the block's threads share the bins), but in shared memory.
  // 3. __syncthreads() again. Why? (What would the merge read if some threads still count?)
  // 4. merge_shared_bins(s_bins, histo::kNumBins, d_bins).
  // TODO(lab04) end
}

// ---- 16-byte loads and run aggregation -------------------------------------------------------

// Adds the 16 bytes of v to the shared bins: one shared atomic per byte.
__device__ void add_vector_bytes(uint32_t* s_bins, uint4 v) {
  // TODO(lab04) begin: add_vector_bytes (about 2 lines)
  // For k = 0..15 (#pragma unroll): atomicAdd(&s_bins[vector_byte(v, k)], 1u).
  // TODO(lab04) end
}

// Adds the 16 bytes of v to the shared bins: one shared atomic per run of equal bytes, adding
// the run's length.
__device__ void add_vector_runs(uint32_t* s_bins, uint4 v) {
  // TODO(lab04) begin: add_vector_runs (about 6 lines)
  // heads = run_heads(v). For each set bit k of heads, lowest first (k = lowest_set_bit(rest),
  // then clear it: rest &= rest - 1): atomicAdd(&s_bins[vector_byte(v, k)], run_length(heads, k)).
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
  __shared__ uint32_t s_bins[histo::kNumBins];
  zero_shared_bins(s_bins, histo::kNumBins);
  // Barrier: all 256 counters are zero before anyone adds.
  __syncthreads();
  // TODO(lab04) begin: head, 16-byte body and tail (about 18 lines)
  // 1. split = split_aligned(reinterpret_cast<uintptr_t>(d_in), n); the vectors start at
  //    body = reinterpret_cast<const uint4*>(d_in + split.head) (16-byte aligned).
  // 2. thread = global thread index, stride = threads in the grid (both size_t). Vector i goes
  //    to thread i % stride, as in the grid-stride loop, so neighbouring threads read
  //    neighbouring vectors (coalesced).
  // 3. Main loop, kVectorsPerThread vectors per trip: while i + (kVectorsPerThread - 1) * stride
  //    < split.vectors, first load all of them into uint4 v[kVectorsPerThread] (v[u] =
  //    __ldg(body + i + u * stride)), then add_vector<kAggregateRuns>(s_bins, v[u]) each; step
  //    i by kVectorsPerThread * stride. Loading all before adding any keeps the loads in flight
  //    together: that is what lifts the bandwidth.
  // 4. Then the leftover vectors one per trip: for (; i < split.vectors; i += stride).
  // 5. Head and tail, at most 15 bytes each: thread t < split.head counts d_in[t]; thread
  //    t < split.tail counts d_in[n - split.tail + t]. Never read outside [d_in, d_in + n).
  // TODO(lab04) end
  // Barrier: every thread's adds have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
}

// ---- Wide histograms: partial privatization --------------------------------------------------

// From histogram_shared_kernel: 16-bit values and up to 65536 bins. Only bins
// [0, private_bins) live in shared memory (dynamic: the launcher sizes it); a range test sends
// every other value straight to its global bin.
__global__ void __launch_bounds__(kBlockSize)
    histogram_wide_kernel(const uint16_t* __restrict__ d_in, size_t n, uint32_t* d_bins,
                          uint32_t num_bins, uint32_t private_bins) {
  uint32_t* s_wide = histo::dynamic_shared<uint32_t>();  // private_bins counters (extern __shared__)
  zero_shared_bins(s_wide, private_bins);
  // Barrier: the private counters are zero before anyone adds.
  __syncthreads();
  // TODO(lab04) begin: the range test (about 9 lines)
  // A grid-stride loop over the n values (2-byte loads). For value v: v < private_bins ->
  // atomicAdd to s_wide[v] (shared); else v < num_bins -> atomicAdd to d_bins[v] (global); else
  // skip it (no bin, like the reference).
  // TODO(lab04) end
  // Barrier: every thread's adds have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_wide, private_bins, d_bins);
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
  histo::launch(kernel, shape.grid, shape.block, 0, stream, d_in, n, d_bins);
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
  histo::launch(histogram_shared_kernel, shape.grid, shape.block, 0, stream, d_in, n, d_bins);
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
  histo::launch(histogram_wide_kernel, shape.grid, shape.block, shared_bytes, stream, d_in, n, d_bins,
                                                                            num_bins, private_bins);
  CUDA_CHECK_LAUNCH();
  return shape;
}

}  // namespace lab04
