// histo_bench in a simulator build: instead of timing, each kernel runs once in the CPU
// simulator standing in for a named GPU. Per dataset, one table shows what each kernel did to
// memory (its counters, as Nsight Compute names and defines them) and a second what the cost
// model of that GPU predicts: GB/s, the % of the read limit (the read probe's prediction on the
// same input, always a row), the binding resource and the next one; under it, where the cost is:
// each kernel's few source lines that hold most of its binding resource. --lines shows more
// lines, and the bank conflicts', for every row. Every number here is a count or a prediction,
// never a measurement.
#include "model_report.hpp"

#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/grading.hpp"
#include "histo/probe.hpp"
#include "histo/reference.hpp"
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"
#include "histo_sim/nvcc_info.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <utility>

#include <unistd.h>

namespace bench {
namespace {

using histo_sim::LaunchCounters;
using histo_sim::LineCounts;
using histo_sim::MemoryCounts;

constexpr const char* kProbeId = "probe";  // the read limit's row, named as in the GPU report

std::string fixed(double v, int digits = 1) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, v);
  return text;
}

// "16 MiB (16777216 bytes)", or "1000 bytes".
std::string size_text(size_t n) {
  for (const auto& [shift, unit] : {std::pair<int, const char*>{30, "GiB"}, {20, "MiB"}, {10, "KiB"}})
    if (n >= (size_t(1) << shift) && n % (size_t(1) << shift) == 0)
      return std::to_string(n >> shift) + " " + unit + " (" + std::to_string(n) + " bytes)";
  return std::to_string(n) + " bytes";
}

uint64_t sum(const std::vector<LaunchCounters>& launches, uint64_t LaunchCounters::*field) {
  uint64_t total = 0;
  for (const LaunchCounters& c : launches) total += c.*field;
  return total;
}

// a / b with two digits, or "-" where the kernel makes no such request (b = 0).
std::string per(uint64_t a, uint64_t b) { return b ? fixed(double(a) / double(b), 2) : "-"; }

