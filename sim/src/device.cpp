// The simulated device: runs a kernel's grid on the CPU with CUDA semantics.
//
// Protocol. Launches are handed to one "device" OS thread and run to completion before the
// launch returns (so every stream is trivially in order). The device thread runs the grid's
// blocks one after another while anything follows the launch access by access (a hazard check,
// the counters) or a program's extern __shared__ array at file scope holds the one dynamic
// shared buffer's address; otherwise blocks run on several host threads at once (workers: the
// device thread and helpers, HISTO_SIM_THREADS, default every core), each taking the next block
// of the grid, as a GPU's SMs do. Each worker has its own fibers, its own copy of every __shared__
// array (thread_local) and its own dynamic shared buffer. Each CUDA thread of a block is a fiber
// (ucontext) with its own stack; a fiber runs until it blocks: at __syncthreads(), at a warp-collective intrinsic, or by
// returning. When no fiber can run, the scheduler resolves what it can:
//   1. warp collectives: a lane waits until every lane its mask names waits at the same kind of
//      collective with the same mask (__activemask: the lanes that wait at that same line);
//   2. the block barrier: when every thread of the block waits at __syncthreads on one line;
//   3. otherwise nothing can ever move again: a deadlock or a divergent barrier. The launch
//      fails with a sentence naming the block, the threads and the source lines.
// __shared__ arrays are thread_local on the worker (one block at a time shares them); before
// every block its whole TLS block is poisoned, and so is the dynamic shared memory,
// so a kernel that reads shared memory it never wrote counts garbage, as on a GPU.
//
// ThreadSanitizer (preset sim-tsan): each CUDA thread is a TSan fiber, switched without
// implied synchronization; happens-before edges exist only where CUDA gives them: a launch
// (host -> kernel), __syncthreads (all threads of the block), __syncwarp, the end of a launch
// (kernel -> host), atomics. A missing barrier is then a reported data race. Blocks run in
// order, so the scheduler orders one block before the next: races only between blocks are
// not reported.
#include <cuda_runtime.h>

#include "histo_sim_host_writes.h"
#include "internal.hpp"
#include "trace.hpp"

#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <pthread.h>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#ifdef HISTO_SIM_TSAN
#include <sanitizer/tsan_interface.h>
// In the TSan runtime, not in its public header.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif
#ifdef HISTO_SIM_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

// Switching fibers. On x86-64 a few instructions save the callee-saved registers and swap
// stacks (swapcontext also saves the signal mask, a system call per switch, which made the
// warp-heavy kernels several times slower); elsewhere ucontext does it.
#if defined(__x86_64__)
#define HISTO_SIM_ASM_SWITCH 1
extern "C" void histo_sim_switch(void** save_sp, void* load_sp);
asm(R"(
  .text
  .globl histo_sim_switch
  .type histo_sim_switch, @function
histo_sim_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size histo_sim_switch, .-histo_sim_switch
  .section .note.GNU-stack,"",@progbits
  .text
)");
#endif

