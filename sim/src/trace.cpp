// The access trace (trace.hpp says what it is and how requests are formed).
#include "trace.hpp"

#include <cuda_runtime.h>

#include "histo_sim/nvcc_info.hpp"
#include "internal.hpp"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace histo_sim::trace {
namespace {

// A thread's executions of one site since its last global load.
struct SiteCount {
  uint32_t site;
  uint32_t epoch;  // the thread's global loads before these executions
  uint32_t count;
};

struct ThreadState {
  uint32_t loads = 0;  // global loads so far: the epoch that lines lanes up (trace.hpp)
  std::vector<SiteCount> sites;
  // The thread's last access, to rejoin a vector access the host compiler split (record()).
  int64_t last = -1;  // its group in the warp's list
  uint64_t last_address = 0;  // where the access (with the pieces joined to it) begins
  unsigned last_bytes = 0;    // its bytes so far
  unsigned last_piece = 0;    // the size of each piece
  uintptr_t last_code = 0;    // the instruction of its latest piece
};

struct Group {
  uint32_t site;
  Request request;
};

struct WarpState {
  std::unordered_map<uint64_t, uint32_t> index;  // (site id, k) -> position in groups
  std::vector<Group> groups;                      // in the order their first lane made them
};

// Set while a traced block runs on the device thread.
bool g_on = false;
std::vector<Consumer*> g_consumers;
unsigned g_block = 0;
uintptr_t g_shared_lo = 0, g_shared_hi = 0, g_dynamic_lo = 0, g_dynamic_hi = 0;
uint64_t g_dynamic_offset = 0;  // where dynamic shared memory begins in the block's shared space
std::vector<DeviceRange> g_device;  // device memory ranges, sorted
size_t g_last_range = 0;
std::vector<ThreadState> g_thread_state;  // per thread of the block
std::vector<WarpState> g_warps;
std::unordered_map<uint64_t, uint32_t> g_site_ids;  // (code address, space) -> id
bool g_group = false;                      // a reader wants requests
std::vector<Consumer*> g_access_readers;   // readers that want every access
unsigned g_interval = 0;                   // barriers the running block has passed
// The block's warp and tile barriers (group_synced), in the order they completed, and per thread
// the ones it passed (indices into g_syncs); kept only for readers of every access.
struct GroupSync {
  unsigned first, count, mask;
  bool has(unsigned t) const { return t >= first && t - first < count && (count > 32 || (mask >> (t - first) & 1u)); }
};
std::vector<GroupSync> g_syncs;
std::vector<std::vector<uint32_t>> g_synced;
std::vector<uint32_t> g_fences;  // per thread: its __threadfence()s (Access::fences)
bool g_tile_synced = false;  // a barrier of more than one warp: threads of two warps may be ordered
std::vector<uintptr_t> g_site_address;
uint64_t g_block_budget = 0;    // 0: every request is recorded (set_block_budget)
uint64_t g_block_requests = 0;  // requests the running block made so far
bool g_block_over = false;      // the running block passed the budget: nothing more is recorded
bool g_over_budget = false;     // a block passed it since set_block_budget

// The device range holding `a`, or null.
const DeviceRange* in_device(uintptr_t a) {
  if (g_last_range < g_device.size() && a >= g_device[g_last_range].begin &&
      a < g_device[g_last_range].end)
    return &g_device[g_last_range];
  auto it = std::upper_bound(g_device.begin(), g_device.end(), a,
                             [](uintptr_t x, const DeviceRange& r) { return x < r.begin; });
  if (it == g_device.begin()) return nullptr;
  --it;
  if (a >= it->end) return nullptr;
  g_last_range = size_t(it - g_device.begin());
  return &*it;
}

uint32_t site_id(uintptr_t code, Space space) {
  const uint64_t key = (uint64_t(code) << 1) | (space == Space::shared ? 1 : 0);
  auto [it, fresh] = g_site_ids.try_emplace(key, uint32_t(g_site_address.size()));
  if (fresh) g_site_address.push_back(code);
  return it->second;
}

// Whether two instructions are pieces of one source expression (source_identity), asked once per
// pair: the first question looks up every site seen so far with them, in one call per object.
bool one_expression(uintptr_t a, uintptr_t b) {
  struct Hash {
    size_t operator()(const std::pair<uintptr_t, uintptr_t>& p) const { return p.first * 31 + p.second; }
  };
  static std::unordered_map<std::pair<uintptr_t, uintptr_t>, bool, Hash> answers;
  const auto [it, fresh] = answers.try_emplace({a, b}, false);
  if (fresh) it->second = source_identity(a, g_site_address) == source_identity(b, g_site_address);
  return it->second;
}

// plain: an access the coverage hooks saw (the compiler's own load or store), which may be a piece
// of a vector access the host compiler split; an atomic or an __ldg is one instruction on the GPU
// as written, and never joins another.
// What nvcc made of an atomic site (NvccAtomicFlag bits, and kAtom for an exchange or
// compare-and-swap), asked once per site. A grading build counts every lane, whatever nvcc says:
// nvcc's pass of a submission may see other code than the simulator runs (#ifdef __NVCC__ on
// one line), and its word must not make the lanes the simulator runs count as one. Whether an
// atomic is ATOM or RED changes no grade (the cost tests count both).
#ifdef HISTO_SIM_HAZARDS_ALWAYS
constexpr int64_t kTrustedNvccFlags = kAtom;
#else
constexpr int64_t kTrustedNvccFlags = kAtom | kOneLane;
#endif
int64_t atomic_flags(uint32_t site, const AtomicCall& call) {
  static std::vector<int8_t> known;  // per site id: the flags + 1, or 0 while not asked
  if (known.size() <= site) known.resize(site + 1, 0);
  if (!known[site])
    known[site] = int8_t(1 + ((nvcc_atomic_flags(call.file, call.line) & kTrustedNvccFlags) |
                              (call.atom ? kAtom : 0)));
  return known[site] - 1;
}

void record(uintptr_t a, unsigned bytes, Kind kind, uintptr_t code, bool unit = false,
            bool plain = false, const AtomicCall* call = nullptr) {
  if (!g_on || !g_current || g_block_over) return;
  Space space;
  uint64_t address;
  DeviceShadow* shadow = nullptr;
  bool constant = false;
  if (a >= g_shared_lo && a < g_shared_hi) {
    space = Space::shared;
    address = a - g_shared_lo;
  } else if (a >= g_dynamic_lo && a < g_dynamic_hi) {
    space = Space::shared;
    address = g_dynamic_offset + (a - g_dynamic_lo);
  } else if (const DeviceRange* range = in_device(a)) {
    space = Space::global;
    address = a;
    shadow = range->shadow;
    constant = range->constant;
  } else {
    return;  // the thread's own stack, or the simulator's data
  }
  const unsigned thread = g_current->linear;
  if (!g_access_readers.empty()) {
    const Access access{thread, space, kind, bytes, address, code, g_interval,
                        unsigned(g_synced[thread].size()), g_fences[thread], shadow};
    for (Consumer* c : g_access_readers) c->access(access);
  }
  if (!g_group) return;
  // __constant__ memory is read through the constant cache, not the global-memory pipe: its
  // loads are requests of their own space, which the counters keep apart.
  if (constant) space = Space::constant;
  ThreadState& ts = g_thread_state[thread];
  WarpState& warp = g_warps[thread / 32];
  // The host compiler splits some vector accesses that nvcc makes one: a 16-byte store
  // (make_uint4) into two 8-byte halves, and a vector or struct load copied whole (const uchar4
  // v = in[i]; also uint2, uint4) into one load per field, back to back. A piece joins the
  // thread's previous access when it continues it with the same size from another instruction
  // (a loop re-running one load is not a split) of the same source expression (its file, line
  // and column, and those of the calls it was inlined into: two statements that load adjacent
  // words stay two loads, as nvcc makes them), adds up to at most 16 bytes, and the whole stays
  // naturally aligned (as nvcc's vector access must be): halves of 8 bytes in either space,
  // fields of global loads only. Four 4-byte shared loads that nvcc joins into one 16-byte load
  // on its own (sim/README.md) stay four here.
  if (plain && ts.last >= 0 && kind != Kind::atomic && bytes == ts.last_piece &&
      code != ts.last_code && address == ts.last_address + ts.last_bytes && ts.last_bytes + bytes <= 16 &&
      (bytes == 8 || (space == Space::global && kind == Kind::load))) {
    unsigned whole = 1;
    while (whole < ts.last_bytes + bytes) whole *= 2;
    Request& previous = warp.groups[size_t(ts.last)].request;
    if (ts.last_address % whole == 0 && previous.kind == kind && previous.space == space &&
        one_expression(code, ts.last_code)) {
      ts.last_bytes += bytes;
      ts.last_code = code;
      previous.bytes = std::max(previous.bytes, ts.last_bytes);
      return;
    }
  }
  const uint32_t site = site_id(code, space);
  const uint32_t epoch = (space == Space::global && kind == Kind::load) ? ts.loads++ : ts.loads;
  uint32_t k = 0;
  for (SiteCount& s : ts.sites)
    if (s.site == site) {
      if (s.epoch != epoch) s = {site, epoch, 0};
      k = ++s.count;
      break;
    }
  if (k == 0) ts.sites.push_back({site, epoch, k = 1});
  const uint64_t key = (uint64_t(site) << 48) ^ (uint64_t(epoch) << 16) ^ (k & 0xFFFF);
  if (g_block_budget && g_block_requests >= g_block_budget && !warp.index.count(key)) {
    g_block_over = g_over_budget = true;  // a request past the budget: the block is not recorded on
    return;
  }
  auto [it, fresh] = warp.index.try_emplace(key, uint32_t(warp.groups.size()));
  if (fresh) {
    ++g_block_requests;
    Group g{};
    g.site = site;
    g.request.site = code;
    g.request.space = space;
    g.request.kind = kind;
    g.request.bytes = bytes;
    g.request.unit_increments = true;
    if (call) {
      const int64_t flags = atomic_flags(site, *call);
      g.request.one_lane = flags & kOneLane;
      g.request.atom = flags & kAtom;
    }
    warp.groups.push_back(g);
  }
  Request& r = warp.groups[it->second].request;
  const unsigned lane = thread % 32;
  r.mask |= 1u << lane;
  r.address[lane] = address;
  r.unit_increments = r.unit_increments && unit;
  ts.last = plain ? int64_t(it->second) : -1;
  ts.last_address = address;
  ts.last_bytes = ts.last_piece = bytes;
  ts.last_code = code;
}

}  // namespace

