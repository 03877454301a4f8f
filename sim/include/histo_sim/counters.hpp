// The simulator's counters: what one kernel launch did to memory, counted as Nsight Compute
// counts it on the GPU (sim/README.md, "Counters", gives each definition and the metric's name).
// Available in a build whose lab sources carry the access trace's hooks (a Clang build, see
// sim/README.md); atomics and __ldg are counted in every build.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace histo_sim {

// The counters that add up access by access, as Nsight Compute names them (metrics()): a
// launch's (LaunchCounters), one instruction's (SiteCounts) or one source line's (line_counts).
// Over every site of a launch they add up to the launch's own.
struct MemoryCounts {
  uint64_t global_load_requests = 0, global_load_sectors = 0;
  uint64_t global_store_requests = 0, global_store_sectors = 0;
  uint64_t global_atomic_requests = 0, global_atomic_sectors = 0;  // RED and ATOM instructions
  uint64_t global_atom_requests = 0, global_atom_sectors = 0;      // of those, the ATOMs
  uint64_t shared_load_instructions = 0, shared_load_wavefronts = 0, shared_load_ideal = 0;
  uint64_t shared_store_instructions = 0, shared_store_wavefronts = 0, shared_store_ideal = 0;
  uint64_t shared_atomic_instructions = 0, shared_atomic_wavefronts = 0, shared_atomic_ideal = 0;
  uint64_t dram_read_bytes = 0;  // the sectors these loads were the first to read, x 32
  // For the cost model only (no Nsight Compute metric counts these loads): per __constant__ load
  // request, the distinct addresses it reads.
  uint64_t constant_addresses = 0;

  uint64_t shared_load_conflicts() const { return shared_load_wavefronts - shared_load_ideal; }
  uint64_t shared_store_conflicts() const { return shared_store_wavefronts - shared_store_ideal; }
  uint64_t shared_atomic_conflicts() const { return shared_atomic_wavefronts - shared_atomic_ideal; }
  MemoryCounts& operator+=(const MemoryCounts& other);
  MemoryCounts scaled(double factor) const;  // every count x factor, rounded
};

// One instruction of a kernel (a site of the access trace: a code address) and what it did.
struct SiteCounts {
  uintptr_t site = 0;
  MemoryCounts counts;
};

// One launch: Nsight Compute's metrics (MemoryCounts; metrics() gives each one's name; its DRAM
// bytes are the distinct 32-byte sectors that global loads read, x 32), then what the cost model
// needs besides.
struct LaunchCounters : MemoryCounts {
  const void* kernel = nullptr;
  unsigned grid = 0, block = 0;
  uint64_t global_atomic_addresses = 0;   // per request, the distinct words it updates, summed
  uint64_t busiest_sector_passes = 0;     // atomic sector passes into the most-updated sector
  uint64_t mixed_line_passes = 0;         // atomic passes into the busiest 128-byte line that
                                          // takes both ATOM and RED passes (0: none does)
  uint64_t mixed_line_minority = 0;       // that line's passes of its less frequent kind
  uint64_t global_store_lines = 0;        // per store request, the distinct 128-byte lines it writes
  uint64_t atomic_footprint_bytes = 0;    // distinct 128-byte lines the atomics touched, x 128
  uint64_t load_rounds = 0;               // per warp, runs of global loads with nothing between
  uint64_t load_chain_rounds = 0;         // per warp, the waits its global loads make (counters.cpp)
  uint64_t warps = 0;
  uint64_t blocks_run = 0;                // the blocks simulated: grid, or fewer when sampled
  std::vector<uint64_t> shared_wavefronts_per_sm;         // loads and stores, blocks round-robin
  std::vector<uint64_t> shared_atomic_wavefronts_per_sm;
  std::vector<uint64_t> global_load_requests_per_sm;      // blocks round-robin, likewise
  size_t static_shared_bytes = 0;  // the extent of static shared memory the kernel touched
  std::vector<SiteCounts> sites;   // per instruction, in the order the trace first met them
};

// One counter as a column: Nsight Compute's metric name and the value.
struct Metric {
  const char* name;
  uint64_t value;
};
std::vector<Metric> metrics(const MemoryCounts& c);

// One source line of the kernels and what its accesses did: file:line
// ("lab05_per_thread_packed.cu:99", "?" where the line tables say nothing), the line's text
// without its indentation ("" where the file cannot be read), and its counts.
struct LineCounts {
  std::string where;
  std::string text;
  MemoryCounts counts;
};
// The sites of `launches` gathered by source line (an instruction inlined from a helper counts
// on the helper's line), in file and line order; they add up to the launches' counters. Reads
// the executable's line tables (addr2line) and the source files.
std::vector<LineCounts> line_counts(const std::vector<LaunchCounters>& launches);

// True when plain loads and stores are observed (the counters are complete); otherwise the
// sentence that says why not.
bool counters_available();
const char* counters_unavailable_reason();

// Counts every launch from begin to end; end returns one entry per launch, in order.
void counters_begin();
std::vector<LaunchCounters> counters_end();

// While non-zero, a launch of a larger grid runs only this many of its blocks, evenly spaced
// (block 0 among them), and records blocks_run: the cost model's prediction for a large input
// (histo_sim/model.hpp, scaled_to_grid). The output is then incomplete: check nothing with it.
void set_sampled_blocks(unsigned blocks);

// The host threads that ran the latest launch's blocks: 1 while a hazard check or the counters
// follow launches (they see one block at a time), else HISTO_SIM_THREADS or every core
// (sim/README.md, "Speed").
unsigned last_launch_host_threads();

// The simulated device's memory (1 GiB unless set): raised by the cost model's report to hold
// the input it predicts for. The host must have it.
void set_device_memory(size_t bytes);

// Inputs of gigabytes (the graders' tests past 2^31 and 2^32 bytes). While one is alive the
// device holds at least `device_bytes`, and launches run without the hazard checks and the
// initcheck (a pass over gigabytes with them would take many minutes; the graders' other tests
// check hazards). Device pages are backed only where written, and a cudaMemset of whole 2 MiB
// stretches shares one copy of the byte's pages, so an input built as memset runs takes a few
// MiB of the host's memory however long it is. unavailable_reason(): nullptr where they run,
// else why not (a sanitizer build).
class LargeInputs {
 public:
  explicit LargeInputs(size_t device_bytes);
  ~LargeInputs();
  LargeInputs(const LargeInputs&) = delete;
  LargeInputs& operator=(const LargeInputs&) = delete;
  static const char* unavailable_reason();

 private:
  size_t previous_bytes_;
};

}  // namespace histo_sim