namespace histo_sim {

ThreadView* g_current = nullptr;
unsigned g_sampled_blocks = 0;  // 0: every block runs
void set_sampled_blocks(unsigned blocks) { g_sampled_blocks = blocks; }
dim3 g_block_dim{1, 1, 1};
dim3 g_grid_dim{1, 1, 1};
alignas(1024) unsigned char g_dynamic_storage[kDynamicSharedCapacity];
namespace {
std::atomic<bool> g_fixed_dynamic_shared{false};  // an extern __shared__ array at file scope
std::atomic<unsigned> g_last_host_threads{0};
}  // namespace

namespace {

// TSan bookkeeping: the scheduler's own records are not the kernel's memory.
struct IgnoreAccesses {
#ifdef HISTO_SIM_TSAN
  IgnoreAccesses() { __tsan_ignore_thread_begin(); }
  ~IgnoreAccesses() { __tsan_ignore_thread_end(); }
#endif
};

// Addresses that stand for CUDA's synchronization points in TSan's happens-before graph.
// Barriers alternate between two addresses: a thread resumed early may already have arrived at
// the next barrier before a later thread leaves this one, and must not hand it that work.
char g_launch_sync, g_block_sync, g_barrier_sync[2], g_warp_sync[2][32], g_tile_sync[2][16];
void hb_release(void* addr) {
#ifdef HISTO_SIM_TSAN
  __tsan_release(addr);
#else
  (void)addr;
#endif
}
void hb_acquire(void* addr) {
#ifdef HISTO_SIM_TSAN
  __tsan_acquire(addr);
#else
  (void)addr;
#endif
}

enum class State { runnable, at_barrier, at_warp, at_tile, exited };

struct Worker;

struct Fiber {
  Worker* worker = nullptr;
  ThreadView view{};
  unsigned linear = 0;
  ucontext_t context{};
  void* sp = nullptr;  // saved stack pointer (assembly switch)
  char* stack = nullptr;
  size_t stack_bytes = 0;
  void* tsan_fiber = nullptr;
  void* asan_fake_stack = nullptr;
  State state = State::exited;
  // Where it waits.
  const char* file = nullptr;
  int line = 0;
  // Its warp collective, while state == at_warp, or its tile's (of `tile` threads), at_tile.
  WarpOp op = WarpOp::ballot;
  unsigned tile = 0;
  unsigned mask = 0;
  uint64_t value = 0;
  int arg = 0;
  int width = 32;
  uint64_t result = 0;
  unsigned barriers = 0;   // __syncthreads reached in this block (picks the sync address)
  unsigned syncwarps = 0;  // likewise for __syncwarp and a tile's sync
};

#if defined(HISTO_SIM_TSAN) || defined(HISTO_SIM_ASAN)
constexpr size_t kStackBytes = size_t(512) << 10;  // instrumented frames are larger
#else
constexpr size_t kStackBytes = size_t(128) << 10;
#endif

struct IllegalAccess {
  bool seen = false;
  uintptr_t pc = 0, address = 0;
  bool write = false, write_known = false;
  unsigned thread = 0;
};

// ---- A host thread that runs blocks: the device thread, or a helper ---------------------------
// Found through a pthread key, not a thread_local: the executable's TLS block is the blocks'
// static shared memory (its layout and size are what the counters and reports see).
struct Worker {
  bool device = false;  // the device thread (the only one that runs blocks one at a time)
  ucontext_t scheduler_context;
  void* scheduler_sp = nullptr;
  void* scheduler_tsan = nullptr;
  const void* scheduler_stack_bottom = nullptr;
  size_t scheduler_stack_size = 0;
  std::deque<Fiber> fibers;  // a deque: a parked fiber's Fiber never moves
  std::vector<Fiber*> block;  // block[t] = &fibers[t] for the running launch's threads
  bool abandoned = false;  // fibers left mid-kernel by a failed block: their contexts are reset
  Fiber* running = nullptr;  // the fiber switched to last
  ThreadView* current = nullptr;  // its view while it runs
  uint3 block_idx{0, 0, 0};
  IllegalAccess illegal;  // set by the worker's own fault
  bool runaway = false;   // a LargeInputs launch spent its atomics: fail_runaway_launch
  std::string assertion;  // a thread's failed assert(), as CUDA prints it: fail_assertion
  // The worker's TLS block of the executable: every __shared__ array lives in it.
  unsigned char* tls_lo = nullptr;
  unsigned char* tls_hi = nullptr;
  // A helper's dynamic shared memory, 1 KiB aligned as g_dynamic_storage (the device thread's).
  std::vector<unsigned char> dynamic_buffer;
  unsigned char* dynamic = nullptr;
  unsigned char* dynamic_shared() { return dynamic ? dynamic : g_dynamic_storage; }
};

pthread_key_t worker_key() {
  static const pthread_key_t key = [] {
    pthread_key_t k;
    if (pthread_key_create(&k, nullptr) != 0) std::abort();
    return k;
  }();
  return key;
}
Worker* this_worker() { return static_cast<Worker*>(pthread_getspecific(worker_key())); }

// ---- State of the running launch (set before its blocks run) --------------------------------
unsigned g_threads = 0;  // threads per block of the running launch
ThreadBody g_body = nullptr;
void* g_closure = nullptr;
size_t g_dynamic_bytes = 0;  // the running launch's dynamic shared memory

constexpr unsigned char kPoison = 0xA5;

[[noreturn]] void fiber_entry();

void reset_fiber(Fiber& f) {
  if (!f.stack) {
    f.stack_bytes = kStackBytes;
    void* mem = mmap(nullptr, f.stack_bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) throw std::bad_alloc();
    f.stack = static_cast<char*>(mem);
  }
#ifdef HISTO_SIM_TSAN
  if (f.tsan_fiber) __tsan_destroy_fiber(f.tsan_fiber);
  f.tsan_fiber = __tsan_create_fiber(0);
#endif
#ifdef HISTO_SIM_ASM_SWITCH
  // The first switch "returns" into fiber_entry as if it had been called: six zero registers,
  // then its address, then a null return address, with the ABI's 16-byte alignment at entry.
  auto* top = reinterpret_cast<void**>(f.stack + f.stack_bytes);
  *--top = nullptr;
  *--top = reinterpret_cast<void*>(&fiber_entry);
  for (int i = 0; i < 6; ++i) *--top = nullptr;
  f.sp = top;
#else
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stack;
  f.context.uc_stack.ss_size = f.stack_bytes;
  f.context.uc_link = nullptr;
  makecontext(&f.context, fiber_entry, 0);
#endif
}

Fiber& current_fiber() { return *this_worker()->running; }

void switch_to(Fiber& f) {
  Worker& w = *f.worker;
  w.current = &f.view;
  w.running = &f;
  if (w.device) g_current = &f.view;
#ifdef HISTO_SIM_TSAN
  __tsan_switch_to_fiber(f.tsan_fiber, __tsan_switch_to_fiber_no_sync);
#endif
#ifdef HISTO_SIM_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, f.stack, f.stack_bytes);
#endif
#ifdef HISTO_SIM_ASM_SWITCH
  histo_sim_switch(&w.scheduler_sp, f.sp);
#else
  swapcontext(&w.scheduler_context, &f.context);
#endif
#ifdef HISTO_SIM_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
  // What the fiber did before it yielded (its reads of its Fiber and Worker included) happens
  // before what the scheduler does next, e.g. free the worker; other fibers do not acquire it.
  hb_acquire(&w);
  w.current = nullptr;
  w.running = nullptr;
  if (w.device) g_current = nullptr;
}

// From a fiber back to the scheduler; returns when the scheduler resumes this fiber.
void yield_to_scheduler(Fiber& f) {
  Worker& w = *f.worker;
  hb_release(&w);  // switch_to acquires it
#ifdef HISTO_SIM_TSAN
  __tsan_switch_to_fiber(w.scheduler_tsan, __tsan_switch_to_fiber_no_sync);
#endif
#ifdef HISTO_SIM_ASAN
  __sanitizer_start_switch_fiber(f.state == State::exited ? nullptr : &f.asan_fake_stack,
                                 w.scheduler_stack_bottom, w.scheduler_stack_size);
#endif
#ifdef HISTO_SIM_ASM_SWITCH
  histo_sim_switch(&f.sp, w.scheduler_sp);
#else
  swapcontext(&f.context, &w.scheduler_context);
#endif
#ifdef HISTO_SIM_ASAN
  __sanitizer_finish_switch_fiber(f.asan_fake_stack, &w.scheduler_stack_bottom,
                                  &w.scheduler_stack_size);
#endif
}

[[noreturn]] void fiber_entry() {
#ifdef HISTO_SIM_ASAN
  {
    Worker& w = *this_worker();
    __sanitizer_finish_switch_fiber(nullptr, &w.scheduler_stack_bottom, &w.scheduler_stack_size);
  }
#endif
  for (;;) {
    Fiber& f = current_fiber();
    f.barriers = f.syncwarps = 0;
    hb_acquire(&g_launch_sync);
    g_body(g_closure);
    hb_release(&g_block_sync);
    {
      IgnoreAccesses ignore;
      f.state = State::exited;
    }
    yield_to_scheduler(f);
  }
}

// ---- Describing thread sets in reports --------------------------------------------------------
std::string describe_threads(const std::vector<unsigned>& ids) {
  std::ostringstream out;
  size_t shown = 0;
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    if (shown++) out << ", ";
    if (shown > 6) {
      out << "...";
      break;
    }
    out << ids[i];
    if (j > i) out << "-" << ids[j];
    i = j + 1;
  }
  return out.str();
}

const char* op_name(WarpOp op) {
  switch (op) {
    case WarpOp::ballot: return "__ballot_sync";
    case WarpOp::any: return "__any_sync";
    case WarpOp::all: return "__all_sync";
    case WarpOp::match_any: return "__match_any_sync";
    case WarpOp::match_all: return "__match_all_sync";
    case WarpOp::shfl: return "__shfl_sync";
    case WarpOp::shfl_up: return "__shfl_up_sync";
    case WarpOp::shfl_down: return "__shfl_down_sync";
    case WarpOp::shfl_xor: return "__shfl_xor_sync";
    case WarpOp::syncwarp: return "__syncwarp";
    case WarpOp::activemask: return "__activemask";
    case WarpOp::reduce_add: return "__reduce_add_sync";
    case WarpOp::reduce_min: return "__reduce_min_sync";
    case WarpOp::reduce_max: return "__reduce_max_sync";
    case WarpOp::reduce_and: return "__reduce_and_sync";
    case WarpOp::reduce_or: return "__reduce_or_sync";
    case WarpOp::reduce_xor: return "__reduce_xor_sync";
  }
  return "a warp intrinsic";
}

// A tile collective as the program calls it: "thread_block_tile<64>::sync()".
std::string tile_op_name(const Fiber& f) {
  const char* op = f.op == WarpOp::syncwarp ? "sync" : f.op == WarpOp::shfl ? "shfl" : f.op == WarpOp::any ? "any" : "all";
  return "thread_block_tile<" + std::to_string(f.tile) + ">::" + op + "()";
}

std::string base_name(const char* file) {
  std::string s = file ? file : "?";
  const size_t slash = s.find_last_of('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

std::string where(const Fiber& f) {
  std::ostringstream out;
  switch (f.state) {
    case State::exited: out << "returned from the kernel"; break;
    case State::runnable: out << "running"; break;
    case State::at_barrier:
      out << "waiting at __syncthreads() (" << base_name(f.file) << ":" << f.line << ")";
      break;
    case State::at_warp:
      out << "waiting in " << op_name(f.op) << " (" << base_name(f.file) << ":" << f.line << ")";
      if (f.op != WarpOp::activemask) {
        out << " with mask 0x" << std::hex << f.mask << std::dec;
      }
      break;
    case State::at_tile:
      out << "waiting in " << tile_op_name(f) << " (" << base_name(f.file) << ":" << f.line << ")";
      break;
  }
  return out.str();
}

// Threads grouped by what they are doing, for a deadlock report.
std::string describe_block_state() {
  std::map<std::string, std::vector<unsigned>> groups;
  const Worker& w = *this_worker();
  for (unsigned t = 0; t < g_threads; ++t) groups[where(w.fibers[t])].push_back(t);
  std::ostringstream out;
  for (const auto& [what, ids] : groups)
    out << "\n    thread" << (ids.size() > 1 ? "s " : " ") << describe_threads(ids) << ": " << what;
  return out.str();
}

struct LaunchFailure {
  std::string message;
  cudaError_t code = cudaErrorLaunchFailure;
};

const void* g_kernel = nullptr;  // the running launch's kernel

// "256", "16 x 16" or "8 x 8 x 4": a grid or block as it was given.
std::string dims(dim3 d) {
  std::string s = std::to_string(d.x);
  if (d.y != 1 || d.z != 1) s += " x " + std::to_string(d.y);
  if (d.z != 1) s += " x " + std::to_string(d.z);
  return s;
}

[[noreturn]] void fail_block(const std::string& headline, const std::string& cause) {
  std::ostringstream out;
  const uint3 b = this_worker()->block_idx;
  out << "CPU simulator: kernel " << kernel_name(g_kernel) << ", block (" << b.x << "," << b.y << "," << b.z
      << ") of grid " << dims(g_grid_dim) << " x block " << dims(g_block_dim) << ": " << headline << ":"
      << describe_block_state() << "\n  " << cause;
  throw LaunchFailure{out.str()};
}

// ---- A kernel's access to memory nothing holds: an illegal address --------------------------
// On a GPU such an access stops the kernel, and the runtime's next calls return
// cudaErrorIllegalAddress. Here it is a SIGSEGV on a fiber's stack: while a launch runs, the
// handler below sends the faulting fiber to fail_illegal_address (as if it had called it), which
// leaves the block, and the launch fails naming the kernel's line. A fault anywhere else goes to
// the handler that was there before. Not under the sanitizers, which handle faults their way.
#if !defined(HISTO_SIM_TSAN) && !defined(HISTO_SIM_ASAN) && (defined(__x86_64__) || defined(__aarch64__))
#define HISTO_SIM_CATCH_FAULTS 1
#endif
struct sigaction g_previous_segv;

[[noreturn]] void after_illegal_access() {
  Fiber& f = current_fiber();
  f.state = State::exited;  // never resumed: the scheduler abandons the block
  yield_to_scheduler(f);
  std::abort();
}

// ---- A launch on the graders' inputs of gigabytes that does not end ---------------------------
// Their kernels make at most one atomic update per input byte. One that makes twice as many
// (trace.cpp's budget, set per launch inside LargeInputs) loops over its input again: an
// unsigned index passing 2^32 - 1 starts over below an n past 2^32, and never reaches n. On a
// GPU it runs until the test's time limit; here the launch fails, saying so.
[[noreturn]] void fail_runaway_launch() {
  this_worker()->runaway = false;
  std::ostringstream cause;
  cause << "likely cause: a loop over the input that starts over and never ends: an unsigned "
           "index (or stride) that passes 2^32 - 1 wraps to a small value, still below n (here "
           "past 2^32), so the loop never reaches n: use size_t for element indices";
  fail_block("more atomic updates than twice the input's bytes, and still running",
             cause.str());
}

#ifdef HISTO_SIM_CATCH_FAULTS
void on_kernel_fault(int signal, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  Worker* w = this_worker();
  const Fiber* f = w ? w->running : nullptr;
#if defined(__x86_64__)
  greg_t* r = uc->uc_mcontext.gregs;
  const uintptr_t sp = uintptr_t(r[REG_RSP]);
#else
  const uintptr_t sp = uintptr_t(uc->uc_mcontext.sp);
#endif
  if (!f || w->illegal.seen || sp < uintptr_t(f->stack) || sp >= uintptr_t(f->stack) + f->stack_bytes) {
    sigaction(signal, &g_previous_segv, nullptr);  // not a kernel's access: retried there
    return;
  }
  IllegalAccess& illegal = w->illegal;
  illegal.seen = true;
  illegal.address = uintptr_t(info->si_addr);
  illegal.thread = f->linear;
  // The fiber goes on in after_illegal_access, below its red zone, 16-byte aligned as at a call.
  uintptr_t top = (sp - 256) & ~uintptr_t(15);
#if defined(__x86_64__)
  illegal.pc = uintptr_t(r[REG_RIP]);
  illegal.write = (r[REG_ERR] & 2) != 0;
  illegal.write_known = true;
  top -= sizeof(void*);
  *reinterpret_cast<uintptr_t*>(top) = 0;  // its return address: it never returns
  r[REG_RSP] = greg_t(top);
  r[REG_RIP] = greg_t(reinterpret_cast<uintptr_t>(&after_illegal_access));
#else
  illegal.pc = uintptr_t(uc->uc_mcontext.pc);
  uc->uc_mcontext.sp = top;
  uc->uc_mcontext.regs[30] = 0;
  uc->uc_mcontext.pc = reinterpret_cast<uintptr_t>(&after_illegal_access);
#endif
}
#endif

// Catches the kernel's faults while it lives (the launch), then gives SIGSEGV back.
struct KernelFaults {
#ifdef HISTO_SIM_CATCH_FAULTS
  KernelFaults() {
    struct sigaction ours;
    std::memset(&ours, 0, sizeof ours);
    ours.sa_sigaction = on_kernel_fault;
    ours.sa_flags = SA_SIGINFO;
    sigemptyset(&ours.sa_mask);
    sigaction(SIGSEGV, &ours, &g_previous_segv);
  }
  ~KernelFaults() { sigaction(SIGSEGV, &g_previous_segv, nullptr); }
#endif
};

[[noreturn]] void fail_illegal_address() {
  Worker& w = *this_worker();
  const IllegalAccess a = w.illegal;
  w.illegal = IllegalAccess{};
  const uint3 b = w.block_idx;
  std::ostringstream out;
  const std::string line = source_line(a.pc);  // "?" without line tables
  out << "CPU simulator: kernel " << kernel_name(g_kernel) << (line == "?" ? "" : ", " + line) << ": block ("
      << b.x << "," << b.y << "," << b.z << ") thread " << a.thread << " "
      << (!a.write_known ? "accesses" : a.write ? "writes" : "reads") << " address 0x" << std::hex
      << a.address << std::dec;
  const std::vector<DeviceRange> ranges = device_ranges();
  const DeviceRange* below = nullptr;
  for (const DeviceRange& r : ranges)
    if (r.begin <= a.address) below = &r;
  if (below && a.address >= below->end)
    out << ", " << a.address - below->end << " bytes past the end of the "
        << below->end - below->begin << "-byte device allocation at 0x" << std::hex << below->begin
        << std::dec;
  out << ", where no memory is: an illegal address, which stops the kernel on a GPU, and every "
         "later call of the runtime returns cudaErrorIllegalAddress. Likely cause: an index past "
         "the end of a buffer (a bound not checked, or a size, stride or pointer that is wrong)";
  throw LaunchFailure{out.str(), cudaErrorIllegalAddress};
}

// ---- A failed assert() in a kernel --------------------------------------------------------------
// On a GPU it prints where it failed, the kernel stops, and this launch's error and every later
// call's is cudaErrorAssert. Here __assert_fail (below) records it and leaves the block.
[[noreturn]] void fail_assertion() {
  Worker& w = *this_worker();
  std::string printed;
  printed.swap(w.assertion);
  std::ostringstream out;
  const uint3 b = w.block_idx;
  out << "CPU simulator: kernel " << kernel_name(g_kernel) << ", block (" << b.x << "," << b.y << "," << b.z
      << "): a device-side assert failed: " << printed
      << " On a GPU the kernel stops there, and the launch and every later call of the runtime "
         "return cudaErrorAssert";
  throw LaunchFailure{out.str(), cudaErrorAssert};
}

// ---- Warp collectives --------------------------------------------------------------------------
uint64_t collective_result(const Fiber& f, Fiber* const* warp, unsigned members) {
  const unsigned lane = f.view.lane;
  switch (f.op) {
    case WarpOp::ballot: {
      uint64_t bits = 0;
      for (unsigned j = 0; j < 32; ++j)
        if ((members >> j & 1u) && warp[j]->value) bits |= 1u << j;
      return bits;
    }
    case WarpOp::any:
    case WarpOp::all: {
      bool any = false, all = true;
      for (unsigned j = 0; j < 32; ++j)
        if (members >> j & 1u) {
          any = any || warp[j]->value;
          all = all && warp[j]->value;
        }
      return f.op == WarpOp::any ? any : all;
    }
    case WarpOp::match_any: {
      uint64_t bits = 0;
      for (unsigned j = 0; j < 32; ++j)
        if ((members >> j & 1u) && warp[j]->value == f.value) bits |= 1u << j;
      return bits;
    }
    case WarpOp::match_all: {
      for (unsigned j = 0; j < 32; ++j)
        if ((members >> j & 1u) && warp[j]->value != f.value) return 0;
      return members;
    }
    case WarpOp::shfl:
    case WarpOp::shfl_up:
    case WarpOp::shfl_down:
    case WarpOp::shfl_xor: {
      const int width = f.width;
      const int base = int(lane) & ~(width - 1);
      const int in_segment = int(lane) - base;
      int src = int(lane);
      if (f.op == WarpOp::shfl) src = base + (f.arg & (width - 1));
      if (f.op == WarpOp::shfl_up && in_segment - f.arg >= 0) src = int(lane) - f.arg;
      if (f.op == WarpOp::shfl_down && in_segment + f.arg < width) src = int(lane) + f.arg;
      if (f.op == WarpOp::shfl_xor && ((in_segment ^ f.arg) < width)) src = base + (in_segment ^ f.arg);
      // Reading a lane outside the mask, or one of it that has returned or does not exist, is
      // undefined on a GPU (garbage): the launch fails, naming the lanes and the line, rather
      // than returning some value.
      if (src < 0 || src > 31 || !(members >> src & 1u)) {
        std::ostringstream headline, cause;
        headline << "lane " << lane << "'s " << op_name(f.op) << " (" << base_name(f.file) << ":"
                 << f.line << ") reads lane " << src;
        if (src >= 0 && src <= 31 && (f.mask >> src & 1u)) {
          const bool exists = f.linear - lane + unsigned(src) < g_threads;
          headline << ", which " << (exists ? "has returned" : "does not exist") << " (mask 0x" << std::hex
                   << f.mask << std::dec << ")";
          cause << "A shuffle's mask may name lanes that have returned or that the block does not "
                   "have, but what it reads from one is undefined on a GPU. Likely cause: "
                << (exists ? "threads return early (an index past the input's end) before a "
                             "shuffle their warp's other lanes read them in"
                           : "a block whose size is not a multiple of 32, whose last warp has "
                             "fewer lanes than the shuffle's offsets reach");
        } else {
          headline << ", which is not in its mask 0x" << std::hex << f.mask << std::dec;
          cause << "A shuffle may read only lanes of its mask: what it returns from any other is "
                   "undefined on a GPU. Likely cause: the mask leaves out lanes the shuffle's offset "
                   "reaches (a reduction over fewer lanes than the offsets assume)";
        }
        fail_block(headline.str(), cause.str());
      }
      return warp[src]->value;
    }
    case WarpOp::syncwarp: return 0;
    case WarpOp::activemask: return members;
    case WarpOp::reduce_add:
    case WarpOp::reduce_min:
    case WarpOp::reduce_max:
    case WarpOp::reduce_and:
    case WarpOp::reduce_or:
    case WarpOp::reduce_xor: {
      // 32-bit operands; arg 1: signed (min and max of int).
      bool first = true;
      uint32_t r = 0;
      for (unsigned j = 0; j < 32; ++j) {
        if (!(members >> j & 1u)) continue;
        const uint32_t v = uint32_t(warp[j]->value);
        const bool less = f.arg ? int32_t(v) < int32_t(r) : v < r;
        if (first) r = v;
        else if (f.op == WarpOp::reduce_add) r += v;
        else if (f.op == WarpOp::reduce_min) r = less ? v : r;
        else if (f.op == WarpOp::reduce_max) r = less ? r : v;
        else if (f.op == WarpOp::reduce_and) r &= v;
        else if (f.op == WarpOp::reduce_or) r |= v;
        else r ^= v;
        first = false;
      }
      return r;
    }
  }
  return 0;
}

// Resolves every warp collective that can complete now; true when one did.
bool resolve_warps(Worker& worker) {
  bool progress = false;
  for (unsigned first = 0; first < g_threads; first += 32) {
    Fiber* const* warp = &worker.block[first];
    const unsigned lanes = std::min(32u, g_threads - first);
    // __activemask: the lanes waiting at the same line.
    for (unsigned i = 0; i < lanes; ++i) {
      Fiber& f = *warp[i];
      if (f.state != State::at_warp || f.op != WarpOp::activemask) continue;
      unsigned members = 0;
      for (unsigned j = 0; j < lanes; ++j)
        if (warp[j]->state == State::at_warp && warp[j]->op == WarpOp::activemask &&
            warp[j]->line == f.line && warp[j]->file == f.file)
          members |= 1u << j;
      for (unsigned j = 0; j < lanes; ++j)
        if (members >> j & 1u) {
          warp[j]->result = members;
          warp[j]->state = State::runnable;
        }
      progress = true;
    }
    // Explicit masks: complete when every named lane that exists and has not returned waits
    // with the same op and mask (CUDA's rule: "all non-exited threads named in mask"); the
    // others take no part (a shuffle that reads one fails).
    for (unsigned i = 0; i < lanes; ++i) {
      Fiber& f = *warp[i];
      if (f.state != State::at_warp) continue;
      if (!(f.mask >> i & 1u))
        fail_block(std::string("a lane called ") + op_name(f.op) + " with a mask without itself",
                   "thread " + std::to_string(f.linear) + " (lane " + std::to_string(i) +
                       ") is not in its own mask: on a GPU that is undefined behaviour. Build "
                       "the mask from the lanes that really take part (e.g. __ballot_sync).");
      bool ready = true;
      unsigned members = 0;
      for (unsigned j = 0; j < lanes && ready; ++j)
        if ((f.mask >> j & 1u) && warp[j]->state != State::exited) {
          ready = warp[j]->state == State::at_warp && warp[j]->op == f.op && warp[j]->mask == f.mask;
          members |= 1u << j;
        }
      if (!ready) continue;
      for (unsigned j = 0; j < lanes; ++j)
        if (members >> j & 1u) warp[j]->result = collective_result(*warp[j], warp, members);
      if (f.op == WarpOp::syncwarp) trace::group_synced(first, 32, members);
      for (unsigned j = 0; j < lanes; ++j)
        if (members >> j & 1u) warp[j]->state = State::runnable;
      progress = true;
    }
  }
  return progress;
}

// Resolves every tile collective that can complete now (every thread of the tile waits at the
// same operation); true when one did.
bool resolve_tiles(Worker& worker) {
  bool progress = false;
  for (unsigned first = 0; first < g_threads; ++first) {
    Fiber& f = *worker.block[first];
    if (f.state != State::at_tile || first % f.tile != 0) continue;
    const unsigned n = f.tile;
    if (first + n > g_threads) {
      std::ostringstream why;
      why << "threads " << first << " to " << first + n - 1 << " would form the tile, but the block "
          << "has " << g_threads << ": on a GPU its sync waits for warps that do not exist. Make the "
          << "block's size a multiple of the tile's";
      fail_block("a tile of " + std::to_string(n) + " threads reaches past the end of the block", why.str());
    }
    bool ready = true;
    for (unsigned j = 1; j < n && ready; ++j) {
      const Fiber& o = *worker.block[first + j];
      ready = o.state == State::at_tile && o.tile == n && o.op == f.op;
    }
    if (!ready) continue;
    bool any = false, all = true;
    for (unsigned j = 0; j < n; ++j) {
      any = any || worker.block[first + j]->value;
      all = all && worker.block[first + j]->value;
    }
    for (unsigned j = 0; j < n; ++j) {
      Fiber& m = *worker.block[first + j];
      if (f.op == WarpOp::shfl) {
        if (m.arg < 0 || unsigned(m.arg) >= n) {
          std::ostringstream headline;
          headline << "thread " << m.linear << "'s " << tile_op_name(m) << " (" << base_name(m.file) << ":"
                   << m.line << ") reads rank " << m.arg << " of a tile of " << n << " threads";
          fail_block(headline.str(), "a tile's shfl reads a rank from 0 to the tile's size - 1: "
                                     "what it returns for any other is undefined on a GPU");
        }
        m.result = worker.block[first + unsigned(m.arg)]->value;
      } else {
        m.result = f.op == WarpOp::any ? any : f.op == WarpOp::all ? all : 0;
      }
    }
    for (unsigned j = 0; j < n; ++j) worker.block[first + j]->state = State::runnable;
    if (f.op == WarpOp::syncwarp) trace::group_synced(first, n, ~0u);
    progress = true;
  }
  return progress;
}

// Explains why nothing can move: a lane a collective waits for has left or waits elsewhere, or
// the block's threads wait at different barriers, or some returned before a barrier.
[[noreturn]] void fail_stuck_block(const Worker& w) {
  for (unsigned t = 0; t < g_threads; ++t) {
    const Fiber& f = w.fibers[t];
    if (f.state != State::at_tile) continue;
    for (unsigned j = t - t % f.tile; j < t - t % f.tile + f.tile; ++j) {
      const Fiber& other = w.fibers[j];
      if (other.state == State::exited)
        fail_block(tile_op_name(f) + " waits for a thread that has returned",
                   "thread " + std::to_string(f.linear) + "'s tile includes thread " + std::to_string(j) +
                       ", which left the kernel: every thread of a tile must reach the tile's collectives.");
      if (other.state != State::at_tile || other.tile != f.tile || other.op != f.op)
        fail_block("threads of a tile disagree at " + tile_op_name(f),
                   "every thread of a tile must call the same collective; look for a branch or loop "
                   "bound that differs between the tile's threads.");
    }
  }
  for (unsigned t = 0; t < g_threads; ++t) {
    const Fiber& f = w.fibers[t];
    if (f.state != State::at_warp) continue;
    const unsigned first = t - f.view.lane;
    for (unsigned j = 0; j < 32 && first + j < g_threads; ++j) {
      if (!(f.mask >> j & 1u)) continue;
      const Fiber& other = w.fibers[first + j];
      if (other.state == State::exited) continue;  // takes no part (CUDA: "non-exited threads")
      if (other.state != State::at_warp || other.op != f.op || other.mask != f.mask)
        fail_block(std::string("lanes of a warp disagree at ") + op_name(f.op),
                   "every lane that a mask names must call the same intrinsic with the same "
                   "mask; look for a branch or loop bound that differs between lanes.");
    }
  }
  fail_block("the block's threads cannot all reach the same barrier",
             "__syncthreads() must be reached by every thread of the block, at the same line: "
             "a thread that returns early or skips a barrier inside an if (or a loop with a "
             "per-thread trip count) leaves the others waiting forever (a hang or undefined "
             "behaviour on a GPU).");
}

void poison_shared_memory(Worker& w) {
  // The worker's TLS block of the executable holds every __shared__ array.
  if (!w.tls_lo)
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
          if (info->dlpi_name && info->dlpi_name[0]) return 0;  // the executable comes first
          Worker& w = *static_cast<Worker*>(data);
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_TLS && info->dlpi_tls_data) {
              w.tls_lo = static_cast<unsigned char*>(info->dlpi_tls_data);
              w.tls_hi = w.tls_lo + info->dlpi_phdr[i].p_memsz;
            }
          return 1;
        },
        &w);
  // All of it but a sanitizer runtime's own thread state, which the same block holds in a
  // sanitizer build (poisoning ThreadSanitizer's crashed every launch). A stripped executable
  // does not say where that state is: under a sanitizer the block is then left as it is.
  static const TlsLayout layout = tls_layout();
#if defined(HISTO_SIM_TSAN) || defined(HISTO_SIM_ASAN)
  const bool safe = layout.known;
#else
  const bool safe = true;
#endif
  if (w.tls_lo && safe) {
    uint64_t from = 0;
    const uint64_t size = uint64_t(w.tls_hi - w.tls_lo);
    for (const auto& [begin, end] : layout.runtime) {
      if (begin > from) std::memset(w.tls_lo + from, kPoison, std::min(begin, size) - from);
      from = std::max(from, end);
      if (from >= size) break;
    }
    if (from < size) std::memset(w.tls_lo + from, kPoison, size - from);
  }
  if (g_dynamic_bytes) std::memset(w.dynamic_shared(), kPoison, g_dynamic_bytes);
}

