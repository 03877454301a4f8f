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

Timing time_median(const std::function<void(cudaStream_t)>& run,
                   const std::function<void(cudaStream_t)>& reset, cudaStream_t stream,
                   const TimingOptions& options) {
  for (int i = 0; i < options.warmup; ++i) {
    if (reset) reset(stream);
    run(stream);
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));

  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> times;
  double total = 0;
  try {
    while (int(times.size()) < options.max_reps &&
           (int(times.size()) < options.min_reps || total < options.budget_ms)) {
      if (reset) reset(stream);
      CUDA_CHECK(cudaEventRecord(start, stream));
      run(stream);
      CUDA_CHECK(cudaEventRecord(stop, stream));
      CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      times.push_back(ms);
      total += ms;
    }
  } catch (...) {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    throw;
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  Timing t;
  t.reps = int(times.size());
  t.median_ms = median(times);
  t.min_ms = *std::min_element(times.begin(), times.end());
  t.max_ms = *std::max_element(times.begin(), times.end());
  return t;
}

}  // namespace histo
