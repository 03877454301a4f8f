// Grader helpers: run a launcher on staged device input, compare with the CPU reference bin by
// bin, and explain a failure in words a student can act on. Free of Catch2 (see catch_support.hpp).
#pragma once

#include "histo/datasets.hpp"
#include "histo/device_buffer.hpp"
#include "histo/launch.hpp"
#include "histo/output_watch.hpp"

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
  long long grid = -1;        // blocks launched (or emulated); -1 when not known
  bool cpu_emulation = false; // the graded histogram came from a sequential CPU replay
  unsigned parts = 0;         // what the kernel is built from (Variant::parts); 0: not declared
  // The byte the slack around the input held on the device (DeviceInput::slack_byte()), where
  // the bins count byte values, so a slack byte that is read counts in bin slack_byte; -1 when
  // not known (no slack, a CPU replay, bins that are not byte values).
  int slack_byte = -1;
  // What the simulator saw go wrong in this launch, one sentence (e.g. a race on a shared word,
  // with both threads and lines); empty when nothing. When set it is named first as the likely
  // cause, before what the bins suggest, and the case fails even if the bins are right.
  std::string hazard;
  // The simulator's hazard checks saw every load and store of the case's launches and found
  // nothing: a missing barrier or a race is then not the cause.
  bool hazards_checked = false;
  std::string describe() const;
  // True when the kernel has any of `any_of` (Part flags), or declared nothing: an undeclared
  // kernel may have every cause.
  bool may_have(unsigned any_of) const { return parts == 0 || (parts & any_of) != 0; }
};

// The case of `variant` on one input (its lab, name and parts copied from the registry).
CaseInfo case_of(const Variant& variant, const std::string& dataset, uint64_t seed, size_t n,
                 size_t offset, const std::string& shape = "");

// Compares bins exactly and checks that they sum to expected_total. Returns "" when they match
// (and info.hazard is empty), otherwise a report: the case, the first wrong bins
// (expected/actual), the sum difference and a likely cause that fits both the symptom and what
// the kernel is built from (info.parts). `guard_problem` is non-empty when the launcher wrote
// outside its bins; `work_problem` when the bins were not counted by a kernel
// (GuardedBins::work_problem): the call then fails however right its bins are.
std::string compare_bins(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t expected_total, const CaseInfo& info,
                         const std::string& guard_problem = "",
                         const std::string& work_problem = "");
std::vector<uint64_t> widen(const std::vector<uint32_t>& bins);

// The output under test: `num_bins` counters with guard words on both sides, every byte
// poisoned before the launch so that an unwritten bin cannot pass for a zero. From the
// poisoning on, it watches who writes it (OutputWatch): work_problem(n) is "" when a kernel
// the call launched counted it.
template <typename T>
class GuardedBins {
 public:
  static constexpr size_t kGuardWords = 64;
  static constexpr unsigned char kPoisonByte = 0xA5;

  explicit GuardedBins(size_t num_bins)
      : num_bins_(num_bins), buffer_(num_bins + 2 * kGuardWords) { poison(); }
  T* get() const { return buffer_.get() + kGuardWords; }
  size_t size() const { return num_bins_; }
  void poison() {
    CUDA_CHECK(cudaMemset(buffer_.get(), kPoisonByte, buffer_.bytes()));
    watch_.start(buffer_.get(), buffer_.bytes());
  }
  // Reads the bins back: the graded call is over (what the host copies from here on is the
  // grader's own).
  std::vector<uint64_t> fetch() const {
    watch_.end_call();
    std::vector<T> all = buffer_.download();
    return std::vector<uint64_t>(all.begin() + kGuardWords, all.begin() + kGuardWords + num_bins_);
  }
  // "" when both guard regions still hold the poison, else which words were overwritten (the
  // graded call is over, as for fetch()).
  std::string guard_problem() const;
  // "" when the launcher's call on n bytes counted these bins in a kernel, else what happened
  // (no kernel launched; bins copied in from the host; device memory copied to the host; in
  // the simulator, host code touching device memory). For compare_bins.
  std::string work_problem(size_t n) const { return watch_.problem(n); }

