#include "histo/gpu.hpp"
#include "histo/grading.hpp"
#include "histo/reference.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
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

// An 8-bit packed counter that passed 255 wraps to 0 and carries 1 into the next byte of its
// word: the next value's counter. So the symptom is a bin short by a multiple of 256 whose
// neighbour gained the multiple (or, for the top byte of a word, nothing: the carry left it).
// Returns the bin, or -1.
long long wrapped_counter_bin(const std::vector<uint64_t>& expected,
                              const std::vector<uint64_t>& actual) {
  for (size_t b = 0; b < actual.size() && b < expected.size(); ++b) {
    if (actual[b] >= expected[b]) continue;
    const uint64_t deficit = expected[b] - actual[b];
    if (deficit % 256 != 0) continue;
    const bool top_byte = b % 4 == 3;
    const bool carried = b + 1 < actual.size() && b + 1 < expected.size() &&
                         actual[b + 1] > expected[b + 1];
    if (carried || top_byte) return (long long)b;
  }
  return -1;
}

std::string likely_cause(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t total, uint64_t sum, const CaseInfo& info) {
  const uint64_t poison32 = poison_value<uint32_t>(), poison64 = poison_value<uint64_t>();
  // Threads that run one at a time cannot race: say so instead of suggesting an atomic.
  const bool sequential = info.cpu_emulation || kSimulator;
  const char* where = info.cpu_emulation ? "this test replays the threads one after another on "
                                           "the CPU"
                                         : "the CPU simulator runs the threads one at a time";
  size_t poisoned = 0;
  for (uint64_t a : actual) poisoned += (a == poison32 || a == poison64);
  if (poisoned == actual.size())
    return "every bin still holds the poison pattern 0xA5A5...: the output was never written "
           "(the launcher must zero it, on its stream, before counting)";
  if (poisoned > 0)
    return std::to_string(poisoned) + " bins still hold the poison pattern 0xA5A5...: the "
           "output must be zeroed (overwritten) before counting";
  if (sum == 0 && total > 0) {
    if (total < 16 && info.grid != 0)
      return "nothing was counted, and the input is only " + std::to_string(total) +
             " bytes: too short for one aligned 16-byte vector, so all of it is head or tail "
             "(bytes counted one by one): are those counted?";
    if (info.grid == 0)
      return std::string(info.cpu_emulation ? "the grid size came out as 0 blocks"
                                            : "the launcher computed an empty grid (0 blocks)") +
             " for n = " + std::to_string(info.n) +
             ", so nothing ran: the grid-size function must return at least 1 block when n > 0";
    if (info.cpu_emulation)
      return "all bins are zero: the replayed threads counted nothing (check the index math and "
             "the loop bounds: does any thread get a non-empty range?)";
    return "all bins are zero: the kernel ran but counted nothing (is its body written, and does "
           "each thread reach its loop? check the index math and the loop bounds)";
  }
  bool doubled = total > 0;
  for (size_t b = 0; b < actual.size() && doubled; ++b) doubled = actual[b] == 2 * expected[b];
  if (doubled) return "every count is doubled: the kernel counted its input twice";
  if (info.spills_128 && sum + 128 <= total) {
    // A kernel that spills 128 counts at a time (the overflow check): counts missing only in
    // such lumps were spilled and then lost. Checked before wrapped counters, which the check
    // exists to prevent and which look the same in the top byte of a word.
    bool lumps_of_128 = true;
    for (size_t b = 0; b < actual.size() && b < expected.size() && lumps_of_128; ++b)
      lumps_of_128 = actual[b] <= expected[b] && (expected[b] - actual[b]) % 128 == 0;
    if (lumps_of_128)
      return "every missing count comes in lumps of 128: a spill of 128 from an 8-bit counter's "
             "top bit (the overflow check's shared atomicAdd) was dropped or never added to the "
             "output";
  }
  const long long wrapped = wrapped_counter_bin(expected, actual);
  if (wrapped >= 0) {
    const size_t b = size_t(wrapped);
    const uint64_t laps = (expected[b] - actual[b]) / 256;
    return "bin " + std::to_string(b) + " is short by " + std::to_string(laps) + " x 256" +
           (b % 4 == 3 ? std::string(" (the top byte of its word: the carry left the word)")
                       : " and bin " + std::to_string(b + 1) + " gained " +
                             std::to_string(actual[b + 1] - expected[b + 1])) +
           ": an 8-bit packed counter passed 255, wrapped to 0 and carried into the next byte. "
           "An atomic would not help; keep every thread within the 255-count budget (the grid "
           "size) or merge or spill the counters before they can reach 256";
  }
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
      return std::string("a few counts missing: the last elements (the tail, when n is not a "
                         "multiple of the block or vector width) or the first ones (an unaligned "
                         "head) are skipped?") +
             (kSimulator ? " Or a merge that ran before every thread had counted (a missing "
                           "__syncthreads: the simulator runs threads in turn)"
                         : "");
    if (sequential)
      return std::string("counts were lost, and ") + where +
             ", so no race can lose them: elements never visited (index math, loop bounds, "
             "ranges that leave gaps) or a merge that drops bins";
    return "counts were lost: a counter that several threads update with a plain read-modify-"
           "write (use an atomic there), elements never visited (index math, loop bounds), or a "
           "merge that drops bins";
  }
  return "the right number of counts in the wrong bins: check the value -> bin mapping (and the "
         "byte order when unpacking words)";
}

}  // namespace

CaseInfo case_of(const Variant& variant, const std::string& dataset, uint64_t seed, size_t n,
                 size_t offset, const std::string& shape) {
  CaseInfo info{variant.lab, variant.name, dataset, seed, n, offset, shape};
  info.spills_128 = variant.spills_128;
  return info;
}

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
                         const std::string& guard_problem, const std::string& work_problem) {
  if (!work_problem.empty()) {
    // However right the bins are: they were not counted by the lab's kernel.
    std::ostringstream out;
    out << info.lab << " " << info.variant << ": the bins were not counted by a kernel\n"
        << "  case: " << info.describe() << "\n"
        << "  what happened: " << work_problem << "\n  re-run with: --rng-seed " << info.seed;
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
      << (guard_problem.empty() ? likely_cause(expected, actual, expected_total, sum, info)
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
  // Boundaries that are multiples of nothing useful: a third of n plus 7, then n - 4099.
  run_[0] = n / 3 + 7 < n ? n / 3 + 7 : n;
  const size_t second_end = n > 4099 && n - 4099 > run_[0] ? n - 4099 : run_[0];
  run_[1] = second_end - run_[0];
  run_[2] = n - second_end;
  CUDA_CHECK(cudaMemset(buffer_.get(), DeviceInput::kSlackByte, buffer_.bytes()));
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
                            const std::string& dataset, uint64_t seed) {
  DeviceInput input(h_in, n, offset);
  GuardedBins<uint32_t> bins(kNumBins);
  CaseInfo info = case_of(variant, dataset, seed, n, offset);
  const LaunchShape shape = variant.launch(input.get(), n, bins.get(), 0);
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