void schedule_block(Worker& w, bool traced);

// A failed block ends too: what its unfinished threads did happens before what follows the
// launch, as what its finished threads did (each releases g_block_sync as it exits). Each
// unfinished thread's fiber releases it here, in TSan's books only (no stack is switched).
void end_failed_block(Worker& w) {
#ifdef HISTO_SIM_TSAN
  for (unsigned t = 0; t < g_threads && t < w.fibers.size(); ++t) {
    Fiber& f = w.fibers[t];
    if (f.state == State::exited || !f.tsan_fiber) continue;
    __tsan_switch_to_fiber(f.tsan_fiber, __tsan_switch_to_fiber_no_sync);
    __tsan_release(&g_block_sync);
    __tsan_switch_to_fiber(w.scheduler_tsan, __tsan_switch_to_fiber_no_sync);
  }
  __tsan_acquire(&g_block_sync);
#else
  (void)w;
#endif
}

// Runs the block w.block_idx on worker w; `traced`: the access trace follows it (one block at a
// time, on the device thread).
void run_block(Worker& w, bool traced) {
  IgnoreAccesses ignore;
  poison_shared_memory(w);
  if (w.abandoned) {
    for (unsigned t = 0; t < w.fibers.size(); ++t) reset_fiber(w.fibers[t]);
    w.abandoned = false;
  }
  std::deque<Fiber>& fibers = w.fibers;
  for (unsigned t = 0; t < g_threads; ++t) fibers[t].state = State::runnable;
  const uint3 b = w.block_idx;
  const unsigned block = b.x + g_grid_dim.x * (b.y + g_grid_dim.y * b.z);
  if (traced)
    trace::begin_block(block, g_threads, w.tls_lo, w.tls_hi, g_dynamic_storage,
                       g_dynamic_storage + g_dynamic_bytes);
  hb_release(&g_launch_sync);
  w.abandoned = true;  // until the block completes
  try {
    schedule_block(w, traced);
  } catch (...) {
    end_failed_block(w);
    throw;
  }
  hb_acquire(&g_block_sync);
  w.abandoned = false;
  if (traced) trace::end_block();
}

