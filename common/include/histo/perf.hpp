// What one launcher call costs: counted by the CPU simulator standing in for an NVIDIA H200
// (sim/README.md, "Cost"), or, in a GPU build in the GRADE_NCU mode (grading/README.md), by
// Nsight Compute on the GPU. The [perf] tests check these counts against bounds that a lab's
// technique meets and its common correct-but-slow versions miss. Counts are deterministic for
// an input and a launch, unlike times, so a bound can grade.
//
// Nsight Compute counts a process from outside, so a GPU build counts in two passes, chosen
// by the environment variable HISTO_PERF_NCU:
//   collect:FILE  pass 1, run under `ncu --csv --print-units base --metrics ...`: each
//                 count_cost call launches the variant between two marker kernels
//                 (histo_cost_begin, histo_cost_end, grid = the call's index + 1), appends
//                 "call INDEX VARIANT DATASET N" to FILE and counts nothing itself (the [perf]
//                 tests skip: "collected for Nsight Compute").
//   FILE          pass 2: FILE holds each call's counts, grouped from ncu's CSV by
//                 grading/histo_grading/ncu.py; count_cost launches the variant again to check
//                 its bins, and takes the counts of the call with the same variant, dataset and
//                 size. A [perf] test case makes one count_cost call per run (GENERATE for
//                 several inputs), so that pass 1's skip stops none.
#pragma once

#include "histo/datasets.hpp"
#include "histo/launch.hpp"

#include <cstdint>
#include <string>

namespace histo {

struct CostCounts {
  std::string data;   // "uniform, 4194304 bytes"
  std::string where;  // "in the CPU simulator with the NVIDIA H200's shape"
  std::string input;  // data + ", " + where: what failure messages name
  bool correct = false;    // the bins matched the CPU reference
  bool collected = false;  // pass 1 of the Nsight Compute mode: launched, nothing counted here
  uint64_t launches = 0, blocks = 0;
  uint64_t sms = 0, loading_sms = 0;  // the GPU's SMs; those whose blocks issued a global load
  uint64_t load_requests = 0, load_sectors = 0;        // global loads
  uint64_t atomic_requests = 0, atomic_passes = 0;     // global atomics
  uint64_t shared_instructions = 0, shared_wavefronts = 0, shared_conflicts = 0;  // loads, stores
  uint64_t shared_atomic_instructions = 0, shared_atomic_wavefronts = 0;
  double per(uint64_t a, uint64_t b) const { return b ? double(a) / double(b) : 0.0; }
};

// The counts of `variant` on n bytes of `dataset` (seed 2026), summed over its launches.
// Throws std::runtime_error with the reason where nothing can be counted: a GPU build outside
// the Nsight Compute mode, a simulator build that cannot see plain loads and stores, or a
// pass 2 whose file has no counts for this call.
CostCounts count_cost(const Variant& variant, Dataset dataset, size_t n);

// Where count_cost can count; otherwise why not (the sentence a skipped test prints).
bool cost_counts_available(std::string* why);

// The Nsight Compute markers around one count_cost call of pass 1 (common/src/cost_marker.cu).
void launch_cost_marker(bool begin, unsigned index);

}  // namespace histo