uint64_t g_plain = 0;  // plain accesses the hooks reported during this launch

void record_plain(uintptr_t address, unsigned bytes, Kind kind, uintptr_t code) {
  if (!g_on) return;  // nothing follows the launch: the hooks cost a call and this test
  ++g_plain;
  record(address, bytes, kind, code, false, true);
}

uint64_t plain_accesses() { return g_plain; }

namespace {
bool g_in_copy = false;  // record_bytes is running (the consumers' own copies are not the kernel's)
// Code of the traced sources ran during this launch (their function-entry hook): only then is a
// copy the kernel's. A kernel built without the hooks shows no plain access, its copies
// included, and the simulator's own copies while it runs are not its accesses.
bool g_traced_code_ran = false;
}

void traced_function_entered() {
  if (g_current) g_traced_code_ran = true;
}

void record_bytes(uintptr_t dst, uintptr_t src, size_t n, uintptr_t code) {
  if (!g_on || !g_current || g_in_copy || !g_traced_code_ran) return;
  g_in_copy = true;
  // The widest naturally aligned access, up to 16 bytes, that the addresses allow: a copy loop
  // over the bytes, as nvcc writes one, in pieces as wide as the alignment it knows.
  const uintptr_t aligned = dst | (src ? src : dst);
  for (size_t i = 0; i < n;) {
    unsigned w = 16;
    while (w > 1 && ((aligned + i) % w != 0 || n - i < w)) w /= 2;
    if (src) {
      ++g_plain;
      record(src + i, w, Kind::load, code);
    }
    ++g_plain;
    record(dst + i, w, Kind::store, code);
    i += w;
  }
  g_in_copy = false;
}

