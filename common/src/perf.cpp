// count_cost (histo/perf.hpp): one launcher call's counters, from the CPU simulator or, in a GPU
// build, from Nsight Compute in two passes (HISTO_PERF_NCU).
#include "histo/perf.hpp"

#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/reference.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#ifdef HISTO_SIM
#include "histo/probe.hpp"
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"
#else
#include "histo/gpu.hpp"
#include "histo/output_watch.hpp"
#endif

namespace histo {
namespace {

std::string data_of(Dataset dataset, size_t n) {
  return std::string(dataset_name(dataset)) + ", " + std::to_string(n) + " bytes";
}

std::string fixed(double v, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// What each [perf] test's technique reaches: the solution's GB/s that the NVIDIA H200's cost
// model predicts on 1 GiB of the test's dataset (seed 2026; histo_bench --model h200
// --predict-size 1G). They live in sim/data/technique_goals.csv, which the configure step turns
// into technique_goals.inc (sim/model_data.cmake); sim/tests/technique_goals.py holds them to
// the model (CTest perfmodel.technique_goals) and its --write rewrites the file.
struct TechniqueGoal {
  const char* variant;
  const char* dataset;
  double gbps;
};
const TechniqueGoal kTechniqueGoals[] = {
#include "histo/technique_goals.inc"
};

// The H200 model's predictions are for 1 GiB, as distance_to_goal states them.
constexpr const char* kGoalSize = "1 GiB";
#ifdef HISTO_SIM
constexpr size_t kGoalBytes = size_t(1) << 30;
#endif

#ifndef HISTO_SIM
// The GRADE_NCU mode's passes (histo/perf.hpp).
struct NcuMode {
  enum Kind { off, collect, counted } kind = off;
  std::string file;
};

NcuMode ncu_mode() {
  NcuMode m;
  const char* env = std::getenv("HISTO_PERF_NCU");
  if (!env || !*env) return m;
  const std::string value = env;
  if (value.rfind("collect:", 0) == 0) {
    m.kind = NcuMode::collect;
    m.file = value.substr(8);
  } else {
    m.kind = NcuMode::counted;
    m.file = value;
  }
  return m;
}

// One call's counts in pass 2's file: "call VARIANT DATASET N KERNELS", then "METRIC VALUE"
// lines (each summed over the call's kernels), as grading/histo_grading/ncu.py writes them.
struct NcuCall {
  unsigned kernels = 0;
  std::map<std::string, double> metrics;
};

const std::map<std::string, NcuCall>& ncu_calls(const std::string& file) {
  static std::map<std::string, std::map<std::string, NcuCall>> loaded;
  auto found = loaded.find(file);
  if (found != loaded.end()) return found->second;
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("HISTO_PERF_NCU names " + file + ", which cannot be read: it should "
                             "be the counts that grading/histo_grading/ncu.py grouped from pass 1");
  std::map<std::string, NcuCall> calls;
  NcuCall* current = nullptr;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    if (first == "call") {
      std::string variant, dataset, n;
      unsigned kernels = 0;
      words >> variant >> dataset >> n >> kernels;
      current = &calls[variant + " " + dataset + " " + n];
      current->kernels = kernels;
    } else if (current) {
      double value = 0;
      if (words >> value) current->metrics[first] = value;
    }
  }
  return loaded[file] = calls;
}

// The sum of the named metrics of one call; throws when Nsight Compute did not count one.
uint64_t metric_sum(const NcuCall& call, std::initializer_list<const char*> names,
                    const std::string& what) {
  double sum = 0;
  for (const char* name : names) {
    auto it = call.metrics.find(name);
    if (it == call.metrics.end())
      throw std::runtime_error("Nsight Compute did not count " + std::string(name) + " for " +
                               what + " (this ncu or GPU may not know the metric)");
    sum += it->second;
  }
  return uint64_t(sum + 0.5);
}

unsigned g_calls = 0;  // count_cost calls of this process: pass 1's marker index
#endif

}  // namespace

bool cost_counts_available(std::string* why) {
#ifdef HISTO_SIM
  if (histo_sim::counters_available()) return true;
  if (why) *why = histo_sim::counters_unavailable_reason();
  return false;
#else
  if (ncu_mode().kind == NcuMode::off) {
    if (why)
      *why = "the [perf] tests count in the CPU simulator (cmake --workflow --preset sim, then "
             "ctest --preset sim -L perf); a GPU build counts only with Nsight Compute, in the "
             "GRADE_NCU=1 mode of grading/grade.py (grading/README.md)";
    return false;
  }
  const GpuStatus& s = gpu_status();
  if (!s.available || !s.runnable) {
    if (why) *why = "Nsight Compute counts on a GPU, and none is usable: " + s.reason;
    return false;
  }
  return true;
#endif
}

CostCounts count_cost(const Variant& variant, Dataset dataset, size_t n, uint64_t seed) {
  std::string why;
  if (!cost_counts_available(&why)) throw std::runtime_error(why);
  const std::vector<uint8_t> data = make_dataset(dataset, n, seed);
  CostCounts c;
  c.variant = variant;
  c.dataset = dataset;
  c.n = n;
  c.data = data_of(dataset, n);
#ifdef HISTO_SIM
  // The H200's shape, so grids come out as on that GPU (every cached answer about the device
  // is asked again).
  histo_sim::select_gpu("h200");
  forget_device_cache();
  DeviceBuffer<uint8_t> d_in(n);
  d_in.upload(data.data(), n);
  DeviceBuffer<uint32_t> d_bins(kNumBins);
  auto run = [&] {
    histo_sim::counters_begin();
    variant.launch(d_in.get(), n, d_bins.get(), 0);
    CUDA_CHECK(cudaDeviceSynchronize());
    return histo_sim::counters_end();
  };
  run();  // learns each kernel's static shared memory, which sizes the launcher's grid
  forget_device_cache();
  const std::vector<histo_sim::LaunchCounters> launches = run();
  c.where = std::string("in the CPU simulator with the ") + histo_sim::current_gpu().name + "'s shape";
  c.input = c.data + ", " + c.where;
  c.correct = d_bins.download() == reference_histogram(data.data(), n);
  std::vector<uint64_t> loads_per_sm(size_t(histo_sim::current_gpu().sm_count), 0);
  for (const histo_sim::LaunchCounters& l : launches) {
    for (size_t sm = 0; sm < l.global_load_requests_per_sm.size() && sm < loads_per_sm.size(); ++sm)
      loads_per_sm[sm] += l.global_load_requests_per_sm[sm];
    ++c.launches;
    c.blocks += l.grid;
    c.load_requests += l.global_load_requests;
    c.load_sectors += l.global_load_sectors;
    c.atomic_requests += l.global_atomic_requests;
    c.atomic_passes += l.global_atomic_sectors;
    c.shared_instructions += l.shared_load_instructions + l.shared_store_instructions;
    c.shared_wavefronts += l.shared_load_wavefronts + l.shared_store_wavefronts;
    c.shared_conflicts += l.shared_load_conflicts() + l.shared_store_conflicts();
    c.shared_atomic_instructions += l.shared_atomic_instructions;
    c.shared_atomic_wavefronts += l.shared_atomic_wavefronts;
  }
  c.sms = loads_per_sm.size();
  for (uint64_t loads : loads_per_sm) c.loading_sms += loads > 0;
  for (const histo_sim::LineCounts& l : histo_sim::line_counts(launches)) {
    CostLine line;
    line.where = l.where;
    line.text = l.text;
    const histo_sim::MemoryCounts& m = l.counts;
    line.load_requests = m.global_load_requests;
    line.load_sectors = m.global_load_sectors;
    line.atomic_requests = m.global_atomic_requests;
    line.atomic_passes = m.global_atomic_sectors;
    line.shared_instructions = m.shared_load_instructions + m.shared_store_instructions;
    line.shared_wavefronts = m.shared_load_wavefronts + m.shared_store_wavefronts;
    line.shared_conflicts = m.shared_load_conflicts() + m.shared_store_conflicts();
    line.shared_atomic_instructions = m.shared_atomic_instructions;
    line.shared_atomic_wavefronts = m.shared_atomic_wavefronts;
    line.shared_atomic_conflicts = m.shared_atomic_conflicts();
    c.lines.push_back(line);
  }
  return c;
#else
  // One launch on the GPU, as the simulator's counted one: the launcher asks this GPU for its
  // shape, and Nsight Compute replays the kernel with memory restored between its passes, so
  // no warm-up launch is needed for the counts (requests, sectors, wavefronts do not depend on
  // what the caches hold).
  const NcuMode mode = ncu_mode();
  const unsigned index = g_calls++;
  c.where = "by Nsight Compute on the " + gpu_status().name;
  c.input = c.data + ", " + c.where;
  DeviceBuffer<uint8_t> d_in(n);
  d_in.upload(data.data(), n);
  DeviceBuffer<uint32_t> d_bins(kNumBins);
  CUDA_CHECK(cudaDeviceSynchronize());
  const bool collect = mode.kind == NcuMode::collect;
  if (collect) launch_cost_marker(true, index);
  const unsigned long long before = kernel_launches();
  variant.launch(d_in.get(), n, d_bins.get(), 0);
  const unsigned long long launched = kernel_launches() - before;
  if (collect) launch_cost_marker(false, index);
  CUDA_CHECK(cudaDeviceSynchronize());
  c.correct = d_bins.download() == reference_histogram(data.data(), n);
  const std::string key = variant.id() + " " + dataset_name(dataset) + " " + std::to_string(n);
  if (collect) {
    std::ofstream calls(mode.file, std::ios::app);
    calls << "call " << index << " " << key << "\n";
    if (!calls)
      throw std::runtime_error("cannot append to " + mode.file + " (HISTO_PERF_NCU=collect:FILE)");
    c.collected = true;
    return c;
  }
  const std::map<std::string, NcuCall>& calls = ncu_calls(mode.file);
  auto it = calls.find(key);
  if (it == calls.end())
    throw std::runtime_error("Nsight Compute's run (pass 1) has no counts for " + variant.id() +
                             " on " + c.data + " in " + mode.file + ": run pass 1 over the same "
                             "tests (grading/histo_grading/ncu.py)");
  const NcuCall& call = it->second;
  if (call.kernels != launched)
    throw std::runtime_error(variant.id() + " launched " + std::to_string(launched) +
                             " kernel(s) on " + c.data + " here, and " +
                             std::to_string(call.kernels) + " under Nsight Compute (pass 1): "
                             "the counts would not be this call's");
  const std::string what = variant.id() + " on " + c.data;
  c.launches = call.kernels;
  c.blocks = metric_sum(call, {"launch__grid_size"}, what);
  c.load_requests = metric_sum(call, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"}, what);
  c.load_sectors = metric_sum(call, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}, what);
  // Both kinds of global atomic together, ATOM and RED, as the simulator's cost tests count them
  // (which of the two an atomic is depends on whether its result is used, not on its cost).
  c.atomic_requests = metric_sum(call, {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
                                        "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"}, what);
  c.atomic_passes = metric_sum(call, {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
                                      "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"}, what);
  c.shared_instructions = metric_sum(call, {"smsp__sass_inst_executed_op_shared_ld.sum",
                                            "smsp__sass_inst_executed_op_shared_st.sum"}, what);
  c.shared_wavefronts = metric_sum(call, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"},
                                   what);
  c.shared_conflicts =
      metric_sum(call, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}, what);
  c.shared_atomic_instructions =
      metric_sum(call, {"smsp__sass_inst_executed_op_shared_atom.sum"}, what);
  c.shared_atomic_wavefronts =
      metric_sum(call, {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum"}, what);
  // Nsight Compute sums over SMs and gives the least and most of any one: every SM read when
  // the least is nonzero; otherwise the loads fill total / busiest SMs' worth (an SM count
  // for loads dealt evenly, 1 when one SM did them all).
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  c.sms = uint64_t(sms);
  const uint64_t fewest = metric_sum(call, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.min"}, what);
  const uint64_t most = metric_sum(call, {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.max"}, what);
  c.loading_sms = fewest > 0 ? c.sms : most ? std::min<uint64_t>(c.sms, c.load_requests / most) : 0;
  return c;
#endif
}

namespace {

// What `counter` counts, as a failure names it.
const char* counter_name(LineCounter counter) {
  if (counter == &CostLine::load_requests) return "global load requests";
  if (counter == &CostLine::load_sectors) return "global load sectors";
  if (counter == &CostLine::atomic_requests) return "global atomic requests";
  if (counter == &CostLine::atomic_passes) return "global atomic sector passes";
  if (counter == &CostLine::shared_instructions) return "shared load and store instructions";
  if (counter == &CostLine::shared_wavefronts) return "shared load and store wavefronts";
  if (counter == &CostLine::shared_conflicts) return "shared load and store bank conflicts";
  if (counter == &CostLine::shared_atomic_instructions) return "shared atomic instructions";
  if (counter == &CostLine::shared_atomic_wavefronts) return "shared atomic wavefronts";
  if (counter == &CostLine::shared_atomic_conflicts)
    return "shared atomic bank conflicts (wavefronts beyond the conflict-free number)";
  return "counts";
}

std::string quoted_line(const CostLine& l) {
  constexpr size_t kWidth = 100;
  const std::string text = l.text.size() > kWidth ? l.text.substr(0, kWidth - 3) + "..." : l.text;
  return l.where + (text.empty() ? "" : " (`" + text + "`)");
}

#ifdef HISTO_SIM
// One call's prediction on the H200's model for kGoalBytes of a dataset.
struct GoalPrediction {
  double gbps = 0;
  histo_sim::BindingAndNext bounds;  // "shared memory, 1040.2 us"
};

GoalPrediction predicted(const std::vector<histo_sim::LaunchCounters>& launches) {
  const histo_sim::GpuShape& gpu = histo_sim::current_gpu();
  const histo_sim::Prediction p = histo_sim::predict(launches, gpu);
  return {kGoalBytes / p.seconds / 1e9, histo_sim::binding_and_next(p, gpu, launches.size())};
}

// The kernel's and the read probe's predictions for kGoalBytes of `dataset`, each launch on
// the grid its launcher picks for that size, a sample of its blocks simulated.
std::pair<GoalPrediction, GoalPrediction> predict_goal(const Variant& variant, Dataset dataset) {
  static std::map<std::string, std::pair<GoalPrediction, GoalPrediction>> cache;
  const std::string key = variant.id() + " " + dataset_name(dataset);
  const auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  const auto launches = goal_counters(variant, dataset, kGoalBytes);
  return cache[key] = {predicted(launches.first), predicted(launches.second)};
}
#endif

}  // namespace

std::string top_line(const CostCounts& c, LineCounter counter) {
  if (!counter) return "";
  uint64_t total = 0;
  for (const CostLine& l : c.lines) total += l.*counter;
  if (total == 0) return "";
  std::vector<const CostLine*> ranked;
  for (const CostLine& l : c.lines)
    if (l.*counter) ranked.push_back(&l);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [&](const CostLine* a, const CostLine* b) { return a->*counter > b->*counter; });
  auto share = [&](const CostLine& l) {
    return fixed(100.0 * double(l.*counter) / double(total), 0) + "% of the " + counter_name(counter) +
           " (" + std::to_string(l.*counter) + " of " + std::to_string(total) + ")";
  };
  std::string text = quoted_line(*ranked[0]) + " has " + share(*ranked[0]);
  if (ranked.size() > 1 && 2 * ranked[0]->*counter < total)
    text += "; next, " + quoted_line(*ranked[1]) + " has " + share(*ranked[1]);
  return text;
}

double technique_goal_gbps(const std::string& variant_id, Dataset dataset) {
  for (const TechniqueGoal& g : kTechniqueGoals)
    if (variant_id == g.variant && std::string(dataset_name(dataset)) == g.dataset) return g.gbps;
  return 0;
}

std::string distance_to_goal(const CostCounts& c) {
  const double goal = technique_goal_gbps(c.variant.id(), c.dataset);
  const std::string on = std::string(kGoalSize) + " of " + dataset_name(c.dataset) + " data";
#ifdef HISTO_SIM
  std::pair<GoalPrediction, GoalPrediction> p;
  try {
    p = predict_goal(c.variant, c.dataset);
  } catch (const std::exception& e) {
    return std::string("No prediction for ") + on + ": " + e.what();
  }
  const GoalPrediction& kernel = p.first;
  const double limit = p.second.gbps;
  auto pct = [&](double gbps) { return fixed(100.0 * gbps / limit, 1) + "% of the read limit"; };
  std::string text = "Distance to the goal, PREDICTED by the " + std::string(histo_sim::current_gpu().name) +
                     "'s cost model for " + on + " (not measured): this kernel " + fixed(kernel.gbps, 1) +
                     " GB/s, " + pct(kernel.gbps) + " (the read probe: " + fixed(limit, 1) +
                     " GB/s), bound by " + kernel.bounds.binding + " (next: " + kernel.bounds.next + ")";
  if (goal > 0) text += "; the technique reaches " + fixed(goal, 1) + " GB/s, " + pct(goal);
  return text;
#else
  if (goal <= 0) return "";
  return "The technique reaches " + fixed(goal, 1) + " GB/s on " + on +
         ", PREDICTED by the NVIDIA H200's cost model (a simulator build predicts this kernel's "
         "own figure beside it)";
#endif
}

}  // namespace histo
