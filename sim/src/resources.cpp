// What nvcc knows about a kernel (histo_sim/nvcc_info.hpp): its registers per thread and static
// shared memory for the occupancy calculator, and its SASS for the cost model. The tables lie in
// the section histo_nvcc_info of the executable; a build configured without nvcc has none, and
// every figure is then "unknown" (kernel_resources says so).
#include "histo_sim/nvcc_info.hpp"

#include "internal.hpp"

#include <cstring>
#include <map>
#include <mutex>
#include <string>

extern "C" {
extern const histo_sim::NvccTable __start_histo_nvcc_info[] __attribute__((weak));
extern const histo_sim::NvccTable __stop_histo_nvcc_info[] __attribute__((weak));
}

namespace histo_sim {

// Anonymous namespaces mangle differently in nvcc's device code
// (_GLOBAL__N__f28b1d9d_12_calibrate_cu_main) and in the host compiler's (_GLOBAL__N_1): both
// are written _GLOBAL__N_1, so a kernel's two names compare equal.
std::string canonical_mangled(const std::string& mangled) {
  std::string out;
  size_t i = 0;
  while (i < mangled.size()) {
    const size_t hit = mangled.find("_GLOBAL__N_", i);
    if (hit == std::string::npos) break;
    size_t digits = hit;
    while (digits > i && std::isdigit(static_cast<unsigned char>(mangled[digits - 1]))) --digits;
    if (digits == hit) {
      out += mangled.substr(i, hit + 11 - i);
      i = hit + 11;
      continue;
    }
    const size_t length = std::stoul(mangled.substr(digits, hit - digits));
    out += mangled.substr(i, digits - i) + "12_GLOBAL__N_1";
    i = hit + length;
  }
  return out + mangled.substr(std::min(i, mangled.size()));
}

namespace {

const std::map<std::string, const NvccKernelInfo*>& table() {
  static const std::map<std::string, const NvccKernelInfo*> t = [] {
    std::map<std::string, const NvccKernelInfo*> m;
    if (__start_histo_nvcc_info && __stop_histo_nvcc_info)
      for (const NvccTable* t = __start_histo_nvcc_info; t < __stop_histo_nvcc_info; ++t)
        for (const NvccKernelInfo* e = t->begin; e < t->end; ++e)
          if (e->mangled) m[canonical_mangled(e->mangled)] = e;
    return m;
  }();
  return t;
}

}  // namespace

int64_t nvcc_atomic_flags(const char* file, int line) {
  // Base name and line -> flags; a line two sources list keeps the flags both give.
  static const std::map<std::pair<std::string, int64_t>, int64_t> lines = [] {
    std::map<std::pair<std::string, int64_t>, int64_t> m;
    if (__start_histo_nvcc_info && __stop_histo_nvcc_info)
      for (const NvccTable* t = __start_histo_nvcc_info; t < __stop_histo_nvcc_info; ++t)
        for (const NvccAtomicLine* a = t->atomics_begin; a < t->atomics_end; ++a) {
          const auto [it, fresh] = m.try_emplace({a->file, a->line}, a->flags);
          if (!fresh) it->second &= a->flags;
        }
    return m;
  }();
  const char* slash = std::strrchr(file, '/');
  const auto it = lines.find({slash ? slash + 1 : file, line});
  return it == lines.end() ? 0 : it->second;
}

KernelResources kernel_resources(const void* kernel) {
  KernelResources r;
  static std::mutex mutex;
  static std::map<const void*, KernelResources> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const auto hit = cache.find(kernel);
  if (hit != cache.end()) return hit->second;
  const Symbol* s = symbol_at(kernel);
  if (s && s->address == reinterpret_cast<uintptr_t>(kernel)) {
    const auto it = table().find(canonical_mangled(s->mangled));
    if (it != table().end()) {
      const NvccKernelInfo& e = *it->second;
      r.known = true;
      r.registers = int(e.registers);
      r.static_shared = size_t(e.static_shared);
      r.sass = e.sass != 0;
      r.loads_per_round = e.loads_per_round > 0 ? e.loads_per_round : 1;
      for (int c = 0; c < kNvccClasses; ++c) r.instructions_per[c] = e.instructions_per[c];
      r.instructions_per_warp = e.instructions_per_warp;
    }
  }
  return cache[kernel] = r;
}

const char* nvcc_status() {
  bool sass = false;
  for (const auto& entry : table()) sass = sass || entry.second->sass != 0;
  if (sass) return "registers, static shared memory and SASS from nvcc's sm_90 build of each source";
  if (!table().empty())
    return "registers and static shared memory from nvcc's sm_90 build of each source; no SASS "
           "(cuobjdump was not found): the model has no instruction-issue bound and takes one "
           "load in flight per thread";
  return "not known: this build was configured without nvcc (registers do not limit the "
         "occupancy calculator, static shared memory is what a counted launch touched, and the "
         "model has no instruction-issue bound)";
}

}  // namespace histo_sim
