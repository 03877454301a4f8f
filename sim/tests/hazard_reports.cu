// The hazard checks' sentences (sim/src/hazards.cpp), one case per run: `hazard_reports CASE`
// launches a small kernel that makes one mistake (or none, for the clean cases) and prints the
// sentence its launch failed with, or "no hazard". The CTest cases (CMakeLists.txt here) check
// that sentence: the memory named by its variable or buffer, the line, the likely cause.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo_sim/counters.hpp"

#include <cooperative_groups.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr unsigned kBins = 256;

// Counts bytes into global bins (whatever they held before).
__global__ void count_kernel(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
    atomicAdd(&d_bins[d_in[i]], 1u);
}

// Sums n words into *d_sum with plain loads.
__global__ void sum_kernel(const unsigned* d_words, size_t n, unsigned* d_sum) {
  unsigned sum = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) sum += d_words[i];
  atomicAdd(d_sum, sum);
}

// Per-block shared bins, with or without the barrier after zeroing them.
template <bool kBarrier>
__global__ void shared_kernel(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kBins];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) s_bins[b] = 0;
  if (kBarrier) __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&d_bins[b], s_bins[b]);
}

// The same with bins in dynamic shared memory, and no barrier after zeroing.
__global__ void dynamic_kernel(const unsigned char* d_in, size_t n, unsigned* d_bins) {
  extern __shared__ unsigned s_bins[];
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) s_bins[b] = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[d_in[i]], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) atomicAdd(&d_bins[b], s_bins[b]);
}

// Each thread writes its word of shared memory, then reads its partner's (thread t ^ 1, t ^ 8 or
// t ^ 32) after a barrier both pass: its warp's __syncwarp (kSync 1), its tile of 16's sync (2),
// its tile of 64's (3, the partner in the other warp). No race; kSync 0 has no barrier: a race.
template <int kSync>
__global__ void partner_kernel(unsigned* d_out) {
  namespace cg = cooperative_groups;
  __shared__ unsigned s_words[128];
  const unsigned t = threadIdx.x;
  s_words[t] = t;
  if (kSync == 1) __syncwarp();
  if (kSync == 2) cg::tiled_partition<16>(cg::this_thread_block()).sync();
  if (kSync == 3) cg::tiled_partition<64>(cg::this_thread_block()).sync();
  d_out[t] = s_words[kSync == 3 ? t ^ 32 : kSync == 2 ? t ^ 8 : t ^ 1];
}

// A flag per thread in global memory (bools: neighbours write neighbouring bytes, no race), or
// one per two threads (two threads write one byte: a race).
__global__ void flag_kernel(bool* d_flags, unsigned shift) { d_flags[threadIdx.x >> shift] = threadIdx.x & 1; }

// Only atomics, on one global word and one of shared memory, by every thread: the exchange's
// result unused (Clang would make that relaxed exchange a plain atomic store), the rest
// compare-and-swap loops on a GPU's one instruction. No race, and no load or store.
__global__ void atomics_kernel(unsigned* d_words, float* d_sum) {
  __shared__ unsigned s_word;
  if (threadIdx.x == 0) s_word = 0;
  __syncthreads();
  atomicExch(&s_word, threadIdx.x);
  atomicExch(&d_words[0], threadIdx.x);
  atomicMax(&d_words[1], threadIdx.x);
  atomicMin(&d_words[2], threadIdx.x);
  atomicInc(&d_words[3], 7u);
  atomicCAS(&d_words[4], 0u, threadIdx.x);
  atomicAdd(d_sum, 1.0f);
}

// Each block sums its part of d_in and thread 0 stores the sum in d_partial[block]; the block
// that takes the counter's last ticket adds the partial sums (plain loads) into *d_total, as
// NVIDIA's threadFenceReduction sample does. With kFence, thread 0 makes a __threadfence()
// between its store and its atomicInc: the sums are handed over, no race. Without it the last
// block's loads race with the others' stores.
template <bool kFence>
__global__ void last_block_kernel(const unsigned char* d_in, size_t n, unsigned* d_partial,
                                  unsigned* d_count, unsigned* d_total) {
  __shared__ unsigned s_sum;
  __shared__ bool s_last;
  if (threadIdx.x == 0) s_sum = 0;
  __syncthreads();
  unsigned sum = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    sum += d_in[i];
  atomicAdd(&s_sum, sum);
  __syncthreads();
  if (threadIdx.x == 0) {
    d_partial[blockIdx.x] = s_sum;
    if (kFence) __threadfence();
    s_last = atomicInc(d_count, gridDim.x) == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last) return;
  unsigned total = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) total += d_partial[b];
  atomicAdd(d_total, total);
  if (threadIdx.x == 0) *d_count = 0;  // ready for the next launch
}

