// The one timing helper: CUDA events around each repetition, warm-up runs first, the median
// reported. `reset` runs before every repetition, outside the timed region (the benchmark uses
// it to poison the output, so a kernel that fails to overwrite it cannot look right).
//
// time_medians_interleaved times several runs in turns: each round times one repetition of
// every run still going, so drift between repetitions (clocks, power states, the host) falls on
// all of them alike and their ratios hold even where one repetition lasts microseconds.
#pragma once

#include <cuda_runtime.h>

#include <exception>
#include <functional>
#include <vector>

namespace histo {

struct TimingOptions {
  int warmup = 2;
  int min_reps = 3;
  int max_reps = 15;
  double budget_ms = 1500;  // a run stops adding repetitions past this much measured time
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int reps = 0;
};

struct TimedRun {
  std::function<void(cudaStream_t)> run;
  std::function<void(cudaStream_t)> reset;  // may be empty
};

// One Timing per run, in order. Each run stops at its own limit (max_reps, or min_reps and the
// budget). A run that throws stops there with no Timing (reps 0) and its exception in
// errors[i] when `errors` is given; without `errors` the first exception propagates.
std::vector<Timing> time_medians_interleaved(const std::vector<TimedRun>& runs, cudaStream_t stream,
                                             const TimingOptions& options = {},
                                             std::vector<std::exception_ptr>* errors = nullptr);

Timing time_median(const std::function<void(cudaStream_t)>& run,
                   const std::function<void(cudaStream_t)>& reset, cudaStream_t stream,
                   const TimingOptions& options = {});

double median(std::vector<double> values);

// Median, minimum, maximum and count of measured times (milliseconds); all zero when empty.
Timing summarize(const std::vector<double>& ms);

}  // namespace histo
