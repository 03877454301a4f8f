// histo_bench in a simulator build: instead of timing, each kernel runs once in the CPU
// simulator standing in for a named GPU, and the table shows its counters (as Nsight Compute
// names and defines them) and the time the cost model of that GPU predicts. Every number here
// is a count or a prediction, never a measurement.
#include "model_report.hpp"

#include "histo/cuda_check.hpp"
#include "histo/device_buffer.hpp"
#include "histo/grading.hpp"
#include "histo/reference.hpp"
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"
#include "histo_sim/nvcc_info.hpp"

#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>

namespace bench {
namespace {

using histo_sim::LaunchCounters;

double ratio(uint64_t a, uint64_t b) { return b ? double(a) / double(b) : 0.0; }

std::string fixed(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

uint64_t sum(const std::vector<LaunchCounters>& launches, uint64_t LaunchCounters::*field) {
  uint64_t total = 0;
  for (const LaunchCounters& c : launches) total += c.*field;
  return total;
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

// The counters of `call` on a large input: each launch on the grid its launcher picks, with
// kSampledBlocks of its blocks simulated and their counts scaled to the whole grid.
constexpr unsigned kSampledBlocks = 16;
std::vector<LaunchCounters> sampled(const std::function<void()>& call) {
  histo_sim::counters_begin();
  histo_sim::set_sampled_blocks(kSampledBlocks);
  try {
    call();
    CUDA_CHECK(cudaDeviceSynchronize());
  } catch (...) {
    histo_sim::set_sampled_blocks(0);
    histo_sim::counters_end();
    throw;
  }
  histo_sim::set_sampled_blocks(0);
  std::vector<LaunchCounters> launches = histo_sim::counters_end();
  for (LaunchCounters& c : launches) c = histo_sim::scaled_to_grid(c);
  return launches;
}

struct Row {
  std::string kernel, dataset, result;
  size_t n = 0;
  std::vector<LaunchCounters> launches;
  histo_sim::Prediction prediction;
};

}  // namespace

int model_report(const ModelOptions& o) {
  if (!histo_sim::select_gpu(o.gpu)) {
    std::string known;
    for (const histo_sim::GpuShape& g : histo_sim::gpu_shapes())
      if (std::string(g.key) != "small") known += (known.empty() ? "" : ", ") + std::string(g.key);
    throw std::invalid_argument("--model: unknown GPU '" + o.gpu + "'; known: " + known);
  }
  const histo_sim::GpuShape& gpu = histo_sim::current_gpu();
  std::printf("Parallel Histogram Labs: counters from the CPU simulator, times PREDICTED by the "
              "cost model of the %s (%d SMs), not measured (%s).\n",
              gpu.name, gpu.sm_count, gpu.source);
  if (!histo_sim::counters_available())
    std::printf("Incomplete counters: %s. Only atomics and __ldg loads are counted.\n",
                histo_sim::counters_unavailable_reason());
  std::printf("What nvcc knows: %s.\n", histo_sim::nvcc_status());
  const size_t target = o.predict_size ? o.predict_size : o.size;
  std::printf("No CUB row: CUB runs only on a GPU. Input bytes: %zu; seed %llu.\n", o.size,
              (unsigned long long)o.seed);
  if (target != o.size)
    std::printf("Predictions are for %zu bytes: each launch on the grid its launcher picks for %zu "
                "bytes, %u of its blocks simulated (evenly spaced) and their counts scaled to the "
                "whole grid.\n", target, target, kSampledBlocks);
  // The large input lives in the simulated device too: room for it and the small one.
  if (target != o.size) histo_sim::set_device_memory(target + o.size + (size_t(64) << 20));
  std::vector<Row> rows;
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
    std::printf("\n%s, %zu bytes\n%-24s %-22s %8s %8s %8s %8s %8s %8s %10s  %s\n", histo::dataset_name(d),
                o.size, "kernel", "launch", "ld s/req", "at s/req", "sh ld wf", "sh st wf", "sh at wf",
                "conflicts", "pred GB/s", "binding resource");
    auto add = [&](const std::string& id, const std::string& result,
                   std::vector<LaunchCounters> launches, const std::function<void(const uint8_t*, size_t)>& call) {
      Row r{id, histo::dataset_name(d), result, target, std::move(launches), {}};
      const bool right = result == "ok" || result == "read only";  // a wrong kernel gets no prediction
      const std::vector<LaunchCounters> predicted =
          target == o.size || !right ? r.launches : sampled([&] { call(d_large.get(), target); });
      r.prediction = histo_sim::predict(predicted, gpu);
      const uint64_t conflicts = [&] {
        uint64_t c = 0;
        for (const LaunchCounters& l : r.launches)
          c += l.shared_load_conflicts() + l.shared_store_conflicts() + l.shared_atomic_conflicts();
        return c;
      }();
      std::string shape = r.launches.empty() ? "no launch"
                                             : "grid " + std::to_string(r.launches[0].grid) + " x " +
                                                   std::to_string(r.launches[0].block);
      const std::string gbps = right ? fixed(target / r.prediction.seconds / 1e9) : "-";
      std::printf("%-24s %-22s %8.2f %8.2f %8.2f %8.2f %8.2f %8llu %10s  %s%s\n", id.c_str(),
                  shape.c_str(),
                  ratio(sum(r.launches, &LaunchCounters::global_load_sectors),
                        sum(r.launches, &LaunchCounters::global_load_requests)),
                  ratio(sum(r.launches, &LaunchCounters::global_atomic_sectors),
                        sum(r.launches, &LaunchCounters::global_atomic_requests)),
                  ratio(sum(r.launches, &LaunchCounters::shared_load_wavefronts),
                        sum(r.launches, &LaunchCounters::shared_load_instructions)),
                  ratio(sum(r.launches, &LaunchCounters::shared_store_wavefronts),
                        sum(r.launches, &LaunchCounters::shared_store_instructions)),
                  ratio(sum(r.launches, &LaunchCounters::shared_atomic_wavefronts),
                        sum(r.launches, &LaunchCounters::shared_atomic_instructions)),
                  (unsigned long long)conflicts, gbps.c_str(),
                  right ? r.prediction.binding.c_str() : "", result == "ok" ? "" : ("  [" + result + "]").c_str());
      rows.push_back(std::move(r));
    };
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
        std::printf("%-24s error: %s\n", v.id().c_str(), e.what());
        continue;
      }
      add(v.id(), result, std::move(launches),
          [&](const uint8_t* in, size_t n) { v.launch(in, n, d_bins.get(), 0); });
    }
    for (const histo::ReadProbe& p : o.probes) {
      progress(p.id(), d);
      add(p.id(), "read only", counted([&] { p.run(d_in.get(), o.size, d_sink.get(), 0); }),
          [&](const uint8_t* in, size_t n) { p.run(in, n, d_sink.get(), 0); });
    }
  }
  std::printf("\nColumns: ld s/req = global load sectors per request; at s/req = global atomic "
              "sector passes per request; sh ld/st/at wf = shared wavefronts per instruction "
              "(1 is conflict-free); conflicts = shared bank conflicts; pred GB/s = input bytes / "
              "the time the %s model predicts.\n", gpu.name);

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
    out << "\n";
    for (const Row& r : rows) {
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
      const bool right = r.result == "ok" || r.result == "read only";
      out << "," << r.n << ",";
      if (right) out << r.prediction.seconds * 1e6 << "," << r.n / r.prediction.seconds / 1e9;
      else out << ",";
      out << ",\"" << r.prediction.binding << "\",\"" << r.result << "\"";
      for (const char* resource : histo_sim::kResources) {
        out << ",";
        for (const histo_sim::Bound& b : r.prediction.bounds)
          if (right && std::string(b.resource) == resource) out << b.seconds * 1e6;
      }
      out << "\n";
    }
  }
  return 0;
}

}  // namespace bench