// Runs the block's threads until every one has exited; throws where they cannot.
void schedule_block(Worker& w, bool traced) {
  std::deque<Fiber>& fibers = w.fibers;
  for (;;) {
    bool ran = false;
    for (unsigned t = 0; t < g_threads; ++t)
      if (fibers[t].state == State::runnable) {
        switch_to(fibers[t]);
        ran = true;
        if (w.illegal.seen) fail_illegal_address();
        if (w.runaway) fail_runaway_launch();
        if (!w.assertion.empty()) fail_assertion();
      }
    if (ran) continue;
    if (resolve_warps(w)) continue;
    if (resolve_tiles(w)) continue;
    unsigned waiting = 0, exited = 0;
    const Fiber* first_waiting = nullptr;
    bool same_line = true;
    for (unsigned t = 0; t < g_threads; ++t) {
      const Fiber& f = fibers[t];
      if (f.state == State::exited) {
        ++exited;
      } else if (f.state == State::at_barrier) {
        if (!first_waiting) first_waiting = &f;
        same_line = same_line && f.line == first_waiting->line && f.file == first_waiting->file;
        ++waiting;
      }
    }
    if (exited == g_threads) break;
    if (waiting == g_threads && same_line) {
      for (unsigned t = 0; t < g_threads; ++t) fibers[t].state = State::runnable;
      if (traced) trace::barrier_released();
      continue;
    }
    fail_stuck_block(w);
  }
}

}  // namespace

