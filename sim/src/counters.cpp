// The counters: a reader of the access trace that counts each launch as Nsight Compute does.
//
// Definitions (Nsight Compute's, for compute capability 7.0 and newer):
// - A request is one warp-level memory instruction (trace.hpp says how lanes are grouped).
// - Global loads and stores: the 32-byte sectors a request touches, each counted once.
// - Global atomics: a request's lanes are grouped by sector; in a sector, lanes that update the
//   same word are applied one after another, so the request costs, per sector it touches, as
//   many passes as the most lanes that hit one word there (32 lanes on one word: 32). An
//   exchange or compare-and-swap is an ATOM (op_atom), any other a RED (op_red), unless nvcc's
//   SASS of its line says ATOM. Where nvcc's SASS shows it made the warp's atomic one update by
//   a leader lane (an address it knows is uniform: histo_sim/nvcc_info.hpp), that lane alone
//   counts, in shared memory too.
// - Shared memory: 32 banks of 4 bytes; bank = (offset / 4) % 32. A wavefront serves each bank
//   once; lanes that read the same word are served together. A 4-byte (or smaller) access
//   needs as many wavefronts as the most distinct words one bank holds among its lanes; 8- and
//   16-byte accesses are split into groups of 16 and 8 lanes (128 bytes each), each group its
//   own wavefronts. Atomic adds of 1 to one word are served together (nvcc compiles them to
//   ATOMS.POPC.INC); other atomics on one word take a wavefront each (ATOMS.ADD). The simulator
//   calls a site an add of 1 when its operand is the constant 1 where it is compiled (as nvcc
//   decides), and every one of its executions added 1. Bank conflicts are wavefronts beyond one
//   per group.
// - For the cost model only (no Nsight Compute metric): the distinct addresses each load of
//   __constant__ memory reads (the constant cache serves one at a time, bytes of one word too;
//   Nsight Compute's global-memory metrics do not count these loads), the 128-byte lines each store request
//   writes, and per sector the atomic passes into it (the busiest sector binds: the L2 applies
//   the passes into one sector one after another, whichever of its words they update); per
//   128-byte line, its ATOM and RED passes (a line that takes both is slower: model.cpp).
// - DRAM reads: every distinct sector that global loads read (inputs larger than a line in L2
//   are read once; Nsight Compute flushes the caches before a profiled launch).
// Each count is also kept per site (the instruction that made the request: SiteCounts), so the
// counters of a launch can be shown by source line (line_counts); a sector read from DRAM counts
// for the site that read it first, so the sites add up to the launch.
#include "histo_sim/counters.hpp"

#include "histo_sim/gpus.hpp"
#include "internal.hpp"
#include "trace.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace histo_sim {
namespace {

using trace::Kind;
using trace::Request;
using trace::Space;

constexpr size_t kLoadsInFlight = 16;  // the most loads a run is taken to have in flight
constexpr uint64_t kLongRun = 8;        // the shortest run taken to be an unrolled loop's

// Wavefronts for one shared-memory request, and the ideal (conflict-free) number. Lanes that
// read one word are served together; with `per_lane`, lanes on one word are not (an atomic
// other than an add of 1).
std::pair<unsigned, unsigned> shared_wavefronts(const Request& r, bool per_lane) {
  const unsigned words_per_lane = r.bytes > 4 ? r.bytes / 4 : 1;
  const unsigned group = 32 / words_per_lane;  // lanes per 128-byte group
  unsigned wavefronts = 0, ideal = 0;
  for (unsigned first = 0; first < 32; first += group) {
    uint64_t words[32 * 4];
    unsigned count = 0;
    for (unsigned l = first; l < first + group; ++l) {
      if (!(r.mask >> l & 1u)) continue;
      for (unsigned w = 0; w < words_per_lane; ++w) words[count++] = r.address[l] / 4 + w;
    }
    if (count == 0) continue;
    std::sort(words, words + count);
    if (!per_lane) count = unsigned(std::unique(words, words + count) - words);
    unsigned per_bank[32] = {};
    unsigned most = 0;
    for (unsigned i = 0; i < count; ++i) most = std::max(most, ++per_bank[words[i] % 32]);
    wavefronts += most;
    ideal += 1;
  }
  return {wavefronts, ideal};
}

class Counting final : public trace::Consumer {
 public:
  std::vector<LaunchCounters> launches;

