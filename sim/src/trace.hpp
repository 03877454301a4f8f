// The access trace: every load, store and atomic a kernel makes, gathered into warp-level
// requests, for the consumers that read it (counters.cpp today).
//
// Where the accesses come from. The lab's .cu file is compiled with Clang's
// -fsanitize-coverage=trace-loads,trace-stores (sim/CMakeLists.txt), which calls
// __sanitizer_cov_loadN / __sanitizer_cov_storeN with the address of every plain load and store;
// atomics and __ldg are the simulator's own functions (cuda_runtime.h) and report themselves.
// The site of an access is the return address of that call: one machine instruction of the
// kernel, as a memory instruction is on the GPU.
//
// Requests. A request is one warp-level instruction: the lanes of a warp that execute the same
// site for the k-th time since their e-th global load (their epoch) form one request. Lanes
// run one after another here, so the epoch is what lines them up: loop trips read the input,
// so a lane's e-th load is its e-th trip, and an access that only some lanes make in a trip
// (a leader's atomic, a run's atomic) joins the lanes of that same trip, as on the GPU, where
// the warp runs the trip once with those lanes active. Where this differs from hardware: a
// site reached a different number of times by different lanes between two global loads (an
// if inside a loop that reads no global memory) is grouped by count, not by trip; a lane that
// makes one extra load (a head byte) is one epoch ahead of its warp from then on. Requests are
// handed to the consumers when the block finishes, in the order the block's first thread to
// reach each one did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace histo_sim {
struct DeviceShadow;  // internal.hpp
}

namespace histo_sim::trace {

// constant: a kernel's load of __constant__ memory (a Request only: the hazard checks' Access
// sees it as global memory, which it is).
enum class Space : uint8_t { global, shared, constant };
enum class Kind : uint8_t { load, store, atomic };

// One warp-level memory instruction.
struct Request {
  uintptr_t site;          // the instruction (a code address of the kernel)
  Space space;
  Kind kind;
  unsigned bytes;          // per lane: 1, 2, 4, 8 or 16
  unsigned mask;           // lanes that took part
  bool unit_increments;    // an atomic add of 1 by every lane (shared: ATOMS.POPC.INC)
  bool one_lane;           // an atomic nvcc makes one update by one leader lane, the address
                           // being the same for the warp (histo_sim/nvcc_info.hpp)
  bool atom;               // a global atomic that is an ATOM instruction, not a RED
  uint64_t address[32];    // per lane (shared: offset in the block's shared memory)
};

// One access, as it happens (for readers that need every access: the hazard checks).
struct Access {
  unsigned thread;         // within the block
  Space space;
  Kind kind;
  unsigned bytes;
  uint64_t address;        // shared: offset in the block's shared memory
  uintptr_t site;
  unsigned interval;       // block barriers passed so far (the barrier interval)
  unsigned syncs;          // warp and tile barriers the thread passed so far (synced_between)
  unsigned fences;         // __threadfence()s the thread made so far (the device-wide ones)
  DeviceShadow* shadow;    // global: the written bytes of its cudaMalloc allocation (null for
                           // pinned host memory)
};

struct BlockInfo {
  unsigned block;          // linear block index in the grid
  unsigned warps;
};

// A reader of the trace. Calls come from the simulator's device thread, one launch at a time.
class Consumer {
 public:
  virtual ~Consumer() = default;
  virtual void begin_launch(const void* kernel, unsigned grid, unsigned block) = 0;
  // Every request of warp `warp` of the block, in program order of its first lane (only for
  // readers that want requests).
  virtual void warp_requests(const BlockInfo&, unsigned, const std::vector<Request>&) {}
  virtual bool wants_requests() const { return true; }
  // Every access as it happens (only for readers that want them).
  virtual void begin_block(unsigned) {}
  virtual void access(const Access&) {}
  virtual void block_done() {}
  virtual bool wants_accesses() const { return false; }
  virtual void end_launch() = 0;
};

// True when this build observes plain loads and stores (the lab sources were compiled with the
// coverage hooks); atomics and __ldg are always observed.
bool observes_plain_accesses();

// Consumers receive requests only while at least one is attached.
void attach(Consumer* consumer);
void detach(Consumer* consumer);

// Called by the scheduler (device.cpp).
void begin_launch(const void* kernel, unsigned grid, unsigned block_threads);
void begin_block(unsigned block, unsigned threads, const void* shared_lo, const void* shared_hi,
                 const void* dynamic_lo, const void* dynamic_hi);
void barrier_released();  // every thread of the block passed a __syncthreads()
// Threads first + j (j < count; for count <= 32 only those whose bit j of `mask` is set) passed
// one barrier together: a __syncwarp (a warp's lanes) or a tile's sync (a tile of the block).
void group_synced(unsigned first, unsigned count, unsigned mask);
// Whether thread a, after its first a_syncs such barriers, and thread b, after its first b_syncs,
// passed one of them together: what a did before it is ordered before what b does after it.
bool synced_between(unsigned a, unsigned a_syncs, unsigned b, unsigned b_syncs);
// Where the dynamic shared memory begins in the running block's shared space (Access::address),
// and the static part's size: shared offsets below static_shared_bytes() are the executable's
// TLS block (the __shared__ arrays), those from dynamic_shared_offset() on the dynamic part.
uint64_t static_shared_bytes();
uint64_t dynamic_shared_offset();
void end_block();
void end_launch();
bool active();

// Records one access (the coverage hooks' entry point).
void record_plain(uintptr_t address, unsigned bytes, Kind kind, uintptr_t code);

// The bytes [dst, dst + n) a memory function of the kernel wrote, after reading [src, src + n)
// (src 0: a memset), made at instruction `code`: recorded as the loads and stores of a copy loop.
void record_bytes(uintptr_t dst, uintptr_t src, size_t n, uintptr_t code);

// The sentence a launch fails with when its kernel called through a function pointer code the
// trace does not see (a library function), or "" (trace.cpp, "Calls through a pointer").
std::string take_refused_call(const void* kernel);

// Plain loads and stores the hooks reported during the running launch: 0 for a kernel compiled
// without the hooks (only its atomics and __ldg loads were seen, so the trace is incomplete).
uint64_t plain_accesses();

// While non-zero, a block that makes more than `requests` warp-level requests is recorded no
// further (each request held until the block ends costs about 300 bytes), and over_budget()
// says that it happened since this call. For the cost model's sampled launches
// (histo_sim::sampled_counters): a block whose share of a large input grows with it (a grid
// that does not grow with n, or one block's threads doing the work) would take minutes and
// gigabytes to record.
void set_block_budget(uint64_t requests);
bool over_budget();

}  // namespace histo_sim::trace