std::string csv_text(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Runs `call` counted: once to learn each kernel's static shared memory (the occupancy
// calculator needs it, and so the launcher's grid), then again to count.
std::vector<LaunchCounters> counted(const std::function<void()>& call) {
  histo_sim::counters_begin();
  call();
  CUDA_CHECK(cudaDeviceSynchronize());
  histo_sim::counters_end();
  histo::forget_device_cache();
  histo_sim::counters_begin();
  call();
  CUDA_CHECK(cudaDeviceSynchronize());
  return histo_sim::counters_end();
}

struct Row {
  std::string kernel, dataset, result;
  std::vector<LaunchCounters> launches;  // counted on the simulated input
  histo_sim::Prediction prediction;      // for the prediction's size
  bool probe = false;                    // a read probe's row, not a histogram kernel's
  bool predicted() const { return result == "ok" || result == "read only"; }
};

// Columns of fixed width: text left-aligned, numbers right-aligned.
struct Column {
  const char* name;
  int width;
  bool text;
};
class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void print_header() const {
    std::vector<std::string> names;
    for (const Column& c : columns_) names.push_back(c.name);
    print(names);
  }
  void print(const std::vector<std::string>& cells) const {
    std::string line;
    for (size_t i = 0; i < columns_.size() && i < cells.size(); ++i) {
      const size_t width = size_t(columns_[i].width);
      std::string cell = cells[i];
      if (cell.size() < width)
        cell = columns_[i].text ? cell + std::string(width - cell.size(), ' ')
                                : std::string(width - cell.size(), ' ') + cell;
      line += (i ? "  " : "") + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }

 private:
  std::vector<Column> columns_;
};

const Table kCounters({{"kernel", 24, true}, {"blocks x threads", 16, true}, {"ld sectors/req", 14, false},
                       {"at passes/req", 13, false}, {"sh ld wf/instr", 14, false}, {"sh st wf/instr", 14, false},
                       {"sh at wf/instr", 14, false}, {"conflicts/sh instr", 18, false}});
const Table kPredictions({{"kernel", 24, true}, {"pred GB/s", 9, false}, {"% of read limit", 15, false},
                          {"binding resource (pred time)", 30, true}, {"next bound (pred time)", 30, true}});

void print_counters(const Row& r) {
  const std::vector<LaunchCounters>& l = r.launches;
  std::string shape = l.empty() ? "no launch" : std::to_string(l[0].grid) + " x " + std::to_string(l[0].block);
  if (l.size() > 1) shape += ", " + std::to_string(l.size()) + " launches";
  const uint64_t shared_instructions = sum(l, &LaunchCounters::shared_load_instructions) +
                                       sum(l, &LaunchCounters::shared_store_instructions) +
                                       sum(l, &LaunchCounters::shared_atomic_instructions);
  uint64_t conflicts = 0;
  for (const LaunchCounters& c : l)
    conflicts += c.shared_load_conflicts() + c.shared_store_conflicts() + c.shared_atomic_conflicts();
  kCounters.print({r.kernel, shape,
                   per(sum(l, &LaunchCounters::global_load_sectors), sum(l, &LaunchCounters::global_load_requests)),
                   per(sum(l, &LaunchCounters::global_atomic_sectors), sum(l, &LaunchCounters::global_atomic_requests)),
                   per(sum(l, &LaunchCounters::shared_load_wavefronts), sum(l, &LaunchCounters::shared_load_instructions)),
                   per(sum(l, &LaunchCounters::shared_store_wavefronts), sum(l, &LaunchCounters::shared_store_instructions)),
                   per(sum(l, &LaunchCounters::shared_atomic_wavefronts), sum(l, &LaunchCounters::shared_atomic_instructions)),
                   per(conflicts, shared_instructions)});
}

// What --lines ranks a kernel's source lines by: the count behind its binding resource, and
// how the model weighs it.
struct LineMeasure {
  std::string what;                                     // "DRAM bytes read (first reads)"
  std::function<double(const MemoryCounts&)> weight;    // the line's share of the bound
  std::function<std::string(const MemoryCounts&)> shown;
};

LineMeasure line_measure(const std::string& resource, const histo_sim::GpuShape& gpu) {
  auto n = [](uint64_t v) { return std::to_string(v); };
  if (resource == "DRAM reads")
    return {"DRAM bytes read (each sector counted for the load that reads it first)",
            [](const MemoryCounts& m) { return double(m.dram_read_bytes); },
            [n](const MemoryCounts& m) { return n(m.dram_read_bytes) + " DRAM bytes"; }};
  if (resource == "load latency")
    return {"the warps' load chains: " + fixed(gpu.load_request_ns) + " ns per global load request + " +
                fixed(gpu.shared_load_latency_ns) + " ns per shared load",
            [&gpu](const MemoryCounts& m) {
              return m.global_load_requests * gpu.load_request_ns + m.shared_load_instructions * gpu.shared_load_latency_ns;
            },
            [n](const MemoryCounts& m) {
              return n(m.global_load_requests) + " global load requests, " + n(m.shared_load_instructions) + " shared loads";
            }};
  if (resource == "load sectors")
    return {"global load sectors", [](const MemoryCounts& m) { return double(m.global_load_sectors); },
            [n](const MemoryCounts& m) { return n(m.global_load_sectors) + " load sectors"; }};
  if (resource == "shared memory")
    return {"shared-memory wavefronts, each at its SM's rate for loads and stores or for atomics",
            [&gpu](const MemoryCounts& m) {
              return (m.shared_load_wavefronts + m.shared_store_wavefronts) / gpu.shared_wavefronts_per_sm_per_s +
                     m.shared_atomic_wavefronts / gpu.shared_atomic_wavefronts_per_sm_per_s;
            },
            [n](const MemoryCounts& m) {
              return n(m.shared_load_wavefronts + m.shared_store_wavefronts + m.shared_atomic_wavefronts) +
                     " shared wavefronts (" + n(m.shared_load_conflicts() + m.shared_store_conflicts() +
                                                m.shared_atomic_conflicts()) + " of them conflicts)";
            }};
  // Both store bounds: a source line's store sectors (lines are not counted per site).
  if (resource == "store sectors" || resource == "store lines")
    return {"global store sectors", [](const MemoryCounts& m) { return double(m.global_store_sectors); },
            [n](const MemoryCounts& m) { return n(m.global_store_sectors) + " store sectors"; }};
  if (resource == "constant loads")
    return {"addresses __constant__ loads read, one at a time",
            [](const MemoryCounts& m) { return double(m.constant_addresses); },
            [n](const MemoryCounts& m) { return n(m.constant_addresses) + " constant addresses"; }};
  // Both atomic bounds count sector passes (the busiest sector's, or all of them).
  return {"global atomic sector passes", [](const MemoryCounts& m) { return double(m.global_atomic_sectors); },
          [n](const MemoryCounts& m) { return n(m.global_atomic_sectors) + " atomic sector passes"; }};
}

constexpr size_t kTopLines = 5;         // --lines
constexpr size_t kWhereCostLines = 3;   // the default "where the cost is" block
constexpr size_t kTextWidth = 72;

// The shared bank conflicts, by line: shown beside the binding resource wherever there are any.
LineMeasure conflict_measure() {
  auto conflicts = [](const MemoryCounts& m) {
    return m.shared_load_conflicts() + m.shared_store_conflicts() + m.shared_atomic_conflicts();
  };
  return {"shared bank conflicts (wavefronts beyond the conflict-free number)",
          [conflicts](const MemoryCounts& m) { return double(conflicts(m)); },
          [conflicts](const MemoryCounts& m) { return std::to_string(conflicts(m)) + " bank conflicts"; }};
}

// The top `top` lines by `m`, each with its share, its count and its text.
void print_ranked(const std::vector<LineCounts>& lines, const LineMeasure& m, double total, size_t top) {
  std::vector<const LineCounts*> ranked;
  for (const LineCounts& l : lines)
    if (m.weight(l.counts) > 0) ranked.push_back(&l);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const LineCounts* a, const LineCounts* b) {
    return m.weight(a->counts) > m.weight(b->counts);
  });
  double rest = total;
  for (size_t k = 0; k < ranked.size() && k < top; ++k) {
    const LineCounts& l = *ranked[k];
    const double share = m.weight(l.counts) / total;
    rest -= m.weight(l.counts);
    std::string text = l.text.size() > kTextWidth ? l.text.substr(0, kTextWidth - 3) + "..." : l.text;
    std::printf("  %5.1f%%  %-34s %-46s %s\n", 100 * share, l.where.c_str(), m.shown(l.counts).c_str(),
                text.empty() ? "" : ("`" + text + "`").c_str());
  }
  if (ranked.size() > top)
    std::printf("  %5.1f%%  %zu more lines\n", 100 * std::max(0.0, rest) / total, ranked.size() - top);
}

