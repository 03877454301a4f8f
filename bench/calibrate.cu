// histo_calibrate: the microbenchmarks behind the simulator's cost model (sim/src/gpus.cpp).
//
// Each one measures a single resource with a kernel written for that purpose, never a lab
// kernel, so the model is calibrated on the machine and then tested on the labs, not fitted to
// them. Printed as JSON (scripts/gpu_check.sh --part simval writes calibration.json, which
// sim/tests/gpu_validation.py apply commits as sim/data/h200_calibration.json):
//   launch_us                 an empty kernel, event-timed (median)
//   launch_after_memset_us    a 1 KiB cudaMemsetAsync, then the empty kernel: what every
//                             launcher's fixed cost is, since each zeroes its bins first
//   dram_read_gbps            the read-bandwidth probe on 1 GiB (16-byte loads)
//   load_latency_ns           one thread chasing pointers through 1 GiB: a dependent global
//                             load that misses L2
//   atomic_one_address_per_s  RED.ADD requests/s when every lane of every warp adds to one word
//   atomic_one_line_per_s     distinct-address updates/s when all warps add to the 32 words of
//                             one 128-byte line (each request: 32 different words)
//   atomic_spread_per_s       updates/s when every lane adds to a line of its own
//   atomic_region_1k_per_s    updates/s when each request's 32 lanes add to 32 different
//                             sectors of one 1 KiB region (256 words), as every warp does
//   atomic_one_sector_per_s   updates/s when every lane of a warp adds to one word, warp w to
//                             word w % 8 of one 32-byte sector: whether words that share a
//                             sector are updated one after another, as lanes on one word are
//   atomic_exch_one_address_per_s  updates/s of atomicExch (an ATOM: PTX has no RED form of an
//                             exchange) when every lane of every warp writes one word
//   atomic_inc_one_address_per_s  the same for atomicInc (RED.INC), whose update compares the
//                             word with a limit before it writes
//   atomic_cas_one_address_per_s  the same for atomicCAS (ATOM.CAS), lanes of no effect included
//   atomic_max_one_address_per_s  the same for atomicMax (RED.MAX), on an address nvcc cannot
//                             prove uniform (it would make a warp's maxima one update)
//   atomic_inc_exch_one_address_per_s  the same with atomicInc and atomicExch in turn: what the
//                             L2 loses switching between RED and ATOM on one line
//   store_sectors_per_sm_per_s  32-byte sectors per SM per second that coalesced 4-byte stores
//                             (a warp's 32 words: 4 sectors of one line) write into the L2
//   store_lines_per_sm_per_s  128-byte lines per SM per second that uncoalesced 4-byte stores
//                             write into the L2, every lane in a line of its own (as a warp
//                             writing a column of a row-major matrix does)
//   constant_words_per_sm_per_s  distinct 4-byte words per SM per second that loads of a
//                             __constant__ table read when each lane of a warp reads a word of
//                             its own (the constant cache serves a warp's words in turn)
//   constant_bytes_per_sm_per_s  the same with each lane reading a byte of its own from 8 words
//                             (4 lanes a word): whether the cache serves addresses or words
//   dram_write_gbps           16-byte stores over 1 GiB: the write bandwidth
//   dram_copy_gbps            a 512 MiB copy with 16-byte loads and stores: bytes read plus
//                             bytes written per second, which says whether reads and writes
//                             share DRAM's bandwidth
//   load_request_ns           coalesced 1-byte loads in a grid-stride loop, 64 warps per SM:
//                             the time one warp-wide load costs a warp (time x resident warps /
//                             requests), the latency that a loop with little in flight pays
//   load_sectors_per_sm_per_s  32-byte sectors per SM per second that uncoalesced loads (every
//                             lane in a sector of its own) move from L2, with the data in L2
//   shared_load_latency_ns    one warp per SM chasing indices through shared memory: a shared
//                             load that waits for the one before it, as a counter's
//                             read-modify-write waits for the read
//   l2_read_gbps              16-byte loads of an 8 MiB buffer read again and again in one launch:
//                             the bandwidth of reads the L2 serves
//   l2_load_request_ns        load_request_ns's loop over an 8 MiB buffer that stays in the L2:
//                             what one warp-wide load costs a warp when it hits the L2
//   l2_resident_bytes         from the sweep l2_sweep_gbps (8 to 96 MiB, 8 passes in a launch):
//                             from its fastest size on, the largest before the first whose reads
//                             fall below halfway from dram_read_gbps to that fastest rate. An
//                             input up to this size stays in the L2 across repeated launches.
//                             The yardstick is the sweep's own peak, not l2_read_gbps (64 passes):
//                             with 8 passes a launch's fixed cost weighs 8x more, so on the H200
//                             8 MiB reads 6205 GB/s against 16024 and a rule asking every size
//                             from 8 MiB on to reach halfway to l2_read_gbps gave 0 (56 MiB is
//                             right: 9141 GB/s at 56, 4890 at 64). sim/tests/gpu_validation.py
//                             apply derives it again from the sweep by the same rule.
//   shared_wavefronts_per_sm_per_s   conflict-free 32-bit shared loads
//   shared_atomic_wavefronts_per_sm_per_s   conflict-free shared atomicAdd (one wavefront each)
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/gpu.hpp"
#include "histo/launch.hpp"
#include "histo/probe.hpp"
#include "histo/timing.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

