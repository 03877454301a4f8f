#include "histo/grading.hpp"

#include "histo/diagnosis.hpp"
#include "histo/gpu.hpp"
#include "histo/reference.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

#ifdef HISTO_SIM
#include "histo_sim_host_writes.h"
#endif

namespace histo {
namespace {

template <typename T>
constexpr T poison_value() {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v = T(v << 8) | T(GuardedBins<T>::kPoisonByte);
  return v;
}

}  // namespace

CaseInfo case_of(const Variant& variant, const std::string& dataset, uint64_t seed, size_t n,
                 size_t offset, const std::string& shape) {
  CaseInfo info{variant.lab, variant.name, dataset, seed, n, offset, shape};
  info.parts = variant.parts;
#ifdef HISTO_SIM
  histo_sim::begin_hazard_coverage();  // the case's launches follow; compare_bins asks after them
#endif
  return info;
}

namespace {

// A graded run's inputs are the grader's secret (HISTO_SECRET_SEED=1, set by grading/grade.py at
// test time): its failures name the case, never the seed that would regenerate its data.
bool seed_is_secret() {
  const char* env = std::getenv("HISTO_SECRET_SEED");
  return env != nullptr && std::strcmp(env, "1") == 0;
}

std::string rerun_hint(uint64_t seed) {
  return seed_is_secret() ? "  re-run with: ctest on your machine (the grader's inputs are its own, "
                            "drawn anew for every grading; every local run prints its own seed)"
                          : "  re-run with: --rng-seed " + std::to_string(seed);
}

}  // namespace

std::string CaseInfo::describe() const {
  std::ostringstream out;
  out << "dataset " << dataset << ", seed ";
  if (seed_is_secret())
    out << "(the grader's, not shown)";
  else
    out << seed;
  out << ", n " << n << ", input offset " << offset
      << " bytes, launch: " << (shape.empty() ? "?" : shape);
  return out.str();
}

std::vector<uint64_t> widen(const std::vector<uint32_t>& bins) {
  return std::vector<uint64_t>(bins.begin(), bins.end());
}

std::string compare_bins(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t expected_total, const CaseInfo& info,
                         const std::string& guard_problem, const std::string& work_problem) {
  if (!work_problem.empty()) {
    // However right the bins are: they were not counted by the lab's kernel.
    std::ostringstream out;
    out << info.lab << " " << info.variant << ": the bins were not counted by a kernel\n"
        << "  case: " << info.describe() << "\n"
        << "  what happened: " << work_problem << "\n" << rerun_hint(info.seed);
    return out.str();
  }
  uint64_t sum = 0;
  size_t wrong = 0;
  std::ostringstream first;
  for (size_t b = 0; b < actual.size(); ++b) {
    sum += actual[b];
    if (b < expected.size() && actual[b] == expected[b]) continue;
    if (wrong < 6)
      first << (wrong ? "; " : "") << "bin " << b << ": expected "
            << (b < expected.size() ? std::to_string(expected[b]) : "-") << ", got " << actual[b];
    ++wrong;
  }
  const bool right = wrong == 0 && sum == expected_total && guard_problem.empty() &&
                     expected.size() == actual.size();
  if (right && info.hazard.empty()) return "";
  std::ostringstream out;
  out << info.lab << " " << info.variant << ": "
      << (right ? "right bins this time, but the launch had a hazard" : "wrong histogram")
      << "\n  case: " << info.describe() << "\n";
  if (wrong) out << "  first wrong bins (" << wrong << " of " << actual.size() << " wrong): "
                 << first.str() << "\n";
  const long long diff = (long long)sum - (long long)expected_total;
  out << "  sum of bins: expected " << expected_total << ", got " << sum << " ("
      << (diff >= 0 ? "+" : "") << diff << ")\n";
  if (!guard_problem.empty()) out << "  out of bounds: " << guard_problem << "\n";
  CaseInfo seen = info;
#ifdef HISTO_SIM
  seen.hazards_checked = info.hazards_checked || histo_sim::hazards_covered();
#endif
  const std::string from_bins =
      right ? ""
      : guard_problem.empty() ? likely_cause(expected, actual, expected_total, seen)
                              : "a thread wrote outside d_bins[0, num_bins): check bin indices";
  // What the simulator saw happen is the cause; the bins only suggest one.
  if (!info.hazard.empty()) {
    out << "  likely cause: " << info.hazard << "\n";
    if (!from_bins.empty()) out << "  the bins alone suggest: " << from_bins << "\n";
  } else {
    out << "  likely cause: " << from_bins << "\n";
  }
  out << rerun_hint(info.seed);
  return out.str();
}

template <typename T>
std::string GuardedBins<T>::guard_problem() const {
  watch_.end_call();
  const std::vector<T> all = buffer_.download();
  const T poison = poison_value<T>();
  size_t before = 0, after = 0;
  for (size_t i = 0; i < kGuardWords; ++i) {
    before += all[i] != poison;
    after += all[kGuardWords + num_bins_ + i] != poison;
  }
  if (!before && !after) return "";
  return std::to_string(before) + " of the " + std::to_string(kGuardWords) +
         " words before d_bins and " + std::to_string(after) + " of the " +
         std::to_string(kGuardWords) + " words after d_bins[" + std::to_string(num_bins_ - 1) +
         "] were overwritten";
}
template class GuardedBins<uint32_t>;
template class GuardedBins<unsigned long long>;

uint8_t slack_byte_for(const void* data, size_t bytes) {
  bool seen[256] = {};
  size_t distinct = 0;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes && distinct < 256; ++i) {
    distinct += !seen[p[i]];
    seen[p[i]] = true;
  }
  for (unsigned k = 0; k < 256; ++k) {
    const uint8_t value = uint8_t(DeviceInput::kSlackByte + k);
    if (!seen[value]) return value;
  }
  return DeviceInput::kSlackByte;
}