  void begin_launch(const void* kernel, unsigned grid, unsigned block) override {
    LaunchCounters c;
    c.kernel = kernel;
    c.grid = grid;
    c.block = block;
    const unsigned sms = unsigned(current_gpu().sm_count);
    c.shared_wavefronts_per_sm.assign(sms, 0);
    c.shared_atomic_wavefronts_per_sm.assign(sms, 0);
    c.global_load_requests_per_sm.assign(sms, 0);
    launches.push_back(std::move(c));
    sectors_read_.clear();
    sector_passes_.clear();
    line_passes_.clear();
    shared_atomic_sites_.clear();
    site_index_.clear();
    shared_lo_ = ~uint64_t(0);
    shared_hi_ = 0;
  }

  void warp_requests(const trace::BlockInfo& block, unsigned warp, const std::vector<Request>& requests) override {
    LaunchCounters& c = launches.back();
    const size_t sm = block.block % c.shared_wavefronts_per_sm.size();
    ++c.warps;
    if (warp == 0) ++c.blocks_run;
    bool in_load_run = false;
    // A long run of global loads with nothing between (at least kLongRun: a loop of independent
    // loads the compiler unrolled, such as a sum over partial results) can be in flight
    // together: as many at once as the run has different load instructions, at most
    // kLoadsInFlight. A shorter run (a loop trip's loads before their use) or a run of one
    // instruction (a loop kept rolled) waits for each load.
    uint64_t run_length = 0;
    std::vector<uintptr_t> run_sites;
    auto end_run = [&] {
      if (run_length) {
        const uint64_t in_flight = run_length >= kLongRun ? std::max<uint64_t>(1, run_sites.size()) : 1;
        c.load_chain_rounds += (run_length + in_flight - 1) / in_flight;
      }
      run_length = 0;
      run_sites.clear();
    };
    for (const Request& r : requests) {
      if (r.space == Space::constant) {  // the constant cache serves one address at a time
        uint64_t addresses[32];
        unsigned count = 0;
        for (unsigned l = 0; l < 32; ++l)
          if (r.mask >> l & 1u) addresses[count++] = r.address[l];
        std::sort(addresses, addresses + count);
        const uint64_t distinct = uint64_t(std::unique(addresses, addresses + count) - addresses);
        c.constant_addresses += distinct;
        counts_of(c, r.site).constant_addresses += distinct;
        continue;
      }
      const bool global_load = r.space == Space::global && r.kind == Kind::load;
      if (global_load && !in_load_run) ++c.load_rounds;
      if (!global_load && in_load_run) end_run();
      if (global_load) {
        ++run_length;
        if (run_sites.size() < kLoadsInFlight &&
            std::find(run_sites.begin(), run_sites.end(), r.site) == run_sites.end())
          run_sites.push_back(r.site);
      }
      in_load_run = global_load;
      const Request& counted = r.one_lane ? leader_only(r) : r;
      if (r.space == Space::global)
        count_global(c, counted, sm);
      else
        count_shared(c, counted, sm);
    }
    end_run();
  }

