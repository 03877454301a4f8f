// The hazard checks: a reader of the access trace (trace.hpp) that finds, per launch,
//   - shared-memory races: two threads of a block touching one byte with no barrier between
//     them, at least one writing, not both atomically (compute-sanitizer racecheck's rule). A
//     barrier is a __syncthreads, or a __syncwarp or a tile's sync that both threads passed;
//   - reads of shared memory that no thread of the block wrote since the block began
//     (initcheck's rule), atomics included: counting into bins never zeroed;
//   - reads of device memory never written since cudaMalloc (initcheck's rule), atomics
//     included: counting into output bins that were never zeroed. Written are the bytes a
//     cudaMemcpy or cudaMemset reached and those a kernel stored to or updated atomically; the
//     shadow of written bytes is kept per allocation (DeviceShadow, internal.hpp). The graders'
//     poisoned output (histo_sim::poisoned) counts as never written: poison stands for garbage;
//   - global-memory races: a plain write to memory that another thread of the launch also
//     reads or writes, unless both are in one block with a barrier between them, or the first
//     was handed over: its thread then made a __threadfence() and an atomic on some address,
//     and the second comes after a later atomic on that address by its own thread (or by a
//     thread of its block, with a __syncthreads between), as the last block of a reduction
//     reads the others' partial sums (by 4-byte words for aligned accesses of 4 bytes or more,
//     by bytes for smaller ones).
// Each becomes one sentence naming the memory (the __shared__ variable and element, from the
// executable's symbol table; the buffer, by the line that cudaMalloc'd it), the threads, the
// source lines and the barrier interval (__syncthreads passed); the launch then fails with it
// (a hazard fails a test even when its bins are right).
// On only where the trace sees plain loads and stores (a Clang build, and only for kernels whose
// source carries the hooks: the labs'); HISTO_SIM_HAZARDS=0 turns it off, except in a grading
// build (HISTO_SIM_HAZARDS_ALWAYS).
#include "trace.hpp"

