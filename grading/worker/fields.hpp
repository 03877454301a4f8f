// How the engine's structs cross to and from the worker, field by field (remote.hpp's Codec).
// Each lists every field of its struct; the size check beside it fails the build when a field is
// added, so that a new field cannot be dropped silently on the way.
#pragma once

#include "remote.hpp"

#include "histo/gpu.hpp"
#include "histo/launch.hpp"

#ifdef HISTO_SIM
#include "histo_sim/counters.hpp"
#include "histo_sim/gpus.hpp"
#include "histo_sim/model.hpp"
#include "histo_sim_host_writes.h"
#endif

namespace histo_remote {

using histo::GpuStatus;
#ifdef HISTO_SIM
using histo_sim::Bound, histo_sim::BindingAndNext, histo_sim::GpuShape, histo_sim::HostActivity,
    histo_sim::LaunchCounters, histo_sim::LineCounts, histo_sim::Prediction;
#endif

// A struct as its fields in order (member pointers), each by its own Codec.
template <typename T, auto... M> struct Fields {
  template <auto Mp>
  using Field = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<T&>().*Mp)>>;
  static void put(Writer& w, const T& v) { (Codec<Field<M>>::put(w, v.*M), ...); }
  static T get(Reader& r) {
    T v{};
    ((v.*M = Codec<Field<M>>::get(r)), ...);
    return v;
  }
};
#define HISTO_REMOTE_SIZE(Type, bytes) \
  static_assert(sizeof(Type) == (bytes), #Type " changed: list its fields here (fields.hpp)")

HISTO_REMOTE_SIZE(histo::GpuStatus, 128);
template <> struct Codec<histo::GpuStatus>
    : Fields<histo::GpuStatus,
             &GpuStatus::available, &GpuStatus::runnable, &GpuStatus::reason, &GpuStatus::device,
             &GpuStatus::name, &GpuStatus::cc_major, &GpuStatus::cc_minor, &GpuStatus::sm_count,
             &GpuStatus::global_bytes, &GpuStatus::l2_bytes, &GpuStatus::shared_per_block_optin,
             &GpuStatus::driver_version, &GpuStatus::runtime_version> {};

// A registry entry crosses as its lab and name: the worker finds its own (worker.cpp).
template <> struct Codec<histo::Variant> {
  static void put(Writer& w, const histo::Variant& v);
  static histo::Variant get(Reader& r);
};

#ifdef HISTO_SIM
HISTO_REMOTE_SIZE(histo_sim::GpuShape, 240);
template <> struct Codec<histo_sim::GpuShape>
    : Fields<histo_sim::GpuShape,
             &GpuShape::key, &GpuShape::name, &GpuShape::cc_major, &GpuShape::cc_minor,
             &GpuShape::sm_count, &GpuShape::shared_per_sm, &GpuShape::shared_per_block_optin,
             &GpuShape::shared_reserved_per_block, &GpuShape::max_threads_per_sm,
             &GpuShape::max_blocks_per_sm, &GpuShape::l2_bytes, &GpuShape::clock_mhz,
             &GpuShape::launch_us, &GpuShape::dram_read_gbps, &GpuShape::load_request_ns,
             &GpuShape::shared_load_latency_ns, &GpuShape::load_sectors_per_sm_per_s,
             &GpuShape::atomic_one_sector_per_s, &GpuShape::atomic_region_1k_per_s,
             &GpuShape::atomic_spread_per_s, &GpuShape::shared_wavefronts_per_sm_per_s,
             &GpuShape::shared_atomic_wavefronts_per_sm_per_s, &GpuShape::source,
             &GpuShape::registers_per_sm, &GpuShape::issue_per_sm_per_cycle,
             &GpuShape::l2_read_gbps, &GpuShape::l2_load_request_ns,
             &GpuShape::l2_resident_bytes, &GpuShape::store_sectors_per_sm_per_s,
             &GpuShape::store_lines_per_sm_per_s, &GpuShape::constant_addresses_per_sm_per_s,
             &GpuShape::atomic_mixed_kinds_per_s> {};
HISTO_REMOTE_SIZE(histo_sim::Bound, 16);
template <> struct Codec<histo_sim::Bound>
    : Fields<histo_sim::Bound,
             &Bound::resource, &Bound::seconds> {};
HISTO_REMOTE_SIZE(histo_sim::Prediction, 72);
template <> struct Codec<histo_sim::Prediction>
    : Fields<histo_sim::Prediction,
             &Prediction::seconds, &Prediction::l2_resident, &Prediction::issue_known,
             &Prediction::binding, &Prediction::bounds> {};
HISTO_REMOTE_SIZE(histo_sim::BindingAndNext, 64);
template <> struct Codec<histo_sim::BindingAndNext>
    : Fields<histo_sim::BindingAndNext,
             &BindingAndNext::binding, &BindingAndNext::next> {};
HISTO_REMOTE_SIZE(histo_sim::HostActivity, 72);
template <> struct Codec<histo_sim::HostActivity>
    : Fields<histo_sim::HostActivity,
             &HostActivity::copies_in, &HostActivity::memsets_in, &HostActivity::bytes_in,
             &HostActivity::copies_out, &HostActivity::bytes_out, &HostActivity::host_accesses,
             &HostActivity::first_access> {};
HISTO_REMOTE_SIZE(histo_sim::LineCounts, 216);
template <> struct Codec<histo_sim::LineCounts>
    : Fields<histo_sim::LineCounts,
             &LineCounts::where, &LineCounts::text, &LineCounts::counts> {};
// The kernel and the sites are the worker's code addresses: numbers only the worker resolves
// (line_counts, the kernels' names), which it is asked to.
template <> struct Codec<const void*> {
  static void put(Writer& w, const void* p) { w.put_value(reinterpret_cast<uintptr_t>(p)); }
  static const void* get(Reader& r) {
    return reinterpret_cast<const void*>(r.get_value<uintptr_t>());
  }
};
HISTO_REMOTE_SIZE(histo_sim::LaunchCounters, 352);
template <> struct Codec<histo_sim::LaunchCounters>
    : Fields<histo_sim::LaunchCounters,
             &LaunchCounters::global_load_requests, &LaunchCounters::global_load_sectors,
             &LaunchCounters::global_store_requests, &LaunchCounters::global_store_sectors,
             &LaunchCounters::global_atomic_requests, &LaunchCounters::global_atomic_sectors,
             &LaunchCounters::global_atom_requests, &LaunchCounters::global_atom_sectors,
             &LaunchCounters::shared_load_instructions, &LaunchCounters::shared_load_wavefronts,
             &LaunchCounters::shared_load_ideal, &LaunchCounters::shared_store_instructions,
             &LaunchCounters::shared_store_wavefronts, &LaunchCounters::shared_store_ideal,
             &LaunchCounters::shared_atomic_instructions,
             &LaunchCounters::shared_atomic_wavefronts, &LaunchCounters::shared_atomic_ideal,
             &LaunchCounters::dram_read_bytes, &LaunchCounters::kernel, &LaunchCounters::grid,
             &LaunchCounters::block, &LaunchCounters::global_atomic_addresses,
             &LaunchCounters::busiest_sector_passes, &LaunchCounters::mixed_line_passes,
             &LaunchCounters::mixed_line_minority, &LaunchCounters::global_store_lines,
             &LaunchCounters::constant_addresses,
             &LaunchCounters::atomic_footprint_bytes,
             &LaunchCounters::load_rounds, &LaunchCounters::load_chain_rounds,
             &LaunchCounters::warps, &LaunchCounters::blocks_run,
             &LaunchCounters::shared_wavefronts_per_sm,
             &LaunchCounters::shared_atomic_wavefronts_per_sm,
             &LaunchCounters::global_load_requests_per_sm, &LaunchCounters::static_shared_bytes,
             &LaunchCounters::sites> {};
#endif

}  // namespace histo_remote