// ---- Calls through a pointer ------------------------------------------------------------------
// -fsanitize-coverage=indirect-calls calls __sanitizer_cov_trace_pc_indir before every call
// through a pointer of the traced sources, and pc-table lists the entries of their functions
// (__sanitizer_cov_pcs_init, per module: a {pc, flags} pair per function, flags 1). A kernel
// may call through a pointer only code whose accesses the trace sees: a function of those
// sources, or memcpy, memset and memmove (the trace counts them). Anything else (a library
// function, code compiled without the hooks) is refused: the launch fails, naming the call's line.
namespace {
// Filled by the traced sources' constructors, which may run before this file's: made then.
std::vector<uintptr_t>* g_entries = nullptr;  // traced functions' entries, sorted
std::vector<std::pair<const uintptr_t*, const uintptr_t*>>* g_tables = nullptr;  // tables seen
uintptr_t g_refused_site = 0;                 // the launch's first refused call, or 0
}  // namespace

std::string take_refused_call(const void* kernel) {
  if (!g_refused_site) return "";
  const uintptr_t site = g_refused_site;
  g_refused_site = 0;
  return "CPU simulator: kernel " + kernel_name(kernel) + ", " + source_line(site) +
         ": a call through a function pointer to code the simulator does not observe: its memory "
         "accesses would be neither counted nor checked for races. Device code may call through a "
         "pointer only functions of its own source (device functions, lambdas) and memcpy, "
         "memset, memmove";
}

