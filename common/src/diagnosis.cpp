// The likely causes of a wrong histogram (see diagnosis.hpp): likely_cause() reads the symptom
// from the bins, then names what in this kernel, by the parts it declares, can produce it.
#include "histo/diagnosis.hpp"

#include "histo/gpu.hpp"

#include <string>
#include <vector>

namespace histo {
namespace {

constexpr uint32_t kPoison32 = 0xA5A5A5A5u;             // GuardedBins' poison, and the bytes
constexpr uint64_t kPoison64 = 0xA5A5A5A5A5A5A5A5ull;   // the simulator fills shared memory with

bool near(uint64_t a, uint64_t b, uint64_t slack) { return (a > b ? a - b : b - a) <= slack; }

// Declared parts only (an undeclared kernel gets no kernel-specific cause).
bool has(const CaseInfo& info, unsigned parts) { return (info.parts & parts) != 0; }

// The launch ran in the CPU simulator (not a CPU replay of the grader's own).
bool simulated(const CaseInfo& info) { return kSimulator && !info.cpu_emulation; }

// A missing barrier can explain lost counts: the kernel has barriers, and it ran in the
// simulator without its hazard checks (they would have named the race and failed the launch).
bool barrier_suspect(const CaseInfo& info) {
  return simulated(info) && has(info, kBarriers) && !info.hazards_checked;
}

// The width of the aligned loads whose head and tail bytes the kernel counts apart: 16, 4, or 0
// for a kernel that reads one element at a time.
unsigned load_width(const CaseInfo& info) {
  if (info.may_have(kVectorLoads)) return 16;
  if (info.may_have(kWordLoads)) return 4;
  return 0;
}

std::string load_name(unsigned width) {
  return width == 16 ? "16-byte vector loads" : "4-byte word loads";
}

// Counters the kernel keeps in shared memory, which the block must zero before counting.
bool keeps_shared_counters(const CaseInfo& info) {
  return has(info, kSharedBins | kPacked8 | kSpills128);
}

std::string join_or(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i == 0 ? "" : i + 1 == parts.size() ? ", or " : ", ") + parts[i];
  return out;
}

std::string race_tool() {
  if (kThreadSanitizer) return "ThreadSanitizer's report (above, in this test's output) names the lines";
  return kSimulator ? "the sim-tsan preset names the lines: cmake --workflow --preset sim-tsan"
                    : "compute-sanitizer --tool racecheck names the lines";
}

// Where this kernel needs its barriers, in the words of its phases.
std::string barrier_places(const CaseInfo& info) {
  std::string where;
  if (has(info, kSharedBins))
    where = "zeroing not finished before counting (every shared bin must be zero before any "
            "thread adds to it) or counting not finished before the merge (every thread must "
            "have counted before the merge reads the bins)";
  else
    where = "counting not finished before the merge (every thread must have counted into its "
            "column before the merge reads a row across all the columns)";
  if (has(info, kPeriodicMerge))
    where += ", or merging not finished before the next round (every row must be merged and "
             "cleared before any thread counts into it again)";
  if (has(info, kSpills128)) where += ", or the spill bins not yet zeroed when a thread spills";
  return where;
}

// A missing or misplaced barrier as a cause, with the tool that finds the line.
std::string barrier_cause(const CaseInfo& info) {
  return "a missing or misplaced __syncthreads(): " + barrier_places(info) + " (" + race_tool() +
         ")";
}

// Why a missing barrier shows in the simulator at all.
const char* const kTurns =
    "the simulator runs a block's threads in turn, each up to its next barrier: a plain "
    "read-modify-write cannot lose counts there, but a missing barrier does";

// Shared-memory counters that were never zeroed.
std::string zeroing_cause(const CaseInfo& info) {
  std::string cause;
  if (has(info, kSharedBins))
    cause = "the block's shared bins were not all zeroed before counting (the block's threads "
            "zero every bin between them, then a __syncthreads())";
  else if (has(info, kPacked8))
    cause = "a thread's column of packed counters was not zeroed before counting (each thread "
            "zeroes all the rows of its own column first)";
  else
    cause = "the spill bins were not zeroed before counting";
  if (has(info, kSpills128) && has(info, kSharedBins | kPacked8))
    cause += ", or the spill bins were not";
  if (simulated(info))
    cause += ". The simulator fills shared memory with 0xA5 bytes before every block, so such "
             "counters start huge";
  return cause;
}

// An 8-bit counter that wrapped: what in this kernel lets a counter pass 255.
std::string wrap_cause(const CaseInfo& info, size_t bin, const std::vector<uint64_t>& expected,
                       const std::vector<uint64_t>& actual) {
  const uint64_t laps = (expected[bin] - actual[bin]) / 256;
  const std::string where =
      bin % 4 == 3 ? std::string(" (the top byte of its word: the carry left the word)")
                   : " and bin " + std::to_string(bin + 1) + " gained " +
                         std::to_string(actual[bin + 1] - expected[bin + 1]);
  std::string text = "bin " + std::to_string(bin) + " is short by " + std::to_string(laps) +
                     " x 256" + where +
                     ": an 8-bit packed counter passed 255, wrapped to 0 and carried into the next "
                     "byte. An atomic would not help";
  if (info.parts == 0)
    return text + "; keep every thread within the 255-count budget (the grid size) or merge or "
                  "spill the counters before they can reach 256";
  std::vector<std::string> causes;
  if (has(info, kPeriodicMerge)) {
    std::string merge = "a counter gained more than 255 between two merges: the merges come too "
                        "far apart, or a thread counted its next round before every row was "
                        "merged and cleared (the __syncthreads() after the merge";
    if (simulated(info)) merge += ": the simulator runs threads in turn, so without it a thread "
                                  "counts its next round before the others have merged";
    causes.push_back(merge + "; " + race_tool() + ")");
  }
  if (has(info, kSpills128))
    causes.push_back("a counter that reached 128 was not spilled at once (test its top bit after "
                     "every increment, spill 128 and clear the bit)");
  // A kernel that protects its counters (a periodic merge, the check) is let down by its
  // protection, not by its merge, which is the same for all of them.
  if (!has(info, kPeriodicMerge | kSpills128))
    causes.push_back("the merge added whole packed words: summed over 64 columns, a byte's "
                     "counts pass 255 and carry into the next byte, so split each word into "
                     "16-bit pairs (split_pairs) before adding, and unpack the sums");
  if (has(info, kGridBudget))
    causes.push_back("a thread counted more than the 8-bit budget allows (the grid is too small "
                     "for n, which the grid size's [cpu] test checks, or a thread counts past "
                     "its share)");
  return text + ". In this kernel: " + join_or(causes);
}

// An 8-bit counter that passed 255 wraps to 0 and carries 1 into the next byte of its word: the
// next value's counter. So the symptom is a bin short by a multiple of 256 whose neighbour
// gained the multiple (or, for the top byte of a word, nothing: the carry left it). Returns the
// bin, or -1.
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

std::string nothing_counted(const CaseInfo& info, uint64_t total) {
  const unsigned width = load_width(info);
  if (width && total < width && info.grid != 0)
    return "nothing was counted, and the input is only " + std::to_string(total) +
           " bytes: too short for one aligned " + std::to_string(width) +
           "-byte load, so all of it is head or tail (bytes counted one by one): are those "
           "counted?";
  if (info.grid == 0)
    return std::string(info.cpu_emulation ? "the grid size came out as 0 blocks"
                                          : "the launcher computed an empty grid (0 blocks)") +
           " for n = " + std::to_string(info.n) +
           ", so nothing ran: the grid-size function must return at least 1 block when n > 0";
  if (info.cpu_emulation)
    return "all bins are zero: the replayed threads counted nothing (check the index math and "
           "the loop bounds: does any thread get a non-empty range?)";
  if (has(info, kSharedBins) && barrier_suspect(info))
    return std::string("nothing reached the output, and ") + kTurns +
           ". In this kernel: a missing __syncthreads() after zeroing the shared bins (zeroing "
           "not finished before counting: each thread's counts land in bins that a later thread "
           "then zeroes; " +
           race_tool() + "). Otherwise the merge adds nothing to d_bins, or nothing is counted";
  if (has(info, kSharedBins))
    return "nothing reached the output: the merge adds nothing to d_bins, the bins are zeroed "
           "after the counting (a __syncthreads() missing between zeroing and counting), or "
           "nothing is counted (the kernel's body, the index math, the loop bounds)";
  if (has(info, kPacked8))
    return "nothing reached the output: the merge adds nothing to d_bins, or nothing is counted "
           "into the columns (the index math, the loop bounds)";
  return "all bins are zero: the kernel ran but counted nothing (is its body written, and does "
         "each thread reach its loop? check the index math and the loop bounds)";
}

// The bin the slack bytes around the input count in (CaseInfo::slack_byte), or none.
bool slack_bin_of(const CaseInfo& info, const std::vector<uint64_t>& expected,
                  const std::vector<uint64_t>& actual, size_t* bin) {
  if (info.slack_byte < 0) return false;
  *bin = size_t(info.slack_byte);
  return *bin < actual.size() && *bin < expected.size();
}

std::string too_many(const CaseInfo& info, const std::vector<uint64_t>& expected,
                     const std::vector<uint64_t>& actual) {
  size_t slack_bin = 0;
  const bool has_slack_bin = slack_bin_of(info, expected, actual, &slack_bin);
  const auto is_slack = [&](size_t b) { return has_slack_bin && b == slack_bin; };
  size_t from_nothing = 0, gained = 0;  // bins of absent values that gained; bins that gained
  uint64_t other_gains = 0;             // what the bins other than the slack's gained
  for (size_t b = 0; b < actual.size() && b < expected.size(); ++b) {
    gained += actual[b] > expected[b];
    from_nothing += !is_slack(b) && expected[b] == 0 && actual[b] > 0;
    if (!is_slack(b) && actual[b] > expected[b]) other_gains += actual[b] - expected[b];
  }
  if (keeps_shared_counters(info) && (from_nothing >= 2 || gained == actual.size()))
    return "more counts than elements, and " +
           (from_nothing >= 2
                ? std::to_string(from_nothing) + " bins of values absent from the input"
                : std::string("every bin")) +
           " gained counts: counters that started from garbage, not from zero: " +
           zeroing_cause(info);
  const unsigned width = load_width(info);
  const uint64_t slack_gain = has_slack_bin && actual[slack_bin] > expected[slack_bin]
                                  ? actual[slack_bin] - expected[slack_bin]
                                  : 0;
  // The slack byte is a value the input lacks, unless it holds all 256 (slack_byte_for): then
  // a gain in its bin is no sign of reads outside the input more than a gain in any bin.
  const bool slack_in_input = has_slack_bin && expected[slack_bin] > 0;
  const std::string outside =
      "bytes before d_in or at or after d_in + n were read " +
      (width ? "(head/tail handling of " + load_name(width) + "?)"
             : std::string("(a loop bound past n, or an index before the start?)"));
  const std::string slack_named =
      "bin " + std::to_string(slack_bin) + " (the byte stored just outside the input";
  // Only where that bin gained at least as much as all the others together: a kernel that
  // counts some elements twice and others never gains there too, as in any bin.
  if (slack_gain && !slack_in_input && slack_gain >= other_gains)
    return "more counts than elements, and " + slack_named +
           ", a value the input does not hold) gained some: " + outside +
           (has(info, kWarpAggregation)
                ? " Or lanes without an element were in the __match_any_sync mask: a lane past n "
                  "must not take part, or its leader adds a count for it"
                : "");
  std::vector<std::string> causes = {"do thread ranges overlap"};
  if (width)
    causes.push_back("is the head or tail counted by two threads, or also as part of a load");
  if (has(info, kWarpAggregation))
    causes.push_back("does a group have more than one leader, or its leader add more than "
                     "group_count(peers), or were lanes without an element in the "
                     "__match_any_sync mask");
  if (has(info, kRunAggregation))
    causes.push_back("is a run added as longer than it is (run_length)");
  if (has(info, kPeriodicMerge)) causes.push_back("is a row merged without being cleared");
  const std::string twice =
      "more counts than elements: some elements were counted twice (" + join_or(causes) + "?)";
  if (!slack_gain) return twice;
  if (slack_in_input)
    return twice + ", or " + outside + ": " + slack_named +
           ") gained, but the input holds that value too: its gain may come from either";
  return twice + ". And " + slack_named + ", a value the input does not hold) gained " +
         std::to_string(slack_gain) + ": " + outside;
}

std::string too_few(const CaseInfo& info, uint64_t total, uint64_t sum) {
  const bool sequential = info.cpu_emulation || kSimulator;
  const unsigned width = load_width(info);
  if (total - sum < 16) {
    std::string text =
        width ? "a few counts missing: the last elements (the tail, when n is not a multiple of "
                "the block or load width) or the first ones (an unaligned head) are skipped?"
              : "a few counts missing: the last elements (a loop bound that stops early) or the "
                "first ones are skipped?";
    if (has(info, kWarpAggregation))
      text += " Or a group whose leader never adds (the group's lowest lane, leader_of(peers), "
              "adds group_count(peers))?";
    if (barrier_suspect(info))
      text += " Or " + barrier_cause(info) +
              ". In the simulator a block's threads take turns, each up to its next barrier, so "
              "a missing barrier loses counts";
    else if (kSimulator && info.parts == 0)
      text += " Or a merge that ran before every thread had counted (a missing __syncthreads: "
              "the simulator runs threads in turn)";
    return text;
  }
  if (barrier_suspect(info))
    return std::string("counts were lost, and ") + kTurns + ". In this kernel: " +
           barrier_cause(info) + ". Otherwise: elements never visited (index math, loop bounds) "
           "or a merge that drops bins";
  if (info.parts == 0) {
    if (sequential)
      return std::string("counts were lost, and ") +
             (info.cpu_emulation ? "this test replays the threads one after another on the CPU"
                                 : "the CPU simulator runs the threads one at a time") +
             ", so no race can lose them: elements never visited (index math, loop bounds, "
             "ranges that leave gaps) or a merge that drops bins";
    return "counts were lost: a counter that several threads update with a plain read-modify-"
           "write (use an atomic there), elements never visited (index math, loop bounds), or a "
           "merge that drops bins";
  }
  std::vector<std::string> causes;
  if (!sequential && has(info, kGlobalAtomics | kSharedBins))
    causes.push_back("a counter that several threads update with a plain read-modify-write "
                     "(use an atomic there)");
  if (!sequential && keeps_shared_counters(info))
    causes.push_back("a merge that adds to d_bins without an atomic (other blocks add to the "
                     "same bins)");
  if (!sequential && has(info, kBarriers)) causes.push_back(barrier_cause(info));
  if (has(info, kWarpAggregation))
    causes.push_back("a leader that adds less than its group's count, or lanes left out of "
                     "every group");
  causes.push_back("elements never visited (index math, loop bounds, ranges that leave gaps)");
  if (keeps_shared_counters(info)) causes.push_back("a merge that drops bins");
  std::string text = "counts were lost";
  if (simulated(info) && info.hazards_checked)
    text += ", and the simulator's hazard checks found every access of the launch in order";
  else if (sequential)
    text += std::string(", and ") +
            (info.cpu_emulation ? "this test replays the threads one after another on the CPU"
                                : "the CPU simulator runs the threads one at a time") +
            ", so no race can lose them";
  return text + ": " + join_or(causes);
}

}  // namespace

