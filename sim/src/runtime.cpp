// The CPU simulator's CUDA runtime API: what the launchers, graders and tools call, on host
// memory. The simulated device is small on purpose (2 SMs, 1 GiB), so grids stay small enough
// to run on a CPU; the graders' tests on inputs of gigabytes raise it (LargeInputs), their
// memset runs sharing pages (device_pages.cpp).
//
// Streams. Kernels run when they are launched. Asynchronous copies and memsets on a stream
// created with cudaStreamNonBlocking are deferred: they run, in order, just before the next
// work on that same stream, or when it (or the device, or an event on it) is synchronized. So
// work that ignores the stream it was given, and runs on stream 0 instead, does not wait for
// them, as on a GPU. Legacy stream 0 work first drains every blocking stream.
#include <cuda_runtime.h>

#include "histo_sim/gpus.hpp"
#include "internal.hpp"
#include "histo_sim_host_writes.h"

#include <execinfo.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>

#include <functional>
#include <vector>

struct CUstream_st {
  unsigned flags = 0;
  std::vector<std::function<void()>> deferred;  // non-blocking streams only
};
struct CUevent_st {
  std::chrono::steady_clock::time_point time;
  bool recorded = false;
};

namespace histo_sim {
namespace {

// The shape (SMs, shared memory, threads per SM) is the GPU the simulator stands in for
// (histo_sim/gpus.hpp); memory is the host's, so it stays 1 GiB whatever the shape (the cost
// model's report raises it for the input it predicts: set_device_memory).
size_t g_global_bytes = size_t(1) << 30;
constexpr size_t kSharedPerBlock = 48 * 1024;
constexpr size_t kAlignment = 256;  // cudaMalloc's alignment

// One cudaMalloc allocation, or one section of __device__ or __constant__ variables.
struct Allocation {
  size_t bytes = 0;
  std::unique_ptr<DeviceShadow> shadow;  // its written bytes (initcheck_enabled() only)
  void* callers[8] = {};                 // cudaMalloc's call stack, to name it in reports
  int depth = 0;
  const char* symbols = nullptr;  // "__device__" or "__constant__": a section of variables
  bool readonly = false;          // const variables: the host cannot copy into them
};

std::mutex g_mutex;
std::map<uintptr_t, Allocation> g_device;  // device allocations: start -> allocation
std::map<uintptr_t, size_t> g_pinned;  // cudaMallocHost allocations: start -> bytes
size_t g_device_used = 0;
std::set<CUstream_st*> g_streams;
std::map<const void*, size_t> g_dynamic_limits;
std::map<const void*, size_t> g_static_shared;  // learned from a counted launch (counters.cpp)
cudaError_t g_pending = cudaSuccess;  // reported by cudaGetLastError and synchronizing calls
// A kernel that failed while it ran (a hazard, a deadlock): reported once, by the first
// cudaGetLastError or synchronizing call after its launch, as a GPU reports a fault in a kernel
// (and so never blamed on a later launch).
cudaError_t g_fault = cudaSuccess;
// A kernel touched an illegal address: as on a GPU, every later synchronizing call,
// cudaGetLastError, copy and launch returns it, until cudaDeviceReset.
cudaError_t g_sticky = cudaSuccess;
std::map<int, std::string> g_detail;  // the latest detail per error code

// The sections of __device__ and __constant__ variables (sim/include/cuda_runtime.h): the
// linker marks where each begins and ends; a program without one has neither symbol.
extern "C" {
extern char __start_histo_device[] __attribute__((weak));
extern char __stop_histo_device[] __attribute__((weak));
extern char __start_histo_device_ro[] __attribute__((weak));
extern char __stop_histo_device_ro[] __attribute__((weak));
extern char __start_histo_constant[] __attribute__((weak));
extern char __stop_histo_constant[] __attribute__((weak));
extern char __start_histo_constant_ro[] __attribute__((weak));
extern char __stop_histo_constant_ro[] __attribute__((weak));
}

// Registers the variables' sections as device memory, once (caller holds g_mutex). They were
// initialized (or zeroed) as the program started, as a GPU's are when the module loads: written.
void register_symbols() {
  static bool done = false;
  if (done) return;
  done = true;
  const struct {
    char *begin, *end;
    const char* space;
    bool readonly;
  } sections[] = {{__start_histo_device, __stop_histo_device, "__device__", false},
                  {__start_histo_device_ro, __stop_histo_device_ro, "__device__", true},
                  {__start_histo_constant, __stop_histo_constant, "__constant__", false},
                  {__start_histo_constant_ro, __stop_histo_constant_ro, "__constant__", true}};
  for (const auto& s : sections) {
    if (!s.begin || !s.end || s.end <= s.begin) continue;
    Allocation& a = g_device[reinterpret_cast<uintptr_t>(s.begin)];
    a.bytes = size_t(s.end - s.begin);
    a.symbols = s.space;
    a.readonly = s.readonly;
  }
}

// The allocation that contains p, or g_device.end().
std::map<uintptr_t, Allocation>::iterator find_device(const void* p) {
  register_symbols();
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = g_device.upper_bound(a);
  if (it == g_device.begin()) return g_device.end();
  --it;
  return a < it->first + std::max<size_t>(it->second.bytes, 1) ? it : g_device.end();
}

// Device bytes [p, p + bytes) were written by the host's copy or memset (caller holds g_mutex).
void note_device_write(const void* p, size_t bytes) {
  const auto it = find_device(p);
  if (it != g_device.end() && it->second.shadow)
    it->second.shadow->written(reinterpret_cast<uintptr_t>(p), bytes);
}

cudaError_t fail(cudaError_t code, const std::string& detail) {
  g_detail[code] = detail;
  return code;
}

// Runs a stream's deferred work, in order (without holding the lock: the work takes it).
void drain(cudaStream_t stream) {
  std::vector<std::function<void()>> work;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (!g_streams.count(stream)) return;
    work.swap(stream->deferred);
  }
  for (auto& w : work) w();
}

void drain_all(bool blocking_only) {
  std::vector<cudaStream_t> streams;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (cudaStream_t s : g_streams)
      if (!blocking_only || !(s->flags & cudaStreamNonBlocking)) streams.push_back(s);
  }
  for (cudaStream_t s : streams) drain(s);
}

