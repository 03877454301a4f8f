// histo_bench: the benchmark report. Every registered lab kernel, CUB's HistogramEven, the two
// CPU references and the read-bandwidth probe run on the same inputs; each GPU kernel is first
// checked against the CPU reference (a wrong kernel is reported, never timed), then timed:
// warm-up, CUDA events, median of several repetitions, output poisoned before each repetition
// (outside the timed region) and zeroed by the launcher inside it. GB/s = input bytes / median
// time. Inputs default to 1 GiB (at least 4x the L2 cache, so the cache cannot flatter anyone).
//
//   histo_bench                     all kernels, all datasets, size from the device
//   histo_bench --sizes 64K,1M,16M,256M,1G --kernels probe,cub,lab06/capstone
//                                   a size sweep of chosen kernels: where latency ends and
//                                   bandwidth begins
//   histo_bench --sweep             lab03's contention sweep: 256, 64, 16, 4, 1 distinct values
//   histo_bench --input FILE        histogram a file's bytes
//   histo_bench --help              every option
#include "cub_histogram.hpp"
#include "model_report.hpp"
#include "registry.hpp"

#include "histo/cuda_check.hpp"
#include "histo/datasets.hpp"
#include "histo/gpu.hpp"
#include "histo/grading.hpp"
#include "histo/probe.hpp"
#include "histo/reference.hpp"
#include "histo/timing.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr const char* kUsage = R"(usage: histo_bench [options]
  --size N         input bytes: auto (default: 1 GiB, less if the device lacks memory), or a
                   number with an optional K, M or G suffix (powers of 1024)
  --sizes LIST     several sizes, comma-separated (e.g. 64K,1M,16M,256M,1G): every kernel runs
                   at each size, in one table
  --datasets LIST  comma-separated: uniform,degenerate,skewed,text,image,alternating,runs
  --sweep          contention sweep instead of datasets: 256, 64, 16, 4 and 1 distinct values
  --input FILE     histogram the bytes of FILE instead of generated data
  --labs LIST      only these labs' kernels (e.g. lab01,lab04); cpu for the CPU rows
  --kernels LIST   only these kernels, by id: probe, cub, cpu (both CPU rows), cpu/sequential,
                   cpu/parallel, or any id --list prints (e.g. lab04/shared_vec16,lab06/capstone).
                   The % probe and x CUB columns need probe and cub in the list. Only when
                   listed: probe/after_memset, the probe after a 1 KiB cudaMemsetAsync (the
                   fixed cost of a histogram that overwrites its bins, the ceiling at small sizes)
  --reps N         at most N timed repetitions per kernel (default 15; at least 3 are taken)
  --budget-ms MS   stop repeating once this much time was measured (default 1500)
  --seed S         dataset seed (default 2026)
  --csv FILE       also write the rows as CSV (for scripts/plot_bench.py)
  --list           list the registered kernels and exit
  --model GPU      simulator builds only: no timing; each kernel runs once in the CPU simulator
                   standing in for GPU (h200, a100, t4, rtx4090; default h200), and the tables
                   show its counters and what that GPU's cost model PREDICTS: GB/s, % of the read
                   limit (the read probe, always a row), the binding resource and the next one,
                   and where the cost is: each kernel's 3 source lines that hold most of its
                   binding resource (size default 16M; --csv writes one row per kernel and dataset, columns named
                   as Nsight Compute names the metrics). Each kernel first runs on two small trial
                   inputs: one that would not finish in reason (its threads read the input over
                   and over, a grid that does not grow with the input: its lab's helpers not
                   written yet) is left out, and the report says why
  --lines          with --model: instead of the 3 lines, every row's 5 top lines of its binding
                   resource and of its bank conflicts, each with its text, its count and its share
  --lines-csv FILE with --model: every source line's counters, one row per kernel, dataset and
                   line, columns named as in --csv (they add up to the kernel's row there)
  --predict-size N with --model: predict for N bytes: each launch runs on N bytes and the grid
                   its launcher picks for them, 16 of its blocks simulated and their counts
                   scaled to the whole grid (needs about 2 N bytes of memory)
)";

