// The one timing helper: CUDA events around each repetition, warm-up runs first, the median
// reported. `reset` runs before every repetition, outside the timed region (the benchmark uses
// it to poison the output, so a kernel that fails to overwrite it cannot look right).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace histo {

struct TimingOptions {
  int warmup = 2;
  int min_reps = 3;
  int max_reps = 15;
  double budget_ms = 1500;  // stop adding repetitions past this much measured time
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int reps = 0;
};

Timing time_median(const std::function<void(cudaStream_t)>& run,
                   const std::function<void(cudaStream_t)>& reset, cudaStream_t stream,
                   const TimingOptions& options = {});

double median(std::vector<double> values);

}  // namespace histo