DeviceInput::DeviceInput(const void* h_data, size_t bytes, size_t offset)
    : buffer_(offset + bytes + kSlack), offset_(offset),
      slack_byte_(slack_byte_for(h_data, bytes)) {
  CUDA_CHECK(cudaMemset(buffer_.get(), slack_byte_, buffer_.bytes()));
  if (bytes) CUDA_CHECK(cudaMemcpy(buffer_.get() + offset, h_data, bytes, cudaMemcpyHostToDevice));
}

StreamedInput::StreamedInput(const void* h_data, size_t bytes, size_t offset)
    : buffer_(offset + bytes + DeviceInput::kSlack), offset_(offset) {
  CUDA_CHECK(cudaMemset(buffer_.get(), kStaleByte, buffer_.bytes()));
  // A non-blocking stream does not wait for work on stream 0: let the setup so far (this memset,
  // the poisoning of the output) finish before anything is queued on it.
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  if (bytes == 0) return;
  CUDA_CHECK(cudaMallocHost(&h_pinned_, bytes));
  std::memcpy(h_pinned_, h_data, bytes);
  // Pinned memory: the copy is truly asynchronous and still running when the launcher is called.
  CUDA_CHECK(cudaMemcpyAsync(buffer_.get() + offset, h_pinned_, bytes, cudaMemcpyHostToDevice,
                             stream_));
}