// The sentence the last launch failed with, or "no hazard".
std::string outcome() {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "no hazard" : cudaGetErrorString(e);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  const size_t n = 5000;
  std::vector<unsigned char> h_in(n);
  for (size_t i = 0; i < n; ++i) h_in[i] = (unsigned char)(i * 2654435761u >> 13);
  // The input sits 3 bytes into a larger allocation, only its n bytes copied in: reading them
  // is clean, whatever the bytes around them hold.
  histo::DeviceBuffer<unsigned char> d_input(n + 64);
  const unsigned char* d_in = d_input.get() + 3;
  CUDA_CHECK(cudaMemcpy(d_input.get() + 3, h_in.data(), n, cudaMemcpyHostToDevice));
  histo::DeviceBuffer<unsigned> d_bins(kBins);
  std::string result;
  if (which == "bins_not_zeroed") {  // the launcher forgot its cudaMemset
    count_kernel<<<4, 128>>>(d_in, n, d_bins.get());
    result = outcome();
  } else if (which == "bins_zeroed") {  // the same, right
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(unsigned)));
    count_kernel<<<4, 128>>>(d_in, n, d_bins.get());
    result = outcome();
  } else if (which == "reads_unwritten") {  // half of the words copied in, all of them read
    histo::DeviceBuffer<unsigned> d_words(1000);
    std::vector<unsigned> h_words(500, 1);
    CUDA_CHECK(cudaMemcpy(d_words.get(), h_words.data(), 500 * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, sizeof(unsigned)));
    sum_kernel<<<1, 64>>>(d_words.get(), size_t(1000), d_bins.get());
    result = outcome();
  } else if (which == "reads_kernel_written") {  // words a first kernel wrote are written
    histo::DeviceBuffer<unsigned> d_words(kBins);
    CUDA_CHECK(cudaMemset(d_words.get(), 0, kBins * sizeof(unsigned)));
    count_kernel<<<4, 128>>>(d_in, n, d_words.get());
    CUDA_CHECK_LAUNCH();
    // d_bins[0] only is zeroed: sum_kernel reads d_words (written) and adds into d_bins[0].
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, sizeof(unsigned)));
    sum_kernel<<<1, 64>>>(d_words.get(), size_t(kBins), d_bins.get());
    result = outcome();
  } else if (which == "shared_race") {
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(unsigned)));
    shared_kernel<false><<<2, 128>>>(d_in, n, d_bins.get());
    result = outcome();
  } else if (which == "shared_clean") {
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(unsigned)));
    shared_kernel<true><<<2, 128>>>(d_in, n, d_bins.get());
    result = outcome();
  } else if (which == "dynamic_race") {
    CUDA_CHECK(cudaMemset(d_bins.get(), 0, kBins * sizeof(unsigned)));
    dynamic_kernel<<<2, 128, kBins * sizeof(unsigned)>>>(d_in, n, d_bins.get());
    result = outcome();
  } else if (which == "warp_synced") {
    histo::DeviceBuffer<unsigned> d_out(128);
    histo::DeviceBuffer<bool> d_flags(128);
    partner_kernel<1><<<1, 128>>>(d_out.get());
    result = outcome();
    if (result == "no hazard") partner_kernel<2><<<1, 128>>>(d_out.get());
    if (result == "no hazard") result = outcome();
    if (result == "no hazard") partner_kernel<3><<<1, 128>>>(d_out.get());
    if (result == "no hazard") result = outcome();
    if (result == "no hazard") flag_kernel<<<1, 128>>>(d_flags.get(), 0u);
    if (result == "no hazard") result = outcome();
  } else if (which == "warp_race") {
    histo::DeviceBuffer<unsigned> d_out(128);
    partner_kernel<0><<<1, 128>>>(d_out.get());
    result = outcome();
  } else if (which == "byte_race") {
    histo::DeviceBuffer<bool> d_flags(64);
    flag_kernel<<<1, 128>>>(d_flags.get(), 1u);
    result = outcome();
  } else if (which == "fence_handover" || which == "fence_missing") {
    histo::DeviceBuffer<unsigned> d_words(8);  // 4 partial sums, the counter, the total
    CUDA_CHECK(cudaMemset(d_words.get(), 0, 8 * sizeof(unsigned)));
    if (which == "fence_handover")
      last_block_kernel<true><<<4, 128>>>(d_in, n, d_words.get(), d_words.get() + 4, d_words.get() + 5);
    else
      last_block_kernel<false><<<4, 128>>>(d_in, n, d_words.get(), d_words.get() + 4, d_words.get() + 5);
    result = outcome();
    unsigned total = 0, want = 0;
    CUDA_CHECK(cudaMemcpy(&total, d_words.get() + 5, sizeof total, cudaMemcpyDeviceToHost));
    for (const unsigned char c : h_in) want += c;
    if (result == "no hazard") result += total == want ? ", total right" : ", total WRONG";
  } else if (which == "atomics_only") {
    histo::DeviceBuffer<unsigned> d_words(5);
    histo::DeviceBuffer<float> d_sum(1);
    CUDA_CHECK(cudaMemset(d_words.get(), 0, 5 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(d_sum.get(), 0, sizeof(float)));
    histo_sim::counters_begin();
    atomics_kernel<<<4, 128>>>(d_words.get(), d_sum.get());
    const std::vector<histo_sim::LaunchCounters> launches = histo_sim::counters_end();
    float sum = 0;
    CUDA_CHECK(cudaMemcpy(&sum, d_sum.get(), sizeof(float), cudaMemcpyDeviceToHost));
    result = outcome();
    if (!launches.empty()) {
      const histo_sim::LaunchCounters& c = launches.back();
      result += ", global requests: " + std::to_string(c.global_load_requests) + " load " +
                std::to_string(c.global_store_requests) + " store " +
                std::to_string(c.global_atomic_requests) + " atomic, shared instructions: " +
                std::to_string(c.shared_store_instructions) + " store " +
                std::to_string(c.shared_atomic_instructions) + " atomic, sum " +
                std::to_string(int(sum));
    }
  } else {
    std::printf("usage: hazard_reports bins_not_zeroed|bins_zeroed|reads_unwritten|"
                "reads_kernel_written|shared_race|shared_clean|dynamic_race|warp_synced|warp_race|"
                "byte_race|fence_handover|fence_missing|atomics_only\n");
    return 2;
  }
  std::printf("%s\n", result.c_str());
  return 0;
}