 private:
  size_t num_bins_;
  DeviceBuffer<T> buffer_;
  OutputWatch watch_;  // declared after buffer_: stops watching before the buffer is freed
};

// The byte to fill the slack around an input with: the first value from
// DeviceInput::kSlackByte on (past 255, from 0) that the input's bytes do not contain, so a
// count of it can only come from outside the input; kSlackByte when all 256 values occur.
uint8_t slack_byte_for(const void* data, size_t bytes);

// Input staged on the device `offset` bytes past an aligned allocation. The slack before and
// after the n bytes is filled with slack_byte() (slack_byte_for the input): a kernel that reads
// past either end and counts what it finds breaks the bin sums and fails, and the diagnosis
// (CaseInfo::slack_byte) sees the reads in that bin.
class DeviceInput {
 public:
  static constexpr unsigned char kSlackByte = 0x5A;  // the slack's first choice
  static constexpr size_t kSlack = 64;
  DeviceInput(const void* h_data, size_t bytes, size_t offset);
  const uint8_t* get() const { return buffer_.get() + offset_; }
  uint8_t slack_byte() const { return slack_byte_; }

 private:
  DeviceBuffer<uint8_t> buffer_;
  size_t offset_;
  uint8_t slack_byte_;
};

// Input staged the way an application stages it: on a non-blocking stream
// (cudaStreamCreateWithFlags(cudaStreamNonBlocking)), from pinned host memory, with the copy
// still in flight when the launcher is called (construct the output first: the constructor
// waits for earlier setup work on stream 0, then queues the copy). Before the copy the device bytes hold
// kStaleByte, so a kernel that does not wait for the copy (launched on stream 0, which does not
// order itself after a non-blocking stream) counts stale bytes or has its bins zeroed under it.
class StreamedInput {
 public:
  static constexpr unsigned char kStaleByte = 0xC3;
  StreamedInput(const void* h_data, size_t bytes, size_t offset);
  ~StreamedInput();
  StreamedInput(const StreamedInput&) = delete;
  StreamedInput& operator=(const StreamedInput&) = delete;
  const uint8_t* get() const { return buffer_.get() + offset_; }
  cudaStream_t stream() const { return stream_; }
  // Waits for this stream only (never the whole device).
  void synchronize() const;

 private:
  DeviceBuffer<uint8_t> buffer_;
  size_t offset_;
  void* h_pinned_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

// A large input built on the device with cudaMemset, so the expected bins are known without a
// CPU pass: n elements of `element_bytes` bytes, `offset` bytes past an aligned allocation,
// in three runs of the byte values values[0..2] (every byte of an element set to the run's
// value), the run boundaries at odd places. Slack bytes (slack_byte_for the three values) around
// it.
class RunsInput {
 public:
  RunsInput(size_t n, size_t element_bytes, const uint8_t (&values)[3], size_t offset);
  const uint8_t* get() const { return buffer_.get() + offset_; }
  size_t run_length(int k) const { return run_[k]; }  // elements in run k (0..2)
  uint8_t value(int k) const { return values_[k]; }
  uint8_t slack_byte() const { return slack_byte_; }
  std::string describe() const;  // "three memset runs (17, 200, 3)"

 private:
  DeviceBuffer<uint8_t> buffer_;
  size_t offset_;
  size_t run_[3];
  uint8_t values_[3];
  uint8_t slack_byte_;
};

// Checks a head / units / tail split of n bytes into `width`-byte units (lab04, lab06) before
// anything is read through it: "" when head + width * units + tail == n with no part past n
// (computed without overflow), else a sentence saying what is wrong.
std::string split_problem(size_t head, size_t units, size_t tail, size_t n, size_t width);

// Runs one 256-bin launcher on h_in[0, n) staged at `offset` and grades it against the
// sequential reference. Returns "" on success, else the failure report; `shape`, where given,
// gets the shape the launcher returned.
std::string grade_byte_case(const Variant& variant, const uint8_t* h_in, size_t n, size_t offset,
                            const std::string& dataset, uint64_t seed,
                            LaunchShape* shape = nullptr);

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
