// Grader helpers: run a launcher on staged device input, compare with the CPU reference bin by
// bin, and explain a failure in words a student can act on. Free of Catch2 (see catch_support.hpp).
#pragma once

#include "histo/datasets.hpp"
#include "histo/device_buffer.hpp"
#include "histo/launch.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace histo {

// What a single graded run was: printed with every failure so it can be re-run.
struct CaseInfo {
  std::string lab;
  std::string variant;
  std::string dataset;
  uint64_t seed = 0;
  size_t n = 0;
  size_t offset = 0;   // bytes d_in sits past a 256-byte-aligned allocation
  std::string shape;   // LaunchShape::describe()
  std::string describe() const;
};

// Compares bins exactly and checks that they sum to expected_total. Returns "" when they match,
// otherwise a report: the case, the first wrong bins (expected/actual), the sum difference and
// a likely cause. `guard_problem` is non-empty when the launcher wrote outside its bins.
std::string compare_bins(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t expected_total, const CaseInfo& info,
                         const std::string& guard_problem = "");
std::vector<uint64_t> widen(const std::vector<uint32_t>& bins);

// The output under test: `num_bins` counters with guard words on both sides, every byte
// poisoned before the launch so that an unwritten bin cannot pass for a zero.
template <typename T>
class GuardedBins {
 public:
  static constexpr size_t kGuardWords = 64;
  static constexpr unsigned char kPoisonByte = 0xA5;

  explicit GuardedBins(size_t num_bins)
      : num_bins_(num_bins), buffer_(num_bins + 2 * kGuardWords) { poison(); }
  T* get() const { return buffer_.get() + kGuardWords; }
  size_t size() const { return num_bins_; }
  void poison() { CUDA_CHECK(cudaMemset(buffer_.get(), kPoisonByte, buffer_.bytes())); }
  std::vector<uint64_t> fetch() const {
    std::vector<T> all = buffer_.download();
    return std::vector<uint64_t>(all.begin() + kGuardWords, all.begin() + kGuardWords + num_bins_);
  }
  // "" when both guard regions still hold the poison, else which words were overwritten.
  std::string guard_problem() const;

 private:
  size_t num_bins_;
  DeviceBuffer<T> buffer_;
};

// Input staged on the device `offset` bytes past an aligned allocation. The slack before and
// after the n bytes is filled with kSlackByte: a kernel that reads past either end and counts
// what it finds breaks the bin sums and fails.
class DeviceInput {
 public:
  static constexpr unsigned char kSlackByte = 0x5A;
  static constexpr size_t kSlack = 64;
  DeviceInput(const void* h_data, size_t bytes, size_t offset);
  const uint8_t* get() const { return buffer_.get() + offset_; }

 private:
  DeviceBuffer<uint8_t> buffer_;
  size_t offset_;
};

// Runs one 256-bin launcher on h_in[0, n) staged at `offset` and grades it against the
// sequential reference. Returns "" on success, else the failure report.
std::string grade_byte_case(const Variant& variant, const uint8_t* h_in, size_t n, size_t offset,
                            const std::string& dataset, uint64_t seed);

// Collects the failure reports of several graded cases; full() after `limit` failures, so a
// sweep can stop early instead of printing hundreds of them.
class FailureReports {
 public:
  explicit FailureReports(size_t limit = 3) : limit_(limit) {}
  void record(const std::string& report) {
    if (report.empty()) return;
    text_ += (failures_ ? "\n\n" : "") + report;
    ++failures_;
  }
  bool full() const { return failures_ >= limit_; }
  const std::string& text() const { return text_; }  // "" when every case passed

 private:
  size_t limit_;
  size_t failures_ = 0;
  std::string text_;
};

// One graded case: h_in[0, n) staged at `offset`; returns "" or a failure report.
using GradeCaseFn = std::function<std::string(const uint8_t* h_in, size_t n, size_t offset,
                                              const std::string& dataset, uint64_t seed)>;

// Every dataset at awkward sizes (0, 1, around vector and block multiples, primes, tens of MB)
// and offsets 0..15, each case graded by `grade_case`. Stops after `max_failures` failures and
// returns their reports ("" when all pass).
std::string grade_sweep(const GradeCaseFn& grade_case, uint64_t seed, size_t max_failures = 3);

// grade_sweep() with grade_byte_case() for a registered 256-bin launcher.
std::string grade_byte_sweep(const Variant& variant, uint64_t seed, size_t max_failures = 3);

// Sizes the sweep uses: those not above grading_size_limit().
std::vector<size_t> grading_sizes();

// Largest input the graders build; HISTO_GRADER_MAX_N lowers it (the sanitizer runs use 1 MiB,
// since memcheck slows kernels down a hundredfold).
size_t grading_size_limit();

}  // namespace histo