__global__ void empty_kernel() {}

// One thread follows a random cycle through `words` indices: each load's address is the value
// the previous load returned, so nothing overlaps.
__global__ void chase_kernel(const uint32_t* __restrict__ next, uint32_t steps, uint32_t* d_sink) {
  uint32_t at = 0;
  for (uint32_t s = 0; s < steps; ++s) at = next[at];
  *d_sink = at;
}

enum Pattern : int { kOneAddress = 0, kOneLine = 1, kSpread = 2, kRegion1k = 3, kOneSector = 4 };

// Every thread adds `iters` times; the result is unused, so each add is a RED instruction.
__global__ void atomic_kernel(uint32_t* d_words, int iters, int pattern, uint32_t spread_words) {
  const unsigned lane = threadIdx.x % 32;
  const size_t thread = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  uint32_t* target = d_words;
  if (pattern == kOneLine) target = d_words + lane;
  if (pattern == kSpread) target = d_words + (thread * 32) % spread_words;
  if (pattern == kOneSector) target = d_words + (thread / 32) % 8;
  if (pattern == kRegion1k) {
    // Lane l adds to sector l of the region (words 8l .. 8l + 7), a word that moves each time.
    const unsigned warp = unsigned(thread / 32);
    for (int k = 0; k < iters; ++k) atomicAdd(d_words + lane * 8 + (warp + k) % 8, 1u);
    return;
  }
  for (int k = 0; k < iters; ++k) atomicAdd(target, 1u);
}

// A 1 KiB table in constant memory; lane l reads word 8 l + k of it on trip k: 32 different words
// in every warp-wide load.
constexpr unsigned kConstantWords = 256;
__constant__ uint32_t c_words[kConstantWords];
__constant__ uint8_t c_bytes[4 * kConstantWords];
// bytes: lane l reads byte l + 32 k of c_bytes instead: 32 different bytes of 8 words.
__global__ void constant_load_kernel(int iters, bool bytes, uint32_t* d_sink) {
  uint32_t acc = 0;
  const unsigned lane = threadIdx.x % 32;
  if (bytes)
    for (int k = 0; k < iters; ++k) acc += c_bytes[(lane + 32 * unsigned(k)) % (4 * kConstantWords)];
  else
    for (int k = 0; k < iters; ++k) acc += c_words[(lane * 8 + unsigned(k)) % kConstantWords];
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

// Every thread updates one word `iters` times with atomicExch (ATOM.EXCH: no RED form exists),
// atomicInc (RED.INC), atomicCAS (ATOM.CAS) or atomicMax (RED.MAX), as `op` says: 0 to 3, or 4:
// atomicInc and atomicExch in turn. The word is d_word[threadIdx.x & spread], spread 0: nvcc
// cannot see that the address is uniform.
__global__ void one_word_kernel(uint32_t* d_word, int iters, int op, unsigned spread) {
  uint32_t* word = d_word + (threadIdx.x & spread);
  for (int k = 0; k < iters; ++k) {
    if (op == 0) atomicExch(word, uint32_t(k));
    if (op == 1) atomicInc(word, 0x7FFFFFFFu);
    if (op == 2) atomicCAS(word, uint32_t(k), uint32_t(k + 1));
    if (op == 3) atomicMax(word, uint32_t(threadIdx.x + k));
    if (op == 4 && k % 2 == 0) atomicInc(word, 0x7FFFFFFFu);
    if (op == 4 && k % 2 == 1) atomicExch(word, uint32_t(k));
  }
}

// 4-byte stores, `rounds` passes over a buffer that stays in L2, `spacing` words apart: 1, a
// warp's 32 lanes write 4 sectors of one line (coalesced); 32, each lane a line of its own (32
// sectors in 32 lines), as a warp writing a column of a row-major matrix does.
__global__ void store_kernel(uint32_t* d_out, size_t words, unsigned spacing, int rounds) {
  const size_t slots = words / spacing;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < slots; i += stride) {
      const size_t slot = (i + size_t(r) * 32) % slots;  // the next warp's lines each round
      d_out[slot % 32 * spacing + slot / 32 * 32 * spacing] = uint32_t(i + r);
    }
}