bool is_legacy(cudaStream_t s) { return s == nullptr || s == cudaStreamLegacy; }

// True when work on `stream` is deferred (and queued by the caller).
bool defers(cudaStream_t stream) {
  return !is_legacy(stream) && stream != cudaStreamPerThread &&
         (stream->flags & cudaStreamNonBlocking);
}

cudaError_t peek_pending() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_sticky != cudaSuccess) return g_sticky;
  return g_fault != cudaSuccess ? g_fault : g_pending;
}

// What a synchronizing call returns: a fault, once; else a pending launch error (not cleared).
cudaError_t synchronized() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const cudaError_t fault = g_fault;
  g_fault = cudaSuccess;
  if (g_sticky != cudaSuccess) return g_sticky;
  return fault != cudaSuccess ? fault : g_pending;
}

}  // namespace

void set_launch_error(cudaError_t code, const std::string& detail) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_detail[code] = detail;
  if (g_pending == cudaSuccess) g_pending = code;
}

// A kernel's fault whose text no cudaGetErrorString has returned yet: printed at exit, so that a
// program that checks only the code, or nothing, still shows why its launch failed (a grader
// shows it in its failure message instead: printed once, never twice).
std::string g_unsaid;

void say_unsaid_at_exit() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_unsaid.empty())
    std::fprintf(stderr, "%s\n(the program did not ask why: no cudaGetErrorString of that error)\n",
                 g_unsaid.c_str());
}

void set_launch_fault(cudaError_t code, const std::string& detail) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if ((code == cudaErrorIllegalAddress || code == cudaErrorAssert) && g_sticky == cudaSuccess) {
    g_sticky = code;
    g_detail[code] = detail;
  }
  if (g_fault != cudaSuccess) return;  // the first fault is the one reported
  g_detail[code] = detail;
  g_fault = code;
  static const bool registered = std::atexit(say_unsaid_at_exit) == 0;
  (void)registered;
  g_unsaid = detail;
}

cudaError_t sticky_error() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_sticky;
}

size_t dynamic_shared_limit(const void* kernel) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_dynamic_limits.find(kernel);
  return it == g_dynamic_limits.end() ? kSharedPerBlock : it->second;
}

void before_stream_work(cudaStream_t stream) {
  if (is_legacy(stream))
    drain_all(true);
  else if (stream != cudaStreamPerThread)
    drain(stream);
}

std::vector<DeviceRange> device_ranges() {
  std::lock_guard<std::mutex> lock(g_mutex);
  register_symbols();
  std::vector<DeviceRange> ranges;
  for (const auto& [start, a] : g_device)
    ranges.push_back({start, start + std::max<size_t>(a.bytes, 1), a.shadow.get(),
                      a.symbols && std::strcmp(a.symbols, "__constant__") == 0});
  for (const auto& [start, bytes] : g_pinned)
    ranges.push_back({start, start + std::max<size_t>(bytes, 1), nullptr, false});
  std::sort(ranges.begin(), ranges.end(),
            [](const DeviceRange& x, const DeviceRange& y) { return x.begin < y.begin; });
  return ranges;
}