// The lines that hold `r`'s binding resource (the top `top`), and with `conflicts` those that hold
// its bank conflicts.
void print_lines(const Row& r, const histo_sim::GpuShape& gpu, const std::vector<LineCounts>& lines,
                 size_t top, bool with_conflicts) {
  const std::string binding = r.prediction.binding;
  const LineMeasure conflicts = conflict_measure();
  double conflicted = 0;
  for (const LineCounts& l : lines) conflicted += conflicts.weight(l.counts);
  if (binding == "launch overhead" || r.prediction.bounds.empty()) {
    std::printf("%s: launch overhead binds (the fixed cost of its launches exceeds every bound): no "
                "line holds the time\n", r.kernel.c_str());
  } else {
    const LineMeasure m = line_measure(binding, gpu);
    double total = 0;
    for (const LineCounts& l : lines) total += m.weight(l.counts);
    std::printf("%s: binding resource %s, by line: %s\n", r.kernel.c_str(), binding.c_str(), m.what.c_str());
    if (total > 0)
      print_ranked(lines, m, total, top);
    else
      std::printf("  no line of it is counted (the kernel's accesses are not observed)\n");
  }
  if (with_conflicts && conflicted > 0) {
    std::printf("%s: %s, by line:\n", r.kernel.c_str(), conflicts.what.c_str());
    print_ranked(lines, conflicts, conflicted, top);
  }
}

