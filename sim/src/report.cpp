// The per-launch report: with HISTO_SIM_REPORT=FILE.csv in its environment (scripts/sim_run.sh
// --report sets it), a simulator program writes, when it exits, one row per kernel launch: the
// kernel, its grid and block, every counter under its Nsight Compute metric name (the columns of
// `histo_bench --model --csv`), and the time the cost model of the GPU it stands in for
// (HISTO_SIM_GPU) predicts, with the binding resource and every bound. A prediction, labelled
// so in the file's `model` column; counts need a traced build (Clang), and the `counters`
// column says when they are incomplete.
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"

#include "internal.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace histo_sim {
namespace {

struct Launch {
  dim3 grid, block;
  std::string error;  // the launch's failure, if any
};

std::string g_path;                // "" when no report is wanted
std::vector<Launch> g_launches;    // in launch order, as the counters' entries are

std::string dims(dim3 d) {
  std::string s = std::to_string(d.x);
  if (d.y != 1 || d.z != 1) s += "x" + std::to_string(d.y);
  if (d.z != 1) s += "x" + std::to_string(d.z);
  return s;
}

std::string csv(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_report() {
  const std::vector<LaunchCounters> launches = counters_end();
  std::ofstream out(g_path);
  if (!out) {
    std::fprintf(stderr, "CPU simulator: cannot write the report %s\n", g_path.c_str());
    return;
  }
  const GpuShape& gpu = current_gpu();
  out << "model,launch,kernel,grid,block,registers,sass";
  for (const Metric& m : metrics(LaunchCounters{})) out << "," << m.name;
  out << ",sim_load_rounds,predicted_us,binding";
  for (const char* resource : kResources) {
    std::string column = std::string(",bound_us_") + resource;
    for (char& c : column) c = c == ' ' ? '_' : char(std::tolower(static_cast<unsigned char>(c)));
    out << column;
  }
  out << ",counters,error\n";
  const std::string counters = counters_available() ? "complete" : counters_unavailable_reason();
  for (size_t i = 0; i < launches.size(); ++i) {
    const LaunchCounters& c = launches[i];
    const Launch l = i < g_launches.size() ? g_launches[i] : Launch{dim3(c.grid), dim3(c.block), ""};
    const KernelResources r = kernel_resources(c.kernel);
    out << gpu.key << "," << i << "," << csv(kernel_name(c.kernel)) << "," << dims(l.grid) << ","
        << dims(l.block) << "," << (r.known ? std::to_string(r.registers) : "") << "," << (r.sass ? 1 : 0);
    for (const Metric& m : metrics(c)) out << "," << m.value;
    out << "," << c.load_rounds;
    if (l.error.empty()) {
      const Prediction p = predict({c}, gpu);
      out << "," << p.seconds * 1e6 << "," << csv(p.binding);
      for (const char* resource : kResources) {
        out << ",";
        for (const Bound& b : p.bounds)
          if (std::string(b.resource) == resource) out << b.seconds * 1e6;
      }
    } else {
      out << ",,";  // a failed launch gets no prediction
      for (size_t k = 0; k < sizeof kResources / sizeof kResources[0]; ++k) out << ",";
    }
    out << "," << csv(counters) << "," << csv(l.error) << "\n";
  }
}

}  // namespace

void report_launch(const void* kernel, dim3 grid, dim3 block) {
  static const bool wanted = [&] {
    const char* path = std::getenv("HISTO_SIM_REPORT");
    if (!path || !*path) return false;
    g_path = path;
    // What the report reads at exit is made now, before the handler is registered, so that it
    // outlives it.
    (void)kernel_name(kernel);
    (void)kernel_resources(kernel);
    (void)current_gpu();
    counters_begin();
    std::atexit(write_report);
    return true;
  }();
  if (wanted) g_launches.push_back({grid, block, ""});
}

void report_launch_failed(const std::string& error) {
  if (!g_path.empty() && !g_launches.empty()) g_launches.back().error = error;
}

}  // namespace histo_sim
