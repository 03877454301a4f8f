// Shared between the simulator's runtime API (runtime.cpp) and its scheduler (device.cpp).
#pragma once

// GCC says which sanitizer instruments the build with __SANITIZE_THREAD__ and
// __SANITIZE_ADDRESS__; Clang (before 18) only with __has_feature. Without them the fibers were
// one thread to ThreadSanitizer, which then saw no race between CUDA threads.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HISTO_SIM_TSAN 1
#endif
#if __has_feature(address_sanitizer)
#define HISTO_SIM_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) && !defined(HISTO_SIM_TSAN)
#define HISTO_SIM_TSAN 1
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(HISTO_SIM_ASAN)
#define HISTO_SIM_ASAN 1
#endif

#include <cuda_runtime.h>

#include "histo_sim/counters.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace histo_sim {

// The running CUDA thread while blocks run one at a time on the device thread (the access trace
// reads it); null otherwise. Kernel code asks running_thread() (cuda_runtime.h).
extern ThreadView* g_current;

// Records an error for cudaGetLastError and the next synchronizing call; `detail` becomes the
// error's cudaGetErrorString text, so CUDA_CHECK's message carries it.
void set_launch_error(cudaError_t code, const std::string& detail);
// Records that a kernel failed while it ran (a hazard, a deadlock): the first cudaGetLastError
// or synchronizing call reports it, once, as a GPU reports a fault in a kernel.
void set_launch_fault(cudaError_t code, const std::string& detail);
// The error that every later call returns once a kernel touched an illegal address, as a GPU's
// runtime does (cudaSuccess while none did; cudaDeviceReset clears it).
cudaError_t sticky_error();

// Dynamic shared memory a kernel may use: 48 KiB, or what cudaFuncSetAttribute allowed.
size_t dynamic_shared_limit(const void* kernel);

// Runs the deferred work that new work on `stream` must follow (its own queue; for legacy
// stream 0, every blocking stream's).
void before_stream_work(cudaStream_t stream);

// False for a stream that was destroyed (or never created).
bool stream_is_valid(cudaStream_t stream);

// Which bytes of one cudaMalloc allocation were written since cudaMalloc (the device-memory
// initcheck, hazards.cpp): cudaMemcpy and cudaMemset write them (runtime.cpp), and so do a
// kernel's stores and atomics (seen in the access trace). A bit per byte, made only once a
// write covers part of the allocation: one that is copied or set whole never needs them.
struct DeviceShadow {
  uintptr_t begin = 0;
  size_t bytes = 0;
  size_t unwritten = 0;         // bytes never written: 0 ends every check at once
  bool poisoned = false;        // forget() was called: the unwritten bytes hold a grader's poison
  std::vector<uint64_t> bits;   // empty while nothing (or everything) was written
  void written(uintptr_t address, size_t n);
  void forget(uintptr_t address, size_t n);  // garbage again (the graders' poison)
  // The first byte of [address, address + n) never written, or ~0.
  uintptr_t first_unwritten(uintptr_t address, size_t n) const;
};

// Memory a kernel may address as global memory: device allocations (with their shadow) and
// pinned host memory (shadow null: the host writes it directly, unseen), as sorted ranges (the
// access trace tells global accesses from the stack's).
struct DeviceRange {
  uintptr_t begin, end;
  DeviceShadow* shadow;
  bool constant;  // __constant__ variables: read through the constant cache on a GPU
};
std::vector<DeviceRange> device_ranges();

// True when the shadow of written bytes is kept (the hazard checks can run: a traced build,
// HISTO_SIM_HAZARDS not 0).
bool initcheck_enabled();
// HISTO_SIM_HAZARDS=0 in the environment, where the build lets it switch the hazard checks off
// (a grading build, HISTO_SIM_HAZARDS_ALWAYS, does not).
bool hazards_switched_off();
// After a launch the trace saw only partly (a kernel compiled without the hooks: its plain
// stores are unseen), every allocation counts as written.
void assume_all_written();

// The executable's functions and variables (its ELF symbol table, symbols.cpp), at their
// addresses in this process. TLS symbols (the __shared__ arrays) keep their offset in the TLS
// block as `address`.
struct Symbol {
  uintptr_t address;
  size_t size;
  bool tls;
  std::string mangled;
  std::string name;  // demangled
};
// The function or variable that holds `address`, or null.
const Symbol* symbol_at(const void* address);
// Every TLS symbol, by offset.
std::vector<const Symbol*> tls_symbols();
// A kernel as reports name it: "lab04::histogram_vec16_kernel<true>" (no parameter list), or
// "the kernel at 0x..." where the symbol table has none.
std::string kernel_name(const void* kernel);

// What nvcc's sm_90 build says about a kernel (resources.cpp, histo_sim/nvcc_info.hpp), or
// known == false where the build had no nvcc (or nvcc's table has no such kernel).
struct KernelResources {
  bool known = false;
  int registers = 0;         // per thread
  size_t static_shared = 0;  // bytes
  bool sass = false;         // the SASS figures below are known
  double loads_per_round = 1;
  double instructions_per[6] = {};
  double instructions_per_warp = 0;
};
KernelResources kernel_resources(const void* kernel);
// A mangled name with its anonymous namespaces written as the host compiler writes them.
std::string canonical_mangled(const std::string& mangled);