// ---- The guard: no cost command runs unbounded ------------------------------------------------
// A kernel whose lab is still a skeleton can make every thread read the whole input (lab02's
// helpers as shipped: start 0, step 1, grid 1), and the simulator records each block's
// requests until the block ends (about 300 bytes each): at 16 MiB that is hours and tens of
// gigabytes. So each kernel and probe first runs on two small trial inputs, and one that would
// not finish in reason (or whose threads read the input over and over, so that its numbers
// would mean nothing) is left out before anything large runs, with the reason.

constexpr size_t kTrialBytes[2] = {size_t(16) << 10, size_t(256) << 10};
// A kernel that reads each input byte once makes at most one warp-wide load per byte (one lane
// active, byte loads); more than this many, and its threads read the input over and over.
constexpr double kMaxLoadsPerByte = 2;
// The requests one block may make at the report's sizes: what the cost model's sampled runs
// hold too (histo_sim::kSampledBlockRequests, about 300 MB of trace).
constexpr uint64_t kMaxBlockRequests = histo_sim::kSampledBlockRequests;
// Every request of one counted call at --size: beyond this, minutes of simulation.
constexpr uint64_t kMaxCallRequests = uint64_t(1) << 28;
constexpr double kTraceBytesPerRequest = 300;

uint64_t requests(const LaunchCounters& c) {
  return c.global_load_requests + c.global_store_requests + c.global_atomic_requests +
         c.shared_load_instructions + c.shared_store_instructions + c.shared_atomic_instructions;
}

std::string gigabytes(double bytes) { return fixed(bytes / 1e9) + " GB"; }

// Why the kernel or probe `id` of lab `lab` is left out ("ID: ..."), or "" when its trials say
// it runs in reason at `size` (counted in full) and `target` (sampled blocks).
std::string trial_verdict(const std::string& id, const std::string& lab, size_t size, size_t target,
                          const std::function<void(const uint8_t*, size_t)>& call) {
  const std::vector<uint8_t> data = histo::make_dataset(histo::Dataset::uniform, kTrialBytes[1], 2026);
  histo::DeviceBuffer<uint8_t> d_trial(kTrialBytes[1]);
  d_trial.upload(data.data(), data.size());
  auto run = [&](size_t n) {
    histo_sim::counters_begin();
    try {
      call(d_trial.get(), n);
      CUDA_CHECK(cudaDeviceSynchronize());
    } catch (...) {
      histo_sim::counters_end();
      throw;
    }
    return histo_sim::counters_end();
  };
  const std::string unwritten = lab + "'s helpers are not written yet, or are wrong (its CPU checks: "
                                "ctest --preset sim -L " + lab + "): ";
  const std::string advice = " Finish " + lab + " first, or leave " + id + " out of --kernels.";
  std::vector<LaunchCounters> small, large;
  try {
    small = run(kTrialBytes[0]);
    const uint64_t loads = sum(small, &LaunchCounters::global_load_requests);
    const double per_byte = double(loads) / double(kTrialBytes[0]);
    if (per_byte > kMaxLoadsPerByte)
      return id + ": " + unwritten + "it makes " + fixed(per_byte) + " warp-wide loads per input byte on a " +
             size_text(kTrialBytes[0]) + " trial input, where reading each byte once takes at most 1: "
             "its threads read the input over and over: its numbers would mean nothing, and on " +
             size_text(size) + " its simulation could take hours and gigabytes." + advice;
    histo::forget_device_cache();  // the grid as the launcher sizes it once it knows the kernel
    small = run(kTrialBytes[0]);
    large = run(kTrialBytes[1]);
  } catch (const std::exception&) {
    cudaGetLastError();
    return "";  // a launch that fails: the report says so in its row
  }
  // A grid that does not grow with the input: its blocks' shares grow with it.
  for (size_t k = 0; k < large.size() && k < small.size(); ++k) {
    const LaunchCounters& c = large[k];
    if (c.grid == 0 || c.grid != small[k].grid) continue;
    for (size_t n : {size, target}) {
      const double per_block = double(requests(c)) / c.grid * double(n) / double(kTrialBytes[1]);
      if (per_block > double(kMaxBlockRequests))
        return id + ": " + unwritten + "it launches " + std::to_string(c.grid) + " x " + std::to_string(c.block) +
               " on " + size_text(kTrialBytes[0]) + " and on " + size_text(kTrialBytes[1]) +
               ": a grid that does not grow with the input, so each thread's work grows with it. One "
               "block would make about " + fixed(per_block, 0) + " warp-wide memory requests on " +
               size_text(n) + " (about " + gigabytes(per_block * kTraceBytesPerRequest) +
               " for the simulator to hold), more than the " + std::to_string(kMaxBlockRequests) +
               " it simulates." + advice;
    }
  }
  uint64_t all = 0;
  for (const LaunchCounters& c : large) all += requests(c);
  const double at_size = double(all) * double(size) / double(kTrialBytes[1]);
  if (at_size > double(kMaxCallRequests))
    return id + ": it would make about " + fixed(at_size, 0) + " warp-wide memory requests on " + size_text(size) +
           ", more than the simulator counts in reason (" + std::to_string(kMaxCallRequests) +
           "): choose a smaller --size (the prediction's --predict-size samples its blocks).";
  return "";
}

