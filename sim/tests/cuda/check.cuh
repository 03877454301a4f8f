// What every program here shares, as a CUDA text's helper header would: a check of each CUDA
// call, the arguments (input bytes, timed repetitions), deterministic inputs, and the timing of
// one kernel (a warm-up, then the median of REPEATS event-timed launches).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#define CHECK(call)                                                                         \
  do {                                                                                      \
    cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                              \
      std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorString(err_));                                               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

struct Args {
  size_t bytes = size_t(16) << 20;
  int repeats = 0;  // 0: no timing
};

inline Args parse_args(int argc, char** argv) {
  Args a;
  if (argc > 1) a.bytes = std::strtoull(argv[1], nullptr, 10);
  if (argc > 2) a.repeats = std::atoi(argv[2]);
  if (a.bytes < 4096) a.bytes = 4096;
  return a;
}

// Bytes with a skewed distribution (most values rare, a few common), the same on every run.
inline std::vector<unsigned char> make_bytes(size_t n, unsigned seed = 2026) {
  std::vector<unsigned char> v(n);
  unsigned x = seed;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = (unsigned char)((x >> 8) & 0xFF) & (unsigned char)((x & 3) ? 0xFF : 0x0F);
  }
  return v;
}

inline std::vector<unsigned> cpu_histogram(const std::vector<unsigned char>& v, unsigned bins = 256) {
  std::vector<unsigned> h(bins, 0);
  for (unsigned char c : v) ++h[c % bins];
  return h;
}

inline bool same(const char* what, const std::vector<unsigned>& got, const std::vector<unsigned>& want) {
  for (size_t b = 0; b < want.size(); ++b)
    if (got[b] != want[b]) {
      std::printf("WRONG %s: bin %zu is %u, expected %u\n", what, b, got[b], want[b]);
      return false;
    }
  std::printf("ok %s\n", what);
  return true;
}

// With repeats > 0: `launch` once to warm up, then `repeats` times, each between two events;
// prints "time MEDIAN_US NAME".
inline void time_kernel(const char* name, int repeats, const std::function<void()>& launch) {
  if (repeats <= 0) return;
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < repeats; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  std::printf("time %.2f %s\n", ms[ms.size() / 2] * 1e3, name);
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
}
