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

// A struct as its fields in order (member pointers), each by its own Codec.
template <typename T, auto... M> struct Fields {
  template <auto Mp> using Field = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<T&>().*Mp)>>;
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
    : Fields<histo::GpuStatus, &histo::GpuStatus::available, &histo::GpuStatus::runnable, &histo::GpuStatus::reason, &histo::GpuStatus::device, &histo::GpuStatus::name, &histo::GpuStatus::cc_major, &histo::GpuStatus::cc_minor, &histo::GpuStatus::sm_count, &histo::GpuStatus::global_bytes, &histo::GpuStatus::l2_bytes, &histo::GpuStatus::shared_per_block_optin, &histo::GpuStatus::driver_version, &histo::GpuStatus::runtime_version> {};

// A registry entry crosses as its lab and name: the worker finds its own (worker.cpp).
template <> struct Codec<histo::Variant> {
  static void put(Writer& w, const histo::Variant& v);
  static histo::Variant get(Reader& r);
};

#ifdef HISTO_SIM
HISTO_REMOTE_SIZE(histo_sim::GpuShape, 208);
template <> struct Codec<histo_sim::GpuShape>
    : Fields<histo_sim::GpuShape, &histo_sim::GpuShape::key, &histo_sim::GpuShape::name, &histo_sim::GpuShape::cc_major, &histo_sim::GpuShape::cc_minor, &histo_sim::GpuShape::sm_count, &histo_sim::GpuShape::shared_per_sm, &histo_sim::GpuShape::shared_per_block_optin, &histo_sim::GpuShape::shared_reserved_per_block, &histo_sim::GpuShape::max_threads_per_sm, &histo_sim::GpuShape::max_blocks_per_sm, &histo_sim::GpuShape::l2_bytes, &histo_sim::GpuShape::clock_mhz, &histo_sim::GpuShape::launch_us, &histo_sim::GpuShape::dram_read_gbps, &histo_sim::GpuShape::load_request_ns, &histo_sim::GpuShape::shared_load_latency_ns, &histo_sim::GpuShape::load_sectors_per_sm_per_s, &histo_sim::GpuShape::atomic_one_address_per_s, &histo_sim::GpuShape::atomic_region_1k_per_s, &histo_sim::GpuShape::atomic_spread_per_s, &histo_sim::GpuShape::shared_wavefronts_per_sm_per_s, &histo_sim::GpuShape::shared_atomic_wavefronts_per_sm_per_s, &histo_sim::GpuShape::source, &histo_sim::GpuShape::registers_per_sm, &histo_sim::GpuShape::issue_per_sm_per_cycle, &histo_sim::GpuShape::l2_read_gbps, &histo_sim::GpuShape::l2_load_request_ns, &histo_sim::GpuShape::l2_resident_bytes> {};
HISTO_REMOTE_SIZE(histo_sim::Bound, 16);
template <> struct Codec<histo_sim::Bound>
    : Fields<histo_sim::Bound, &histo_sim::Bound::resource, &histo_sim::Bound::seconds> {};
HISTO_REMOTE_SIZE(histo_sim::Prediction, 72);
template <> struct Codec<histo_sim::Prediction>
    : Fields<histo_sim::Prediction, &histo_sim::Prediction::seconds, &histo_sim::Prediction::l2_resident, &histo_sim::Prediction::issue_known, &histo_sim::Prediction::binding, &histo_sim::Prediction::bounds> {};
HISTO_REMOTE_SIZE(histo_sim::BindingAndNext, 64);
template <> struct Codec<histo_sim::BindingAndNext>
    : Fields<histo_sim::BindingAndNext, &histo_sim::BindingAndNext::binding, &histo_sim::BindingAndNext::next> {};
HISTO_REMOTE_SIZE(histo_sim::HostActivity, 72);
template <> struct Codec<histo_sim::HostActivity>
    : Fields<histo_sim::HostActivity, &histo_sim::HostActivity::copies_in, &histo_sim::HostActivity::memsets_in, &histo_sim::HostActivity::bytes_in, &histo_sim::HostActivity::copies_out, &histo_sim::HostActivity::bytes_out, &histo_sim::HostActivity::host_accesses, &histo_sim::HostActivity::first_access> {};
HISTO_REMOTE_SIZE(histo_sim::LineCounts, 192);
template <> struct Codec<histo_sim::LineCounts>
    : Fields<histo_sim::LineCounts, &histo_sim::LineCounts::where, &histo_sim::LineCounts::text, &histo_sim::LineCounts::counts> {};
// The kernel and the sites are the worker's code addresses: numbers only the worker resolves
// (line_counts, the kernels' names), which it is asked to.
template <> struct Codec<const void*> {
  static void put(Writer& w, const void* p) { w.put_value(reinterpret_cast<uintptr_t>(p)); }
  static const void* get(Reader& r) { return reinterpret_cast<const void*>(r.get_value<uintptr_t>()); }
};
HISTO_REMOTE_SIZE(histo_sim::LaunchCounters, 304);
template <> struct Codec<histo_sim::LaunchCounters>
    : Fields<histo_sim::LaunchCounters, &histo_sim::LaunchCounters::global_load_requests, &histo_sim::LaunchCounters::global_load_sectors, &histo_sim::LaunchCounters::global_store_requests, &histo_sim::LaunchCounters::global_store_sectors, &histo_sim::LaunchCounters::global_atomic_requests, &histo_sim::LaunchCounters::global_atomic_sectors, &histo_sim::LaunchCounters::shared_load_instructions, &histo_sim::LaunchCounters::shared_load_wavefronts, &histo_sim::LaunchCounters::shared_load_ideal, &histo_sim::LaunchCounters::shared_store_instructions, &histo_sim::LaunchCounters::shared_store_wavefronts, &histo_sim::LaunchCounters::shared_store_ideal, &histo_sim::LaunchCounters::shared_atomic_instructions, &histo_sim::LaunchCounters::shared_atomic_wavefronts, &histo_sim::LaunchCounters::shared_atomic_ideal, &histo_sim::LaunchCounters::dram_read_bytes, &histo_sim::LaunchCounters::kernel, &histo_sim::LaunchCounters::grid, &histo_sim::LaunchCounters::block, &histo_sim::LaunchCounters::global_atomic_addresses, &histo_sim::LaunchCounters::busiest_address_sectors, &histo_sim::LaunchCounters::atomic_footprint_bytes, &histo_sim::LaunchCounters::load_rounds, &histo_sim::LaunchCounters::load_chain_rounds, &histo_sim::LaunchCounters::warps, &histo_sim::LaunchCounters::blocks_run, &histo_sim::LaunchCounters::shared_wavefronts_per_sm, &histo_sim::LaunchCounters::shared_atomic_wavefronts_per_sm, &histo_sim::LaunchCounters::global_load_requests_per_sm, &histo_sim::LaunchCounters::static_shared_bytes, &histo_sim::LaunchCounters::sites> {};
#endif

}  // namespace histo_remote