bool initcheck_enabled() {
  static const bool on = counters_available() && !hazards_switched_off();
  return on && !large_inputs_active();
}

void assume_all_written() {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (auto& [start, a] : g_device)
    if (a.shadow) a.shadow->written(start, a.bytes);
}

// ---- The shadow of written bytes ----------------------------------------------------------------
namespace {
// Bits [lo, hi) of word w of a bit vector, as a mask.
uint64_t bit_mask(size_t lo, size_t hi, size_t w) {
  const size_t from = std::max(lo, w * 64), to = std::min(hi, w * 64 + 64);
  if (from >= to) return 0;
  const size_t width = to - from;
  return (width == 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1)) << (from - w * 64);
}
}  // namespace

void DeviceShadow::written(uintptr_t address, size_t n) {
  if (unwritten == 0 || !n) return;
  const size_t lo = address > begin ? address - begin : 0;
  const size_t hi = std::min(bytes, address + n - begin);
  if (lo >= hi) return;
  if (bits.empty()) {  // nothing written yet
    if (lo == 0 && hi == bytes) {
      unwritten = 0;
      return;
    }
    bits.assign((bytes + 63) / 64, 0);
  }
  for (size_t w = lo / 64; w <= (hi - 1) / 64; ++w) {
    const uint64_t mask = bit_mask(lo, hi, w);
    unwritten -= size_t(__builtin_popcountll(mask & ~bits[w]));
    bits[w] |= mask;
  }
  if (unwritten == 0) std::vector<uint64_t>().swap(bits);
}

void DeviceShadow::forget(uintptr_t address, size_t n) {
  poisoned = true;
  const size_t lo = address > begin ? address - begin : 0;
  const size_t hi = std::min(bytes, address + n - begin);
  if (lo >= hi || unwritten == bytes) return;
  if (lo == 0 && hi == bytes) {
    unwritten = bytes;
    std::vector<uint64_t>().swap(bits);
    return;
  }
  if (bits.empty()) {  // everything written
    bits.assign((bytes + 63) / 64, 0);
    for (size_t w = 0; w < bits.size(); ++w) bits[w] = bit_mask(0, bytes, w);
  }
  for (size_t w = lo / 64; w <= (hi - 1) / 64; ++w) {
    const uint64_t mask = bit_mask(lo, hi, w);
    unwritten += size_t(__builtin_popcountll(mask & bits[w]));
    bits[w] &= ~mask;
  }
}

uintptr_t DeviceShadow::first_unwritten(uintptr_t address, size_t n) const {
  if (unwritten == 0) return ~uintptr_t(0);
  const size_t lo = address > begin ? address - begin : 0;
  const size_t hi = std::min(bytes, address + n - begin);
  if (lo >= hi) return ~uintptr_t(0);
  if (bits.empty()) return begin + lo;
  for (size_t w = lo / 64; w <= (hi - 1) / 64; ++w)
    if (const uint64_t missing = bit_mask(lo, hi, w) & ~bits[w])
      return begin + w * 64 + size_t(__builtin_ctzll(missing));
  return ~uintptr_t(0);
}

void remember_static_shared(const std::vector<LaunchCounters>& launches) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (const LaunchCounters& c : launches)
    if (c.static_shared_bytes) g_static_shared[c.kernel] = c.static_shared_bytes;
}

std::string describe_device_address(uint64_t address) {
  uintptr_t start = 0;
  size_t bytes = 0;
  std::vector<void*> callers;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = find_device(reinterpret_cast<const void*>(uintptr_t(address)));
    if (it == g_device.end()) {
      char hex[32];
      std::snprintf(hex, sizeof hex, "0x%llx", (unsigned long long)address);
      return std::string("device byte ") + hex;
    }
    start = it->first;
    bytes = it->second.bytes;
    callers.assign(it->second.callers, it->second.callers + it->second.depth);
    if (it->second.symbols) {
      // A variable: named by the executable's symbol table.
      const Symbol* v = symbol_at(reinterpret_cast<const void*>(uintptr_t(address)));
      const std::string space = it->second.symbols;
      if (!v) return "byte " + std::to_string(address - start) + " of the " + space + " variables";
      return "byte " + std::to_string(address - v->address) + " of " + space + " variable " + v->name;
    }
  }
  // The first caller of cudaMalloc outside the allocation helpers: the line that asked for it.
  static const std::vector<std::string> helpers = {"runtime.cpp:", "cuda_check.cpp:",
                                                   "device_buffer.hpp:", "cuda_check.hpp:"};
  std::string where;
  for (size_t k = 1; k < callers.size() && where.empty(); ++k) {
    const std::string line = source_line(reinterpret_cast<uintptr_t>(callers[k]), helpers);
    if (line != "?") where = line;
  }
  const std::string offset = "byte " + std::to_string(address - start) + " of ";
  if (where.empty()) return offset + "a " + std::to_string(bytes) + "-byte cudaMalloc allocation";
  return offset + "the " + std::to_string(bytes) + "-byte buffer cudaMalloc'd at " + where;
}