std::string likely_cause(const std::vector<uint64_t>& expected, const std::vector<uint64_t>& actual,
                         uint64_t total, const CaseInfo& info) {
  uint64_t sum = 0;
  size_t poisoned = 0, impossible = 0;
  for (uint64_t a : actual) {
    sum += a;
    poisoned += (a == kPoison32 || a == kPoison64);
    impossible += a > total;
  }
  if (poisoned == actual.size())
    return "every bin still holds the poison pattern 0xA5A5...: the output was never written "
           "(the launcher must zero it, on its stream, before counting)";
  if (keeps_shared_counters(info) && (poisoned > 0 || impossible > 0)) {
    const std::string what =
        impossible > 0
            ? std::to_string(impossible) + " bins hold more counts than the input has elements" +
                  (poisoned ? " (" + std::to_string(poisoned) + " of them exactly 0xA5A5A5A5)"
                            : "")
            : std::to_string(poisoned) + " bins hold exactly 0xA5A5A5A5";
    return what + ", so the kernel added counters that were never zeroed: " + zeroing_cause(info) +
           "; or it merged a bin into the output more than once (each bin is merged by exactly "
           "one thread of the block)";
  }
  if (poisoned > 0)
    return std::to_string(poisoned) + " bins still hold the poison pattern 0xA5A5...: the "
           "output must be zeroed (overwritten) before counting";
  if (sum == 0 && total > 0) return nothing_counted(info, total);
  bool doubled = total > 0;
  for (size_t b = 0; b < actual.size() && doubled; ++b) doubled = actual[b] == 2 * expected[b];
  if (doubled) return "every count is doubled: the kernel counted its input twice";
  if (has(info, kSpills128) && sum + 128 <= total) {
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
  if (info.may_have(kPacked8)) {
    const long long wrapped = wrapped_counter_bin(expected, actual);
    if (wrapped >= 0) return wrap_cause(info, size_t(wrapped), expected, actual);
  }
  if (total >= 64 && near(sum * 4, total, 16)) {
    std::vector<std::string> causes;
    if (info.may_have(kWordLoads | kVectorLoads))
      causes.push_back("only one byte of each 32-bit word counted");
    if (has(info, kPacked8))
      causes.push_back("only one of the four 8-bit counters of each packed word reached the "
                       "output (unpack, or the merge's four adds)");
    if (!causes.empty()) return "the sum is about n/4: " + join_or(causes) + "?";
  }
  if (total >= 256 && near(sum * 16, total, 64) && info.may_have(kVectorLoads))
    return "the sum is about n/16: only one byte of each 16-byte vector counted?";
  if (sum > total) return too_many(info, expected, actual);
  if (sum < total) return too_few(info, total, sum);
  if (has(info, kPacked8))
    return "the right number of counts in the wrong bins: check the value -> counter mapping "
           "(packed_row, packed_shift) and the byte order when unpacking";
  return "the right number of counts in the wrong bins: check the value -> bin mapping (and the "
         "byte order when unpacking words)";
}

}  // namespace histo