void set_block_budget(uint64_t accesses) {
  g_block_budget = accesses;
  g_over_budget = false;
}
bool over_budget() { return g_over_budget; }

bool observes_plain_accesses() {
#ifdef HISTO_SIM_TRACE_LOADS
  return true;
#else
  return false;
#endif
}

namespace {
void sort_readers() {
  g_group = false;
  g_access_readers.clear();
  for (Consumer* c : g_consumers) {
    g_group = g_group || c->wants_requests();
    if (c->wants_accesses()) g_access_readers.push_back(c);
  }
}
}  // namespace

void attach(Consumer* consumer) {
  g_consumers.push_back(consumer);
  sort_readers();
}
void detach(Consumer* consumer) {
  g_consumers.erase(std::remove(g_consumers.begin(), g_consumers.end(), consumer), g_consumers.end());
  sort_readers();
}
bool active() { return !g_consumers.empty(); }

void begin_launch(const void* kernel, unsigned grid, unsigned block_threads) {
  g_plain = 0;
  g_traced_code_ran = false;
  if (!active()) return;
  g_device = device_ranges();
  g_last_range = 0;
  for (Consumer* c : g_consumers) c->begin_launch(kernel, grid, block_threads);
}

void begin_block(unsigned block, unsigned threads, const void* shared_lo, const void* shared_hi,
                 const void* dynamic_lo, const void* dynamic_hi) {
  if (!active()) return;
  g_block = block;
  g_shared_lo = reinterpret_cast<uintptr_t>(shared_lo);
  g_shared_hi = reinterpret_cast<uintptr_t>(shared_hi);
  g_dynamic_lo = reinterpret_cast<uintptr_t>(dynamic_lo);
  g_dynamic_hi = reinterpret_cast<uintptr_t>(dynamic_hi);
  // Static shared memory first, then the dynamic part, 1 KiB aligned (banks repeat every 128 B).
  g_dynamic_offset = (g_shared_hi - g_shared_lo + 1023) / 1024 * 1024;
  g_interval = 0;
  g_block_requests = 0;
  g_block_over = false;
  if (g_group) {
    g_thread_state.assign(threads, {});
    g_warps.resize((threads + 31) / 32);
    for (WarpState& w : g_warps) {
      w.index.clear();
      w.groups.clear();
    }
  }
  if (!g_access_readers.empty()) {
    g_syncs.clear();
    g_synced.resize(threads);
    for (std::vector<uint32_t>& s : g_synced) s.clear();
    g_fences.assign(threads, 0);
    g_tile_synced = false;
  }
  for (Consumer* c : g_access_readers) c->begin_block(block);
  g_on = true;
}

void barrier_released() { ++g_interval; }

void group_synced(unsigned first, unsigned count, unsigned mask) {
  if (!g_on || g_access_readers.empty()) return;
  const GroupSync sync{first, count, mask};
  g_syncs.push_back(sync);
  g_tile_synced = g_tile_synced || count > 32;
  for (unsigned t = first; t < first + count && t < g_synced.size(); ++t)
    if (sync.has(t)) g_synced[t].push_back(uint32_t(g_syncs.size() - 1));
}