bool stream_is_valid(cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return true;
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_streams.count(stream) != 0;
}

}  // namespace histo_sim

// ---- Grading hook (histo_sim_host_writes.h): what the host did during a watched call ----------
namespace histo_sim {
namespace {

struct HostWrites {
  size_t bytes = 0;      // the watched range's length
  unsigned copies = 0;   // cudaMemcpy / cudaMemcpyAsync calls that reached it
  unsigned memsets = 0;  // cudaMemset / cudaMemsetAsync calls of a nonzero value that reached it
  size_t written = 0;    // bytes of the range they wrote
  bool in_call = true;   // the graded call is still going (end_graded_call not yet called)
  unsigned copies_out = 0;  // copies of device memory to the host during the call
  size_t bytes_out = 0;
  uint64_t accesses_before = 0;  // host accesses recorded before the call (host_access.cpp)
  uint64_t accesses_after = 0;   // ... and when it ended
};
std::mutex g_watch_mutex;
std::map<uintptr_t, HostWrites> g_watched;  // start of a watched range -> what reached it

// Called by cudaMemcpy (copy) and by cudaMemset of a nonzero value, when the work runs.
void note_host_write(const void* dst, size_t bytes, bool copy) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(dst);
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  for (auto& [start, w] : g_watched) {
    if (!bytes || a >= start + w.bytes || start >= a + bytes) continue;
    (copy ? w.copies : w.memsets) += 1;
    w.written += std::min(a + bytes, start + w.bytes) - std::max(a, start);
  }
}

// Called by cudaMemcpy when it copies device memory to host memory: counted against every
// graded call under way, unless it reads back a watched output (a grader's own bins: with two
// calls in flight, reading one call's bins is no copy of the other's input).
void note_copy_to_host(const void* src, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(src);
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  for (const auto& [start, w] : g_watched)
    if (a < start + w.bytes && start < a + bytes) return;
  for (auto& [start, w] : g_watched) {
    if (!w.in_call) continue;
    w.copies_out += 1;
    w.bytes_out += bytes;
  }
}

void end_call(HostWrites& w) {
  if (!w.in_call) return;
  w.in_call = false;
  w.accesses_after = host_accesses();
  protect_device_memory(false);
}

}  // namespace

void watch_host_writes(const void* begin, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  auto it = g_watched.find(reinterpret_cast<uintptr_t>(begin));
  if (it != g_watched.end()) end_call(it->second);
  HostWrites& w = g_watched[reinterpret_cast<uintptr_t>(begin)];
  w = HostWrites{bytes};
  w.accesses_before = host_accesses();
  protect_device_memory(true);
}

void end_graded_call(const void* begin) {
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  const auto it = g_watched.find(reinterpret_cast<uintptr_t>(begin));
  if (it != g_watched.end()) end_call(it->second);
}

void unwatch_host_writes(const void* begin) {
  std::lock_guard<std::mutex> lock(g_watch_mutex);
  const auto it = g_watched.find(reinterpret_cast<uintptr_t>(begin));
  if (it == g_watched.end()) return;
  end_call(it->second);
  g_watched.erase(it);
}

void poisoned(const void* begin, size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = find_device(begin);
  if (it != g_device.end() && it->second.shadow)
    it->second.shadow->forget(reinterpret_cast<uintptr_t>(begin), bytes);
}