// The kernels and probes of `o` that run in reason at these sizes; the others are left out,
// each with its sentence in `left_out`. Throws std::runtime_error when the inputs would not fit
// in this machine's memory.
ModelOptions within_bounds(const ModelOptions& o, size_t target, std::vector<std::string>& left_out) {
  // The simulated device holds the input counted and the one predicted for; generating the
  // latter takes as much again.
  const double needed = double(o.size) + 2.0 * double(target != o.size ? target : 0) + double(64 << 20);
  const double physical = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (physical > 0 && needed > physical / 2)
    throw std::runtime_error("--size " + size_text(o.size) + " and --predict-size " + size_text(target) +
                             " need about " + gigabytes(needed) + " of memory, more than half of this "
                             "machine's " + gigabytes(physical) + ": choose smaller sizes");
  ModelOptions kept = o;
  kept.variants.clear();
  kept.probes.clear();
  for (const histo::Variant& v : o.variants) {
    const std::string why = trial_verdict(v.id(), v.lab, o.size, target, [&](const uint8_t* in, size_t n) {
      histo::DeviceBuffer<uint32_t> bins(histo::kNumBins);
      v.launch(in, n, bins.get(), 0);
    });
    if (why.empty()) kept.variants.push_back(v);
    else left_out.push_back(why);
  }
  for (const histo::ReadProbe& p : o.probes) {
    const std::string why = trial_verdict(p.id(), p.lab, o.size, target, [&](const uint8_t* in, size_t n) {
      histo::DeviceBuffer<uint32_t> sink(1);
      p.run(in, n, sink.get(), 0);
    });
    if (why.empty()) kept.probes.push_back(p);
    else left_out.push_back(why);
  }
  return kept;
}

}  // namespace