  void end_launch() override {
    LaunchCounters& c = launches.back();
    // A site is an add of 1 (ATOMS.POPC.INC, lanes on one word served together) when every
    // one of its executions added 1; otherwise ATOMS.ADD, a wavefront per lane on one word.
    for (const auto& [site, a] : shared_atomic_sites_) {
      const std::vector<uint64_t>& per_sm = a.unit ? a.combined_per_sm : a.per_lane_per_sm;
      MemoryCounts& at = counts_of(c, site);
      for (size_t sm = 0; sm < per_sm.size(); ++sm) {
        c.shared_atomic_wavefronts += per_sm[sm];
        c.shared_atomic_wavefronts_per_sm[sm] += per_sm[sm];
        at.shared_atomic_wavefronts += per_sm[sm];
      }
    }
    c.dram_read_bytes = uint64_t(sectors_read_.size()) * 32;
    for (const auto& [sector, passes] : sector_passes_)
      c.busiest_sector_passes = std::max(c.busiest_sector_passes, passes);
    for (const auto& [line, p] : line_passes_) {
      const uint64_t passes = p.atom + p.red, minority = std::min(p.atom, p.red);
      if (minority && std::pair(passes, minority) > std::pair(c.mixed_line_passes, c.mixed_line_minority)) {
        c.mixed_line_passes = passes;
        c.mixed_line_minority = minority;
      }
    }
    c.atomic_footprint_bytes = uint64_t(line_passes_.size()) * 128;
    c.static_shared_bytes = shared_hi_ > shared_lo_ ? size_t(shared_hi_ - shared_lo_) : 0;
  }

 private:
  // The counts of one site of the running launch.
  MemoryCounts& counts_of(LaunchCounters& c, uintptr_t site) {
    const auto [it, fresh] = site_index_.try_emplace(site, c.sites.size());
    if (fresh) c.sites.push_back({site, {}});
    return c.sites[it->second].counts;
  }

  // An atomic nvcc makes one update of the warp's (Request::one_lane) as the leader lane makes
  // it: the lowest lane, when every lane's address is the same (when not, the line's SASS was
  // not this code, and every lane counts).
  const Request& leader_only(const Request& r) {
    const unsigned leader = unsigned(__builtin_ctz(r.mask));
    for (unsigned l = leader + 1; l < 32; ++l)
      if ((r.mask >> l & 1u) && r.address[l] != r.address[leader]) return r;
    leader_ = r;
    leader_.mask = 1u << leader;
    return leader_;
  }

  void count_global(LaunchCounters& c, const Request& r, size_t sm) {
    uint64_t sectors[64];
    unsigned count = 0;
    for (unsigned l = 0; l < 32; ++l) {
      if (!(r.mask >> l & 1u)) continue;
      const uint64_t first = r.address[l] / 32, last = (r.address[l] + r.bytes - 1) / 32;
      for (uint64_t s = first; s <= last && count < 64; ++s) sectors[count++] = s;
    }
    std::sort(sectors, sectors + count);
    const unsigned distinct = unsigned(std::unique(sectors, sectors + count) - sectors);
    MemoryCounts& at = counts_of(c, r.site);
    if (r.kind == Kind::load) {
      ++c.global_load_requests;
      ++c.global_load_requests_per_sm[sm];
      c.global_load_sectors += distinct;
      ++at.global_load_requests;
      at.global_load_sectors += distinct;
      for (unsigned k = 0; k < distinct; ++k)
        if (sectors_read_.insert(sectors[k]).second) at.dram_read_bytes += 32;
    } else if (r.kind == Kind::store) {
      ++c.global_store_requests;
      c.global_store_sectors += distinct;
      ++at.global_store_requests;
      at.global_store_sectors += distinct;
      uint64_t lines[64];
      for (unsigned k = 0; k < distinct; ++k) lines[k] = sectors[k] / 4;
      c.global_store_lines += uint64_t(std::unique(lines, lines + distinct) - lines);
    } else {
      ++c.global_atomic_requests;
      ++at.global_atomic_requests;
      // Lanes per word, then per sector the largest of those.
      std::map<uint64_t, unsigned> per_word;
      for (unsigned l = 0; l < 32; ++l)
        if (r.mask >> l & 1u) ++per_word[r.address[l]];
      std::map<uint64_t, unsigned> per_sector;
      for (const auto& [word, lanes] : per_word) {
        unsigned& most = per_sector[word / 32];
        most = std::max(most, lanes);
      }
      for (const auto& [sector, passes] : per_sector) {
        c.global_atomic_sectors += passes;
        at.global_atomic_sectors += passes;
        sector_passes_[sector] += passes;
        LinePasses& line = line_passes_[sector / 4];
        (r.atom ? line.atom : line.red) += passes;
        if (r.atom) c.global_atom_sectors += passes, at.global_atom_sectors += passes;
      }
      if (r.atom) ++c.global_atom_requests, ++at.global_atom_requests;
      c.global_atomic_addresses += per_word.size();
    }
  }