HostActivity host_activity(const void* begin) {
  HostActivity a;
  uint64_t first = 0, last = 0;
  {
    std::lock_guard<std::mutex> lock(g_watch_mutex);
    const auto it = g_watched.find(reinterpret_cast<uintptr_t>(begin));
    if (it == g_watched.end()) return a;
    const HostWrites& w = it->second;
    a.copies_in = w.copies;
    a.memsets_in = w.memsets;
    a.bytes_in = w.written;
    a.copies_out = w.copies_out;
    a.bytes_out = w.bytes_out;
    first = w.accesses_before;
    last = w.in_call ? host_accesses() : w.accesses_after;
  }
  if (last > first) {
    const HostAccess seen = host_access(first);
    a.host_accesses = unsigned(last - first);
    a.first_access = std::string(seen.write ? "a write to " : "a read of ") +
                     describe_device_address(seen.address);
    const std::string line = seen.pc ? source_line(seen.pc) : "?";
    if (line != "?") a.first_access += " at " + line;
  }
  return a;
}

void set_device_memory(size_t bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_global_bytes = std::max(bytes, g_device_used);
}

namespace {
std::atomic<int> g_large_inputs{0};
size_t g_large_bytes = 0;
}

bool large_inputs_active() { return g_large_inputs.load(std::memory_order_relaxed) > 0; }
size_t large_inputs_bytes() { return g_large_bytes; }

LargeInputs::LargeInputs(size_t device_bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  previous_bytes_ = g_global_bytes;
  g_global_bytes = std::max(g_global_bytes, device_bytes);
  g_large_bytes = std::max(g_large_bytes, device_bytes);
  ++g_large_inputs;
}

LargeInputs::~LargeInputs() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_global_bytes = std::max(previous_bytes_, g_device_used);
  if (--g_large_inputs == 0) g_large_bytes = 0;
}

const char* LargeInputs::unavailable_reason() {
#if defined(HISTO_SIM_TSAN) || defined(HISTO_SIM_ASAN)
  return "a sanitizer build follows every access of gigabytes far too slowly (the sim preset runs "
         "this test)";
#else
  return nullptr;
#endif
}

}  // namespace histo_sim

using namespace histo_sim;

