// histo_bench in a simulator build: counters and the cost model's predictions instead of
// timings (model_report.cpp).
#pragma once

#include "histo/datasets.hpp"
#include "histo/launch.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct ModelOptions {
  std::string gpu = "h200";  // whose shape and model (histo_sim/gpus.hpp)
  std::vector<histo::Variant> variants;
  std::vector<histo::ReadProbe> probes;
  std::vector<histo::Dataset> datasets;
  size_t size = size_t(16) << 20;  // simulated input bytes
  size_t predict_size = 0;           // predict for this many bytes (0: size): the launches
                                     // on that input, their blocks sampled (model_report.cpp)
  uint64_t seed = 2026;
  std::string csv;
  bool lines = false;        // also where each kernel's binding resource goes, by source line
  std::string lines_csv;     // every source line's counters, one row per kernel, dataset, line
  bool probe_named = true;   // --kernels named the read probe (it is in the table either way)
};

int model_report(const ModelOptions& options);

}  // namespace bench