struct Options {
  std::vector<size_t> sizes;  // empty: auto; a 0 in the list is auto too
  std::vector<std::string> datasets;
  std::vector<std::string> labs;
  std::vector<std::string> kernels;  // empty: every kernel (that --labs allows)
  bool sweep = false;
  std::string input;
  std::string csv;
  int max_reps = 15;
  double budget_ms = 1500;
  uint64_t seed = 2026;
  bool list = false;
  std::string model;  // simulator builds: the GPU whose cost model predicts
  size_t predict_size = 0;
  bool lines = false;
  std::string lines_csv;
};

struct Row {
  std::string kernel, technique, dataset;
  size_t n = 0;
  histo::Timing timing;
  bool timed = false;
  std::string result;  // "ok", "probe", "WRONG: ...", "loses N% of counts", "error: ..."
  std::string launch;  // the launch shape the kernel reported
  double gbps() const { return timed && timing.median_ms > 0 ? n / (timing.median_ms * 1e6) : 0; }
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

size_t parse_size(const std::string& text) {
  if (text == "auto") return 0;
  size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw std::invalid_argument("--size: '" + text + "' is not a size (try 64M or 1G)");
  }
  const std::string suffix = text.substr(pos);
  const int shift = suffix.empty() ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20 : suffix == "G" ? 30 : -1;
  if (shift < 0 || value == 0) throw std::invalid_argument("--size: '" + text + "' is not a size (try 64M or 1G)");
  return size_t(value) << shift;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--size") o.sizes = {parse_size(value())};
    else if (arg == "--sizes") {
      o.sizes.clear();
      for (const std::string& item : split(value())) o.sizes.push_back(parse_size(item));
      if (o.sizes.empty()) throw std::invalid_argument("--sizes needs at least one size (try 1M,1G)");
    }
    else if (arg == "--datasets") o.datasets = split(value());
    else if (arg == "--labs") o.labs = split(value());
    else if (arg == "--kernels") o.kernels = split(value());
    else if (arg == "--sweep") o.sweep = true;
    else if (arg == "--input") o.input = value();
    else if (arg == "--csv") o.csv = value();
    else if (arg == "--reps") o.max_reps = std::max(3, std::stoi(value()));
    else if (arg == "--budget-ms") o.budget_ms = std::stod(value());
    else if (arg == "--seed") o.seed = std::stoull(value());
    else if (arg == "--list") o.list = true;
    else if (arg == "--model") o.model = value();
    else if (arg == "--predict-size") o.predict_size = parse_size(value());
    else if (arg == "--lines") o.lines = true;
    else if (arg == "--lines-csv") o.lines_csv = value();
    else if (arg == "--help" || arg == "-h") { std::cout << kUsage; std::exit(0); }
    else throw std::invalid_argument("unknown option " + arg + "\n" + kUsage);
  }
  for (const std::string& d : o.datasets) histo::dataset_from_name(d);  // validates the names
  return o;
}

