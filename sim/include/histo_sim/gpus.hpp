// The GPU the simulator stands in for: its shape (so the occupancy calculator, and so every
// launcher's grid, comes out as on that GPU) and the cost model's constants for it. The values,
// each with its source, are in sim/src/gpus.cpp.
//
// HISTO_SIM_GPU=h200 (also a100, t4, rtx4090) selects one before the first CUDA call; the
// default, "small", is 2 SMs, which keeps grids small for the correctness tests.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace histo_sim {

struct GpuShape {
  const char* key;    // "h200"
  const char* name;   // "NVIDIA H200"
  int cc_major, cc_minor;
  int sm_count;
  size_t shared_per_sm;           // bytes an SM holds for blocks
  size_t shared_per_block_optin;  // bytes one block may opt into
  size_t shared_reserved_per_block;  // what the runtime keeps per block (1 KiB on sm_80+)
  int max_threads_per_sm;
  int max_blocks_per_sm;
  size_t l2_bytes;
  int clock_mhz;
  // The cost model's constants (sim/src/model.cpp says how each one is used).
  double launch_us;                  // a launcher's fixed cost: a 1 KiB memset, then the kernel
  double dram_read_gbps;             // read bandwidth, 16-byte loads
  double load_request_ns;            // what one warp-wide load costs its warp in a latency-bound loop
  double shared_load_latency_ns;     // a shared load that waits for the one before it
  double load_sectors_per_sm_per_s;  // 32-byte sectors an SM's loads move from L2 per second
  double atomic_one_sector_per_s;    // atomic passes per second into one 32-byte sector
  double atomic_region_1k_per_s;     // passes per second spread over one 1 KiB region
  double atomic_spread_per_s;        // passes per second spread over many lines
  double shared_wavefronts_per_sm_per_s;         // loads and stores
  double shared_atomic_wavefronts_per_sm_per_s;
  const char* source;                // where these numbers come from
  // 32-bit registers per SM: 64 K on every compute capability from 5.0 to 9.0 and 12.0 (the
  // CUDA Programming Guide's table of technical specifications).
  int registers_per_sm = 65536;
  // Warp instructions an SM issues per cycle: 4 (four schedulers, one each) from compute
  // capability 7.0 on (the CUDA Programming Guide). The model's issue bound, with nvcc's SASS.
  double issue_per_sm_per_cycle = 4;
  // The L2, for inputs that stay in it across repeated launches (bench/calibrate.cu); 0 where
  // not measured, which leaves the L2 term out of the model.
  double l2_read_gbps = 0;          // reads the L2 serves, 16-byte loads
  double l2_load_request_ns = 0;    // load_request_ns with the data in the L2
  double l2_resident_bytes = 0;     // the largest input that stays in the L2
  // What an SM's stores write into the L2 per second: 32-byte sectors (coalesced 4-byte stores),
  // and 128-byte lines (uncoalesced ones, a line per lane).
  double store_sectors_per_sm_per_s = 0;
  double store_lines_per_sm_per_s = 0;
  // Distinct addresses an SM's constant cache serves per second (a warp's loads of different
  // __constant__ addresses are served one after another, different bytes of one word too).
  double constant_addresses_per_sm_per_s = 0;
  // Atomic passes per second into one 128-byte line whose atomics alternate between ATOM (a
  // result returned: exchange, compare-and-swap) and RED: the L2 is slower at switching.
  double atomic_mixed_kinds_per_s = 0;
};

// Every shape the simulator knows, "small" first.
const std::vector<GpuShape>& gpu_shapes();
// The shape in use (HISTO_SIM_GPU, or select_gpu before the first CUDA call).
const GpuShape& current_gpu();
// Selects a shape by key; false (and nothing changes) for an unknown key. Call it before the
// first CUDA call: the launchers cache the device's SM count.
bool select_gpu(const std::string& key);

}  // namespace histo_sim