// A LargeInputs launch that spent its atomics (trace.cpp): the fiber leaves its block, which
// fails (fail_runaway_launch).
void runaway_launch() {
  Fiber& f = current_fiber();
  this_worker()->runaway = true;
  f.state = State::exited;  // never resumed: the scheduler fails the launch
  yield_to_scheduler(f);
  std::abort();
}

// ---- Called by kernel code ----------------------------------------------------------------------
const ThreadView* running_thread() {
  const Worker* w = this_worker();
  return w ? w->current : nullptr;
}

uint3 block_index() {
  const Worker* w = this_worker();
  return w ? w->block_idx : uint3{0, 0, 0};
}

unsigned char* dynamic_shared_base() {
  Worker* w = this_worker();
  return w ? w->dynamic_shared() : g_dynamic_storage;
}

unsigned char* file_scope_dynamic_shared() {
  g_fixed_dynamic_shared = true;
  return g_dynamic_storage;
}

unsigned last_launch_host_threads() { return g_last_host_threads; }

void syncthreads(const char* file, int line) {
  if (!running_thread())
    device_only_on_host(("__syncthreads() (" + base_name(file) + ":" + std::to_string(line) + ")").c_str());
  Fiber& f = current_fiber();
  {
    IgnoreAccesses ignore;
    f.state = State::at_barrier;
    f.file = file;
    f.line = line;
  }
  void* sync = &g_barrier_sync[f.barriers++ % 2];
  hb_release(sync);
  yield_to_scheduler(f);
  hb_acquire(sync);
}

