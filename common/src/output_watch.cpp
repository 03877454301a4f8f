#include "histo/output_watch.hpp"

#ifdef HISTO_SIM
#include "histo_sim_host_writes.h"
#endif

namespace histo {
namespace {

// What the host did during a watched call: the simulator's runtime sees the copies, the memsets
// and host code's own accesses of device memory; a GPU build's wrappers (copy_watch.cpp) see
// the copies and memsets.
#ifdef HISTO_SIM
using Activity = histo_sim::HostActivity;
Activity activity_of(const void* d_begin) { return histo_sim::host_activity(d_begin); }
#else
struct Activity : CopyActivity {
  unsigned host_accesses = 0;
  std::string first_access;
};
Activity activity_of(const void* d_begin) {
  Activity seen;
  static_cast<CopyActivity&>(seen) = copy_activity(d_begin);
  return seen;
}
#endif

}  // namespace

bool host_accesses_caught() {
#ifdef HISTO_SIM
  return histo_sim::host_accesses_caught();
#else
  return false;
#endif
}

void OutputWatch::start(const void* d_begin, size_t bytes) {
#ifdef HISTO_SIM
  if (d_begin_ && d_begin_ != d_begin) histo_sim::unwatch_host_writes(d_begin_);
  histo_sim::watch_host_writes(d_begin, bytes);
  // The range was just poisoned (GuardedBins): for the initcheck, the poison is garbage.
  histo_sim::poisoned(d_begin, bytes);
#else
  if (d_begin_ && d_begin_ != d_begin) unwatch_copies(d_begin_);
  watch_copies(d_begin, bytes);
#endif
  d_begin_ = d_begin;
  launches_at_start_ = kernel_launches();
}

void OutputWatch::end_call() const {
  if (!d_begin_) return;
#ifdef HISTO_SIM
  histo_sim::end_graded_call(d_begin_);
#else
  end_watched_call(d_begin_);
#endif
}

OutputWatch::~OutputWatch() {
  if (!d_begin_) return;
#ifdef HISTO_SIM
  histo_sim::unwatch_host_writes(d_begin_);
#else
  unwatch_copies(d_begin_);
#endif
}

std::string OutputWatch::problem(size_t n) const {
  std::string what;
  const auto add = [&what](const std::string& sentence) {
    what += (what.empty() ? "" : "; and ") + sentence;
  };
  if (n > 0 && kernel_launches() == launches_at_start_)
    add("no kernel was launched for n = " + std::to_string(n) +
        " bytes: the histogram must be counted on the device, by the lab's kernel launched "
        "with <<<...>>> as the provided code does, not on the host");
  const Activity seen = activity_of(d_begin_);
  if (seen.copies_in || seen.memsets_in) {
    std::string writes;
    if (seen.copies_in) writes = std::to_string(seen.copies_in) + " cudaMemcpy/cudaMemcpyAsync";
    if (seen.memsets_in)
      writes += (writes.empty() ? "" : " and ") + std::to_string(seen.memsets_in) + " nonzero cudaMemset";
    add("the host wrote into the output: " + writes + " (" + std::to_string(seen.bytes_in) +
        " bytes) into d_bins after it was poisoned (only zeroing, as histo::prepare_output "
        "does, may touch it): the bins must be counted by the kernel, not copied in");
  }
  if (seen.copies_out)
    add("the launcher copied " + std::to_string(seen.bytes_out) + " bytes of device memory to "
        "the host during the graded call (" + std::to_string(seen.copies_out) +
        " cudaMemcpy/cudaMemcpyAsync to host memory): the histogram must be counted on the "
        "device, by the lab's kernel, not on the host from a copy of the input");
  if (seen.host_accesses)
    add("host code touched device memory outside the CUDA runtime's calls during the graded "
        "call (" + seen.first_access + "): on a GPU that crashes; the histogram must be counted "
        "by the lab's kernel, not by host code reading d_in or writing d_bins");
  return what;
}

}  // namespace histo
