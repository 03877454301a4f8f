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
#include <utility>
#include <vector>

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"
#endif

namespace histo {

// One source line of the counted call and its counts (the simulator's; Nsight Compute's mode
// has none): a [perf] failure names the line that holds most of the counter it bounds.
struct CostLine {
  std::string where;  // "lab05_per_thread_packed.cu:99"
  std::string text;   // the line, without its indentation
  uint64_t load_requests = 0, load_sectors = 0;
  uint64_t atomic_requests = 0, atomic_passes = 0;
  uint64_t shared_instructions = 0, shared_wavefronts = 0, shared_conflicts = 0;  // loads, stores
  uint64_t shared_atomic_instructions = 0, shared_atomic_wavefronts = 0, shared_atomic_conflicts = 0;
};
// Which count of a line a [perf] bound is about (&CostLine::shared_conflicts).
using LineCounter = uint64_t CostLine::*;

struct CostCounts {
  Variant variant;    // what was counted, on what
  Dataset dataset = Dataset::uniform;
  size_t n = 0;
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
  std::vector<CostLine> lines;  // by source line, in file and line order (the simulator's only)
  double per(uint64_t a, uint64_t b) const { return b ? double(a) / double(b) : 0.0; }
};

// The counts of `variant` on n bytes of `dataset` drawn with `seed` (the test's: the grader's
// own in a graded run), summed over its launches.
// Throws std::runtime_error with the reason where nothing can be counted: a GPU build outside
// the Nsight Compute mode, a simulator build that cannot see plain loads and stores, or a
// pass 2 whose file has no counts for this call.
CostCounts count_cost(const Variant& variant, Dataset dataset, size_t n, uint64_t seed);

// Where count_cost can count; otherwise why not (the sentence a skipped test prints).
bool cost_counts_available(std::string* why);

// The line that holds most of `counter`, as a failure names it: "lab05_per_thread_packed.cu:99
// (`...the line...`) has 97% of the shared load and store bank conflicts (3170304 of 3276800)",
// with the runner-up where the first holds less than half; "" where no line holds any (or
// none was counted by line).
std::string top_line(const CostCounts& counts, LineCounter counter);

// How far the counted kernel is from its technique's goal on the H200's cost model, for 1 GiB of
// the counted dataset: what the kernel is predicted to reach (GB/s, % of the read limit: the
// read probe's prediction on the same input, the binding resource and the next one) and what
// the technique reaches (the solution's prediction, kTechniqueGoals in perf.cpp). A simulator
// build runs the kernel and the probe on 1 GiB, a sample of their blocks (histo_sim/model.hpp),
// which takes a few seconds and about 1 GiB of memory; a GPU build says only the technique's
// figure. "" where nothing is known.
std::string distance_to_goal(const CostCounts& counts);

// The technique's predicted GB/s for `variant_id` ("lab05/packed") on 1 GiB of `dataset`, or 0
// where no [perf] test records one.
double technique_goal_gbps(const std::string& variant_id, Dataset dataset);

// The Nsight Compute markers around one count_cost call of pass 1 (common/src/cost_marker.cu).
void launch_cost_marker(bool begin, unsigned index);

#ifdef HISTO_SIM
// The simulator's counters of `variant` and of the read probe on `bytes` of `dataset` (seed
// 2026), each launch on the grid its launcher picks for that size, a sample of its blocks
// simulated (histo_sim::sampled_counters): what distance_to_goal predicts from
// (common/src/goal_counters.cpp, beside the engine: a split grader's worker runs it).
std::pair<std::vector<histo_sim::LaunchCounters>, std::vector<histo_sim::LaunchCounters>>
goal_counters(const Variant& variant, Dataset dataset, size_t bytes);
#endif

}  // namespace histo
