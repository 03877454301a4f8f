// The GPUs the simulator can stand in for, and the cost model's constants for each: the one
// file that holds them. Shapes come from the vendor's documents named beside each entry; the
// model constants of the H200 were measured on one by bench/calibrate.cu
// (scripts/calibrate.sh; the run is report/calibration.json). The other GPUs' model constants
// were not measured: bandwidth is the vendor's figure times the H200's measured fraction of its
// own (4364 of 4800 GB/s), and the rest are the H200's scaled by clock and, for whole-device
// rates, by SM count. Treat their predictions as rougher than the H200's.
#include "histo_sim/gpus.hpp"

#include <cstdlib>

namespace histo_sim {
namespace {

constexpr double kH200Mhz = 1980, kH200Sms = 132;
constexpr double kH200DramFraction = 4364.0 / 4800.0;  // measured / vendor peak

// The H200's measured model constants (report/calibration.json), scaled to another GPU.
GpuShape scaled(GpuShape g, double vendor_dram_gbps) {
  const double clock = g.clock_mhz / kH200Mhz, sms = g.sm_count / kH200Sms;
  g.launch_us = 8.29;
  g.dram_read_gbps = vendor_dram_gbps * kH200DramFraction;
  g.load_request_ns = 367.0 / clock;
  g.atomic_one_address_per_s = 4.191e7 * 32 * clock;
  g.atomic_region_1k_per_s = 2.6e9 * clock;
  g.atomic_spread_per_s = 9.653e10 * clock * sms;
  g.shared_wavefronts_per_sm_per_s = 1.643e9 * clock;
  g.shared_atomic_wavefronts_per_sm_per_s = 1.861e9 * clock;
  return g;
}

std::vector<GpuShape> make_shapes() {
  // key, name, cc, SMs, shared/SM, shared/block opt-in, reserved/block, threads/SM, blocks/SM,
  // L2, boost clock (MHz).
  const GpuShape h200{
      "h200", "NVIDIA H200", 9, 0, 132, 233472, 232448, 1024, 2048, 32, 62914560, 1980,
      // Measured on an NVIDIA H200 (report/calibration.json, bench/calibrate.cu):
      8.29,      // launch_after_memset_us
      4364.0,    // dram_read_gbps
      367.0,     // load_request_ns
      4.191e7 * 32,  // atomic_one_address_per_s: 4.191e7 requests/s of 32 lanes on one word
      2.6e9,     // atomic_region_1k_per_s
      9.653e10,  // atomic_spread_per_s
      1.643e9,   // shared_wavefronts_per_sm_per_s
      1.861e9,   // shared_atomic_wavefronts_per_sm_per_s
      "measured on an NVIDIA H200 (report/calibration.json); shape: NVIDIA H200 datasheet and "
      "the CUDA Programming Guide's table for compute capability 9.0"};
  // The correctness tests' device: small on purpose, so grids stay small on a CPU.
  GpuShape small = h200;
  small.key = "small";
  small.name = "CPU simulator (2 SMs)";
  small.sm_count = 2;
  small.l2_bytes = 1 << 20;
  small.source = "the simulator's own small device (not a GPU)";
  return {
      small,
      h200,
      // NVIDIA A100 Tensor Core GPU Architecture whitepaper (SXM4 80 GB): 108 SMs, 164 KiB of
      // shared memory per SM (163 KiB per block), 40 MiB L2, 1410 MHz boost, 2039 GB/s HBM2e.
      scaled({"a100", "NVIDIA A100", 8, 0, 108, 167936, 166912, 1024, 2048, 32, 41943040, 1410,
              0, 0, 0, 0, 0, 0, 0, 0,
              "shape: NVIDIA A100 whitepaper; model constants: the H200's, scaled (sim/src/gpus.cpp)"},
             2039),
      // NVIDIA Turing architecture whitepaper and T4 datasheet: 40 SMs, 64 KiB shared per SM,
      // 1024 threads and 16 blocks per SM, 4 MiB L2, 1590 MHz boost, 320 GB/s GDDR6.
      scaled({"t4", "Tesla T4", 7, 5, 40, 65536, 65536, 0, 1024, 16, 4194304, 1590, 0, 0, 0, 0,
              0, 0, 0, 0,
              "shape: NVIDIA Turing whitepaper, T4 datasheet; model constants: the H200's, scaled"},
             320),
      // NVIDIA Ada Lovelace architecture whitepaper (GeForce RTX 4090): 128 SMs, 100 KiB
      // shared per SM (99 KiB per block), 1536 threads and 24 blocks per SM, 72 MiB L2,
      // 2520 MHz boost, 1008 GB/s GDDR6X.
      scaled({"rtx4090", "NVIDIA GeForce RTX 4090", 8, 9, 128, 102400, 101376, 1024, 1536, 24,
              75497472, 2520, 0, 0, 0, 0, 0, 0, 0, 0,
              "shape: NVIDIA Ada Lovelace whitepaper; model constants: the H200's, scaled"},
             1008),
  };
}

const GpuShape* g_selected = nullptr;

}  // namespace

const std::vector<GpuShape>& gpu_shapes() {
  static const std::vector<GpuShape> shapes = make_shapes();
  return shapes;
}

bool select_gpu(const std::string& key) {
  for (const GpuShape& g : gpu_shapes())
    if (key == g.key) {
      g_selected = &g;
      return true;
    }
  return false;
}

const GpuShape& current_gpu() {
  if (!g_selected) {
    const char* env = std::getenv("HISTO_SIM_GPU");
    if (!env || !*env || !select_gpu(env)) g_selected = &gpu_shapes().front();
  }
  return *g_selected;
}

}  // namespace histo_sim