void device_only_on_host(const char* intrinsic) {
  throw std::logic_error(std::string("CPU simulator: ") + intrinsic +
                         " called in host code: it is a device function, and nvcc does not "
                         "compile it for the CPU (a __host__ __device__ function that calls it "
                         "runs here on the CPU). Likely cause: a device intrinsic in a "
                         "__host__ __device__ helper; use portable code there (a loop, or "
                         "histo::lowest_set_bit and histo::set_bit_count from histo/bits.hpp). "
                         "If the call is under #ifdef __CUDA_ARCH__, which nvcc's host pass leaves "
                         "out: the simulator compiles a .cu file once, for host and device code "
                         "alike, with __CUDA_ARCH__ defined (900), so its host code runs that "
                         "branch too; a branch that needs no intrinsic works on both sides");
}

namespace {
// Parks the running thread at a collective (at_warp: of the lanes of `mask`; at_tile: of its tile
// of `tile` threads) until the scheduler resolves it, and returns its result. For TSan a sync
// (op syncwarp) orders what its threads did before it, through one of two addresses (sync_pair
// and sync_pair + stride, in turn: see g_barrier_sync).
uint64_t wait_collective(State state, WarpOp op, unsigned mask, unsigned tile, uint64_t value, int arg,
                         int width, const char* file, int line, char* sync_pair, size_t stride) {
  Fiber& f = current_fiber();
  {
    IgnoreAccesses ignore;
    f.state = state;
    f.op = op;
    f.mask = mask;
    f.tile = tile;
    f.value = value;
    f.arg = arg;
    f.width = (width > 0 && width <= 32 && (width & (width - 1)) == 0) ? width : 32;
    f.file = file;
    f.line = line;
  }
  void* sync = sync_pair + (f.syncwarps % 2) * stride;
  if (op == WarpOp::syncwarp) {
    ++f.syncwarps;
    hb_release(sync);
  }
  yield_to_scheduler(f);
  if (op == WarpOp::syncwarp) hb_acquire(sync);
  IgnoreAccesses ignore;
  return f.result;
}
}  // namespace