bool synced_between(unsigned a, unsigned a_syncs, unsigned b, unsigned b_syncs) {
  if (b_syncs == 0 || a >= g_synced.size() || b >= g_synced.size()) return false;
  if (a / 32 != b / 32 && !g_tile_synced) return false;
  const std::vector<uint32_t>& passed = g_synced[a];
  const uint32_t b_last = g_synced[b][b_syncs - 1];  // the latest that b had passed
  for (size_t k = a_syncs; k < passed.size() && passed[k] <= b_last; ++k)
    if (g_syncs[passed[k]].has(b)) return true;
  return false;
}

uint64_t static_shared_bytes() { return g_shared_hi - g_shared_lo; }
uint64_t dynamic_shared_offset() { return g_dynamic_offset; }

void end_block() {
  if (!g_on) return;
  g_on = false;
  for (Consumer* c : g_access_readers) c->block_done();
  if (!g_group) return;
  const BlockInfo info{g_block, unsigned(g_warps.size())};
  std::vector<Request> requests;
  for (unsigned w = 0; w < g_warps.size(); ++w) {
    requests.clear();
    for (const Group& g : g_warps[w].groups) requests.push_back(g.request);
    for (Consumer* c : g_consumers)
      if (c->wants_requests()) c->warp_requests(info, w, requests);
  }
}

void end_launch() {
  g_on = false;
  for (Consumer* c : g_consumers) c->end_launch();
}

}  // namespace histo_sim::trace

// ---- The hooks ----------------------------------------------------------------------------------
namespace histo_sim {
namespace {
uint64_t g_atomics_left = 0;  // set_atomic_budget
}

void set_atomic_budget(uint64_t budget) { g_atomics_left = budget; }

void trace_atomic(const void* address, unsigned bytes, AtomicCall call) {
  if (!trace::g_on) {
    if (g_atomics_left && --g_atomics_left == 0) runaway_launch();
    return;
  }
  trace::record(reinterpret_cast<uintptr_t>(address), bytes, trace::Kind::atomic,
                reinterpret_cast<uintptr_t>(__builtin_return_address(0)), call.adds_one, false, &call);
}
void trace_fence() {
  if (trace::g_on && g_current && !trace::g_access_readers.empty()) ++trace::g_fences[g_current->linear];
}
void traced_load(const void* address, void* out, unsigned bytes) {
  if (trace::g_on)
    trace::record(reinterpret_cast<uintptr_t>(address), bytes, trace::Kind::load,
                  reinterpret_cast<uintptr_t>(__builtin_return_address(0)));
  // One access, performed inline: a call to memcpy would be counted again (record_bytes).
  switch (bytes) {
    case 1: __builtin_memcpy(out, address, 1); break;
    case 2: __builtin_memcpy(out, address, 2); break;
    case 4: __builtin_memcpy(out, address, 4); break;
    case 8: __builtin_memcpy(out, address, 8); break;
    default: __builtin_memcpy(out, address, 16); break;
  }
}
}  // namespace histo_sim

// Clang's -fsanitize-coverage=trace-loads,trace-stores calls these with the address of every
// plain load and store of the instrumented code; trace-pc-guard (at function level) is the
// coverage mode those options need, and its own callbacks do nothing here.
#define HISTO_SIM_HOOK(name, type, bytes, kind)                                            \
  extern "C" void name(type* p) {                                                          \
    histo_sim::trace::record_plain(reinterpret_cast<uintptr_t>(p), bytes,                  \
                                   histo_sim::trace::Kind::kind,                           \
                                   reinterpret_cast<uintptr_t>(__builtin_return_address(0))); \
  }
HISTO_SIM_HOOK(__sanitizer_cov_load1, uint8_t, 1, load)
HISTO_SIM_HOOK(__sanitizer_cov_load2, uint16_t, 2, load)
HISTO_SIM_HOOK(__sanitizer_cov_load4, uint32_t, 4, load)
HISTO_SIM_HOOK(__sanitizer_cov_load8, uint64_t, 8, load)
HISTO_SIM_HOOK(__sanitizer_cov_load16, __int128, 16, load)
HISTO_SIM_HOOK(__sanitizer_cov_store1, uint8_t, 1, store)
HISTO_SIM_HOOK(__sanitizer_cov_store2, uint16_t, 2, store)
HISTO_SIM_HOOK(__sanitizer_cov_store4, uint32_t, 4, store)
HISTO_SIM_HOOK(__sanitizer_cov_store8, uint64_t, 8, store)
HISTO_SIM_HOOK(__sanitizer_cov_store16, __int128, 16, store)
#undef HISTO_SIM_HOOK
extern "C" void __sanitizer_cov_trace_pc_guard_init(uint32_t*, uint32_t*) {}
extern "C" void __sanitizer_cov_trace_pc_guard(uint32_t*) { histo_sim::trace::traced_function_entered(); }