  struct SharedAtomicSite {
    bool unit = true;
    std::vector<uint64_t> combined_per_sm, per_lane_per_sm;
  };

  void count_shared(LaunchCounters& c, const Request& r, size_t sm) {
    const auto [wavefronts, ideal] = shared_wavefronts(r, false);
    for (unsigned l = 0; l < 32; ++l)
      if (r.mask >> l & 1u) {
        shared_lo_ = std::min<uint64_t>(shared_lo_, r.address[l]);
        shared_hi_ = std::max<uint64_t>(shared_hi_, r.address[l] + r.bytes);
      }
    MemoryCounts& at = counts_of(c, r.site);
    if (r.kind == Kind::load) {
      ++c.shared_load_instructions;
      c.shared_load_wavefronts += wavefronts;
      c.shared_load_ideal += ideal;
      c.shared_wavefronts_per_sm[sm] += wavefronts;
      ++at.shared_load_instructions;
      at.shared_load_wavefronts += wavefronts;
      at.shared_load_ideal += ideal;
    } else if (r.kind == Kind::store) {
      ++c.shared_store_instructions;
      c.shared_store_wavefronts += wavefronts;
      c.shared_store_ideal += ideal;
      c.shared_wavefronts_per_sm[sm] += wavefronts;
      ++at.shared_store_instructions;
      at.shared_store_wavefronts += wavefronts;
      at.shared_store_ideal += ideal;
    } else {
      ++c.shared_atomic_instructions;
      c.shared_atomic_ideal += ideal;
      ++at.shared_atomic_instructions;
      at.shared_atomic_ideal += ideal;  // its wavefronts: at the launch's end (end_launch)
      SharedAtomicSite& a = shared_atomic_sites_[r.site];
      if (a.combined_per_sm.empty()) {
        a.combined_per_sm.assign(c.shared_atomic_wavefronts_per_sm.size(), 0);
        a.per_lane_per_sm = a.combined_per_sm;
      }
      a.unit = a.unit && r.unit_increments;
      a.combined_per_sm[sm] += wavefronts;
      a.per_lane_per_sm[sm] += shared_wavefronts(r, true).first;
    }
  }

  std::unordered_set<uint64_t> sectors_read_;
  std::unordered_map<uint64_t, uint64_t> sector_passes_;  // atomic passes per sector
  struct LinePasses {
    uint64_t atom = 0, red = 0;
  };
  std::unordered_map<uint64_t, LinePasses> line_passes_;  // atomic passes per 128-byte line
  std::map<uintptr_t, SharedAtomicSite> shared_atomic_sites_;
  std::unordered_map<uintptr_t, size_t> site_index_;  // site -> its entry in the launch's sites
  uint64_t shared_lo_ = 0, shared_hi_ = 0;
  Request leader_{};  // leader_only's copy
};

Counting* g_counting = nullptr;

}  // namespace