StreamedInput::~StreamedInput() {
  if (stream_) {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  if (h_pinned_) cudaFreeHost(h_pinned_);
}

void StreamedInput::synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

RunsInput::RunsInput(size_t n, size_t element_bytes, const uint8_t (&values)[3], size_t offset)
    : buffer_(offset + n * element_bytes + DeviceInput::kSlack), offset_(offset) {
  for (int k = 0; k < 3; ++k) values_[k] = values[k];
  slack_byte_ = slack_byte_for(values, 3);
  // Boundaries that are multiples of nothing useful: a third of n plus 7, then n - 4099.
  run_[0] = n / 3 + 7 < n ? n / 3 + 7 : n;
  const size_t second_end = n > 4099 && n - 4099 > run_[0] ? n - 4099 : run_[0];
  run_[1] = second_end - run_[0];
  run_[2] = n - second_end;
  CUDA_CHECK(cudaMemset(buffer_.get(), slack_byte_, buffer_.bytes()));
  uint8_t* d = buffer_.get() + offset;
  size_t first = 0;
  for (int k = 0; k < 3; ++k) {
    if (run_[k]) CUDA_CHECK(cudaMemset(d + first * element_bytes, values[k], run_[k] * element_bytes));
    first += run_[k];
  }
}

std::string RunsInput::describe() const {
  return "three memset runs (" + std::to_string(values_[0]) + ", " + std::to_string(values_[1]) +
         ", " + std::to_string(values_[2]) + ")";
}

std::string split_problem(size_t head, size_t units, size_t tail, size_t n, size_t width) {
  const std::string parts = "head " + std::to_string(head) + ", " + std::to_string(units) +
                            " units of " + std::to_string(width) + " bytes, tail " +
                            std::to_string(tail) + " for n = " + std::to_string(n);
  if (head > n) return parts + ": the head is longer than the input (clamp it to n)";
  if (tail > n - head) return parts + ": head + tail is longer than the input";
  if (units > (n - head - tail) / width || head + units * width + tail != n)
    return parts + ": the parts do not add up to n (each byte must be in exactly one part)";
  return "";
}

std::string grade_byte_case(const Variant& variant, const uint8_t* h_in, size_t n, size_t offset,
                            const std::string& dataset, uint64_t seed, LaunchShape* shape_out) {
  DeviceInput input(h_in, n, offset);
  GuardedBins<uint32_t> bins(kNumBins);
  CaseInfo info = case_of(variant, dataset, seed, n, offset);
  info.slack_byte = input.slack_byte();
  const LaunchShape shape = variant.launch(input.get(), n, bins.get(), 0);
  if (shape_out) *shape_out = shape;
  info.shape = shape.describe();
  info.grid = shape.grid;
  CUDA_CHECK(cudaDeviceSynchronize());
  return compare_bins(widen(reference_histogram(h_in, n)), bins.fetch(), n, info,
                      bins.guard_problem(), bins.work_problem(n));
}

size_t grading_size_limit() {
  // The CPU simulator runs one CUDA thread at a time: the same sweep, on inputs up to 1 MiB.
  size_t limit = kSimulator ? size_t(1) << 20 : size_t(64) << 20;
  if (const char* env = std::getenv("HISTO_GRADER_MAX_N")) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end != env && v > 0) limit = size_t(v);
  }
  return limit;
}

std::vector<size_t> grading_sizes() {
  // Empty and tiny inputs; around 16-byte vectors, warps and blocks; primes; tens of MB.
  static const size_t all[] = {0,     1,     2,     3,      4,      5,      7,       15,
                               16,    17,    31,    32,     33,     63,     64,      65,
                               127,   128,   129,   255,    256,    257,    1023,    1024,
                               1025,  4095,  4096,  4097,   16381,  65521,  65536,   65537,
                               1000003, (size_t(16) << 20) + 5, (size_t(48) << 20) + 13};
  std::vector<size_t> sizes;
  for (size_t s : all)
    if (s <= grading_size_limit()) sizes.push_back(s);
  return sizes;
}

std::string grade_sweep(const GradeCaseFn& grade_case, uint64_t seed, size_t max_failures) {
  FailureReports reports(max_failures);
  const std::vector<size_t> sizes = grading_sizes();
  const size_t largest = sizes.back();
  const size_t big = size_t(4) << 20;  // larger sizes: three datasets only, to keep it quick
  for (Dataset ds : all_datasets()) {
    const bool all_sizes = ds == Dataset::uniform || ds == Dataset::degenerate || ds == Dataset::text;
    const uint64_t ds_seed = seed + uint64_t(ds);
    const std::vector<uint8_t> data = make_dataset(ds, all_sizes ? largest : std::min(largest, big), ds_seed);
    for (size_t i = 0; i < sizes.size() && !reports.full(); ++i) {
      if (sizes[i] > data.size()) break;
      const size_t offset = mix64(seed + 31 * i + uint64_t(ds)) % 16;
      reports.record(grade_case(data.data(), sizes[i], offset, dataset_name(ds), ds_seed));
    }
  }
  // Every alignment of the start pointer at one awkward size.
  const size_t n = std::min<size_t>(100003, grading_size_limit());
  const std::vector<uint8_t> text = make_dataset(Dataset::text, n, seed);
  for (size_t offset = 0; offset < 16 && !reports.full(); ++offset)
    reports.record(grade_case(text.data(), n, offset, "text", seed));
  return reports.text();
}

std::string grade_byte_sweep(const Variant& variant, uint64_t seed, size_t max_failures) {
  return grade_sweep(
      [&](const uint8_t* h_in, size_t n, size_t offset, const std::string& dataset, uint64_t s) {
        return grade_byte_case(variant, h_in, n, offset, dataset, s);
      },
      seed, max_failures);
}

}  // namespace histo