#ifdef HISTO_SIM_TRACE_LOADS
// memcpy, memset and memmove, however the kernel spelled them: a call (device code may call
// them, cuda_runtime.h), a __builtin_ form, a struct copied whole, a pointer to one. The linker
// sends every call of the program to the __wrap_ functions (--wrap, sim/CMakeLists.txt), and the
// lab sources' compiler turns its own copies (llvm.memcpy and friends, which it would otherwise
// expand inline, unseen) into calls of them (histo_sim_trace: ThreadSanitizer's pass, with its
// loads, stores, atomics and function hooks off, does only that). While a kernel runs, their
// bytes are loads and stores of the instruction that called them.
extern "C" {
void* __real_memcpy(void* dst, const void* src, size_t n);
void* __real_memset(void* dst, int value, size_t n);
void* __real_memmove(void* dst, const void* src, size_t n);
#define HISTO_SIM_CALLER reinterpret_cast<uintptr_t>(__builtin_return_address(0))
#define HISTO_SIM_COPY(name, real)                                                            \
  void* name(void* dst, const void* src, size_t n) {                                          \
    histo_sim::trace::record_bytes(reinterpret_cast<uintptr_t>(dst),                          \
                                   reinterpret_cast<uintptr_t>(src), n, HISTO_SIM_CALLER);    \
    return real(dst, src, n);                                                                 \
  }
#define HISTO_SIM_SET(name)                                                                   \
  void* name(void* dst, int value, size_t n) {                                                \
    histo_sim::trace::record_bytes(reinterpret_cast<uintptr_t>(dst), 0, n, HISTO_SIM_CALLER); \
    return __real_memset(dst, value, n);                                                      \
  }
HISTO_SIM_COPY(__wrap_memcpy, __real_memcpy)
HISTO_SIM_COPY(__wrap_memmove, __real_memmove)
HISTO_SIM_SET(__wrap_memset)
// Clang 16 and newer name the calls its pass writes __tsan_memcpy and so on.
HISTO_SIM_COPY(__tsan_memcpy, __real_memcpy)
HISTO_SIM_COPY(__tsan_memmove, __real_memmove)
HISTO_SIM_SET(__tsan_memset)
#undef HISTO_SIM_COPY
#undef HISTO_SIM_SET
#undef HISTO_SIM_CALLER
void __tsan_init() {}  // the pass's constructor calls it: there is no ThreadSanitizer runtime
}

extern "C" void __sanitizer_cov_pcs_init(const uintptr_t* begin, const uintptr_t* end) {
  using namespace histo_sim::trace;
  if (!g_tables) {
    g_tables = new std::vector<std::pair<const uintptr_t*, const uintptr_t*>>;
    g_entries = new std::vector<uintptr_t>;
  }
  for (const auto& t : *g_tables)
    if (t.first == begin && t.second == end) return;  // each of a module's sources passes it
  g_tables->emplace_back(begin, end);
  for (const uintptr_t* p = begin; p + 1 < end; p += 2)
    if (p[1] & 1) g_entries->push_back(p[0]);
  std::sort(g_entries->begin(), g_entries->end());
}

extern "C" void __sanitizer_cov_trace_pc_indir(uintptr_t callee) {
  using namespace histo_sim::trace;
  if (!g_on || !histo_sim::g_current || g_refused_site) return;
  if ((g_entries && std::binary_search(g_entries->begin(), g_entries->end(), callee)) ||
      callee == reinterpret_cast<uintptr_t>(&__wrap_memcpy) ||
      callee == reinterpret_cast<uintptr_t>(&__wrap_memmove) ||
      callee == reinterpret_cast<uintptr_t>(&__wrap_memset))
    return;
  g_refused_site = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
}
#endif