bool listed(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// A row runs when --labs allows its lab and --kernels its id (an empty list allows all).
// `alias` is a second id that selects it too ("cpu" for both CPU rows).
bool wanted(const Options& o, const std::string& lab, const std::string& id,
            const std::string& alias = "") {
  if (!o.labs.empty() && !listed(o.labs, lab)) return false;
  return o.kernels.empty() || listed(o.kernels, id) || (!alias.empty() && listed(o.kernels, alias));
}

// "lab03" for "lab03" and "lab03/global"; "" for an id of no lab (probe, cub, cpu, ...).
std::string lab_of(const std::string& id) {
  const std::string lab = id.substr(0, id.find('/'));
  const bool is_lab = lab.size() == 5 && lab.compare(0, 3, "lab") == 0 &&
                      std::isdigit(static_cast<unsigned char>(lab[3])) &&
                      std::isdigit(static_cast<unsigned char>(lab[4]));
  return is_lab ? lab : "";
}

// Every id --kernels accepts and every lab --labs does; an unknown one is an error that lists
// them. A lab this build does not have (a student repository released with some labs only),
// or a kernel of one, is left out with a one-line note: the handouts' commands name the labs
// they compare with.
void check_kernel_ids(Options& o) {
  std::vector<std::string> known = {"probe", "probe/after_memset", "cub", "cub/HistogramEven",
                                    "cpu", "cpu/sequential", "cpu/parallel"};
  std::vector<std::string> labs = {"cpu"};
  for (const histo::Variant& v : bench::all_variants()) {
    known.push_back(v.id());
    if (!listed(labs, v.lab)) labs.push_back(v.lab);
  }
  for (const histo::ReadProbe& p : bench::all_probes()) known.push_back(p.id());
  std::string present;  // "lab04, lab05"
  for (size_t i = 1; i < labs.size(); ++i) present += (i > 1 ? ", " : "") + labs[i];
  std::vector<std::string> absent;
  auto keep = [&](std::vector<std::string>& ids, const std::vector<std::string>& valid, const std::string& option) {
    std::vector<std::string> kept;
    for (const std::string& id : ids) {
      if (listed(valid, id)) {
        kept.push_back(id);
      } else if (!lab_of(id).empty() && !listed(labs, lab_of(id))) {
        absent.push_back(id);
      } else {
        std::string all;
        for (const std::string& k : valid) all += (all.empty() ? "" : ", ") + k;
        throw std::invalid_argument(option + ": unknown " + (option == "--labs" ? "lab" : "kernel") +
                                    " '" + id + "'; known: " + all);
      }
    }
    if (!ids.empty() && kept.empty())
      throw std::invalid_argument(option + ": none of these is in this build, which has the labs " + present);
    ids = kept;
  };
  keep(o.kernels, known, "--kernels");
  keep(o.labs, labs, "--labs");
  if (absent.empty()) return;
  std::string names;
  for (const std::string& id : absent) names += (names.empty() ? "" : ", ") + id;
  std::fprintf(stderr, "note: not in this build, left out: %s (it has the labs %s)\n", names.c_str(),
               present.c_str());
}

std::string size_label(size_t n) {
  for (const auto& [shift, suffix] : {std::pair<int, const char*>{30, "G"}, {20, "M"}, {10, "K"}})
    if (n >= (size_t(1) << shift) && n % (size_t(1) << shift) == 0)
      return std::to_string(n >> shift) + suffix;
  return std::to_string(n);
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("cannot read input file '" + path + "': " + std::strerror(errno));
  const std::streamsize size = in.tellg();
  if (size <= 0) throw std::runtime_error("input file '" + path + "' is empty: nothing to histogram");
  std::vector<uint8_t> data(static_cast<size_t>(size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(data.data()), size))
    throw std::runtime_error("cannot read input file '" + path + "': read failed");
  return data;
}

// 1 GiB, or less: a third of free device memory (input + headroom), never below 4x L2 when
// avoidable. Without a GPU: 256 MiB for the CPU rows.
size_t auto_size(bool have_gpu) {
  const size_t gib = size_t(1) << 30;
  if (!have_gpu) return gib / 4;
  size_t free_bytes = 0, total = 0;
  histo::device_memory(&free_bytes, &total);
  size_t n = std::min(gib, free_bytes / 3);
  return std::max<size_t>(n & ~((size_t(1) << 20) - 1), size_t(1) << 20);
}

template <typename F>
histo::Timing time_cpu(F&& f, const Options& o) {
  std::vector<double> ms;
  double total = 0;
  while (int(ms.size()) < o.max_reps && (ms.size() < 3 || total < o.budget_ms)) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    total += ms.back();
  }
  histo::Timing t;
  t.reps = int(ms.size());
  t.median_ms = histo::median(ms);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
std::string rate(double gbps) { return gbps >= 100 ? fixed(gbps, 0) : gbps >= 10 ? fixed(gbps, 1) : fixed(gbps, 2); }

class Report {
 public:
  explicit Report(const std::string& csv_path) {
    if (csv_path.empty()) return;
    csv_.open(csv_path);
    if (!csv_) throw std::runtime_error("cannot write CSV file '" + csv_path + "'");
    csv_ << "gpu,kernel,technique,dataset,bytes,median_ms,min_ms,max_ms,reps,gbps,pct_probe,vs_lab01,vs_cub,result,launch\n";
  }
  void set_gpu(const std::string& gpu) { gpu_ = gpu; }

  // Prints the rows of one input (one dataset at one size) with ratios to the probe, lab01 and
  // CUB measured on the same data. All inputs of a run share one table: the header comes once.
  void print(const std::vector<Row>& rows) {
    double probe = 0, lab01 = 0, cub = 0;
    for (const Row& r : rows) {
      if (!r.timed) continue;
      if (r.kernel == "probe") probe = r.gbps();
      if (r.kernel == "lab01/segmented") lab01 = r.timing.median_ms;
      if (r.kernel == "cub/HistogramEven") cub = r.timing.median_ms;
    }
    if (!header_printed_)
      std::printf("\n%-26s %-11s %6s %10s %9s %8s %8s %7s  %s\n", "kernel", "dataset", "size", "median ms",
                  "GB/s", "% probe", "x lab01", "x CUB", "result");
    header_printed_ = true;
    for (const Row& r : rows) {
      const double g = r.gbps();
      const std::string pct = r.timed && probe > 0 ? fixed(100 * g / probe, 1) : "-";
      const std::string vs1 = r.timed && lab01 > 0 ? fixed(lab01 / r.timing.median_ms, 1) : "-";
      const std::string vsc = r.timed && cub > 0 ? fixed(cub / r.timing.median_ms, 2) : "-";
      std::printf("%-26s %-11s %6s %10s %9s %8s %8s %7s  %s\n", r.kernel.c_str(), r.dataset.c_str(),
                  size_label(r.n).c_str(), r.timed ? fixed(r.timing.median_ms, 4).c_str() : "-",
                  r.timed ? rate(g).c_str() : "-", pct.c_str(), vs1.c_str(), vsc.c_str(), r.result.c_str());
      if (csv_)
        csv_ << '"' << gpu_ << "\"," << r.kernel << ",\"" << r.technique << "\"," << r.dataset << ","
             << r.n << "," << (r.timed ? fixed(r.timing.median_ms, 5) : "") << ","
             << (r.timed ? fixed(r.timing.min_ms, 5) : "") << "," << (r.timed ? fixed(r.timing.max_ms, 5) : "")
             << "," << r.timing.reps << "," << (r.timed ? fixed(g, 2) : "") << ","
             << (pct == "-" ? "" : pct) << "," << (vs1 == "-" ? "" : vs1) << "," << (vsc == "-" ? "" : vsc)
             << ",\"" << r.result << "\",\"" << r.launch << "\"\n";
    }
    std::fflush(stdout);
  }

 private:
  std::ofstream csv_;
  std::string gpu_ = "none";
  bool header_printed_ = false;
};

// Runs and times everything on one input.
class Bench {
 public:
  Bench(const Options& o, bool gpu, size_t max_n) : o_(o), gpu_(gpu) {
    if (!gpu_) return;
    CUDA_CHECK(cudaStreamCreate(&stream_));
    d_in_ = histo::DeviceBuffer<uint8_t>(max_n);
    d_sink_ = histo::DeviceBuffer<uint32_t>(1);
    d_zeroed_ = histo::DeviceBuffer<uint32_t>(histo::kNumBins);
    cub_ = std::make_unique<bench::CubHistogram>(max_n);
  }
  ~Bench() {
    if (stream_) cudaStreamDestroy(stream_);
  }

  std::vector<Row> run(const std::string& dataset, const std::vector<uint8_t>& h_in) {
    const size_t n = h_in.size();
    std::vector<Row> rows;
    const std::vector<uint32_t> expected = histo::reference_histogram(h_in.data(), n);

    if (gpu_ && !dead_) {
      CUDA_CHECK(cudaMemcpy(d_in_.get(), h_in.data(), n, cudaMemcpyHostToDevice));
      // The probe and CUB are the yardsticks: --labs never drops them, --kernels can.
      if (o_.kernels.empty() || listed(o_.kernels, "probe"))
        rows.push_back(probe_row("probe", "read-only, 16-byte loads (the bandwidth limit)", dataset, n,
                                 [&](cudaStream_t s) { histo::bandwidth_probe(d_in_.get(), n, d_sink_.get(), s); }));
      // What every launcher here does before its kernel, in front of the probe: the most a
      // histogram that overwrites its 256 bins can reach where launches dominate (small inputs).
      if (listed(o_.kernels, "probe/after_memset"))
        rows.push_back(probe_row("probe/after_memset",
                                 "read-only probe after a 1 KiB cudaMemsetAsync (zeroing the bins)", dataset, n,
                                 [&](cudaStream_t s) {
                                   CUDA_CHECK(cudaMemsetAsync(d_zeroed_.get(), 0, histo::kNumBins * sizeof(uint32_t), s));
                                   histo::bandwidth_probe(d_in_.get(), n, d_sink_.get(), s);
                                 }));
      if (o_.kernels.empty() || listed(o_.kernels, "cub") || listed(o_.kernels, "cub/HistogramEven"))
        rows.push_back(kernel_row({"cub", "HistogramEven", "NVIDIA CUB DeviceHistogram::HistogramEven", nullptr},
                                  dataset, n, expected, [&](const uint8_t* d, size_t m, uint32_t* bins, cudaStream_t s) {
                                    cub_->run(d, m, bins, s);
                                    return histo::LaunchShape{};
                                  }));
      for (const histo::ReadProbe& p : bench::all_probes())
        if (wanted(o_, p.lab, p.id()))
          rows.push_back(probe_row(p.id(), p.technique, dataset, n,
                                   [&](cudaStream_t s) { p.run(d_in_.get(), n, d_sink_.get(), s); }));
      for (const histo::Variant& v : bench::all_variants())
        if (wanted(o_, v.lab, v.id()))
          rows.push_back(kernel_row(v, dataset, n, expected, [&](const uint8_t* d, size_t m, uint32_t* bins, cudaStream_t s) {
            return v.launch(d, m, bins, s);
          }));
    }
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    if (wanted(o_, "cpu", "cpu/sequential", "cpu"))
      rows.push_back(cpu_row("cpu/sequential", "CPU, one thread (the grading oracle)", dataset, h_in, expected, 1));
    if (wanted(o_, "cpu", "cpu/parallel", "cpu"))
      rows.push_back(cpu_row("cpu/parallel", "CPU, fork/join, " + std::to_string(threads) + " threads, private histograms",
                             dataset, h_in, expected, threads));
    return rows;
  }

 private:
  using Launch = std::function<histo::LaunchShape(const uint8_t*, size_t, uint32_t*, cudaStream_t)>;

  histo::TimingOptions timing_options() const {
    return histo::TimingOptions{1, 3, o_.max_reps, o_.budget_ms};
  }

  Row probe_row(const std::string& id, const std::string& technique, const std::string& dataset, size_t n,
                const std::function<void(cudaStream_t)>& run) {
    Row r{id, technique, dataset, n};
    guarded(r, [&] {
      r.timing = histo::time_median(run, nullptr, stream_, timing_options());
      r.timed = true;
      r.result = "read only";
    });
    return r;
  }

  Row kernel_row(const histo::Variant& v, const std::string& dataset, size_t n, const std::vector<uint32_t>& expected,
                 const Launch& launch) {
    Row r{v.id(), v.technique, dataset, n};
    guarded(r, [&] {
      // Correct first: poisoned output, one run, exact comparison. Only a right kernel is timed.
      histo::GuardedBins<uint32_t> bins(histo::kNumBins);
      const histo::LaunchShape shape = launch(d_in_.get(), n, bins.get(), stream_);
      r.launch = shape.grid ? shape.describe() : "";  // CUB does not say
      CUDA_CHECK(cudaStreamSynchronize(stream_));
      const std::vector<uint64_t> actual = bins.fetch();
      const histo::CaseInfo info = histo::case_of(v, dataset, o_.seed, n, 0);
      const std::string report = histo::compare_bins(histo::widen(expected), actual, n, info, bins.guard_problem());
      if (v.expect == histo::Expect::loses_counts) {
        uint64_t sum = 0;
        for (uint64_t a : actual) sum += a;
        r.result = "demo: lost " + fixed(100.0 * double(n - std::min<uint64_t>(sum, n)) / double(n), 1) +
                   "% of counts (not timed)";
        return;
      }
      if (!report.empty()) {
        const size_t cause = report.find("likely cause: ");
        r.result = "WRONG, not timed: " + (cause == std::string::npos ? std::string("see grader")
                                                                       : report.substr(cause + 14, report.find('\n', cause) - cause - 14));
        return;
      }
      // The checked run above was the warm-up.
      histo::TimingOptions options = timing_options();
      options.warmup = 0;
      r.timing = histo::time_median(
          [&](cudaStream_t s) { launch(d_in_.get(), n, bins.get(), s); },
          [&](cudaStream_t s) { CUDA_CHECK(cudaMemsetAsync(bins.get(), 0xA5, histo::kNumBins * 4, s)); }, stream_,
          options);
      r.timed = true;
      r.result = "ok";
    });
    return r;
  }

  Row cpu_row(const std::string& id, const std::string& technique, const std::string& dataset,
              const std::vector<uint8_t>& h_in, const std::vector<uint32_t>& expected, unsigned threads) {
    Row r{id, technique, dataset, h_in.size()};
    std::vector<uint32_t> got;
    r.timing = time_cpu([&] {
      got = threads == 1 ? histo::reference_histogram(h_in.data(), h_in.size())
                         : histo::reference_histogram_parallel(h_in.data(), h_in.size(), threads);
    }, o_);
    r.timed = got == expected;
    r.result = r.timed ? "ok" : "WRONG";
    return r;
  }

  // A failing kernel becomes a row that says so. After an error that breaks the CUDA context
  // (an illegal address, say) no further GPU row can run: the rest are marked as skipped.
  template <typename F>
  void guarded(Row& r, F&& f) {
    if (dead_) {
      r.result = "skipped: an earlier kernel broke the CUDA context";
      return;
    }
    try {
      f();
    } catch (const std::exception& e) {
      r.result = std::string("error: ") + e.what();
      r.timed = false;
      if (cudaDeviceSynchronize() != cudaSuccess) dead_ = true;
    }
  }

  const Options& o_;
  bool gpu_;
  bool dead_ = false;
  cudaStream_t stream_ = nullptr;
  histo::DeviceBuffer<uint8_t> d_in_;
  histo::DeviceBuffer<uint32_t> d_sink_;
  histo::DeviceBuffer<uint32_t> d_zeroed_;  // what probe/after_memset zeroes
  std::unique_ptr<bench::CubHistogram> cub_;
};

// A simulator build: counters and predictions (model_report.cpp), never timings.
int run_model(const Options& o) {
  bench::ModelOptions m;
  if (!o.model.empty()) m.gpu = o.model;
  if (!o.input.empty()) throw std::invalid_argument("--input: the simulator's report runs the built-in datasets");
  if (o.sweep || o.sizes.size() > 1) throw std::invalid_argument("--sweep and --sizes: time on a GPU; the simulator's report takes one --size");
  if (!o.sizes.empty() && o.sizes[0]) m.size = o.sizes[0];
  m.seed = o.seed;
  m.csv = o.csv;
  m.predict_size = o.predict_size;
  m.lines = o.lines;
  m.lines_csv = o.lines_csv;
  m.probe_named = o.kernels.empty() || listed(o.kernels, "probe");
  for (const histo::Variant& v : bench::all_variants())
    if (wanted(o, v.lab, v.id())) m.variants.push_back(v);
  for (const histo::ReadProbe& p : bench::all_probes())
    if (wanted(o, p.lab, p.id())) m.probes.push_back(p);
  for (const std::string& d : o.datasets) m.datasets.push_back(histo::dataset_from_name(d));
  if (m.datasets.empty()) m.datasets = {histo::Dataset::uniform, histo::Dataset::degenerate, histo::Dataset::text};
#ifdef HISTO_SIM
  return bench::model_report(m);
#else
  return 2;  // not reached: only simulator builds call it
#endif
}

int run(int argc, char** argv) {
  Options o = parse(argc, argv);
  if (o.list) {
    for (const histo::Variant& v : bench::all_variants())
      std::printf("%-26s %s%s\n", v.id().c_str(), v.technique, v.expect == histo::Expect::correct ? "" : " [demo]");
    for (const histo::ReadProbe& p : bench::all_probes()) std::printf("%-26s %s\n", p.id().c_str(), p.technique);
    return 0;
  }
  check_kernel_ids(o);
  if (histo::kSimulator) return run_model(o);
  if (!o.model.empty() || o.lines || !o.lines_csv.empty())
    throw std::invalid_argument("--model (and --lines) predict from the CPU simulator's counters: "
                                "they need a simulator build (cmake --workflow --preset sim); this "
                                "build times kernels on the GPU");
  std::vector<uint8_t> file;
  if (!o.input.empty()) file = read_file(o.input);

  const histo::GpuStatus& gpu = histo::gpu_status();
  const bool have_gpu = gpu.available && gpu.runnable;
  std::printf("Parallel Histogram Labs benchmark (%s kernels)\n", HISTO_BENCH_SIDE);
  if (have_gpu) {
    std::printf("GPU: %s, compute capability %d.%d, %d SMs, %zu MiB, L2 %zu MiB; driver %s, runtime %s\n",
                gpu.name.c_str(), gpu.cc_major, gpu.cc_minor, gpu.sm_count, gpu.global_bytes >> 20, gpu.l2_bytes >> 20,
                histo::cuda_version_string(gpu.driver_version).c_str(),
                histo::cuda_version_string(gpu.runtime_version).c_str());
  } else if (!wanted(o, "cpu", "cpu/sequential", "cpu") && !wanted(o, "cpu", "cpu/parallel", "cpu")) {
    // Say it once instead of printing an empty table per dataset.
    std::printf("Nothing to time: no usable GPU (%s), and the labs asked for have only GPU "
                "kernels. Add cpu to --labs for the CPU rows.\n", gpu.reason.c_str());
    return gpu.available ? 1 : 0;
  } else {
    std::printf("GPU rows absent: %s\nOnly the CPU rows run.\n", gpu.reason.c_str());
  }
  // The sizes to run: the file's, or each of --sizes (auto where none or 0 is given).
  std::vector<size_t> sizes;
  if (!file.empty()) {
    sizes = {file.size()};
  } else {
    const size_t automatic = o.sweep ? std::min(auto_size(have_gpu), size_t(256) << 20) : auto_size(have_gpu);
    for (size_t size : o.sizes.empty() ? std::vector<size_t>{0} : o.sizes) sizes.push_back(size ? size : automatic);
  }
  const size_t max_n = *std::max_element(sizes.begin(), sizes.end());
  std::string size_list;
  for (size_t size : sizes) size_list += (size_list.empty() ? "" : ", ") + std::to_string(size) + " (" + size_label(size) + ")";
  for (size_t size : sizes)
    if (have_gpu && size < 4 * gpu.l2_bytes) {
      std::printf("Note: inputs under 4x the L2 cache (%zu MiB) stay in it between repetitions: at those sizes the "
                  "numbers show latency and L2 bandwidth, not device-memory bandwidth.\n",
                  gpu.l2_bytes >> 20);
      break;
    }
  std::printf("Input bytes: %s; seed %llu. Timing: median of 3-%d runs (GPU: CUDA events after a "
              "warm-up; CPU: wall clock), at most %.0f ms measured per row; GPU output poisoned before each "
              "run and zeroed by the launcher inside the timed region; GB/s = input bytes / median time. "
              "Wrong kernels are not timed.\n",
              size_list.c_str(), (unsigned long long)o.seed, o.max_reps, o.budget_ms);
  std::printf("Columns: %% probe = GB/s over the read-only probe's on the same data; x lab01 = speedup over "
              "lab01/segmented; x CUB = speedup over CUB (above 1: faster than CUB).\n");

  Report report(o.csv);
  report.set_gpu(have_gpu ? gpu.name : "none");
  Bench bench(o, have_gpu, max_n);
  if (!file.empty()) {
    report.print(bench.run(o.input.substr(o.input.find_last_of('/') + 1), file));
  } else if (o.sweep) {
    for (size_t n : sizes) {
      std::vector<uint8_t> data(n);
      for (unsigned distinct : {256u, 64u, 16u, 4u, 1u}) {
        histo::generate_distinct(distinct, o.seed, data.data(), n);
        report.print(bench.run("distinct" + std::to_string(distinct), data));
      }
    }
  } else {
    std::vector<histo::Dataset> datasets;
    for (const std::string& d : o.datasets) datasets.push_back(histo::dataset_from_name(d));
    if (datasets.empty()) datasets = histo::all_datasets();
    for (size_t n : sizes) {
      std::vector<uint8_t> data(n);
      for (histo::Dataset d : datasets) {
        histo::generate(d, o.seed, data.data(), n);
        report.print(bench.run(histo::dataset_name(d), data));
      }
    }
  }
  if (gpu.available && !gpu.runnable) {
    std::fprintf(stderr, "error: %s\n", gpu.reason.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "histo_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "histo_bench: %s\n", e.what());
    return 1;
  }
}