uint64_t warp_collective(WarpOp op, unsigned mask, uint64_t value, int arg, int width,
                         const char* file, int line) {
  if (!running_thread())
    device_only_on_host((op_name(op) + (" (" + base_name(file) + ":" + std::to_string(line) + ")")).c_str());
  return wait_collective(State::at_warp, op, mask, 0, value, arg, width, file, line,
                         &g_warp_sync[0][current_fiber().linear / 32 % 32], sizeof g_warp_sync[0]);
}

uint64_t tile_collective(WarpOp op, unsigned size, uint64_t value, int arg, const char* file, int line) {
  if (!running_thread())
    device_only_on_host(("thread_block_tile<" + std::to_string(size) + "> (" + base_name(file) + ":" +
                         std::to_string(line) + ")").c_str());
  return wait_collective(State::at_tile, op, 0, size, value, arg, 32, file, line,
                         &g_tile_sync[0][current_fiber().linear / size % 16], sizeof g_tile_sync[0]);
}

// ---- The device thread, its helpers, and launches ----------------------------------------------
namespace {

struct Job {
  std::function<void()> work;
  bool done = false;
};

class DeviceThread {
 public:
  DeviceThread() : thread_([this] { loop(); }) {}
  ~DeviceThread() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  void run(const std::function<void()>& work) {
    Job job{work};
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = &job;
    wake_.notify_all();
    done_.wait(lock, [&] { return job.done; });
  }

 private:
  void loop() {
    Worker worker;
    worker.device = true;
    pthread_setspecific(worker_key(), &worker);
#ifdef HISTO_SIM_TSAN
    worker.scheduler_tsan = __tsan_get_current_fiber();
#endif
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || job_; });
      if (stop_) return;
      job_->work();
      job_->done = true;
      job_ = nullptr;
      done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  bool stop_ = false;
  std::thread thread_;
};

DeviceThread& device_thread() {
  static DeviceThread device;
  return device;
}

// Host threads beside the device thread that run a launch's blocks with it: run() has `helpers`
// of them and the calling thread (on `own`) each run `work` on its own Worker, and returns when
// every one has returned.
class Helpers {
 public:
  ~Helpers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  void run(unsigned helpers, const std::function<void(Worker&)>& work, Worker& own) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (threads_.size() < helpers) {
        const unsigned index = unsigned(threads_.size());
        threads_.emplace_back([this, index, seen = generation_] { loop(index, seen); });
      }
      work_ = &work;
      asked_ = helpers;
      running_ = helpers;
      ++generation_;
    }
    wake_.notify_all();
    work(own);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
    work_ = nullptr;
  }

 private:
  // `seen`: the generation before the one it was made for.
  void loop(unsigned index, uint64_t seen) {
    Worker worker;
    pthread_setspecific(worker_key(), &worker);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= asked_) continue;
      const std::function<void(Worker&)>* work = work_;
      lock.unlock();
      (*work)(worker);
      lock.lock();
      if (--running_ == 0) done_.notify_all();
    }
  }
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(Worker&)>* work_ = nullptr;
  unsigned asked_ = 0, running_ = 0;
  uint64_t generation_ = 0;
  bool stop_ = false;
};

Helpers& helpers() {
  static Helpers pool;
  return pool;
}

// Host threads to run a launch's `runs` blocks on: 1 while the trace follows the launch (a
// hazard check, the counters: they see one block at a time, access by access), under a
// sanitizer (its fibers are the device thread's), in a grading build (its verdicts do not
// depend on the host), where a file-scope extern __shared__ array holds the one dynamic
// buffer's address, or inside a LargeInputs scope; otherwise HISTO_SIM_THREADS, or every core.
unsigned host_threads(uint64_t runs) {
#if defined(HISTO_SIM_TSAN) || defined(HISTO_SIM_ASAN) || defined(HISTO_SIM_HAZARDS_ALWAYS)
  (void)runs;
  return 1;
#else
  if (trace::active() || g_fixed_dynamic_shared || runs < 2) return 1;
  // The graders' inputs of gigabytes: most of their kernels add to a few global counters, which
  // host threads contend for (lab01's 2^32 - 1 bytes: 25 s on 2 threads, 15 s on one).
  if (large_inputs_active()) return 1;
  uint64_t n = std::max(1u, std::thread::hardware_concurrency());
  if (const char* env = std::getenv("HISTO_SIM_THREADS")) {
    char* end = nullptr;
    const unsigned long asked = std::strtoul(env, &end, 10);
    if (end != env && *end == '\0' && asked >= 1) n = std::min<unsigned long>(asked, 1024);
  }
  return unsigned(std::min(n, runs));
#endif
}