int model_report(const ModelOptions& named) {
  if (!histo_sim::select_gpu(named.gpu)) {
    std::string known;
    for (const histo_sim::GpuShape& g : histo_sim::gpu_shapes())
      if (std::string(g.key) != "small") known += (known.empty() ? "" : ", ") + std::string(g.key);
    throw std::invalid_argument("--model: unknown GPU '" + named.gpu + "'; known: " + known);
  }
  const histo_sim::GpuShape& gpu = histo_sim::current_gpu();
  const size_t target = named.predict_size ? named.predict_size : named.size;
  std::vector<std::string> left_out;  // kernels and probes that would not finish in reason
  const ModelOptions o = within_bounds(named, target, left_out);
  std::printf("Parallel Histogram Labs without a GPU: counters from the CPU simulator standing in for "
              "the %s (%d SMs); every time, GB/s and %% below is PREDICTED by the cost model of the "
              "%s, not measured.\nThe model: %s.\n",
              gpu.name, gpu.sm_count, gpu.name, gpu.source);
  if (!histo_sim::counters_available())
    std::printf("Incomplete counters: %s. Only atomics and __ldg loads are counted.\n",
                histo_sim::counters_unavailable_reason());
  std::printf("What nvcc knows: %s.\n", histo_sim::nvcc_status());
  std::printf("Counters: one launcher call on %s of each dataset (seed %llu), simulated in full. "
              "Predictions: for %s.\n",
              size_text(o.size).c_str(), (unsigned long long)o.seed, size_text(target).c_str());
  if (target != o.size)
    std::printf("Each prediction runs the call on %s, on the grid its launcher picks for that size, "
                "%u of each launch's blocks simulated (evenly spaced) and their counts scaled to the "
                "whole grid.\n", size_text(target).c_str(), histo_sim::kSampledBlocks);
  std::printf("The read probe (%s: reads every byte once with 16-byte loads and counts nothing) is "
              "in every table: each kernel's %% of the read limit is its predicted GB/s over the "
              "probe's%s.\nNo CUB row: CUB runs only on a GPU.\n",
              kProbeId, o.probe_named ? "" : " (it is there although --kernels does not name it)");
  std::string left_out_ids;
  for (const std::string& why : left_out) left_out_ids += (left_out_ids.empty() ? "" : ", ") + why.substr(0, why.find(':'));
  if (!left_out.empty())
    std::printf("Left out, not simulated (why: at the end): %s.\n",
                left_out_ids.c_str());
  // The large input lives in the simulated device too: room for it and the small one.
  if (target != o.size) histo_sim::set_device_memory(target + o.size + (size_t(64) << 20));
  std::vector<Row> rows;
  std::vector<std::vector<LineCounts>> row_lines;  // per row: where the cost is
  histo::DeviceBuffer<uint8_t> d_in(o.size);
  histo::DeviceBuffer<uint32_t> d_bins(histo::kNumBins);
  histo::DeviceBuffer<uint32_t> d_sink(1);
  histo::DeviceBuffer<uint8_t> d_large(target != o.size ? target : 0);
  // Progress on stderr: one kernel's run at a large --predict-size takes seconds.
  const size_t rows_in_all = o.datasets.size() * (o.variants.size() + o.probes.size());
  size_t rows_done = 0;
  auto progress = [&](const std::string& id, histo::Dataset d) {
    std::fprintf(stderr, "  simulating %s on %s (%zu of %zu)\n", id.c_str(), histo::dataset_name(d),
                 ++rows_done, rows_in_all);
  };
  for (const histo::Dataset d : o.datasets) {
    const std::vector<uint8_t> data = histo::make_dataset(d, o.size, o.seed);
    d_in.upload(data.data(), data.size());
    if (target != o.size) d_large.upload(histo::make_dataset(d, target, o.seed).data(), target);
    const std::vector<uint32_t> expected = histo::reference_histogram(data.data(), data.size());
    const size_t first = rows.size();
    std::vector<std::string> errors;  // kernels whose launch failed: said, not counted
    auto add = [&](const std::string& id, const std::string& result, std::vector<LaunchCounters> launches,
                   const std::function<void(const uint8_t*, size_t)>& call, bool probe) {
      Row r{id, histo::dataset_name(d), result, std::move(launches), {}, probe};
      if (r.predicted()) {  // a wrong kernel gets no prediction
        try {
          const std::vector<LaunchCounters> predicted =
              target == o.size ? r.launches : histo_sim::sampled_counters([&] { call(d_large.get(), target); });
          r.prediction = histo_sim::predict(predicted, gpu);
        } catch (const std::exception& e) {
          cudaGetLastError();
          r.result = std::string("no prediction: ") + e.what();
        }
      }
      row_lines.push_back(histo_sim::line_counts(r.launches));
      rows.push_back(std::move(r));
    };
    add(kProbeId, "read only", counted([&] { histo::bandwidth_probe(d_in.get(), o.size, d_sink.get(), 0); }),
        [&](const uint8_t* in, size_t n) { histo::bandwidth_probe(in, n, d_sink.get(), 0); }, true);
    for (const histo::Variant& v : o.variants) {
      progress(v.id(), d);
      std::vector<LaunchCounters> launches;
      std::string result = "ok";
      try {
        launches = counted([&] { v.launch(d_in.get(), o.size, d_bins.get(), 0); });
        if (d_bins.download() != expected)
          result = v.expect == histo::Expect::correct ? "WRONG bins: no prediction for a wrong kernel"
                                                      : "loses counts (a demonstration)";
      } catch (const std::exception& e) {
        // A failed launch (a hazard the simulator found, a bad configuration): said, not counted.
        histo_sim::counters_end();
        cudaGetLastError();
        errors.push_back(v.id() + ": error: " + e.what());
        continue;
      }
      add(v.id(), result, std::move(launches),
          [&](const uint8_t* in, size_t n) { v.launch(in, n, d_bins.get(), 0); }, false);
    }
    for (const histo::ReadProbe& p : o.probes) {
      progress(p.id(), d);
      add(p.id(), "read only", counted([&] { p.run(d_in.get(), o.size, d_sink.get(), 0); }),
          [&](const uint8_t* in, size_t n) { p.run(in, n, d_sink.get(), 0); }, true);
    }

    const char* name = histo::dataset_name(d);
    std::printf("\n%s: COUNTED in the simulator on %s of %s data\n", name, size_text(o.size).c_str(), name);
    kCounters.print_header();
    for (size_t i = first; i < rows.size(); ++i) print_counters(rows[i]);
    for (const std::string& e : errors) std::printf("  not counted: %s\n", e.c_str());
    std::printf("\n%s: PREDICTED for %s of %s data by the %s cost model, not measured\n", name,
                size_text(target).c_str(), name, gpu.name);
    kPredictions.print_header();
    const double limit = target / rows[first].prediction.seconds / 1e9;  // the read probe's
    for (size_t i = first; i < rows.size(); ++i) {
      const Row& r = rows[i];
      if (!r.predicted()) {
        kPredictions.print({r.kernel, "-", "-", "[" + r.result + "]"});
        continue;
      }
      const double gbps = target / r.prediction.seconds / 1e9;
      const histo_sim::BindingAndNext b = histo_sim::binding_and_next(r.prediction, gpu, r.launches.size());
      kPredictions.print({r.kernel, fixed(gbps), fixed(100 * gbps / limit), b.binding, b.next});
    }
    if (o.lines) {
      std::printf("\n%s: where each kernel's binding resource goes, by source line (counted on %s)\n", name,
                  size_text(o.size).c_str());
      for (size_t i = first; i < rows.size(); ++i)
        if (rows[i].predicted()) print_lines(rows[i], gpu, row_lines[i], kTopLines, true);
    } else {
      bool any = false;
      for (size_t i = first; i < rows.size(); ++i) any = any || (rows[i].predicted() && !rows[i].probe);
      if (any)
        std::printf("\n%s: where the cost is: the %zu source lines that hold most of each kernel's binding "
                    "resource, counted on %s (--lines: more lines, the probes' and the bank conflicts')\n",
                    name, kWhereCostLines, size_text(o.size).c_str());
      for (size_t i = first; i < rows.size(); ++i)
        if (rows[i].predicted() && !rows[i].probe) print_lines(rows[i], gpu, row_lines[i], kWhereCostLines, false);
    }
  }
  std::printf(
      "\nColumns of the COUNTED tables (one launcher call; a request or an instruction is one "
      "warp-wide memory instruction):\n"
      "  blocks x threads    the launch's grid and block size (the first launch, when a call makes several)\n"
      "  ld sectors/req      32-byte sectors per global load request: 1 when a warp's 32 lanes read 32 "
      "neighbouring bytes, 16 for 16-byte loads, 32 when each lane reads its own sector\n"
      "  at passes/req       global atomic sector passes per atomic request: per sector a request "
      "touches, the most lanes that update one word in it (32 lanes on one word: 32)\n"
      "  sh ld/st/at wf/instr  shared-memory wavefronts per shared load, store or atomic instruction. "
      "Without bank conflicts an instruction takes one wavefront per 128 bytes its lanes access (1 "
      "for a warp's accesses of up to 4 bytes, 2 for 8-byte and 4 for 16-byte accesses); each "
      "bank conflict adds one\n"
      "  conflicts/sh instr  shared bank conflicts per shared instruction (loads, stores and atomics "
      "together): wavefronts beyond the conflict-free number; 0.00 is conflict-free\n"
      "  -                   the kernel makes no access of that kind\n"
      "Columns of the PREDICTED tables (the %s cost model; sim/README.md says how it is built):\n"
      "  pred GB/s           input bytes / the predicted time of one call (each launch's fixed cost "
      "plus its largest bound)\n"
      "  %% of read limit     pred GB/s over the read probe's pred GB/s on the same input, in percent\n"
      "  binding resource    the largest of the model's bounds, with its predicted time; next bound: "
      "the second largest, where the time goes once the binding one is gone (launch overhead: the "
      "fixed cost of the launches exceeds every bound)\n",
      gpu.name);

  if (!o.lines_csv.empty()) {
    std::ofstream out(o.lines_csv);
    if (!out) throw std::runtime_error("cannot write " + o.lines_csv);
    out << "model,kernel,dataset,bytes,line,text";
    for (const histo_sim::Metric& m : histo_sim::metrics(MemoryCounts{})) out << "," << m.name;
    out << "\n";
    for (size_t i = 0; i < rows.size(); ++i)
      for (const LineCounts& l : row_lines[i]) {
        out << gpu.key << "," << rows[i].kernel << "," << rows[i].dataset << "," << o.size << ","
            << csv_text(l.where) << "," << csv_text(l.text);
        for (const histo_sim::Metric& m : histo_sim::metrics(l.counts)) out << "," << m.value;
        out << "\n";
      }
  }

  if (!o.csv.empty()) {
    std::ofstream out(o.csv);
    if (!out) throw std::runtime_error("cannot write " + o.csv);
    out << "model,kernel,dataset,bytes,launches,grid,block";  // the simulated launch
    const std::vector<histo_sim::Metric> names = histo_sim::metrics(LaunchCounters{});
    for (const histo_sim::Metric& m : names) out << "," << m.name;
    out << ",sim_load_rounds,predicted_bytes,predicted_us,predicted_gbps,binding,result";
    // Every bound of the model, in microseconds, one column per resource (histo_sim/model.hpp).
    for (const char* resource : histo_sim::kResources) {
      std::string column = std::string(",bound_us_") + resource;  // "DRAM reads": bound_us_dram_reads
      for (char& c : column) c = c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
      out << column;
    }
    out << ",pct_of_read_limit,next_bound\n";
    double limit = 0;  // the read probe's predicted GB/s on the row's dataset
    for (const Row& r : rows) {
      if (r.kernel == kProbeId) limit = target / r.prediction.seconds / 1e9;
      out << gpu.key << "," << r.kernel << "," << r.dataset << "," << o.size << "," << r.launches.size()
          << "," << (r.launches.empty() ? 0 : r.launches[0].grid) << ","
          << (r.launches.empty() ? 0 : r.launches[0].block);
      std::vector<uint64_t> totals(names.size(), 0);
      for (const LaunchCounters& l : r.launches) {
        const std::vector<histo_sim::Metric> m = histo_sim::metrics(l);
        for (size_t i = 0; i < m.size(); ++i) totals[i] += m[i].value;
      }
      for (uint64_t t : totals) out << "," << t;
      out << "," << sum(r.launches, &LaunchCounters::load_rounds);
      const bool right = r.predicted();
      const double gbps = right ? target / r.prediction.seconds / 1e9 : 0;
      out << "," << target << ",";
      if (right) out << r.prediction.seconds * 1e6 << "," << gbps;
      else out << ",";
      out << ",\"" << r.prediction.binding << "\",\"" << r.result << "\"";
      for (const char* resource : histo_sim::kResources) {
        out << ",";
        for (const histo_sim::Bound& b : r.prediction.bounds)
          if (right && std::string(b.resource) == resource) out << b.seconds * 1e6;
      }
      out << ",";
      if (right && limit > 0) out << 100 * gbps / limit;
      const std::string next = right ? histo_sim::binding_and_next(r.prediction, gpu, r.launches.size()).next : "";
      out << "," << csv_text(next.substr(0, next.find(',')));
      out << "\n";
    }
  }
  if (!left_out.empty()) {
    std::printf("\nLeft out, not simulated:\n");
    for (const std::string& why : left_out) std::printf("  %s\n", why.c_str());
  }
  std::fflush(stdout);
  // Nothing of what was named ran: say so in the exit status too.
  const bool none_ran = o.variants.empty() && o.probes.empty();
  return !left_out.empty() && none_ran ? 1 : 0;
}

}  // namespace bench