// Every count of MemoryCounts, for adding and scaling them.
constexpr uint64_t MemoryCounts::*kMemoryFields[] = {
    &MemoryCounts::global_load_requests,      &MemoryCounts::global_load_sectors,
    &MemoryCounts::global_store_requests,     &MemoryCounts::global_store_sectors,
    &MemoryCounts::global_atomic_requests,    &MemoryCounts::global_atomic_sectors,
    &MemoryCounts::global_atom_requests,      &MemoryCounts::global_atom_sectors,
    &MemoryCounts::shared_load_instructions,  &MemoryCounts::shared_load_wavefronts,
    &MemoryCounts::shared_load_ideal,         &MemoryCounts::shared_store_instructions,
    &MemoryCounts::shared_store_wavefronts,   &MemoryCounts::shared_store_ideal,
    &MemoryCounts::shared_atomic_instructions, &MemoryCounts::shared_atomic_wavefronts,
    &MemoryCounts::shared_atomic_ideal,       &MemoryCounts::dram_read_bytes,
    &MemoryCounts::constant_addresses};

MemoryCounts& MemoryCounts::operator+=(const MemoryCounts& other) {
  for (uint64_t MemoryCounts::*field : kMemoryFields) this->*field += other.*field;
  return *this;
}

MemoryCounts MemoryCounts::scaled(double factor) const {
  MemoryCounts m;
  for (uint64_t MemoryCounts::*field : kMemoryFields) m.*field = uint64_t(double(this->*field) * factor + 0.5);
  return m;
}

std::vector<Metric> metrics(const MemoryCounts& c) {
  return {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", c.global_load_requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", c.global_load_sectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", c.global_store_requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", c.global_store_sectors},
      // ATOM or RED: an exchange or compare-and-swap is an ATOM; any other atomic is what nvcc's
      // SASS of its line says (histo_sim/nvcc_info.hpp), a RED where it does not say.
      {"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", c.global_atomic_requests - c.global_atom_requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", c.global_atomic_sectors - c.global_atom_sectors},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", c.global_atom_requests},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", c.global_atom_sectors},
      {"smsp__sass_inst_executed_op_shared_ld.sum", c.shared_load_instructions},
      {"smsp__sass_inst_executed_op_shared_st.sum", c.shared_store_instructions},
      {"smsp__sass_inst_executed_op_shared_atom.sum", c.shared_atomic_instructions},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", c.shared_load_wavefronts},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", c.shared_store_wavefronts},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum", c.shared_atomic_wavefronts},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", c.shared_load_conflicts()},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", c.shared_store_conflicts()},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum", c.shared_atomic_conflicts()},
      {"dram__bytes_read.sum", c.dram_read_bytes},
  };
}

std::vector<LineCounts> line_counts(const std::vector<LaunchCounters>& launches) {
  std::vector<uintptr_t> pcs;
  for (const LaunchCounters& c : launches)
    for (const SiteCounts& s : c.sites) pcs.push_back(s.site);
  resolve_source_locations(pcs);
  // By file, then line number ("?" last).
  std::map<std::pair<std::string, unsigned>, LineCounts> lines;
  for (const LaunchCounters& c : launches)
    for (const SiteCounts& s : c.sites) {
      const SourceLocation where = source_location(s.site);
      const std::string file = where.line ? where.file_line.substr(0, where.file_line.rfind(':')) : "\x7f";
      LineCounts& line = lines[{file, where.line}];
      if (line.where.empty()) {
        line.where = where.file_line;
        line.text = source_text(where.path, where.line);
      }
      line.counts += s.counts;
    }
  std::vector<LineCounts> out;
  for (auto& [key, line] : lines) out.push_back(std::move(line));
  return out;
}

bool counters_available() { return trace::observes_plain_accesses(); }

const char* counters_unavailable_reason() {
  return counters_available()
             ? ""
             : "this simulator build cannot see plain loads and stores: the counters need the "
               "lab sources compiled by Clang (configure with -DCMAKE_CXX_COMPILER=clang++; "
               "sim/README.md, \"Counters\")";
}

void counters_begin() {
  if (!g_counting) g_counting = new Counting;
  g_counting->launches.clear();
  trace::attach(g_counting);
}

std::vector<LaunchCounters> counters_end() {
  if (!g_counting) return {};
  trace::detach(g_counting);
  remember_static_shared(g_counting->launches);
  return std::move(g_counting->launches);
}

}  // namespace histo_sim
