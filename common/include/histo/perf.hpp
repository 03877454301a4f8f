// What one launcher call costs, counted by the CPU simulator standing in for an NVIDIA H200
// (sim/README.md, "Cost"): the [perf] tests check these counts against bounds that a lab's
// technique meets and its common correct-but-slow versions miss. Counts are deterministic for
// an input and a launch, unlike times, so a bound can grade.
#pragma once

#include "histo/datasets.hpp"
#include "histo/launch.hpp"

#include <cstdint>
#include <string>

namespace histo {

struct CostCounts {
  std::string input;  // "uniform, 4194304 bytes, simulator with the NVIDIA H200's shape"
  bool correct = false;   // the bins matched the CPU reference
  uint64_t launches = 0, blocks = 0;
  uint64_t sms = 0, loading_sms = 0;  // the GPU's SMs; those whose blocks issued a global load
  uint64_t load_requests = 0, load_sectors = 0;        // global loads
  uint64_t atomic_requests = 0, atomic_passes = 0;     // global atomics
  uint64_t shared_instructions = 0, shared_wavefronts = 0, shared_conflicts = 0;  // loads, stores
  uint64_t shared_atomic_instructions = 0, shared_atomic_wavefronts = 0;
  double per(uint64_t a, uint64_t b) const { return b ? double(a) / double(b) : 0.0; }
};

// The counts of `variant` on n bytes of `dataset` (seed 2026), summed over its launches.
// Throws std::runtime_error with the reason where nothing can be counted: a GPU build (the
// counters are the simulator's), or a simulator build that cannot see plain loads and stores.
CostCounts count_cost(const Variant& variant, Dataset dataset, size_t n);

// Where count_cost can count; otherwise why not (the sentence a skipped test prints).
bool cost_counts_available(std::string* why);

}  // namespace histo
