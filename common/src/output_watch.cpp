#include "histo/output_watch.hpp"

#include <atomic>

#ifdef HISTO_SIM
#include "histo_sim_host_writes.h"
#endif

namespace histo {
namespace {
std::atomic<unsigned long long> g_kernel_launches{0};
}  // namespace

void count_kernel_launch() { g_kernel_launches.fetch_add(1, std::memory_order_relaxed); }

unsigned long long kernel_launches() { return g_kernel_launches.load(std::memory_order_relaxed); }

void OutputWatch::start(const void* d_begin, size_t bytes) {
#ifdef HISTO_SIM
  if (d_begin_ && d_begin_ != d_begin) histo_sim::unwatch_host_writes(d_begin_);
  histo_sim::watch_host_writes(d_begin, bytes);
  // The range was just poisoned (GuardedBins): for the initcheck, the poison is garbage.
  histo_sim::poisoned(d_begin, bytes);
#else
  (void)bytes;
#endif
  d_begin_ = d_begin;
  launches_at_start_ = kernel_launches();
}

OutputWatch::~OutputWatch() {
#ifdef HISTO_SIM
  if (d_begin_) histo_sim::unwatch_host_writes(d_begin_);
#endif
}

std::string OutputWatch::problem(size_t n) const {
  std::string what;
  if (n > 0 && kernel_launches() == launches_at_start_)
    what = "no kernel was launched (through histo::launch) for n = " + std::to_string(n) +
           " bytes: the histogram must be counted on the device, by the lab's kernel launched "
           "with histo::launch as the provided code does, not on the host";
#ifdef HISTO_SIM
  const std::string writes = histo_sim::host_writes_into(d_begin_);
  if (!writes.empty())
    what += std::string(what.empty() ? "" : "; and ") + "the host wrote into the output: " +
            writes + " into d_bins after it was poisoned (only zeroing, as histo::prepare_output "
            "does, may touch it): the bins must be counted by the kernel, not copied in";
#endif
  return what;
}

}  // namespace histo
