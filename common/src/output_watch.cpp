#include "histo/output_watch.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>

#ifdef HISTO_SIM
#include "histo_sim_host_writes.h"
#endif

namespace histo {
namespace {

// What the host did during a watched call.
struct Activity {
  unsigned copies_in = 0, memsets_in = 0;  // into the watched range
  size_t bytes_in = 0;
  unsigned copies_out = 0;                 // device memory copied to the host during the call
  size_t bytes_out = 0;
  unsigned host_accesses = 0;              // the simulator: host code touching device memory
  std::string first_access;
};

#ifndef HISTO_SIM
// GPU builds: the watched ranges, fed by the graders' wrappers of the CUDA runtime.
struct Watched {
  size_t bytes = 0;
  bool in_call = true;
  Activity seen;
};
std::mutex g_watch_mutex;
std::map<uintptr_t, Watched> g_watched;
#endif

Activity activity_of(const void* d_begin) {
#ifdef HISTO_SIM
  const histo_sim::HostActivity a = histo_sim::host_activity(d_begin);
  Activity seen;
  seen.copies_in = a.copies_in;
  seen.memsets_in = a.memsets_in;
  seen.bytes_in = a.bytes_in;
  seen.copies_out = a.copies_out;
  seen.bytes_out = a.bytes_out;
  seen.host_accesses = a.host_accesses;
  seen.first_access = a.first_access;
  return seen;
#else
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  const auto it = g_watched.find(reinterpret_cast<uintptr_t>(d_begin));
  return it == g_watched.end() ? Activity{} : it->second.seen;
#endif
}

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
  {
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    if (d_begin_ && d_begin_ != d_begin) g_watched.erase(reinterpret_cast<uintptr_t>(d_begin_));
    g_watched[reinterpret_cast<uintptr_t>(d_begin)] = Watched{bytes};
  }
#endif
  d_begin_ = d_begin;
  launches_at_start_ = kernel_launches();
}

void OutputWatch::end_call() const {
  if (!d_begin_) return;
#ifdef HISTO_SIM
  histo_sim::end_graded_call(d_begin_);
#else
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  const auto it = g_watched.find(reinterpret_cast<uintptr_t>(d_begin_));
  if (it != g_watched.end()) it->second.in_call = false;
#endif
}

OutputWatch::~OutputWatch() {
  if (!d_begin_) return;
#ifdef HISTO_SIM
  histo_sim::unwatch_host_writes(d_begin_);
#else
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  g_watched.erase(reinterpret_cast<uintptr_t>(d_begin_));
#endif
}

std::string OutputWatch::problem(size_t n) const {
  std::string what;
  const auto add = [&what](const std::string& sentence) {
    what += (what.empty() ? "" : "; and ") + sentence;
  };
  if (n > 0 && kernel_launches() == launches_at_start_)
    add("no kernel was launched (through histo::launch) for n = " + std::to_string(n) +
        " bytes: the histogram must be counted on the device, by the lab's kernel launched "
        "with histo::launch as the provided code does, not on the host");
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

#ifndef HISTO_SIM
void note_runtime_copy(const void* dst, const void* src, size_t bytes, bool to_host) {
  if (!bytes) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(dst), from = reinterpret_cast<uintptr_t>(src);
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  // Reading back a watched output is a grader's own (with two calls in flight, reading one
  // call's bins is no copy of the other's input).
  if (to_host)
    for (const auto& [start, w] : g_watched)
      if (from < start + w.bytes && start < from + bytes) to_host = false;
  for (auto& [start, w] : g_watched) {
    if (to_host && w.in_call) {
      w.seen.copies_out += 1;
      w.seen.bytes_out += bytes;
    }
    if (a < start + w.bytes && start < a + bytes) {
      w.seen.copies_in += 1;
      w.seen.bytes_in += std::min(a + bytes, start + w.bytes) - std::max(a, start);
    }
  }
}

void note_runtime_memset(const void* dst, size_t bytes, int value) {
  if (!bytes || !(value & 0xFF)) return;  // zeroing cannot put a count into a bin
  const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  for (auto& [start, w] : g_watched) {
    if (a < start + w.bytes && start < a + bytes) {
      w.seen.memsets_in += 1;
      w.seen.bytes_in += std::min(a + bytes, start + w.bytes) - std::max(a, start);
    }
  }
}
#else
// The simulator's runtime sees its copies itself.
void note_runtime_copy(const void*, const void*, size_t, bool) {}
void note_runtime_memset(const void*, size_t, int) {}
#endif

}  // namespace histo
