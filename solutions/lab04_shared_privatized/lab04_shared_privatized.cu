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
  // SOLUTION(lab04) begin
  const size_t misalignment = address % kVectorBytes;
  size_t head = misalignment ? kVectorBytes - misalignment : 0;
  if (head > n) head = n;  // the data ends before the first boundary
  const size_t vectors = (n - head) / kVectorBytes;
  return AlignedSplit{head, vectors, n - head - vectors * kVectorBytes};
  // SOLUTION(lab04) end
}

__host__ __device__ uint32_t run_heads(uint4 v) {
  // SOLUTION(lab04) begin
  uint32_t heads = 1u;  // byte 0 always starts a run
#pragma unroll
  for (int k = 1; k < int(kVectorBytes); ++k)
    if (vector_byte(v, k) != vector_byte(v, k - 1)) heads |= 1u << k;
  return heads;
  // SOLUTION(lab04) end
}

__host__ __device__ uint32_t run_length(uint32_t heads, int k) {
  // SOLUTION(lab04) begin
  // Bit j of `later` is head k + 1 + j: the run ends where the next one starts.
  const uint32_t later = (heads & 0xFFFFu) >> (k + 1);
  return later ? uint32_t(lowest_set_bit(later) + 1) : uint32_t(int(kVectorBytes) - k);
  // SOLUTION(lab04) end
}

__host__ __device__ uint32_t privatized_bins(uint32_t num_bins, size_t budget_bytes) {
  // SOLUTION(lab04) begin
  const size_t fit = budget_bytes / sizeof(uint32_t);
  // histo::min_of, not std::min: this function also runs on the GPU.
  return uint32_t(histo::min_of(fit, size_t(num_bins)));
  // SOLUTION(lab04) end
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
  // SOLUTION(lab04) begin
  for (uint32_t b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;
  // SOLUTION(lab04) end
}

// Adds s_bins[0, count) to d_bins[0, count) with global atomics, skipping empty bins. The
// caller puts a barrier before it.
__device__ void merge_shared_bins(const uint32_t* s_bins, uint32_t count, uint32_t* d_bins) {
  // SOLUTION(lab04) begin
  for (uint32_t b = threadIdx.x; b < count; b += blockDim.x) {
    const uint32_t count_b = s_bins[b];
    // Other blocks merge into the same bins: global atomics. An empty bin costs nothing.
    if (count_b != 0) atomicAdd(&d_bins[b], count_b);
  }
  // SOLUTION(lab04) end
}

// From lab03's histogram_global_kernel: each block counts into its own 256 bins in shared
// memory, then merges them into the global bins once.
__global__ void __launch_bounds__(kBlockSize)
    histogram_shared_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins) {
  // The block's private histogram: 256 counters x 4 B = 1 KiB of shared memory. 32-bit
  // counters: a block counts at most n < 2^32 bytes, so none can wrap.
  // SOLUTION(lab04) begin
  __shared__ uint32_t s_bins[histo::kNumBins];
  zero_shared_bins(s_bins, histo::kNumBins);
  // Barrier: every counter must be zero before any thread of the block adds to it (a thread
  // could otherwise add to a bin that another thread zeroes afterwards).
  __syncthreads();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    // The block's threads share these counters: still an atomic, but in shared memory, and
    // only this block's threads contend for it.
    atomicAdd(&s_bins[d_in[i]], 1u);
  }
  // Barrier: every thread's adds must have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
  // SOLUTION(lab04) end
}

// ---- 16-byte loads and run aggregation -------------------------------------------------------

// Adds the 16 bytes of v to the shared bins: one shared atomic per byte.
__device__ void add_vector_bytes(uint32_t* s_bins, uint4 v) {
  // SOLUTION(lab04) begin
#pragma unroll
  for (int k = 0; k < int(kVectorBytes); ++k) atomicAdd(&s_bins[vector_byte(v, k)], 1u);
  // SOLUTION(lab04) end
}

// Adds the 16 bytes of v to the shared bins: one shared atomic per run of equal bytes, adding
// the run's length.
__device__ void add_vector_runs(uint32_t* s_bins, uint4 v) {
  // SOLUTION(lab04) begin
  const uint32_t heads = run_heads(v);
  // Visit the set bits of heads from the lowest up, clearing each one as it is handled.
  for (uint32_t rest = heads; rest != 0; rest &= rest - 1) {
    const int k = lowest_set_bit(rest);
    atomicAdd(&s_bins[vector_byte(v, k)], run_length(heads, k));
  }
  // SOLUTION(lab04) end
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
  // SOLUTION(lab04) begin
  __shared__ uint32_t s_bins[histo::kNumBins];
  zero_shared_bins(s_bins, histo::kNumBins);
  // Barrier: all 256 counters are zero before anyone adds.
  __syncthreads();
  const AlignedSplit split = split_aligned(reinterpret_cast<uintptr_t>(d_in), n);
  // Aligned by construction: d_in + head is a multiple of 16 whenever a vector follows.
  const uint4* body = reinterpret_cast<const uint4*>(d_in + split.head);
  const size_t thread = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = thread;
  // All loads of a trip are issued before any byte is counted, so kVectorsPerThread 16-byte
  // loads per thread are in flight at once; neighbouring threads read neighbouring vectors.
  for (; i + (kVectorsPerThread - 1) * stride < split.vectors; i += kVectorsPerThread * stride) {
    uint4 v[kVectorsPerThread];
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) v[u] = __ldg(body + i + u * stride);
#pragma unroll
    for (int u = 0; u < kVectorsPerThread; ++u) add_vector<kAggregateRuns>(s_bins, v[u]);
  }
  // The last vectors, fewer than one full trip's worth.
  for (; i < split.vectors; i += stride) add_vector<kAggregateRuns>(s_bins, __ldg(body + i));
  // Head and tail: at most 15 bytes each, one byte for each of the grid's first threads. They
  // never touch a byte outside [d_in, d_in + n).
  if (thread < split.head) atomicAdd(&s_bins[d_in[thread]], 1u);
  if (thread < split.tail) atomicAdd(&s_bins[d_in[n - split.tail + thread]], 1u);
  // Barrier: every thread's adds have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_bins, histo::kNumBins, d_bins);
  // SOLUTION(lab04) end
}

// ---- Wide histograms: partial privatization --------------------------------------------------

// From histogram_shared_kernel: 16-bit values and up to 65536 bins. Only bins
// [0, private_bins) live in shared memory (dynamic: the launcher sizes it); a range test sends
// every other value straight to its global bin.
__global__ void __launch_bounds__(kBlockSize)
    histogram_wide_kernel(const uint16_t* __restrict__ d_in, size_t n, uint32_t* d_bins,
                          uint32_t num_bins, uint32_t private_bins) {
  extern __shared__ uint32_t s_wide[];  // private_bins counters: the launch's dynamic shared memory
  // SOLUTION(lab04) begin
  zero_shared_bins(s_wide, private_bins);
  // Barrier: the private counters are zero before anyone adds.
  __syncthreads();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    const uint32_t value = d_in[i];
    // The range test: privatized bins count in shared memory, the others in global memory
    // (contended across the whole grid, but spread over many addresses). Values >= num_bins
    // have no bin and are skipped, as in the reference.
    if (value < private_bins)
      atomicAdd(&s_wide[value], 1u);
    else if (value < num_bins)
      atomicAdd(&d_bins[value], 1u);
  }
  // Barrier: every thread's adds have landed before the merge reads the counters.
  __syncthreads();
  merge_shared_bins(s_wide, private_bins, d_bins);
  // SOLUTION(lab04) end
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
