// The contract every lab's launcher keeps, and the registry that lists them.
//
// A byte-histogram launcher:
//   LaunchShape launch(const uint8_t* d_in, size_t n, uint32_t* d_bins, cudaStream_t stream);
// reads n bytes from device memory at any alignment, OVERWRITES the 256 bins at d_bins (it
// never accumulates into them), and returns the grid it launched so graders can print it.
// It validates its arguments and checks its launches: bad input throws std::invalid_argument
// or std::length_error, a CUDA failure throws CudaError. It never returns wrong bins silently.
#pragma once

#include "histo/bits.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace histo {

__host__ __device__ constexpr size_t ceil_div(size_t a, size_t b) { return (a + b - 1) / b; }

struct LaunchShape {
  unsigned grid = 0;        // blocks; 0 when nothing was launched (n == 0)
  unsigned block = 0;       // threads per block
  size_t shared_bytes = 0;  // dynamic + static shared memory per block
  // "grid 264 x block 256, 1024 B shared" or "no launch"
  std::string describe() const {
    if (grid == 0) return "no launch";
    return "grid " + std::to_string(grid) + " x block " + std::to_string(block) +
           (shared_bytes ? ", " + std::to_string(shared_bytes) + " B shared" : "");
  }
};

using ByteHistogramFn = LaunchShape (*)(const uint8_t* d_in, size_t n, uint32_t* d_bins,
                                        cudaStream_t stream);

enum class Expect {
  correct,       // must match the reference exactly
  loses_counts,  // a demonstration of a race: the grader and report show what it loses
};

// What a kernel is built from, declared by its registry entry (Variant::parts, OR-ed together).
// A failure report offers only the likely causes such a kernel can have: no head/tail advice
// for a kernel that reads bytes one by one, no wrapped 8-bit counter where counters are 32-bit,
// a missing __syncthreads() only where there are barriers. 0 (nothing declared): every cause.
enum Part : unsigned {
  kByteLoads = 1u << 0,         // reads its input one element at a time (no head or tail)
  kWordLoads = 1u << 1,         // aligned 4-byte loads; the bytes before and after them apart
  kVectorLoads = 1u << 2,       // aligned 16-byte loads; the bytes before and after them apart
  kGlobalAtomics = 1u << 3,     // counts each element with an atomic on the global bins
  kWarpAggregation = 1u << 4,   // one leader per group of equal values adds the group's count
  kSharedBins = 1u << 5,        // a per-block histogram in shared memory: zeroed, counted, merged
  kPacked8 = 1u << 6,           // per-thread 8-bit counters, four to a 32-bit word, merged by rows
  kBarriers = 1u << 7,          // __syncthreads() between zeroing, counting and merging
  kRunAggregation = 1u << 8,    // one add per run of equal bytes in a vector
  kGridBudget = 1u << 9,        // the grid is sized so that no 8-bit counter can pass 255
  kPeriodicMerge = 1u << 10,    // merges and clears its 8-bit counters every few elements
  kSpills128 = 1u << 11,        // spills an 8-bit counter in lumps of 128 (the overflow check)
};

// One registered kernel: the single list of these drives the graders' sweeps, the benchmark,
// the report and the plot labels.
struct Variant {
  const char* lab;        // "lab01"
  const char* name;       // "segmented": unique within the lab
  const char* technique;  // one line for the report
  ByteHistogramFn launch;
  Expect expect = Expect::correct;
  unsigned parts = 0;     // what it is built from (Part flags): the graders' likely causes
  std::string id() const { return std::string(lab) + "/" + name; }
  bool has(Part part) const { return (parts & part) != 0; }
  // The same kernel under another name and launcher (e.g. on a fixed grid), its parts kept.
  Variant with(const char* other_name, ByteHistogramFn other_launch) const {
    Variant v = *this;
    v.name = other_name;
    v.launch = other_launch;
    return v;
  }
};

// A read-only access-pattern probe (lab02): reads the input the way a kernel would and counts
// nothing, to show what the access pattern alone costs. d_sink points to one device word.
using ReadProbeFn = void (*)(const uint8_t* d_in, size_t n, uint32_t* d_sink, cudaStream_t stream);
struct ReadProbe {
  const char* lab;
  const char* name;
  const char* technique;
  ReadProbeFn run;
  std::string id() const { return std::string(lab) + "/" + name; }
};

// Every launcher starts with this: checks the arguments (d_bins non-null; d_in non-null when
// n > 0; both device-accessible; n small enough for num_bins 32-bit counters that can never
// wrap), then zeroes the num_bins counters on `stream`. `who` names the launcher in errors.
void prepare_output(const void* d_in, size_t n, void* d_bins, size_t num_bins,
                    size_t bytes_per_bin, cudaStream_t stream, const char* who);

// The largest n a launcher with 32-bit counters accepts: at most 2^32 - 1 elements, so no bin
// can wrap. Larger inputs need 64-bit counters (lab03).
inline constexpr uint64_t kMaxElements32 = 0xFFFFFFFFull;

// Multiprocessors of the current device (cached per device): grids are sized from it.
int device_sm_count();

// Blocks of `kernel` that one SM holds at once with `block` threads and `dynamic_shared` bytes
// of dynamic shared memory (the occupancy calculator), asked once per device and kernel, then
// remembered. Throws std::invalid_argument naming `who` when not even one block fits.
unsigned resident_blocks_per_sm(const void* kernel, unsigned block, size_t dynamic_shared,
                                const char* who);
// Forgets what device_sm_count and resident_blocks_per_sm remembered: the CPU simulator can
// stand in for another GPU (histo_sim::select_gpu), and its counters learn a kernel's static
// shared memory from its first counted launch, which changes the occupancy's answer.
void forget_device_cache();
template <typename Kernel>
unsigned resident_blocks_per_sm(Kernel* kernel, unsigned block, size_t dynamic_shared,
                                const char* who) {
  return resident_blocks_per_sm(reinterpret_cast<const void*>(kernel), block, dynamic_shared, who);
}

// The most shared memory one block may use on the current device when it opts in past the
// default 48 KiB (cudaDevAttrMaxSharedMemoryPerBlockOptin), cached per device.
size_t shared_optin_bytes();

// Rejects a launch shape that the device cannot run, before launching (std::invalid_argument).
void check_launch_shape(const LaunchShape& shape, const char* who);

}  // namespace histo