// ---- Memory -------------------------------------------------------------------------------------
namespace {
// What an allocation of `bytes` takes: cudaMalloc's alignment, and the whole pages that hold it
// (so that a graded call can protect them from host code: host_access.cpp).
size_t aligned_bytes(size_t bytes) {
  return (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
}
size_t page_bytes(size_t bytes) {
  const size_t page = device_page_bytes();
  return (aligned_bytes(bytes) + page - 1) / page * page;
}
}  // namespace

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  if (!ptr) return cudaErrorInvalidValue;
  *ptr = nullptr;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (bytes > g_global_bytes - g_device_used)
    return fail(cudaErrorMemoryAllocation,
                "out of memory: the CPU simulator's device has " +
                    std::to_string((g_global_bytes - g_device_used) >> 20) + " MiB free of " +
                    std::to_string(g_global_bytes >> 20) + " MiB");
  const size_t pages = page_bytes(bytes);
  void* p = map_device_pages(pages);
  if (!p) return fail(cudaErrorMemoryAllocation, "out of memory: the host could not allocate it");
  // Fresh device memory holds whatever was there before: never zero, as on a GPU.
  fill_device_bytes(p, 0xCD, pages);
  device_pages_allocated(p, pages);
  Allocation& a = g_device[reinterpret_cast<uintptr_t>(p)];
  a.bytes = bytes;
  if (initcheck_enabled()) {
    // Never written yet (the initcheck); and who asked for it, to name it in hazard reports.
    a.shadow = std::make_unique<DeviceShadow>();
    a.shadow->begin = reinterpret_cast<uintptr_t>(p);
    a.shadow->bytes = a.shadow->unwritten = bytes;
    a.depth = backtrace(a.callers, 8);
  }
  g_device_used += aligned_bytes(bytes);
  *ptr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  drain_all(false);  // cudaFree waits for the device
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_device.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == g_device.end() || it->second.symbols)
    return fail(cudaErrorInvalidValue, "cudaFree of a pointer cudaMalloc did not return");
  const size_t bytes = it->second.bytes;
  g_device_used -= aligned_bytes(bytes);
  g_device.erase(it);
  device_pages_freed(ptr);
  unmap_device_pages(ptr, page_bytes(bytes));
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
  if (!ptr) return cudaErrorInvalidValue;
  *ptr = std::aligned_alloc(kAlignment, aligned_bytes(bytes));
  if (!*ptr) return cudaErrorMemoryAllocation;
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pinned[reinterpret_cast<uintptr_t>(*ptr)] = bytes;
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  if (!ptr) return cudaSuccess;
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_pinned.erase(reinterpret_cast<uintptr_t>(ptr))) return cudaErrorInvalidValue;
  std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  if (bytes && !ptr) return cudaErrorInvalidValue;
  const DeviceAccess access;
  if (bytes) before_stream_work(nullptr);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = find_device(ptr);
    if (bytes && (it == g_device.end() || it->second.readonly ||
                  reinterpret_cast<uintptr_t>(ptr) + bytes > it->first + it->second.bytes))
      return fail(cudaErrorInvalidValue,
                  "cudaMemset of " + std::to_string(bytes) +
                      " bytes outside any writable device allocation (or past its end)");
  }
  if (bytes && (value & 0xFF)) note_host_write(ptr, bytes, false);
  if (bytes) {
    fill_device_bytes(ptr, value, bytes);
    std::lock_guard<std::mutex> lock(g_mutex);
    note_device_write(ptr, bytes);
  }
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* ptr, int value, size_t bytes, cudaStream_t stream) {
  if (!stream_is_valid(stream)) return cudaErrorInvalidResourceHandle;
  if (!defers(stream)) {
    before_stream_work(stream);
    return cudaMemset(ptr, value, bytes);
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = find_device(ptr);
  if (bytes && (it == g_device.end() ||
                reinterpret_cast<uintptr_t>(ptr) + bytes > it->first + it->second.bytes))
    return fail(cudaErrorInvalidValue, "cudaMemsetAsync of " + std::to_string(bytes) +
                                           " bytes outside any device allocation (or past its end)");
  stream->deferred.push_back([=] { cudaMemset(ptr, value, bytes); });
  return cudaSuccess;
}

namespace {

// What cudaMemcpy and cudaMemcpyAsync refuse before copying anything.
cudaError_t check_copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
  if (bytes && (!dst || !src)) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(g_mutex);
  const bool dst_device = find_device(dst) != g_device.end();
  const bool src_device = find_device(src) != g_device.end();
  const bool want_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool want_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (bytes && ((want_dst && !dst_device) || (want_src && !src_device)))
    return fail(cudaErrorInvalidValue,
                "cudaMemcpy: a pointer is not device memory although the copy kind says so");
  if (bytes && dst_device && find_device(dst)->second.readonly)
    return fail(cudaErrorInvalidValue,
                "cudaMemcpy into a const __device__ or __constant__ variable: the CPU simulator "
                "keeps those in read-only memory");
  return cudaSuccess;
}

// The copy itself, after check_copy, in stream order. It reports nothing: a kernel's fault stays
// for the call that synchronizes (a deferred copy must not take it and drop it).
void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (!bytes) return;
  before_stream_work(nullptr);
  note_host_write(dst, bytes, true);
  bool to_host;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    to_host = find_device(src) != g_device.end() && find_device(dst) == g_device.end();
  }
  if (to_host) note_copy_to_host(src, bytes);
  const DeviceAccess access;
  std::memmove(dst, src, bytes);
  std::lock_guard<std::mutex> lock(g_mutex);
  note_device_write(dst, bytes);
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (sticky_error() != cudaSuccess) return sticky_error();
  const cudaError_t refused = check_copy(dst, src, bytes, kind);
  if (refused != cudaSuccess) return refused;
  copy_bytes(dst, src, bytes);
  return synchronized();
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (!stream_is_valid(stream)) return cudaErrorInvalidResourceHandle;
  if (sticky_error() != cudaSuccess) return sticky_error();
  if (!defers(stream)) {
    before_stream_work(stream);
    return cudaMemcpy(dst, src, bytes, kind);
  }
  const cudaError_t refused = check_copy(dst, src, bytes, kind);
  if (refused != cudaSuccess) return refused;
  std::lock_guard<std::mutex> lock(g_mutex);
  stream->deferred.push_back([=] { copy_bytes(dst, src, bytes); });
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (free_bytes) *free_bytes = g_global_bytes - g_device_used;
  if (total_bytes) *total_bytes = g_global_bytes;
  return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  if (!attributes) return cudaErrorInvalidValue;
  *attributes = cudaPointerAttributes{cudaMemoryTypeUnregistered, 0, nullptr, nullptr};
  std::lock_guard<std::mutex> lock(g_mutex);
  if (find_device(ptr) != g_device.end()) {
    attributes->type = cudaMemoryTypeDevice;
    attributes->devicePointer = const_cast<void*>(ptr);
    return cudaSuccess;
  }
  const uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
  auto it = g_pinned.upper_bound(a);
  if (it != g_pinned.begin() && a < (--it)->first + it->second) {
    attributes->type = cudaMemoryTypeHost;  // pinned and mapped: the device can read it
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer = const_cast<void*>(ptr);
  }
  return cudaSuccess;
}