#include "histo_sim/counters.hpp"
#include "histo_sim_host_writes.h"
#include "internal.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace histo_sim {
namespace {

constexpr unsigned kNone = ~0u;

// What happened to one byte.
struct ByteState {
  unsigned generation = 0;  // shared: the block this state belongs to (older ones are stale)
  unsigned writer = kNone;  // thread (shared) or block * 65536 + thread (global)
  unsigned write_interval = 0;
  unsigned write_syncs = 0;  // the writer's warp and tile barriers before it (trace::Access::syncs)
  unsigned write_fences = 0;  // global: the writer's __threadfence()s before it (Access::fences)
  uintptr_t write_site = 0;
  bool write_atomic = false;
  unsigned reader = kNone;
  unsigned read_interval = 0;
  unsigned read_syncs = 0;
  unsigned read_fences = 0;
  uintptr_t read_site = 0;
};

// ---- Names of shared memory ----------------------------------------------------------------------
// Every static __shared__ array is a thread_local of the executable (cuda_runtime.h), so its
// STT_TLS symbol says where it lies in the TLS block that is the block's static shared memory:
// st_value its offset, st_size its size.
struct SharedVariable {
  uint64_t offset, size;
  std::string name;  // "s_bins in histogram_shared_kernel"
  // A sanitizer runtime's own thread state (ThreadSanitizer's, AddressSanitizer's: a name
  // reserved to the implementation, "__tsan::cur_thread_placeholder"), linked into the
  // executable's TLS block beside the __shared__ arrays: never shared memory.
  bool runtime = false;
};

// "lab04::histogram_vec16_kernel<true>(unsigned char const*, ...)::s_bins" -> "s_bins in
// histogram_vec16_kernel<true>"; a variable at namespace scope keeps its unqualified name.
std::string short_name(const std::string& demangled) {
  const size_t last = demangled.rfind("::");
  if (last == std::string::npos) return demangled;
  const std::string variable = demangled.substr(last + 2);
  if (last == 0 || demangled[last - 1] != ')') return variable;
  // The function: from the '(' that opens its parameters back to the start of its name.
  int depth = 0;
  size_t open = std::string::npos;
  for (size_t i = last; i-- > 0;) {
    if (demangled[i] == ')') ++depth;
    if (demangled[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string::npos) return variable;
  size_t begin = open;
  depth = 0;
  while (begin > 0) {
    const char c = demangled[begin - 1];
    if (c == '>') ++depth;
    if (c == '<') --depth;
    if (depth == 0 && (c == ' ' || (c == ':' && begin >= 2 && demangled[begin - 2] == ':'))) break;
    --begin;
  }
  return variable + " in " + demangled.substr(begin, open - begin);
}

// Every STT_TLS symbol of the executable, sorted by offset (empty without a symbol table).
const std::vector<SharedVariable>& tls_variables() {
  static const std::vector<SharedVariable> variables = [] {
    std::vector<SharedVariable> found;
    for (const Symbol* sym : tls_symbols())
      found.push_back({sym->address, sym->size, short_name(sym->name), sym->name.rfind("__", 0) == 0});
    return found;
  }();
  return variables;
}

// The __shared__ arrays: the TLS symbols that are not a runtime's.
const std::vector<SharedVariable>& shared_variables() {
  static const std::vector<SharedVariable> variables = [] {
    std::vector<SharedVariable> shared;
    for (const SharedVariable& v : tls_variables())
      if (!v.runtime) shared.push_back(v);
    return shared;
  }();
  return variables;
}

// Shared memory at `offset`, and the source line of the access, as a report says them:
// "s_bins[308] in histogram_shared_kernel (shared-memory byte 1232, lab04.cu:112)", the element
// counted in `width`-byte units (a 4- or 8-byte access's width) where that divides it, else
// "byte 5 of s_bins in ..."; "byte 12 of the dynamic shared memory (lab04.cu:112)"; and where no
// variable is known, "shared-memory byte 1232 (lab04.cu:112)".
std::string describe_shared(uint64_t offset, unsigned width, const std::string& line) {
  const std::string byte = "shared-memory byte " + std::to_string(offset);
  if (offset >= trace::static_shared_bytes())
    return offset >= trace::dynamic_shared_offset()
               ? "byte " + std::to_string(offset - trace::dynamic_shared_offset()) +
                     " of the dynamic shared memory (" + line + ")"
               : byte + " (" + line + ")";
  const auto& vars = shared_variables();
  auto it = std::upper_bound(vars.begin(), vars.end(), offset,
                             [](uint64_t o, const SharedVariable& v) { return o < v.offset; });
  if (it == vars.begin() || offset >= std::prev(it)->offset + std::prev(it)->size)
    return byte + " (" + line + ")";
  --it;
  const uint64_t k = offset - it->offset;
  const size_t space = it->name.find(' ');
  const std::string variable = it->name.substr(0, space);
  const std::string in = space == std::string::npos ? "" : it->name.substr(space);
  const std::string detail = " (" + byte + ", " + line + ")";
  // Only 4- and 8-byte accesses count elements: the labs' shared arrays are 32- and 64-bit
  // counters, and a byte access may be one byte of a packed word.
  if ((width == 4 || width == 8) && it->size % width == 0 && k % width == 0)
    return variable + "[" + std::to_string(k / width) + "]" + in + detail;
  return "byte " + std::to_string(k) + " of " + it->name + detail;
}

const char* verb(trace::Kind kind) {
  return kind == trace::Kind::load ? "reads" : kind == trace::Kind::store ? "writes" : "atomically updates";
}

class Hazards final : public trace::Consumer {
 public:
  bool wants_requests() const override { return false; }
  bool wants_accesses() const override { return true; }

  void begin_launch(const void*, unsigned, unsigned block) override {
    block_threads_ = block;
    global_.clear();
    split_.clear();
    releases_.clear();
    written_lo_ = ~uint64_t(0);
    written_hi_ = 0;
    findings_.clear();
    reported_sites_.clear();
    last_site_ = 0;
    last_reported_ = false;
    more_ = 0;
  }
  void begin_block(unsigned block) override {
    block_ = block;
    ++generation_;  // every shared byte's state is stale: no vector to clear
    unwritten_offsets_.clear();
    acquires_.clear();
  }
  // A read of a byte nobody wrote is reported once the block is done, unless another thread
  // wrote that byte later in the same barrier interval: then the two race (a missing barrier
  // after zeroing), and the race is the cause.
  void block_done() override {
    std::sort(unwritten_offsets_.begin(), unwritten_offsets_.end());
    for (const uint64_t offset : unwritten_offsets_) {
      const Unwritten& u = unwritten_[offset];
      if (u.raced || is_reported(u.site)) continue;
      std::ostringstream out;
      out << block_name() << " thread " << u.thread << " " << verb(u.kind)
          << " " << describe_shared(offset, u.bytes, source_line(u.site))
          << ", which no thread of the block wrote since the block began: shared memory starts "
             "as garbage. Likely cause: the shared bins or counters are not zeroed before "
             "they are counted into or read";
      report(u.site, out.str());
    }
  }
  void access(const trace::Access& a) override {
    // Whether this access's line was reported already: then its races are only bookkeeping
    // (a racing kernel races on nearly every access; one look-up per access, not per byte).
    if (a.site != last_site_) {
      last_site_ = a.site;
      last_reported_ = is_reported(a.site);
    }
    if (a.space == trace::Space::shared) {
      fit(a.address + a.bytes);
      // An aligned 32-bit access (the labs' counters and packed words): by whole words.
      if (a.bytes == 4 && a.address % 4 == 0) {
        word_access(a, a.address);
        return;
      }
      for (uint64_t w = a.address / 4; w <= (a.address + a.bytes - 1) / 4; ++w) split(w);
      // A word whose bytes share one history (the common case) is judged once.
      if (a.bytes > 1 && uniform(a.address, a.bytes)) {
        const bool raced = shared_byte(a, a.address);
        const ByteState& f = shared_[a.address];
        for (unsigned b = 1; b < a.bytes; ++b) {
          ByteState& t = shared_[a.address + b];
          t.generation = f.generation;
          if (a.kind == trace::Kind::load) {
            t.reader = f.reader;
            t.read_interval = f.read_interval;
            t.read_syncs = f.read_syncs;
            t.read_site = f.read_site;
          } else {
            t.writer = f.writer;
            t.write_interval = f.write_interval;
            t.write_syncs = f.write_syncs;
            t.write_site = f.write_site;
            t.write_atomic = f.write_atomic;
          }
          if (raced) mark_raced(a.address + b);
        }
        return;
      }
      for (unsigned b = 0; b < a.bytes; ++b) shared_byte(a, a.address + b);
    } else {
      if (a.shadow) initcheck(a);
      global_access(a);
      if (a.kind == trace::Kind::atomic) hand_over(a);
    }
  }
  void end_launch() override {}

  // The launch's first hazard, opening with the kernel and the line of the access that found
  // it: "CPU simulator: kernel K, lab04_shared_privatized.cu:88: a shared-memory race in block
  // 0: ...", and where the next ones are.
  std::string take(const void* kernel) {
    if (findings_.empty()) return "";
    std::string text = "CPU simulator: kernel " + kernel_name(kernel) + ", " +
                       findings_.front().line + ": " + findings_.front().sentence;
    if (findings_.size() > 1 || more_) {
      text += " (" + std::to_string(findings_.size() - 1 + more_) + " more hazard(s) in this launch";
      for (size_t i = 1; i < findings_.size(); ++i) text += (i == 1 ? ", at " : ", ") + findings_[i].line;
      text += ")";
    }
    findings_.clear();
    more_ = 0;
    return text;
  }

 private:
  // Device memory: a load or atomic of bytes never written since cudaMalloc (most loads, of
  // input copied in whole, stop at the first test); stores and atomics write.
  void initcheck(const trace::Access& a) {
    DeviceShadow& shadow = *a.shadow;
    if (shadow.unwritten == 0) return;
    if (a.kind != trace::Kind::store) {
      const uintptr_t byte = shadow.first_unwritten(a.address, a.bytes);
      if (byte != ~uintptr_t(0) && !is_reported(a.site))
        unwritten_global(a, byte, shadow.poisoned);
    }
    if (a.kind != trace::Kind::load) shadow.written(a.address, a.bytes);
  }

  void unwritten_global(const trace::Access& a, uintptr_t byte, bool poisoned) {
    std::ostringstream out;
    out << block_name() << " thread " << a.thread << " " << verb(a.kind)
        << " " << describe_device_address(byte) << " (" << source_line(a.site) << "), which "
        << (poisoned ? "holds the grader's poison (it stands for the garbage of fresh memory: "
                       "nothing wrote it since)"
                     : "nothing wrote since cudaMalloc: fresh device memory is garbage")
        << ". Likely cause: ";
    if (a.kind == trace::Kind::atomic)
      out << "the output bins are not zeroed before the kernel counts into them: cudaMemset "
             "them to 0 first (histo::prepare_output does it, in stream order)";
    else
      out << "the kernel reads device memory before anything wrote it: copy the data in "
             "(cudaMemcpy) or zero it (cudaMemset) first, or the index runs past the part that "
             "was written";
    report(a.site, out.str());
  }

  void report(uintptr_t site, const std::string& sentence) {
    if (is_reported(site)) return;  // once per access site
    reported_sites_.push_back(site);
    if (site == last_site_) last_reported_ = true;
    // Once per source line: the load and the store of one `++` are two sites of one line.
    std::string line = source_line(site);
    for (const Finding& f : findings_)
      if (f.line == line) return;
    if (findings_.size() < 3)
      findings_.push_back({std::move(line), sentence});
    else
      ++more_;
  }

  std::string block_name() const { return "block " + std::to_string(block_); }

  void race(const trace::Access& a, const char* memory, uint64_t where, unsigned other,
            uintptr_t other_site, trace::Kind other_kind, unsigned interval) {
    // Once per source line: a racing kernel races on nearly every access, and the sentence
    // (source lines, names) is built only for the first.
    if (a.site == last_site_ ? last_reported_ : is_reported(a.site)) return;
    std::ostringstream out;
    out << "a " << memory << " race in " << block_name() << ": thread " << a.thread
        << " " << verb(a.kind) << " " << describe_shared(where, a.bytes, source_line(a.site))
        << " and thread " << other << " " << verb(other_kind) << " it ("
        << source_line(other_site) << ") with no __syncthreads() between them (both after "
        << interval << " barrier(s) of the block). Likely cause: a missing or misplaced "
        << (a.thread / 32 == other / 32 ? "__syncthreads() (or __syncwarp(): the threads are lanes of one warp)"
                                        : "__syncthreads()")
        << " between those two lines, or a plain access where an atomic is needed";
    report(a.site, out.str());
  }

  // Whether bytes [offset, offset + n) of shared memory have one history in this block.
  bool uniform(uint64_t offset, unsigned n) const {
    const ByteState& f = shared_[offset];
    for (unsigned b = 1; b < n; ++b) {
      const ByteState& t = shared_[offset + b];
      if (t.generation != f.generation || t.writer != f.writer || t.write_interval != f.write_interval ||
          t.write_syncs != f.write_syncs || t.write_atomic != f.write_atomic || t.reader != f.reader ||
          t.read_interval != f.read_interval || t.read_syncs != f.read_syncs ||
          (f.generation == generation_ && f.writer == kNone &&
           unwritten_[offset + b].generation != unwritten_[offset].generation))
        return false;
    }
    return true;
  }

  // Room for the shared bytes below `end`.
  void fit(uint64_t end) {
    if (end <= shared_.size()) return;
    const uint64_t size = (end + 4096) / 4 * 4;
    shared_.resize(size);
    unwritten_.resize(size);
    whole_.resize(size / 4);
  }

  // An aligned 4-byte access to the word at `offset`. A word whose 4 bytes share one history
  // (all untouched in this block, or uniform()) is kept whole: its first byte's state stands
  // for all four, and the access costs one byte's check.
  void word_access(const trace::Access& a, uint64_t offset) {
    const uint64_t w = offset / 4;
    if (whole_[w] != generation_) {
      bool fresh = true;
      for (unsigned b = 0; b < 4; ++b) fresh = fresh && shared_[offset + b].generation != generation_;
      if (!fresh && !uniform(offset, 4)) {
        for (unsigned b = 0; b < 4; ++b) shared_byte(a, offset + b);
        return;
      }
      whole_[w] = generation_;
    }
    if (shared_byte(a, offset))
      for (unsigned b = 1; b < 4; ++b) mark_raced(offset + b);
  }

  // Word w's bytes get their own states again (before an access to only some of them).
  void split(uint64_t w) {
    if (whole_[w] != generation_) return;
    whole_[w] = 0;
    for (unsigned b = 1; b < 4; ++b) shared_[w * 4 + b] = shared_[w * 4];
  }

  // One byte's access; true when it raced.
  bool shared_byte(const trace::Access& a, uint64_t offset) {
    ByteState& s = shared_[offset];
    if (s.generation != generation_) s = ByteState{generation_};
    const bool atomic = a.kind == trace::Kind::atomic;
    if (a.kind != trace::Kind::store && s.writer == kNone && unwritten_[offset].generation != generation_) {
      unwritten_[offset] = Unwritten{a.thread, a.interval, a.bytes, a.site, a.kind, false, generation_};
      unwritten_offsets_.push_back(offset);
    }
    bool raced = false;
    if (s.writer != kNone && s.writer != a.thread && !(atomic && s.write_atomic) &&
        !before(s.writer, s.write_interval, s.write_syncs, a)) {
      raced = true;
      mark_raced(offset);
      race(a, "shared-memory", offset, s.writer, s.write_site,
           s.write_atomic ? trace::Kind::atomic : trace::Kind::store, a.interval);
    } else if (a.kind != trace::Kind::load && s.reader != kNone && s.reader != a.thread &&
               !before(s.reader, s.read_interval, s.read_syncs, a)) {
      raced = true;
      mark_raced(offset);
      race(a, "shared-memory", offset, s.reader, s.read_site, trace::Kind::load, a.interval);
    }
    if (a.kind == trace::Kind::load) {
      if (s.reader == kNone || before(s.reader, s.read_interval, s.read_syncs, a)) {
        s.reader = a.thread;
        s.read_interval = a.interval;
        s.read_syncs = a.syncs;
        s.read_site = a.site;
      }
    } else {
      s.writer = a.thread;
      s.write_interval = a.interval;
      s.write_syncs = a.syncs;
      s.write_site = a.site;
      s.write_atomic = atomic;
    }
    return raced;
  }

  // An access of 4 bytes or more, 4-byte aligned, by words (the labs' counters); a smaller or
  // unaligned one by bytes (a bool or char array, whose neighbouring bytes do not race). A word
  // some thread wrote by bytes (split_) is judged against those bytes too.
  void global_access(const trace::Access& a) {
    if (a.bytes >= 4 && a.address % 4 == 0) {
      for (uint64_t w = a.address; w < a.address + a.bytes; w += 4) {
        global_entry(a, w, w, true);
        if (split_.count(w))
          for (uint64_t b = w; b < w + 4; ++b) global_entry(a, b | kByteKey, b, false);
      }
      return;
    }
    for (uint64_t b = a.address; b < a.address + a.bytes; ++b) {
      global_entry(a, b & ~uint64_t(3), b, false);
      global_entry(a, b | kByteKey, b, true);
      if (a.kind != trace::Kind::load) split_.insert(b & ~uint64_t(3));
    }
  }

  // Access a against one entry of global_ (a word's, or a byte's: key | kByteKey) at `address`;
  // `record`: the entry then remembers a.
  void global_entry(const trace::Access& a, uint64_t key, uint64_t address, bool record) {
    const bool atomic = a.kind == trace::Kind::atomic;
    const unsigned me = block_ * 65536u + a.thread;
    if (a.kind == trace::Kind::load || !record) {
      // Reads of what the launch never wrote (the input) cannot race: most loads stop here.
      if (address < written_lo_ || address >= written_hi_) return;
      const auto it = global_.find(key);
      if (it == global_.end()) return;
      ByteState& s = it->second;
      if (a.kind == trace::Kind::load) {
        if (s.writer != kNone && s.writer != me && !s.write_atomic &&
            !ordered(s.writer, s.write_interval, s.write_syncs, s.write_fences, a))
          race_global(a, address, s.writer, s.write_site, trace::Kind::store);
        if (record && (s.reader == kNone || ordered(s.reader, s.read_interval, s.read_syncs, s.read_fences, a))) {
          s.reader = me;
          s.read_interval = a.interval;
          s.read_syncs = a.syncs;
          s.read_fences = a.fences;
          s.read_site = a.site;
        }
        return;
      }
    }
    if (record) {
      written_lo_ = std::min(written_lo_, address);
      written_hi_ = std::max(written_hi_, address + 1);
    }
    ByteState& s = global_[key];
    if (s.writer != kNone && s.writer != me && !(atomic && s.write_atomic) &&
        !ordered(s.writer, s.write_interval, s.write_syncs, s.write_fences, a))
      race_global(a, address, s.writer, s.write_site,
                  s.write_atomic ? trace::Kind::atomic : trace::Kind::store);
    else if (!atomic && s.reader != kNone && s.reader != me &&
             !ordered(s.reader, s.read_interval, s.read_syncs, s.read_fences, a))
      race_global(a, address, s.reader, s.read_site, trace::Kind::load);
    if (record && !(s.writer != kNone && !s.write_atomic && atomic)) {
      s.writer = me;
      s.write_interval = a.interval;
      s.write_syncs = a.syncs;
      s.write_fences = a.fences;
      s.write_site = a.site;
      s.write_atomic = atomic;
    }
  }

  // An atomic at a.address: a release of what its thread did before its latest __threadfence()
  // (kept only for threads that fenced: a histogram's atomics cost nothing here), and an
  // acquire, for its thread and for its block after the next __syncthreads, of every release
  // at that address so far (blocks run one at a time here, so those are the earlier ones).
  void hand_over(const trace::Access& a) {
    if (a.fences) releases_[a.address][block_ * 65536u + a.thread] = a.fences;
    if (releases_.empty() || !releases_.count(a.address)) return;
    for (const Acquire& q : acquires_)
      if (q.address == a.address && q.thread == a.thread) return;
    acquires_.push_back({a.address, a.thread, a.interval});
  }

  // Whether thread `other` of an earlier block, after `other_fences` fences, handed what it did
  // then over to access a (hand_over).
  bool handed_over(unsigned other, unsigned other_fences, const trace::Access& a) const {
    for (const Acquire& q : acquires_) {
      if (q.thread != a.thread && q.interval >= a.interval) continue;  // a does not see it yet
      const auto released = releases_.find(q.address);
      if (released == releases_.end()) continue;
      const auto by = released->second.find(other);
      if (by != released->second.end() && by->second > other_fences) return true;
    }
    return false;
  }

  // Two accesses of one thread block are ordered when a barrier lies between them: a
  // __syncthreads (they are in different barrier intervals), or a __syncwarp or tile's sync
  // that both threads passed (trace::synced_between); of two blocks, never.
  bool before(unsigned other, unsigned other_interval, unsigned other_syncs, const trace::Access& a) const {
    return other_interval != a.interval || trace::synced_between(other, other_syncs, a.thread, a.syncs);
  }
  bool ordered(unsigned other, unsigned other_interval, unsigned other_syncs, unsigned other_fences,
               const trace::Access& a) const {
    if (other / 65536u != block_) return !acquires_.empty() && handed_over(other, other_fences, a);
    return before(other % 65536u, other_interval, other_syncs, a);
  }

  void race_global(const trace::Access& a, uint64_t address, unsigned other, uintptr_t other_site,
                   trace::Kind other_kind) {
    if (a.site == last_site_ ? last_reported_ : is_reported(a.site)) return;  // as race()
    std::ostringstream out;
    const std::string at = describe_device_address(address);
    out << "a global-memory race: block " << block_ << " thread " << a.thread << " "
        << verb(a.kind) << " " << at << " (" << source_line(a.site) << ") and block "
        << other / 65536u << " thread " << other % 65536u << " " << verb(other_kind) << " it ("
        << source_line(other_site) << "), in the same launch. Likely cause: ";
    // A read of what another block stored on another line (one line's load and store are a +=).
    if (a.kind == trace::Kind::load && other / 65536u != block_ && source_line(other_site) != source_line(a.site))
      out << "a block reads what another block wrote in the same launch: blocks run in any order "
             "and at once, so the writer needs a __threadfence() and then an atomic (a counter) "
             "that the reader's block updates or reads atomically first, or the reading needs "
             "a launch of its own";
    else
      out << "a plain += (or =) on memory that other threads or blocks update too: blocks run "
             "in any order and at once, so that needs atomicAdd";
    report(a.site, out.str());
  }

  struct Unwritten {
    unsigned thread, interval, bytes;
    uintptr_t site;
    trace::Kind kind;
    bool raced;
    unsigned generation;  // the block it belongs to (Hazards::generation_)
  };
  void mark_raced(uint64_t offset) {
    if (unwritten_[offset].generation == generation_) unwritten_[offset].raced = true;
  }

  // The first read of each never-written byte, by offset (entries of older blocks are stale),
  // and the offsets of this block's entries.
  std::vector<Unwritten> unwritten_;
  std::vector<uint64_t> unwritten_offsets_;
  unsigned block_threads_ = 0, block_ = 0, generation_ = 0;
  std::vector<ByteState> shared_;  // by offset in the block's shared memory
  // By 4-byte word: the generation in which the word is whole (word_access), else 0.
  std::vector<unsigned> whole_;
  std::unordered_map<uint64_t, ByteState> global_;
  static constexpr uint64_t kByteKey = uint64_t(1) << 63;  // a byte's entry, not a word's
  std::unordered_set<uint64_t> split_;  // words written by bytes in this launch
  // hand_over(): per address, the fenced threads' (block * 65536 + thread) fences at their
  // latest atomic there; and the running block's atomics at such addresses.
  std::unordered_map<uint64_t, std::unordered_map<unsigned, unsigned>> releases_;
  struct Acquire {
    uint64_t address;
    unsigned thread, interval;
  };
  std::vector<Acquire> acquires_;
  uint64_t written_lo_ = ~uint64_t(0), written_hi_ = 0;  // global bytes the launch wrote
  struct Finding {
    std::string line;      // file:line of the access that found it
    std::string sentence;  // what happened, then a likely cause
  };
  std::vector<Finding> findings_;
  // The lines reported in this launch: a few, so a vector beats a hash set.
  std::vector<uintptr_t> reported_sites_;
  bool is_reported(uintptr_t site) const {
    return std::find(reported_sites_.begin(), reported_sites_.end(), site) != reported_sites_.end();
  }
  uintptr_t last_site_ = 0;     // the latest access's line, and whether it was reported
  bool last_reported_ = false;
  size_t more_ = 0;
};

Hazards* g_hazards = nullptr;
unsigned g_checked = 0, g_unchecked = 0;  // launches since begin_hazard_coverage()

}  // namespace

TlsLayout tls_layout() {
  TlsLayout layout;
  layout.known = !tls_variables().empty();
  for (const SharedVariable& v : tls_variables())
    if (v.runtime) layout.runtime.emplace_back(v.offset, v.offset + v.size);
  return layout;
}

bool hazards_switched_off() {
#ifdef HISTO_SIM_HAZARDS_ALWAYS
  return false;  // a grading build: the checks cannot be switched off from outside
#else
  const char* env = std::getenv("HISTO_SIM_HAZARDS");
  return env && std::string(env) == "0";
#endif
}

void hazards_before_launch() {
  const bool wanted = counters_available() && !hazards_switched_off() && !large_inputs_active();
  if (wanted && !g_hazards) {
    g_hazards = new Hazards;
    trace::attach(g_hazards);
  } else if (!wanted && g_hazards) {  // a LargeInputs scope began since the last launch
    trace::detach(g_hazards);
    delete g_hazards;
    g_hazards = nullptr;
  }
}

std::string hazards_after_launch(const void* kernel) {
  if (!g_hazards) {
    ++g_unchecked;
    return "";
  }
  const std::string found = g_hazards->take(kernel);
  // A kernel compiled without the trace's hooks (not a lab source) shows only its atomics and
  // __ldg loads: what it wrote plainly is unknown, so nothing can be concluded about it, and
  // whatever it may have written counts as written from now on.
  if (trace::plain_accesses()) {
    ++(found.empty() ? g_checked : g_unchecked);
    return found;
  }
  ++g_unchecked;
  assume_all_written();
  return "";
}

void begin_hazard_coverage() { g_checked = g_unchecked = 0; }

bool hazards_covered() { return g_checked > 0 && g_unchecked == 0; }

}  // namespace histo_sim
