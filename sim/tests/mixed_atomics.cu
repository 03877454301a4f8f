// Global atomics of both kinds in one 128-byte line (histo_sim/counters.hpp's mixed_line_*): an
// exchange is an ATOM, an inc a RED. A line that takes both counts its passes and those of its
// rarer kind, wherever in the line they fall; lines of one kind count none. The model then
// charges the alternating kernel's line at the calibrated mixed rate
// (atomic_inc_exch_one_address_per_s: bench/calibrate.cu measures the same pattern), and the
// same passes of one kind at the one-sector rate. Prints each difference; exit 0 when none.
#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo_sim/counters.hpp"
#include "histo_sim/model.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace {

constexpr unsigned kGrid = 2, kBlock = 64;
constexpr uint64_t kWarps = kGrid * kBlock / 32, kPasses = kWarps * 32;  // per atomic statement

// `second` words after the first: 0 (one word), 8 (the next sector of the line), 32 (the next line).
__global__ void inc_then_exch(unsigned* d_words, unsigned second) {
  atomicInc(d_words, 1000u);
  atomicExch(d_words + second, threadIdx.x);
}
__global__ void inc_twice(unsigned* d_words) {
  atomicInc(d_words, 1000u);
  atomicInc(d_words, 1000u);
}

histo_sim::LaunchCounters count(void (*launch)(unsigned*), unsigned* d_words) {
  histo_sim::counters_begin();
  launch(d_words);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<histo_sim::LaunchCounters> launches = histo_sim::counters_end();
  if (launches.size() != 1) throw std::runtime_error("expected one launch");
  return launches[0];
}

double atomics_bound(const histo_sim::LaunchCounters& c) {
  const histo_sim::Prediction p = histo_sim::predict({c}, histo_sim::current_gpu());
  for (const histo_sim::Bound& b : p.bounds)
    if (b.resource == histo_sim::resource_name(histo_sim::Resource::atomics_on_one_sector)) return b.seconds;
  return 0;
}

}  // namespace

int main() {
  if (!histo_sim::counters_available()) {
    std::printf("SKIPPED: %s\n", histo_sim::counters_unavailable_reason());
    return 77;
  }
  histo::DeviceBuffer<unsigned> d_words(64);
  CUDA_CHECK(cudaMemset(d_words.get(), 0, 64 * sizeof(unsigned)));
  struct Case {
    const char* name;
    histo_sim::LaunchCounters counters;
    uint64_t line_passes, minority;
  };
  const Case cases[] = {
      {"inc, exch on one word", count([](unsigned* d) { inc_then_exch<<<kGrid, kBlock>>>(d, 0); }, d_words.get()),
       2 * kPasses, kPasses},
      {"inc, exch in two sectors of a line",
       count([](unsigned* d) { inc_then_exch<<<kGrid, kBlock>>>(d, 8); }, d_words.get()), 2 * kPasses, kPasses},
      {"inc, exch in two lines", count([](unsigned* d) { inc_then_exch<<<kGrid, kBlock>>>(d, 32); }, d_words.get()),
       0, 0},
      {"inc twice on one word", count([](unsigned* d) { inc_twice<<<kGrid, kBlock>>>(d); }, d_words.get()), 0, 0},
  };
  int wrong = 0;
  for (const Case& k : cases) {
    if (k.counters.mixed_line_passes != k.line_passes || k.counters.mixed_line_minority != k.minority) {
      std::printf("%s: mixed line %llu passes, %llu of the rarer kind; expected %llu and %llu\n", k.name,
                  (unsigned long long)k.counters.mixed_line_passes,
                  (unsigned long long)k.counters.mixed_line_minority, (unsigned long long)k.line_passes,
                  (unsigned long long)k.minority);
      ++wrong;
    }
  }
  // Alternating kinds on one word: every pass at the mixed rate; one kind: the one-sector rate.
  const histo_sim::GpuShape& gpu = histo_sim::current_gpu();
  const double mixed = atomics_bound(cases[0].counters), alone = atomics_bound(cases[3].counters);
  const double want_mixed = 2.0 * kPasses / gpu.atomic_mixed_kinds_per_s;
  const double want_alone = 2.0 * kPasses / gpu.atomic_one_sector_per_s;
  if (std::fabs(mixed - want_mixed) > 1e-6 * want_mixed || std::fabs(alone - want_alone) > 1e-6 * want_alone) {
    std::printf("atomics bound: %.4g s alternating (expected %.4g), %.4g s one kind (expected %.4g)\n", mixed,
                want_mixed, alone, want_alone);
    ++wrong;
  }
  if (wrong == 0)
    std::printf("ATOM and RED in one line: counted and charged at the mixed rate (%.3g passes/s; one kind %.3g)\n",
                gpu.atomic_mixed_kinds_per_s, gpu.atomic_one_sector_per_s);
  return wrong == 0 ? 0 : 1;
}