// ---- The device -------------------------------------------------------------------------------
cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  const GpuShape& gpu = current_gpu();
  *prop = cudaDeviceProp{};
  if (std::string(gpu.key) == "small")
    std::snprintf(prop->name, sizeof prop->name, "CPU simulator (%d SMs)", gpu.sm_count);
  else
    std::snprintf(prop->name, sizeof prop->name, "CPU simulator of %s (%d SMs)", gpu.name, gpu.sm_count);
  prop->totalGlobalMem = g_global_bytes;
  prop->sharedMemPerBlock = kSharedPerBlock;
  prop->sharedMemPerBlockOptin = gpu.shared_per_block_optin;
  prop->sharedMemPerMultiprocessor = gpu.shared_per_sm;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsPerMultiProcessor = gpu.max_threads_per_sm;
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 0x7FFFFFFF;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->major = gpu.cc_major;
  prop->minor = gpu.cc_minor;
  prop->multiProcessorCount = gpu.sm_count;
  prop->l2CacheSize = int(gpu.l2_bytes);
  prop->memoryBusWidth = 64;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (device != 0) return cudaErrorInvalidDevice;
  const GpuShape& gpu = current_gpu();
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(kSharedPerBlock); break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMultiProcessorCount: *value = gpu.sm_count; break;
    case cudaDevAttrComputeCapabilityMajor: *value = gpu.cc_major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = gpu.cc_minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(gpu.shared_per_sm); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(gpu.shared_per_block_optin); break;
    case cudaDevAttrL2CacheSize: *value = int(gpu.l2_bytes); break;
    case cudaDevAttrClockRate: *value = gpu.clock_mhz * 1000; break;  // kHz, as the runtime says it
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrComputeMode: *value = cudaComputeModeDefault; break;
    default: return cudaErrorInvalidValue;
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  drain_all(false);
  return synchronized();
}
cudaError_t cudaDeviceReset() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_pending = g_fault = g_sticky = cudaSuccess;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const cudaError_t e = g_sticky != cudaSuccess ? g_sticky : g_fault != cudaSuccess ? g_fault : g_pending;
  g_pending = g_fault = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError() { return peek_pending(); }

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorAssert: return "cudaErrorAssert";
    default: return "cudaErrorUnknown";
  }
}

const char* cudaGetErrorString(cudaError_t error) {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = g_detail.find(error);
  if (it != g_detail.end()) {
    if (it->second == g_unsaid) g_unsaid.clear();
    return it->second.c_str();
  }
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorAssert: return "device-side assert triggered";
    default: return "unknown error";
  }
}

// ---- Streams and events: launches run to completion, so every queue is already drained -------
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  *stream = new CUstream_st{flags};
  std::lock_guard<std::mutex> lock(g_mutex);
  g_streams.insert(*stream);
  return cudaSuccess;
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  drain(stream);  // work already queued still completes
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!g_streams.erase(stream)) return cudaErrorInvalidResourceHandle;
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!stream_is_valid(stream)) return cudaErrorInvalidResourceHandle;
  before_stream_work(stream);
  return synchronized();
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t, unsigned) {
  return stream_is_valid(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  *event = new CUevent_st{};
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) { return cudaEventCreate(event); }
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (!event || !stream_is_valid(stream)) return cudaErrorInvalidResourceHandle;
  before_stream_work(stream);  // the event completes after the stream's earlier work
  event->time = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!event) return cudaErrorInvalidResourceHandle;
  return synchronized();
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  if (!start || !stop || !start->recorded || !stop->recorded) return cudaErrorInvalidResourceHandle;
  *ms = std::chrono::duration<float, std::milli>(stop->time - start->time).count();
  return cudaSuccess;
}

