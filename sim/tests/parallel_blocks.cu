// Blocks on several host threads (sim/README.md, "Speed"): with no check and no counter following
// the launches, the blocks of a launch run on HISTO_SIM_THREADS host threads and give the bins
// they give one at a time (static and dynamic shared memory, warp collectives, global atomics);
// a failing block fails the launch as it does run in order; the counters and the hazard checks
// still see one block at a time. Prints one line per check ("ok ..." or "FAIL ..."); exit 0 when
// all pass.
//   sim_parallel_blocks [BYTES [REPEATS [off]]]   REPEATS > 0: also the time of one launch per mode;
//                                                 off: only the modes with checks off
#include "histo_sim/counters.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr unsigned kBins = 256, kGrid = 64, kBlock = 256;

// Per-block bins in static shared memory.
__global__ void static_shared_kernel(const unsigned char* in, size_t n, unsigned* bins) {
  __shared__ unsigned s_bins[kBins];
  s_bins[threadIdx.x] = 0;
  __syncthreads();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    atomicAdd(&s_bins[in[i]], 1u);
  __syncthreads();
  if (s_bins[threadIdx.x]) atomicAdd(&bins[threadIdx.x], s_bins[threadIdx.x]);
}

// Per-block bins in dynamic shared memory, 16-byte loads.
__global__ void dynamic_shared_kernel(const unsigned char* in, size_t n, unsigned* bins) {
  extern __shared__ unsigned d_bins[];
  d_bins[threadIdx.x] = 0;
  __syncthreads();
  const uint4* in16 = reinterpret_cast<const uint4*>(in);
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n / 16; i += size_t(gridDim.x) * blockDim.x) {
    const uint4 v = in16[i];
    const unsigned words[4] = {v.x, v.y, v.z, v.w};
    for (int w = 0; w < 4; ++w)
      for (int b = 0; b < 4; ++b) atomicAdd(&d_bins[(words[w] >> (8 * b)) & 0xFF], 1u);
  }
  __syncthreads();
  if (d_bins[threadIdx.x]) atomicAdd(&bins[threadIdx.x], d_bins[threadIdx.x]);
}

// Warp-aggregated global atomics: the lanes holding one byte elect a leader that adds their count.
__global__ void warp_aggregated_kernel(const unsigned char* in, size_t n, unsigned* bins) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const unsigned active = __activemask();
    const unsigned value = in[i];
    const unsigned peers = __match_any_sync(active, value);
    if ((threadIdx.x % 32) == unsigned(__ffs(int(peers)) - 1)) atomicAdd(&bins[value], unsigned(__popc(peers)));
  }
}

// Block 5 and every block after it wait at a barrier that thread 0 skips.
__global__ void divergent_from_block_5(unsigned* bins) {
  if (blockIdx.x >= 5 && threadIdx.x == 0) return;
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&bins[0], 1u);
}

int failures = 0;
void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

void set_threads(const char* n) { setenv("HISTO_SIM_THREADS", n, 1); }

struct Kernel {
  const char* name;
  std::function<void()> launch;
};

}  // namespace

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t(4) << 20;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 0;
  std::vector<unsigned char> data(n);
  unsigned x = 2026;
  for (unsigned char& c : data) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = (unsigned char)((x >> 8) & ((x & 3) ? 0xFF : 0x0F));
  }
  std::vector<unsigned> want(kBins, 0);
  for (unsigned char c : data) ++want[c];
  unsigned char* d_in = nullptr;
  unsigned* d_bins = nullptr;
  cudaMalloc(&d_in, n);
  cudaMalloc(&d_bins, kBins * sizeof(unsigned));
  cudaMemcpy(d_in, data.data(), n, cudaMemcpyHostToDevice);

  const std::vector<Kernel> kernels = {
      {"static_shared", [&] { static_shared_kernel<<<kGrid, kBlock>>>(d_in, n, d_bins); }},
      {"dynamic_shared", [&] { dynamic_shared_kernel<<<kGrid, kBlock, kBins * sizeof(unsigned)>>>(d_in, n, d_bins); }},
      {"warp_aggregated", [&] { warp_aggregated_kernel<<<kGrid, kBlock>>>(d_in, n, d_bins); }}};
  // One launch on zeroed bins: its bins and the host threads that ran it.
  auto run = [&](const Kernel& k, unsigned* threads) {
    cudaMemset(d_bins, 0, kBins * sizeof(unsigned));
    k.launch();
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) std::printf("FAIL %s: %s\n", k.name, cudaGetErrorString(err));
    std::vector<unsigned> got(kBins);
    cudaMemcpy(got.data(), d_bins, kBins * sizeof(unsigned), cudaMemcpyDeviceToHost);
    *threads = histo_sim::last_launch_host_threads();
    return got;
  };
  auto time_of = [&](const Kernel& k, const char* mode) {
    if (repeats <= 0) return;
    double best = 1e30;
    for (int r = 0; r < repeats; ++r) {
      const auto start = std::chrono::steady_clock::now();
      k.launch();
      cudaDeviceSynchronize();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("time %s %s: %.3f s per launch of %zu bytes (best of %d)\n", mode, k.name, best, n, repeats);
  };

  // Checks off: one host thread, then two.
  setenv("HISTO_SIM_HAZARDS", "0", 1);
  for (const Kernel& k : kernels) {
    unsigned serial_threads = 0, parallel_threads = 0;
    set_threads("1");
    const std::vector<unsigned> serial = run(k, &serial_threads);
    time_of(k, "checks off, 1 host thread,");
    set_threads("2");
    const std::vector<unsigned> parallel = run(k, &parallel_threads);
    time_of(k, "checks off, 2 host threads,");
    check(serial == want && serial_threads == 1, std::string(k.name) + ": one host thread, the right bins");
    check(parallel == serial && parallel_threads == 2,
          std::string(k.name) + ": two host threads (" + std::to_string(parallel_threads) + "), the same bins");
  }
  // A failing block: the launch fails naming block 5, the lowest that fails, in both modes.
  for (const char* threads : {"1", "2"}) {
    set_threads(threads);
    divergent_from_block_5<<<kGrid, kBlock>>>(d_bins);
    const cudaError_t err = cudaDeviceSynchronize();
    const std::string text = cudaGetErrorString(err);
    check(err == cudaErrorLaunchFailure && text.find("block (5,0,0)") != std::string::npos,
          std::string("a divergent barrier from block 5 on, ") + threads + " host thread(s): " + text.substr(0, 120));
  }

  if (argc > 3 && std::string(argv[3]) == "off") return failures ? 1 : 0;
  // The counters and the hazard checks: one block at a time, whatever HISTO_SIM_THREADS says.
  set_threads("2");
  if (!histo_sim::counters_available()) {
    std::printf("ok (no counters or hazard checks in this build: %s)\n", histo_sim::counters_unavailable_reason());
    return failures ? 1 : 0;
  }
  for (const Kernel& k : kernels) {
    unsigned threads = 0;
    histo_sim::counters_begin();
    const std::vector<unsigned> got = run(k, &threads);
    time_of(k, "counters on,");
    histo_sim::counters_end();
    check(got == want && threads == 1, std::string(k.name) + ": counters on, one host thread, the right bins");
  }
  unsetenv("HISTO_SIM_HAZARDS");
  for (const Kernel& k : kernels) {
    unsigned threads = 0;
    const std::vector<unsigned> got = run(k, &threads);
    time_of(k, "checks on,");
    check(got == want && threads == 1, std::string(k.name) + ": hazard checks on, one host thread, the right bins");
  }
  cudaFree(d_in);
  cudaFree(d_bins);
  return failures ? 1 : 0;
}
