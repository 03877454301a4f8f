#include "histo/cuda_check.hpp"
#include "histo/timing.hpp"

#include <algorithm>

namespace histo {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

Timing summarize(const std::vector<double>& ms) {
  Timing t;
  if (ms.empty()) return t;
  t.reps = int(ms.size());
  t.median_ms = median(ms);
  t.min_ms = *std::min_element(ms.begin(), ms.end());
  t.max_ms = *std::max_element(ms.begin(), ms.end());
  return t;
}

namespace {

// The two events of a timed region, destroyed however the timing ends.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start));
    const cudaError_t err = cudaEventCreate(&stop);
    if (err != cudaSuccess) {
      cudaEventDestroy(start);
      CUDA_CHECK(err);
    }
  }
  ~EventPair() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

}  // namespace

std::vector<Timing> time_medians_interleaved(const std::vector<TimedRun>& runs, cudaStream_t stream,
                                             const TimingOptions& options,
                                             std::vector<std::exception_ptr>* errors) {
  std::vector<std::vector<double>> times(runs.size());
  std::vector<double> total(runs.size(), 0);
  std::vector<bool> going(runs.size(), true);
  if (errors) errors->assign(runs.size(), nullptr);
  // Calls step(i) for every run still going; a run that throws stops (or, without `errors`,
  // the exception propagates).
  auto each = [&](auto&& step) {
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!going[i]) continue;
      try {
        step(i);
      } catch (...) {
        if (!errors) throw;
        (*errors)[i] = std::current_exception();
        going[i] = false;
        times[i].clear();
      }
    }
  };
  for (int w = 0; w < options.warmup; ++w) each([&](size_t i) {
    if (runs[i].reset) runs[i].reset(stream);
    runs[i].run(stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  EventPair events;
  for (bool any = true; any;) {
    each([&](size_t i) {
      if (runs[i].reset) runs[i].reset(stream);
      CUDA_CHECK(cudaEventRecord(events.start, stream));
      runs[i].run(stream);
      CUDA_CHECK(cudaEventRecord(events.stop, stream));
      CUDA_CHECK(cudaEventSynchronize(events.stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, events.start, events.stop));
      times[i].push_back(ms);
      total[i] += ms;
      const int reps = int(times[i].size());
      going[i] = reps < options.max_reps && (reps < options.min_reps || total[i] < options.budget_ms);
    });
    any = std::find(going.begin(), going.end(), true) != going.end();
  }
  std::vector<Timing> out;
  for (const std::vector<double>& ms : times) out.push_back(summarize(ms));
  return out;
}

Timing time_median(const std::function<void(cudaStream_t)>& run,
                   const std::function<void(cudaStream_t)>& reset, cudaStream_t stream,
                   const TimingOptions& options) {
  return time_medians_interleaved({TimedRun{run, reset}}, stream, options).front();
}

}  // namespace histo