// ---- Kernels ----------------------------------------------------------------------------------
cudaError_t cudaFuncSetAttribute(const void* kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
  const size_t optin = current_gpu().shared_per_block_optin;
  if (value < 0 || size_t(value) > optin)
    return fail(cudaErrorInvalidValue, "cudaFuncSetAttribute: " + std::to_string(value) +
                                           " B of dynamic shared memory is more than the device's "
                                           "opt-in maximum of " + std::to_string(optin) + " B");
  std::lock_guard<std::mutex> lock(g_mutex);
  g_dynamic_limits[kernel] = size_t(value);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel,
                                                          int block_size, size_t dynamic_shared) {
  if (block_size <= 0 || block_size > 1024) return cudaErrorInvalidValue;
  const GpuShape& gpu = current_gpu();
  const int warps = (block_size + 31) / 32;
  int fit = std::min(gpu.max_blocks_per_sm, gpu.max_threads_per_sm / (warps * 32));
  // Static shared memory and registers: nvcc's figures where the build had nvcc
  // (resources.cpp); otherwise the static shared memory a counted launch of the kernel touched
  // (counters.cpp), and no register limit.
  const KernelResources r = kernel_resources(kernel);
  size_t static_shared = r.known ? r.static_shared : 0;
  if (!r.known) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_static_shared.find(kernel);
    if (it != g_static_shared.end()) static_shared = it->second;
  }
  const size_t per_block = std::max<size_t>(1, static_shared + dynamic_shared + gpu.shared_reserved_per_block);
  fit = std::min<int>(fit, int(gpu.shared_per_sm / per_block));
  if (r.known && r.registers > 0) {
    // The CUDA occupancy calculator's rule: registers are allocated per warp in units of 256,
    // a warp's share rounded up; an SM holds registers_per_sm of them.
    const int per_warp = (r.registers * 32 + 255) / 256 * 256;
    const int warps_by_registers = gpu.registers_per_sm / per_warp;
    fit = std::min(fit, warps_by_registers / warps);
  }
  *blocks = std::max(fit, 0);
  return cudaSuccess;
}

// ---- __device__ and __constant__ variables ------------------------------------------------------
namespace histo_sim {

cudaError_t symbol_address(void** address, const void* symbol, size_t symbol_bytes) {
  if (!address) return cudaErrorInvalidValue;
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = find_device(symbol);
  if (it == g_device.end() || !it->second.symbols ||
      reinterpret_cast<uintptr_t>(symbol) + symbol_bytes > it->first + it->second.bytes)
    return fail(cudaErrorInvalidSymbol,
                "not a __device__ or __constant__ variable: the symbol of cudaGetSymbolAddress, "
                "cudaMemcpyToSymbol and cudaMemcpyFromSymbol is the variable itself");
  *address = const_cast<void*>(symbol);
  return cudaSuccess;
}

cudaError_t symbol_copy(void* dst, const void* src, size_t count, const void* symbol,
                        size_t symbol_bytes, size_t offset, cudaMemcpyKind kind, bool to_symbol,
                        cudaStream_t stream, bool async) {
  void* at = nullptr;
  const cudaError_t e = symbol_address(&at, symbol, symbol_bytes);
  if (e != cudaSuccess) return e;
  const char* call = to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol";
  if (offset > symbol_bytes || count > symbol_bytes - offset)
    return fail(cudaErrorInvalidValue, std::string(call) + ": " + std::to_string(count) +
                                           " bytes at offset " + std::to_string(offset) +
                                           " do not fit in the " + std::to_string(symbol_bytes) +
                                           "-byte variable");
  const bool kind_ok = to_symbol ? (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                                    kind == cudaMemcpyDefault)
                                 : (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                                    kind == cudaMemcpyDefault);
  if (!kind_ok) return cudaErrorInvalidMemcpyDirection;
  char* device = static_cast<char*>(at) + offset;
  if (to_symbol) {
    bool readonly = false;
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      readonly = find_device(device)->second.readonly;
    }
    if (readonly)
      return fail(cudaErrorInvalidValue,
                  "cudaMemcpyToSymbol into a const variable: the CPU simulator keeps const "
                  "__device__ and __constant__ variables in read-only memory (drop the const to "
                  "fill it at run time)");
  }
  // A copy as cudaMemcpy makes it: in stream order, watched as the host's writes are.
  const cudaMemcpyKind as = to_symbol ? (kind == cudaMemcpyDefault ? cudaMemcpyDefault : kind)
                                      : kind;
  if (async)
    return to_symbol ? cudaMemcpyAsync(device, src, count, as, stream)
                     : cudaMemcpyAsync(dst, device, count, as, stream);
  return to_symbol ? cudaMemcpy(device, src, count, as) : cudaMemcpy(dst, device, count, as);
}

}  // namespace histo_sim

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* kernel) {
  if (!attributes || !kernel) return cudaErrorInvalidValue;
  *attributes = cudaFuncAttributes{};
  const KernelResources r = kernel_resources(kernel);
  attributes->numRegs = r.registers;
  attributes->sharedSizeBytes = r.static_shared;
  attributes->maxThreadsPerBlock = 1024;
  attributes->maxDynamicSharedSizeBytes = int(dynamic_shared_limit(kernel));
  attributes->ptxVersion = attributes->binaryVersion =
      current_gpu().cc_major * 10 + current_gpu().cc_minor;
  return cudaSuccess;
}
