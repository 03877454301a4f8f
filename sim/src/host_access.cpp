// Host code touching device memory during a graded call (internal.hpp, "Host access").
//
// On a GPU the host cannot read or write cudaMalloc'd memory: a launcher that counts on the
// host must copy the input over (cudaMemcpy, which the grading hooks see). In the simulator the
// "device" is host memory, so a launcher could read d_in or write d_bins through the pointer.
// While a grader watches a graded call, every device allocation is therefore protected from
// the host (mprotect PROT_NONE on its pages); the runtime's own calls and kernel launches lift
// the protection while they run (DeviceAccess). A host access in between faults: the SIGSEGV
// handler here records it (address, instruction, read or write), gives the allocation back to
// the host so the program goes on, and the grading hook reports it as host counting.
//
// Under AddressSanitizer and ThreadSanitizer (the sim-asan and sim-tsan presets), which handle
// faults and shadow memory their own way, nothing is protected; the copies are still seen.
#include "histo_sim_host_writes.h"
#include "internal.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#if defined(HISTO_SIM_TSAN) || defined(HISTO_SIM_ASAN)
#define HISTO_SIM_NO_PROTECTION 1
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HISTO_SIM_NO_PROTECTION 1
#endif

namespace histo_sim {
namespace {

// The allocations, in a fixed table the fault handler can read without a lock (entries change
// only under g_access_mutex, while no host code that could fault runs on them).
constexpr int kMaxAllocations = 4096;
struct Pages {
  std::atomic<uintptr_t> begin{0};
  std::atomic<size_t> bytes{0};
  std::atomic<bool> locked{false};  // PROT_NONE now
};
Pages g_pages[kMaxAllocations];

std::mutex g_access_mutex;
int g_watching = 0;  // graded calls being watched (protection wanted)
int g_inside = 0;    // runtime calls and launches running now (protection lifted)

// Host accesses seen, numbered from 0; the last kAccessLog of them kept.
constexpr int kAccessLog = 64;
std::atomic<uint64_t> g_accesses{0};
HostAccess g_access_log[kAccessLog];

std::atomic<int> g_used{0};  // entries [0, g_used) of g_pages were ever used
struct sigaction g_previous;

void set_locked(Pages& p, bool locked) {
  const uintptr_t begin = p.begin.load();
  if (!begin || p.locked.load() == locked) return;
  mprotect(reinterpret_cast<void*>(begin), p.bytes.load(), locked ? PROT_NONE : PROT_READ | PROT_WRITE);
  p.locked.store(locked);
}

void set_all_locked(bool locked) {
  for (int i = 0, n = g_used.load(); i < n; ++i) set_locked(g_pages[i], locked);
}

void on_fault(int signal, siginfo_t* info, void* context) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0, n = g_used.load(); i < n; ++i) {
    Pages& p = g_pages[i];
    const uintptr_t begin = p.begin.load();
    if (!begin || address < begin || address >= begin + p.bytes.load()) continue;
    // Lifted by another thread since the fault (a runtime call began): the access can go on.
    if (!p.locked.load()) return;
    const uint64_t seq = g_accesses.fetch_add(1);
    HostAccess& entry = g_access_log[seq % kAccessLog];
    entry.address = address;
    entry.pc = 0;
    entry.write = false;
#if defined(__x86_64__)
    const auto* uc = static_cast<const ucontext_t*>(context);
    entry.pc = uintptr_t(uc->uc_mcontext.gregs[REG_RIP]);
    entry.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#elif defined(__aarch64__)
    entry.pc = uintptr_t(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
    (void)context;
#endif
    // The host goes on with this allocation; the next runtime call protects it again.
    mprotect(reinterpret_cast<void*>(begin), p.bytes.load(), PROT_READ | PROT_WRITE);
    p.locked.store(false);
    return;
  }
  // Not a protected allocation: the fault is a real one, for whoever handled it before.
  sigaction(signal, &g_previous, nullptr);
}

// (Re)installs the handler: Catch2 installs its own for each test case and restores what it
// found afterwards, so this runs whenever a watch starts.
void install_handler() {
  struct sigaction current;
  sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) && current.sa_sigaction == on_fault) return;
  struct sigaction ours;
  std::memset(&ours, 0, sizeof ours);
  ours.sa_sigaction = on_fault;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&ours.sa_mask);
  sigaction(SIGSEGV, &ours, &g_previous);
}

}  // namespace

size_t device_page_bytes() {
  static const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return page;
}

void device_pages_allocated(void* begin, size_t bytes) {
#ifndef HISTO_SIM_NO_PROTECTION
  std::lock_guard<std::mutex> lock(g_access_mutex);
  for (int i = 0; i < kMaxAllocations; ++i) {
    Pages& p = g_pages[i];
    if (p.begin.load()) continue;
    p.bytes.store(bytes);
    p.locked.store(false);
    p.begin.store(reinterpret_cast<uintptr_t>(begin));
    if (i >= g_used.load()) g_used.store(i + 1);
    if (g_watching && !g_inside) set_locked(p, true);
    return;
  }  // more allocations than the table holds: the rest stay unprotected
#else
  (void)begin;
  (void)bytes;
#endif
}

void device_pages_freed(void* begin) {
  std::lock_guard<std::mutex> lock(g_access_mutex);
  for (int i = 0, n = g_used.load(); i < n; ++i) {
    Pages& p = g_pages[i];
    if (p.begin.load() != reinterpret_cast<uintptr_t>(begin)) continue;
    set_locked(p, false);
    p.begin.store(0);
    return;
  }
}

DeviceAccess::DeviceAccess() {
  std::lock_guard<std::mutex> lock(g_access_mutex);
  if (g_inside++ == 0 && g_watching) set_all_locked(false);
}

DeviceAccess::~DeviceAccess() {
  std::lock_guard<std::mutex> lock(g_access_mutex);
  if (--g_inside == 0 && g_watching) set_all_locked(true);
}

void protect_device_memory(bool on) {
#ifndef HISTO_SIM_NO_PROTECTION
  std::lock_guard<std::mutex> lock(g_access_mutex);
  if (on) {
    install_handler();
    if (g_watching++ == 0 && !g_inside) set_all_locked(true);
  } else if (g_watching > 0 && --g_watching == 0) {
    set_all_locked(false);
  }
#else
  (void)on;
#endif
}

uint64_t host_accesses() { return g_accesses.load(); }

bool host_accesses_caught() {
#ifndef HISTO_SIM_NO_PROTECTION
  return true;
#else
  return false;
#endif
}

HostAccess host_access(uint64_t index) {
  const uint64_t seen = g_accesses.load();
  if (seen == 0) return {};
  // The entry may have been overwritten by a later access: the oldest one kept instead.
  if (index + kAccessLog < seen) index = seen - kAccessLog;
  return g_access_log[index % kAccessLog];
}

}  // namespace histo_sim