// 16-byte stores over a buffer (write bandwidth), and a 16-byte copy (reads and writes at once).
__global__ void vector_write_kernel(uint4* d_out, size_t n16) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n16; i += size_t(gridDim.x) * blockDim.x)
    d_out[i] = make_uint4(uint32_t(i), 1, 2, 3);
}
__global__ void vector_copy_kernel(uint4* d_out, const uint4* __restrict__ d_in, size_t n16) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n16; i += size_t(gridDim.x) * blockDim.x)
    d_out[i] = d_in[i];
}

// Uncoalesced byte loads: lane l of a warp reads byte 32 l of the warp's 1 KiB, so each request
// touches 32 sectors; `rounds` passes over a buffer that stays in L2.
__global__ void sector_load_kernel(const uint8_t* __restrict__ d_in, size_t n, int rounds,
                                   uint32_t* d_sink) {
  uint32_t acc = 0;
  const size_t sectors = n / 32;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < sectors; i += stride)
      acc += d_in[((i + r) % sectors) * 32];
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

// Coalesced byte loads, grid-stride, one in flight per thread and trip: what byte-load loops
// cost when latency, not bandwidth, limits them.
__global__ void byte_load_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_sink) {
  uint32_t acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    acc += d_in[i];
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

// 16-byte loads over a buffer, `rounds` passes in one launch (each thread sums what it read).
__global__ void vector_read_kernel(const uint4* __restrict__ d_in, size_t n16, int rounds, uint32_t* d_sink) {
  uint32_t acc = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n16; i += stride) {
      const uint4 v = d_in[i];
      acc += v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

// byte_load_kernel's loop, `rounds` passes over a buffer small enough to stay in the L2.
__global__ void byte_load_rounds_kernel(const uint8_t* __restrict__ d_in, size_t n, int rounds,
                                        uint32_t* d_sink) {
  uint32_t acc = 0;
  for (int r = 0; r < rounds; ++r)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
      acc += d_in[i];
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

constexpr unsigned kSharedWords = 2048;

// Conflict-free shared loads: lane l reads word (l + 32 * k) % kSharedWords, one wavefront each.
__global__ void shared_load_kernel(int iters, uint32_t* d_sink) {
  __shared__ uint32_t s_words[kSharedWords];
  for (unsigned w = threadIdx.x; w < kSharedWords; w += blockDim.x) s_words[w] = w;
  __syncthreads();
  uint32_t acc = 0, at = threadIdx.x % 32;
  for (int k = 0; k < iters; ++k) {
    acc += s_words[at];
    at = (at + 32 + (acc & 1) * 0) % kSharedWords;  // a dependence nvcc cannot hoist
  }
  if (acc == 0x9E3779B9u) *d_sink = acc;
}

// Each lane follows its own cycle through shared memory (words lane, lane + 32, ...: its own
// bank, so no conflicts): each load's address is the value the previous one returned.
__global__ void shared_chase_kernel(int steps, uint32_t* d_sink) {
  __shared__ uint32_t s_next[kSharedWords];
  for (unsigned w = threadIdx.x; w < kSharedWords; w += blockDim.x) s_next[w] = (w + 32) % kSharedWords;
  __syncthreads();
  uint32_t at = threadIdx.x % 32;
  for (int k = 0; k < steps; ++k) at = s_next[at];
  if (at == 0x9E3779B9u) *d_sink = at;
}

// Conflict-free shared atomics: each lane adds to a word in its own bank.
__global__ void shared_atomic_kernel(int iters, uint32_t* d_sink) {
  __shared__ uint32_t s_words[kSharedWords];
  for (unsigned w = threadIdx.x; w < kSharedWords; w += blockDim.x) s_words[w] = 0;
  __syncthreads();
  uint32_t* mine = &s_words[threadIdx.x % 32 + 32 * ((threadIdx.x / 32) % (kSharedWords / 32))];
  for (int k = 0; k < iters; ++k) atomicAdd(mine, 1u);
  __syncthreads();
  if (s_words[threadIdx.x] == 0x9E3779B9u) *d_sink = 1;
}

template <typename F>
double median_ms(F&& run, int reps) {
  const histo::TimingOptions options{3, reps, reps, 1e9};
  return histo::time_median([&](cudaStream_t s) { run(s); }, [](cudaStream_t) {}, 0, options)
      .median_ms;
}

}  // namespace

int main() {
  try {
    const histo::GpuStatus gpu = histo::gpu_status();
    if (!gpu.runnable) {
      std::fprintf(stderr, "histo_calibrate needs a GPU: %s\n", gpu.reason.c_str());
      return 2;
    }
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const int sms = prop.multiProcessorCount;
    histo::DeviceBuffer<uint32_t> sink(1);
    std::printf("{\n  \"gpu\": \"%s\",\n  \"sm_count\": %d,\n  \"clock_mhz\": %d,\n", prop.name, sms,
                clock_khz / 1000);
    std::printf("  \"l2_bytes\": %d,\n  \"shared_per_sm_bytes\": %zu,\n", prop.l2CacheSize,
                prop.sharedMemPerMultiprocessor);
    std::printf("  \"max_threads_per_sm\": %d,\n  \"max_blocks_per_sm\": %d,\n",
                prop.maxThreadsPerMultiProcessor, prop.maxBlocksPerMultiProcessor);

    const double launch = median_ms([](cudaStream_t s) {
      empty_kernel<<<1, 32, 0, s>>>();
    }, 201);
    const double launch_memset = median_ms([&](cudaStream_t s) {
      CUDA_CHECK(cudaMemsetAsync(sink.get(), 0, sizeof(uint32_t), s));
      empty_kernel<<<1, 32, 0, s>>>();
    }, 201);
    std::printf("  \"launch_us\": %.2f,\n  \"launch_after_memset_us\": %.2f,\n", launch * 1e3,
                launch_memset * 1e3);

    const size_t big = size_t(1) << 30;
    double dram_gbps = 0;
    {
      histo::DeviceBuffer<uint8_t> data(big);
      CUDA_CHECK(cudaMemset(data.get(), 1, big));
      const double ms = median_ms([&](cudaStream_t s) {
        histo::bandwidth_probe(data.get(), big, sink.get(), s);
      }, 41);
      dram_gbps = big / (ms * 1e6);
      std::printf("  \"dram_read_gbps\": %.1f,\n", dram_gbps);
    }
    {
      // A random cycle over 1 GiB of indices, one per 64-byte step so every load is a new line.
      const uint32_t words = uint32_t(big / sizeof(uint32_t));
      const uint32_t stride = 16, slots = words / stride;
      std::vector<uint32_t> order(slots);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin() + 1, order.end(), std::mt19937(2026));
      std::vector<uint32_t> next(words, 0);
      for (uint32_t i = 0; i < slots; ++i) next[order[i] * stride] = order[(i + 1) % slots] * stride;
      histo::DeviceBuffer<uint32_t> d_next(words);
      d_next.upload(next.data(), next.size());
      const uint32_t steps = 20000;
      const double ms = median_ms([&](cudaStream_t s) {
        chase_kernel<<<1, 1, 0, s>>>(d_next.get(), steps, sink.get());
      }, 5);
      std::printf("  \"load_latency_ns\": %.1f,\n", ms * 1e6 / steps);
    }
    {
      histo::DeviceBuffer<uint8_t> data(big);
      CUDA_CHECK(cudaMemset(data.get(), 1, big));
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      const double ms = median_ms([&](cudaStream_t s) {
        byte_load_kernel<<<blocks, threads, 0, s>>>(data.get(), big, sink.get());
      }, 11);
      const double requests_per_warp = double(big) / 32 / (double(blocks) * threads / 32);
      std::printf("  \"load_request_ns\": %.1f,\n", ms * 1e6 / requests_per_warp);
    }
    {
      const size_t bytes = size_t(8) << 20;  // 8 MiB: stays in the L2
      histo::DeviceBuffer<uint8_t> data(bytes);
      CUDA_CHECK(cudaMemset(data.get(), 1, bytes));
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      const int rounds = 64;
      const double ms = median_ms([&](cudaStream_t s) {
        sector_load_kernel<<<blocks, threads, 0, s>>>(data.get(), bytes, rounds, sink.get());
      }, 11);
      const double sectors = double(bytes / 32) * rounds;
      std::printf("  \"load_sectors_per_sm_per_s\": %.4g,\n", sectors / sms / (ms * 1e-3));
    }
    {
      // The L2: bandwidth and load cost with the data resident, and where residency ends.
      const size_t most = size_t(96) << 20;
      histo::DeviceBuffer<uint8_t> data(most);
      CUDA_CHECK(cudaMemset(data.get(), 1, most));
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      auto read_gbps = [&](size_t bytes, int rounds) {
        const double ms = median_ms([&](cudaStream_t s) {
          vector_read_kernel<<<blocks, threads, 0, s>>>(reinterpret_cast<const uint4*>(data.get()),
                                                        bytes / 16, rounds, sink.get());
        }, 11);
        return double(bytes) * rounds / (ms * 1e6);
      };
      const size_t resident = size_t(8) << 20;
      const double l2_gbps = read_gbps(resident, 64);
      const int rounds = 16;
      const double ms = median_ms([&](cudaStream_t s) {
        byte_load_rounds_kernel<<<blocks, threads, 0, s>>>(data.get(), resident, rounds, sink.get());
      }, 11);
      const double requests_per_warp = double(resident) * rounds / 32 / (double(blocks) * threads / 32);
      std::printf("  \"l2_read_gbps\": %.1f,\n  \"l2_load_request_ns\": %.1f,\n", l2_gbps,
                  ms * 1e6 / requests_per_warp);
      // Repeated reads of larger buffers (8 passes in a launch), then where residency ends (the
      // header says why the sweep's own peak is the yardstick).
      std::printf("  \"l2_sweep_gbps\": {");
      const int sizes_mib[] = {8, 16, 24, 32, 40, 48, 56, 64, 80, 96};
      constexpr size_t kSizes = sizeof sizes_mib / sizeof sizes_mib[0];
      double sweep[kSizes];
      size_t peak = 0;
      for (size_t k = 0; k < kSizes; ++k) {
        sweep[k] = read_gbps(size_t(sizes_mib[k]) << 20, 8);
        if (sweep[k] > sweep[peak]) peak = k;
        std::printf("%s\"%d\": %.1f", k ? ", " : "", sizes_mib[k], sweep[k]);
      }
      size_t resident_bytes = 0;
      for (size_t k = peak; k < kSizes && sweep[k] >= (dram_gbps + sweep[peak]) / 2; ++k)
        resident_bytes = size_t(sizes_mib[k]) << 20;
      std::printf("},\n  \"l2_resident_bytes\": %zu,\n", resident_bytes);
    }
    {
      const uint32_t spread_words = 1u << 24;  // 64 MiB: more lines than L2 slices by far
      histo::DeviceBuffer<uint32_t> words(spread_words);
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      const double lane_ops_per_iter = double(blocks) * threads;
      const char* names[] = {"atomic_one_address_per_s", "atomic_one_line_per_s",
                             "atomic_spread_per_s", "atomic_region_1k_per_s", "atomic_one_sector_per_s"};
      const int iters[] = {4, 16, 256, 16, 4};
      for (int p = 0; p < 5; ++p) {
        const double ms = median_ms([&](cudaStream_t s) {
          atomic_kernel<<<blocks, threads, 0, s>>>(words.get(), iters[p], p, spread_words);
        }, 11);
        // One address: count requests (a warp's 32 adds to one word are one L2 update); the
        // others: updates of distinct words.
        const double ops = lane_ops_per_iter * iters[p] / (p == kOneAddress ? 32.0 : 1.0);
        std::printf("  \"%s\": %.4g,\n", names[p], ops / (ms * 1e-3));
      }
      const char* one_word[] = {"atomic_exch_one_address_per_s", "atomic_inc_one_address_per_s",
                                "atomic_cas_one_address_per_s", "atomic_max_one_address_per_s",
                                "atomic_inc_exch_one_address_per_s"};
      const int one_word_iters = 4;
      for (int op = 0; op < 5; ++op) {
        const double ms = median_ms([&](cudaStream_t s) {
          one_word_kernel<<<blocks, threads, 0, s>>>(words.get(), one_word_iters, op, 0u);
        }, 11);
        std::printf("  \"%s\": %.4g,\n", one_word[op], lane_ops_per_iter * one_word_iters / (ms * 1e-3));
      }
    }
    {
      const size_t bytes = size_t(8) << 20;  // 8 MiB: stays in the L2
      histo::DeviceBuffer<uint32_t> data(bytes / 4);
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      const int rounds = 64;
      for (const unsigned spacing : {1u, 32u}) {
        const double ms = median_ms([&](cudaStream_t s) {
          store_kernel<<<blocks, threads, 0, s>>>(data.get(), bytes / 4, spacing, rounds);
        }, 11);
        const double stores = double(bytes / 4 / spacing) * rounds;  // one sector per lane, or 8 lanes
        if (spacing == 1)
          std::printf("  \"store_sectors_per_sm_per_s\": %.4g,\n", stores / 8 / sms / (ms * 1e-3));
        else
          std::printf("  \"store_lines_per_sm_per_s\": %.4g,\n", stores / sms / (ms * 1e-3));
      }
    }
    {
      uint32_t table[kConstantWords];
      for (unsigned w = 0; w < kConstantWords; ++w) table[w] = w;
      CUDA_CHECK(cudaMemcpyToSymbol(c_words, table, sizeof table));
      CUDA_CHECK(cudaMemcpyToSymbol(c_bytes, table, sizeof table));
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      const int iters = 1024;
      for (const bool bytes : {false, true}) {
        const double ms = median_ms([&](cudaStream_t s) {
          constant_load_kernel<<<blocks, threads, 0, s>>>(iters, bytes, sink.get());
        }, 11);
        const double reads = double(blocks) * threads * iters;  // 32 per warp-wide load
        std::printf("  \"constant_%s_per_sm_per_s\": %.4g,\n", bytes ? "bytes" : "words", reads / sms / (ms * 1e-3));
      }
    }
    {
      histo::DeviceBuffer<uint8_t> data(big);
      const unsigned blocks = unsigned(sms) * 8, threads = 256;
      uint4* d_out = reinterpret_cast<uint4*>(data.get());
      const double write_ms = median_ms([&](cudaStream_t s) {
        vector_write_kernel<<<blocks, threads, 0, s>>>(d_out, big / 16);
      }, 21);
      const size_t half = big / 2;
      const double copy_ms = median_ms([&](cudaStream_t s) {
        vector_copy_kernel<<<blocks, threads, 0, s>>>(d_out, d_out + half / 16, half / 16);
      }, 21);
      std::printf("  \"dram_write_gbps\": %.1f,\n  \"dram_copy_gbps\": %.1f,\n", big / (write_ms * 1e6),
                  2.0 * half / (copy_ms * 1e6));
    }
    {
      const int steps = 1 << 16;
      const double ms = median_ms([&](cudaStream_t s) {
        shared_chase_kernel<<<unsigned(sms), 32, 0, s>>>(steps, sink.get());
      }, 11);
      std::printf("  \"shared_load_latency_ns\": %.2f,\n", ms * 1e6 / steps);
    }
    {
      const unsigned blocks = unsigned(sms) * 4, threads = 512;
      const int iters = 4096;
      const double warp_instructions = double(blocks) * (threads / 32) * iters;
      const double ld = median_ms([&](cudaStream_t s) {
        shared_load_kernel<<<blocks, threads, 0, s>>>(iters, sink.get());
      }, 11);
      const double at = median_ms([&](cudaStream_t s) {
        shared_atomic_kernel<<<blocks, threads, 0, s>>>(iters, sink.get());
      }, 11);
      std::printf("  \"shared_wavefronts_per_sm_per_s\": %.4g,\n",
                  warp_instructions / sms / (ld * 1e-3));
      std::printf("  \"shared_atomic_wavefronts_per_sm_per_s\": %.4g\n}\n",
                  warp_instructions / sms / (at * 1e-3));
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "histo_calibrate: %s\n", e.what());
    return 1;
  }
}
