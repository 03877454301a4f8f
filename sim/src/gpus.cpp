// The GPUs the simulator can stand in for, and the cost model's constants for each: the one
// file that holds them. Shapes come from the vendor's documents named beside each entry; the
// model constants of the H200 were measured on one by bench/calibrate.cu
// (scripts/gpu_check.sh --part simval) and live in sim/data/h200_calibration.json, which the
// configure step turns into histo_sim/h200_calibration.hpp (sim/model_data.cmake). The other
// GPUs' model constants were not measured: scaled() derives them from the H200's. Treat their
// predictions as rougher than the H200's.
#include "histo_sim/gpus.hpp"
#include "histo_sim/h200_calibration.hpp"  // generated from sim/data/h200_calibration.json

#include <cstdlib>

namespace histo_sim {
namespace {

// Another GPU's model constants from the H200's measured ones: bandwidth is the vendor's figure
// times the fraction of its own peak the H200 reached; rates per SM scale with the clock, rates
// of the whole device with clock and SM count; times per operation with 1 / clock.
GpuShape scaled(GpuShape g, const GpuShape& h200, double vendor_dram_gbps) {
  constexpr double kH200VendorGbps = 4800;  // NVIDIA H200 datasheet: 4.8 TB/s HBM3e
  const double clock = double(g.clock_mhz) / h200.clock_mhz;
  const double sms = double(g.sm_count) / h200.sm_count;
  g.launch_us = h200.launch_us;
  g.dram_read_gbps = vendor_dram_gbps * h200.dram_read_gbps / kH200VendorGbps;
  g.load_request_ns = h200.load_request_ns / clock;
  g.shared_load_latency_ns = h200.shared_load_latency_ns / clock;
  g.load_sectors_per_sm_per_s = h200.load_sectors_per_sm_per_s * clock;
  g.atomic_one_sector_per_s = h200.atomic_one_sector_per_s * clock;
  g.atomic_mixed_kinds_per_s = h200.atomic_mixed_kinds_per_s * clock;
  g.store_sectors_per_sm_per_s = h200.store_sectors_per_sm_per_s * clock;
  g.store_lines_per_sm_per_s = h200.store_lines_per_sm_per_s * clock;
  g.constant_addresses_per_sm_per_s = h200.constant_addresses_per_sm_per_s * clock;
  g.atomic_region_1k_per_s = h200.atomic_region_1k_per_s * clock;
  g.atomic_spread_per_s = h200.atomic_spread_per_s * clock * sms;
  g.shared_wavefronts_per_sm_per_s = h200.shared_wavefronts_per_sm_per_s * clock;
  g.shared_atomic_wavefronts_per_sm_per_s = h200.shared_atomic_wavefronts_per_sm_per_s * clock;
  g.l2_read_gbps = h200.l2_read_gbps * clock * sms;
  g.l2_load_request_ns = h200.l2_load_request_ns / clock;
  g.l2_resident_bytes = h200.l2_resident_bytes * double(g.l2_bytes) / double(h200.l2_bytes);
  return g;
}

std::vector<GpuShape> make_shapes() {
  // key, name, cc, SMs, shared/SM, shared/block opt-in, reserved/block, threads/SM, blocks/SM,
  // L2, boost clock (MHz).
  GpuShape h200{
      "h200", "NVIDIA H200", 9, 0, 132, 233472, 232448, 1024, 2048, 32, 62914560, 1980,
      // Measured on an NVIDIA H200: sim/data/h200_calibration.json, each under its own name.
      h200_calibration::launch_after_memset_us,
      h200_calibration::dram_read_gbps,
      h200_calibration::load_request_ns,
      h200_calibration::shared_load_latency_ns,
      h200_calibration::load_sectors_per_sm_per_s,
      h200_calibration::atomic_one_sector_per_s,
      h200_calibration::atomic_region_1k_per_s,
      h200_calibration::atomic_spread_per_s,
      h200_calibration::shared_wavefronts_per_sm_per_s,
      h200_calibration::shared_atomic_wavefronts_per_sm_per_s,
      "constants measured on an NVIDIA H200 by the course's calibration microbenchmarks, never "
      "fitted to the lab kernels; shape: NVIDIA H200 datasheet and the CUDA Programming Guide's "
      "table for compute capability 9.0"};
  // The L2 (bench/calibrate.cu): a 0 in the calibration leaves the L2 term out of the model.
  h200.l2_read_gbps = h200_calibration::l2_read_gbps;
  h200.l2_load_request_ns = h200_calibration::l2_load_request_ns;
  h200.l2_resident_bytes = h200_calibration::l2_resident_bytes;
  h200.store_sectors_per_sm_per_s = h200_calibration::store_sectors_per_sm_per_s;
  h200.store_lines_per_sm_per_s = h200_calibration::store_lines_per_sm_per_s;
  // A warp's 32 different words, or 32 different bytes of 8 words: the same rate, so the cache
  // serves addresses (calibration's constant_bytes_per_sm_per_s says so).
  h200.constant_addresses_per_sm_per_s = h200_calibration::constant_words_per_sm_per_s;
  // ATOM and RED in turn on one word: the rate of a line whose atomics mix the two.
  h200.atomic_mixed_kinds_per_s = h200_calibration::atomic_inc_exch_one_address_per_s;
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
              0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
              "shape: NVIDIA A100 whitepaper; model constants: the H200's, scaled (sim/src/gpus.cpp)"},
             h200, 2039),
      // NVIDIA Turing architecture whitepaper and T4 datasheet: 40 SMs, 64 KiB shared per SM,
      // 1024 threads and 16 blocks per SM, 4 MiB L2, 1590 MHz boost, 320 GB/s GDDR6.
      scaled({"t4", "Tesla T4", 7, 5, 40, 65536, 65536, 0, 1024, 16, 4194304, 1590, 0, 0, 0, 0,
              0, 0, 0, 0, 0, 0,
              "shape: NVIDIA Turing whitepaper, T4 datasheet; model constants: the H200's, scaled"},
             h200, 320),
      // NVIDIA Ada Lovelace architecture whitepaper (GeForce RTX 4090): 128 SMs, 100 KiB
      // shared per SM (99 KiB per block), 1536 threads and 24 blocks per SM, 72 MiB L2,
      // 2520 MHz boost, 1008 GB/s GDDR6X.
      scaled({"rtx4090", "NVIDIA GeForce RTX 4090", 8, 9, 128, 102400, 101376, 1024, 1536, 24,
              75497472, 2520, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
              "shape: NVIDIA Ada Lovelace whitepaper; model constants: the H200's, scaled"},
             h200, 1008),
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
