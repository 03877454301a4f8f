#include "histo/gpu.hpp"
#include "histo/grading.hpp"
#include "histo/reference.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace histo {
namespace {

template <typename T>
constexpr T poison_value() {
  T v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v = T(v << 8) | T(GuardedBins<T>::kPoisonByte);
  return v;
}

bool near(uint64_t a, uint64_t b, uint64_t slack) { return (a > b ? a - b : b - a) <= slack; }

std::string likely_cause(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t total, uint64_t sum) {
  const uint64_t poison32 = poison_value<uint32_t>(), poison64 = poison_value<uint64_t>();
  size_t poisoned = 0;
  for (uint64_t a : actual) poisoned += (a == poison32 || a == poison64);
  if (poisoned == actual.size())
    return "every bin still holds the poison pattern 0xA5A5...: the output was never written "
           "(is it zeroed, and was the kernel launched?)";
  if (poisoned > 0)
    return std::to_string(poisoned) + " bins still hold the poison pattern 0xA5A5...: the "
           "output must be zeroed (overwritten) before counting";
  if (sum == 0 && total > 0)
    return "all bins are zero: was the kernel launched, and does each thread reach its loop "
           "(check the index math and the loop bounds)?";
  bool doubled = total > 0;
  for (size_t b = 0; b < actual.size() && doubled; ++b) doubled = actual[b] == 2 * expected[b];
  if (doubled) return "every count is doubled: the kernel counted its input twice";
  if (total >= 64 && near(sum * 4, total, 16))
    return "the sum is about n/4: only one byte of each 32-bit word counted?";
  if (total >= 256 && near(sum * 16, total, 64))
    return "the sum is about n/16: only one byte of each 16-byte vector counted?";
  if (sum > total) {
    const size_t slack_bin = DeviceInput::kSlackByte;
    if (slack_bin < actual.size() && actual[slack_bin] > expected[slack_bin])
      return "more counts than elements, and bin " + std::to_string(slack_bin) +
             " (the byte stored just outside the input) gained some: bytes before d_in or at or "
             "after d_in + n were read (head/tail handling of vector loads?)";
    return "more counts than elements: some elements were counted twice (do thread ranges "
           "overlap, or is the tail counted by two threads?)";
  }
  if (sum < total) {
    if (total - sum < 16)
      return "a few counts missing: the last elements (the tail, when n is not a multiple of "
             "the block or vector width) or the first ones (an unaligned head) are skipped?";
    return "counts were lost: a read-modify-write race on a counter (use an atomic), elements "
           "never visited (index math), or a merge that drops bins";
  }
  return "the right number of counts in the wrong bins: check the value -> bin mapping (and the "
         "byte order when unpacking words)";
}

}  // namespace

std::string CaseInfo::describe() const {
  std::ostringstream out;
  out << "dataset " << dataset << ", seed " << seed << ", n " << n << ", input offset " << offset
      << " bytes, launch: " << (shape.empty() ? "?" : shape);
  return out.str();
}

std::vector<uint64_t> widen(const std::vector<uint32_t>& bins) {
  return std::vector<uint64_t>(bins.begin(), bins.end());
}

std::string compare_bins(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t expected_total, const CaseInfo& info,
                         const std::string& guard_problem) {
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
  if (wrong == 0 && sum == expected_total && guard_problem.empty() &&
      expected.size() == actual.size())
    return "";
  std::ostringstream out;
  out << info.lab << " " << info.variant << ": wrong histogram\n"
      << "  case: " << info.describe() << "\n";
  if (wrong) out << "  first wrong bins (" << wrong << " of " << actual.size() << " wrong): "
                 << first.str() << "\n";
  const long long diff = (long long)sum - (long long)expected_total;
  out << "  sum of bins: expected " << expected_total << ", got " << sum << " ("
      << (diff >= 0 ? "+" : "") << diff << ")\n";
  if (!guard_problem.empty()) out << "  out of bounds: " << guard_problem << "\n";
  out << "  likely cause: "
      << (guard_problem.empty() ? likely_cause(expected, actual, expected_total, sum)
                                : "a thread wrote outside d_bins[0, num_bins): check bin indices")
      << "\n  re-run with: --rng-seed " << info.seed;
  return out.str();
}

template <typename T>
std::string GuardedBins<T>::guard_problem() const {
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

DeviceInput::DeviceInput(const void* h_data, size_t bytes, size_t offset)
    : buffer_(offset + bytes + kSlack), offset_(offset) {
  CUDA_CHECK(cudaMemset(buffer_.get(), kSlackByte, buffer_.bytes()));
  if (bytes) CUDA_CHECK(cudaMemcpy(buffer_.get() + offset, h_data, bytes, cudaMemcpyHostToDevice));
}

std::string grade_byte_case(const Variant& variant, const uint8_t* h_in, size_t n, size_t offset,
                            const std::string& dataset, uint64_t seed) {
  DeviceInput input(h_in, n, offset);
  GuardedBins<uint32_t> bins(kNumBins);
  CaseInfo info{variant.lab, variant.name, dataset, seed, n, offset, ""};
  info.shape = variant.launch(input.get(), n, bins.get(), 0).describe();
  CUDA_CHECK(cudaDeviceSynchronize());
  return compare_bins(widen(reference_histogram(h_in, n)), bins.fetch(), n, info,
                      bins.guard_problem());
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