// Makes worker w ready for the running launch: fibers for its threads, its dynamic buffer.
void prepare(Worker& w, dim3 block) {
  while (w.fibers.size() < g_threads) {
    w.fibers.emplace_back();
    w.fibers.back().worker = &w;
    reset_fiber(w.fibers.back());
  }
  w.block.resize(g_threads);
  for (unsigned t = 0; t < g_threads; ++t) {
    Fiber& f = w.fibers[t];
    w.block[t] = &f;
    f.linear = t;
    f.view.thread_idx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
    f.view.lane = t % 32;
    f.view.linear = t;
  }
  if (!w.device && g_dynamic_bytes && !w.dynamic) {
    w.dynamic_buffer.resize(kDynamicSharedCapacity + 1024);
    const uintptr_t a = reinterpret_cast<uintptr_t>(w.dynamic_buffer.data());
    w.dynamic = w.dynamic_buffer.data() + ((1024 - a % 1024) % 1024);
  }
}

uint3 block_at(uint64_t b, dim3 grid) {
  return uint3{unsigned(b % grid.x), unsigned(b / grid.x % grid.y), unsigned(b / (uint64_t(grid.x) * grid.y))};
}

std::atomic<unsigned long long> g_kernel_launches{0};

}  // namespace

unsigned long long kernel_launches() { return g_kernel_launches.load(std::memory_order_relaxed); }

void launch(const void* kernel, dim3 grid, dim3 block, size_t dynamic_shared, cudaStream_t stream,
            ThreadBody body, void* closure) {
  g_kernel_launches.fetch_add(1, std::memory_order_relaxed);
  const uint64_t threads = uint64_t(block.x) * block.y * block.z;
  const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
  if (threads == 0 || threads > 1024 || blocks == 0 || grid.x > 0x7FFFFFFFu || grid.y > 65535 ||
      grid.z > 65535 || block.x > 1024 || block.y > 1024 || block.z > 64) {
    std::ostringstream why;
    why << "CPU simulator: invalid launch configuration: grid " << grid.x << " x " << grid.y
        << " x " << grid.z << ", block " << block.x << " x " << block.y << " x " << block.z
        << " (a block holds 1..1024 threads; a grid needs at least one block)";
    set_launch_error(cudaErrorInvalidConfiguration, why.str());
    return;
  }
  if (dynamic_shared > dynamic_shared_limit(kernel) || dynamic_shared > kDynamicSharedCapacity) {
    std::ostringstream why;
    why << "CPU simulator: the launch asks for " << dynamic_shared
        << " B of dynamic shared memory; this kernel may use " << dynamic_shared_limit(kernel)
        << " B (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, ...) "
           "raises the limit up to the device's opt-in maximum)";
    set_launch_error(cudaErrorInvalidValue, why.str());
    return;
  }
  if (!stream_is_valid(stream)) {
    set_launch_error(cudaErrorInvalidResourceHandle, "CPU simulator: launch on a destroyed stream");
    return;
  }
  if (sticky_error() != cudaSuccess) return;  // the device is lost: nothing more runs on it
  before_stream_work(stream);
  const DeviceAccess access;  // the kernel may touch device memory; host code may not
  report_launch(kernel, grid, block);
  hazards_before_launch();
  // The graders' inputs of gigabytes: at most one atomic per byte (runaway_launch).
  set_atomic_budget(large_inputs_active() ? 2 * uint64_t(large_inputs_bytes()) : 0);
  std::string failure;
  cudaError_t code = cudaErrorLaunchFailure;
  const KernelFaults faults;
  device_thread().run([&] {
    IgnoreAccesses ignore;
    Worker& device = *this_worker();
    g_kernel = kernel;
    g_grid_dim = grid;
    g_block_dim = block;
    g_threads = unsigned(threads);
    g_body = body;
    g_closure = closure;
    g_dynamic_bytes = dynamic_shared;
    prepare(device, block);
    trace::begin_launch(kernel, unsigned(blocks), g_threads);
    // Sampled: `g_sampled_blocks` blocks evenly spaced over the grid, the first included.
    const uint64_t runs = g_sampled_blocks && g_sampled_blocks < blocks ? g_sampled_blocks : blocks;
    const unsigned hosts = host_threads(runs);
    g_last_host_threads = hosts;
    if (hosts == 1) {
      try {
        for (uint64_t i = 0; i < runs; ++i) {
          device.block_idx = block_at(runs == blocks ? i : i * blocks / runs, grid);
          run_block(device, true);
        }
      } catch (const LaunchFailure& f) {
        failure = f.message;
        code = f.code;
      }
    } else {
      // Each worker takes the next block. A failing block stops the others taking more; the
      // launch reports the failure of the lowest block that failed: every block below it was
      // taken before it, so that is the failure running them in order reports.
      std::atomic<uint64_t> next{0};
      std::atomic<bool> failed{false};
      std::mutex failure_mutex;
      uint64_t failed_block = ~uint64_t(0);
      const std::function<void(Worker&)> work = [&](Worker& w) {
        if (!w.device) prepare(w, block);
        while (!failed.load(std::memory_order_relaxed)) {
          const uint64_t b = next.fetch_add(1, std::memory_order_relaxed);
          if (b >= runs) break;
          w.block_idx = block_at(b, grid);
          try {
            run_block(w, false);
          } catch (const LaunchFailure& f) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (b < failed_block) {
              failed_block = b;
              failure = f.message;
              code = f.code;
            }
            failed = true;
          }
        }
      };
      helpers().run(hosts - 1, work, device);
    }
    trace::end_launch();
  });
  if (failure.empty()) failure = trace::take_refused_call(kernel);
  if (failure.empty()) failure = hazards_after_launch(kernel);
  if (!failure.empty()) {
    report_launch_failed(failure);
    set_launch_fault(code, failure);
  }
}

}  // namespace histo_sim

// assert() of the C library: in a kernel's thread, CUDA's device-side assert (fail_assertion);
// elsewhere the C library's own behaviour.
extern "C" void __assert_fail(const char* assertion, const char* file, unsigned line,
                              const char* function) noexcept {
  using namespace histo_sim;
  Worker* w = this_worker();
  if (w && w->running && running_thread()) {
    Fiber& f = *w->running;
    std::ostringstream out;
    const uint3 b = w->block_idx, t = f.view.thread_idx;
    out << file << ":" << line << ": " << function << ": block: [" << b.x << "," << b.y << "," << b.z
        << "], thread: [" << t.x << "," << t.y << "," << t.z << "] Assertion `" << assertion << "` failed.";
    std::fprintf(stderr, "%s\n", out.str().c_str());
    if (w->assertion.empty()) w->assertion = out.str();
    f.state = State::exited;  // never resumed: the scheduler fails the launch
    yield_to_scheduler(f);
  } else {
    std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
  }
  std::abort();
}