// Where a code address is in the source (source_lines.cpp, from the executable's line tables):
// file:line ("lab05_per_thread_packed.cu:99", "?" where no line table says), the file's path
// ("" when unknown) and the line number. Frames of files whose names start with one of `skip`
// are passed over (an inlined helper's line is not the caller's).
struct SourceLocation {
  std::string file_line = "?";
  std::string path;
  unsigned line = 0;
};
SourceLocation source_location(uintptr_t pc, const std::vector<std::string>& skip = {});
// Looks up many addresses at once (one addr2line per object); source_location then answers
// from what it found.
void resolve_source_locations(const std::vector<uintptr_t>& pcs, const std::vector<std::string>& skip = {});
// source_location(pc, skip).file_line.
std::string source_line(uintptr_t pc, const std::vector<std::string>& skip = {});
// The text of line `line` of the file at `path`, without its indentation ("" when unreadable).
std::string source_text(const std::string& path, unsigned line);
// What tells one source expression from another at a code address: its file:line:column with
// those of the frames it was inlined into (llvm-symbolizer; without it, binutils' addr2line and
// no columns; "" where neither says). Addresses of one expression that the host compiler split
// into several instructions have the same one; those of two expressions do not (trace.cpp).
// Looks up `pc` with the addresses of `more` not asked before, in one call per object.
const std::string& source_identity(uintptr_t pc, const std::vector<uintptr_t>& more = {});

// The occupancy calculator counts a kernel's static shared memory once a counted launch has
// shown how much of it the kernel uses.
void remember_static_shared(const std::vector<LaunchCounters>& launches);

// "byte 40 of the 1536-byte buffer cudaMalloc'd at grader.cpp:120" (hazard reports; "of a
// 1536-byte cudaMalloc allocation" where no line is known).
std::string describe_device_address(uint64_t address);

// ---- Device pages (device_pages.cpp) -----------------------------------------------------------
// An allocation's pages, reserved and backed only where written; a fill of whole 2 MiB stretches
// shares one copy of the byte's pages (copied where a write lands), so inputs of gigabytes made
// of memset runs take little of the host's memory.
void* map_device_pages(size_t bytes);  // nullptr when the host refuses
void unmap_device_pages(void* begin, size_t bytes);
void fill_device_bytes(void* begin, int value, size_t bytes);
// True inside a histo_sim::LargeInputs scope: the hazard checks and the initcheck's shadow are
// off for its allocations and launches; large_inputs_bytes() is what the scope asked for.
bool large_inputs_active();
size_t large_inputs_bytes();
// A launch's global and shared atomic updates, while the trace is off, may number `budget` (0:
// no limit); the one past it stops the launch (runaway_launch: device.cpp).
void set_atomic_budget(uint64_t budget);
void runaway_launch();

// ---- Host access to device memory during a graded call (host_access.cpp) ----------------------
// Device allocations are whole pages (device_page_bytes()), registered here. While a grader
// watches a graded call (protect_device_memory(true) .. (false)), host code cannot touch them:
// a read or write faults and is recorded (host_accesses, host_access), and the program goes on.
// The runtime's calls that touch device memory, and kernel launches, hold a DeviceAccess.
size_t device_page_bytes();
void device_pages_allocated(void* begin, size_t bytes);
void device_pages_freed(void* begin);
void protect_device_memory(bool on);
struct DeviceAccess {
  DeviceAccess();
  ~DeviceAccess();
  DeviceAccess(const DeviceAccess&) = delete;
  DeviceAccess& operator=(const DeviceAccess&) = delete;
};
struct HostAccess {
  uintptr_t address = 0;  // the device byte touched
  uintptr_t pc = 0;       // the instruction that touched it (0: not known)
  bool write = false;     // a store (known on x86-64 only)
};
uint64_t host_accesses();                // how many were recorded so far
HostAccess host_access(uint64_t index);  // the index-th (or the oldest still kept)

// The per-launch report (report.cpp, HISTO_SIM_REPORT): each launch that runs, and its failure.
void report_launch(const void* kernel, dim3 grid, dim3 block);
void report_launch_failed(const std::string& error);

// The executable's TLS block, where every static __shared__ array lives (cuda_runtime.h), as
// its symbol table describes it (hazards.cpp). `runtime`: the [begin, end) offsets of a
// sanitizer runtime's own thread state linked into the same block (ThreadSanitizer keeps each
// thread's state there), sorted: poisoning shared memory must leave them alone. `known`: the
// executable has a symbol table (it is not stripped).
struct TlsLayout {
  bool known = false;
  std::vector<std::pair<uint64_t, uint64_t>> runtime;
};
TlsLayout tls_layout();

// The hazard checks (hazards.cpp): armed before a launch; after it, the first hazard found, as
// the sentence the launch fails with ("" when none).
void hazards_before_launch();
std::string hazards_after_launch(const void* kernel);

}  // namespace histo_sim
