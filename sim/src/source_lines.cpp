// Source lines of the kernels' code addresses: file:line from the executable's line tables
// (addr2line on the object that holds the address; a traced build compiles the lab sources with
// line tables), and the text of that line. The hazard reports name lines with it, and the
// counters' per-line view (line_counts) gives each line its text.
#include "internal.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <unordered_map>
#include <utility>

namespace histo_sim {
namespace {

using Key = std::pair<uintptr_t, std::vector<std::string>>;
std::map<Key, SourceLocation> g_cache;

// A simulator wrapper (sim_sources/<name>_<8 hex digits>.cpp, wrap_source.cmake) stands for the
// .cu file it compiles: "<name>.cu:<line>" for "<name>_<tag>.cpp:<line>", or "" when `file_line`
// names no wrapper.
std::string wrapped_name(const std::string& file_line) {
  const size_t dot = file_line.find(".cpp:");
  if (dot == std::string::npos || dot <= 9 || file_line[dot - 9] != '_' ||
      file_line.find_first_not_of("0123456789abcdef", dot - 8) != dot)
    return "";
  return file_line.substr(0, dot - 9) + ".cu" + file_line.substr(dot + 4);
}

// The .cu file a wrapper compiles, from its first lines: the "compiles PATH for" header, a
// `#line 1 "PATH"` or an `#include "PATH"`.
std::string wrapped_source(const std::string& wrapper) {
  std::ifstream in(wrapper);
  std::string line;
  for (int k = 0; k < 4 && std::getline(in, line); ++k) {
    const size_t compiles = line.find("compiles ");
    const size_t for_sim = line.rfind(" for the CPU simulator");
    if (compiles != std::string::npos && for_sim != std::string::npos && for_sim > compiles + 9)
      return line.substr(compiles + 9, for_sim - compiles - 9);
    const size_t quote = line.find('"');
    if ((line.rfind("#line", 0) == 0 || line.rfind("#include", 0) == 0) && quote != std::string::npos) {
      const size_t end = line.find('"', quote + 1);
      if (end != std::string::npos) return line.substr(quote + 1, end - quote - 1);
    }
  }
  return "";
}

// One frame of addr2line's output ("/path/file.cu:87 (discriminator 2)"), or false when it
// names no line or a file that `skip` (or the simulator's own cuda_runtime.h) passes over.
bool read_frame(std::string text, const std::vector<std::string>& skip, SourceLocation* out) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  const size_t discriminator = text.find(" (");
  if (discriminator != std::string::npos) text.resize(discriminator);
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || text.substr(0, 2) == "??") return false;
  const size_t slash = text.rfind('/', colon);
  const std::string file_line = text.substr(slash == std::string::npos ? 0 : slash + 1);
  if (file_line.rfind("cuda_runtime.h:", 0) == 0) return false;
  for (const std::string& prefix : skip)
    if (file_line.rfind(prefix, 0) == 0) return false;
  const std::string number = text.substr(colon + 1);
  if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) return false;
  out->file_line = file_line;
  out->path = text.substr(0, colon);
  out->line = unsigned(std::stoul(number));
  const std::string cu = wrapped_name(file_line);
  if (!cu.empty()) {
    out->file_line = cu;
    out->path = wrapped_source(out->path);
  }
  return true;
}

}  // namespace

void resolve_source_locations(const std::vector<uintptr_t>& pcs, const std::vector<std::string>& skip) {
  // Per object, one addr2line for every address not asked before: -a prints each address before
  // its frames; -i gives the inlined frames, innermost first, and the first one in the student's
  // code names the line (an atomic's innermost frame is the simulator's own atomicAdd).
  std::map<std::string, std::vector<std::pair<uintptr_t, uintptr_t>>> by_object;  // (pc, offset)
  for (uintptr_t pc : pcs) {
    if (g_cache.count({pc, skip})) continue;
    g_cache[{pc, skip}] = SourceLocation{};  // "?" unless addr2line says otherwise
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fname) continue;
    const std::string object = info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
    by_object[object].push_back({pc, pc - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1});
  }
  for (const auto& [object, addresses] : by_object) {
    for (size_t first = 0; first < addresses.size(); first += 200) {
      std::string command = "addr2line -a -i -e '" + object + "'";
      std::map<uintptr_t, uintptr_t> pc_of;  // offset -> pc
      for (size_t k = first; k < addresses.size() && k < first + 200; ++k) {
        char hex[32];
        std::snprintf(hex, sizeof hex, " 0x%llx", (unsigned long long)addresses[k].second);
        command += hex;
        pc_of[addresses[k].second] = addresses[k].first;
      }
      command += " 2>/dev/null";
      FILE* p = popen(command.c_str(), "r");
      if (!p) continue;
      char buffer[2048];
      SourceLocation* current = nullptr;
      bool found = false;
      while (std::fgets(buffer, sizeof buffer, p)) {
        const std::string text = buffer;
        if (text.rfind("0x", 0) == 0 && text.find('/') == std::string::npos) {
          const auto it = pc_of.find(uintptr_t(std::stoull(text, nullptr, 16)));
          current = it == pc_of.end() ? nullptr : &g_cache[{it->second, skip}];
          found = false;
          continue;
        }
        if (current && !found) found = read_frame(text, skip, current);
      }
      pclose(p);
    }
  }
}

SourceLocation source_location(uintptr_t pc, const std::vector<std::string>& skip) {
  resolve_source_locations({pc}, skip);
  return g_cache[{pc, skip}];
}

std::string source_line(uintptr_t pc, const std::vector<std::string>& skip) {
  return source_location(pc, skip).file_line;
}

std::string source_text(const std::string& path, unsigned line) {
  static std::map<std::string, std::vector<std::string>> files;
  if (path.empty() || line == 0) return "";
  auto found = files.find(path);
  if (found == files.end()) {
    std::vector<std::string> lines;
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    found = files.emplace(path, std::move(lines)).first;
  }
  if (line > found->second.size()) return "";
  std::string text = found->second[line - 1];
  const size_t begin = text.find_first_not_of(" \t");
  const size_t end = text.find_last_not_of(" \t\r");
  return begin == std::string::npos ? "" : text.substr(begin, end - begin + 1);
}

}  // namespace histo_sim

namespace histo_sim {
namespace {
std::unordered_map<uintptr_t, std::string> g_identities;

// The tools that name an address's frames, best first: llvm-symbolizer gives each frame's column
// (and the function), addr2line only file:line (with a discriminator where the line has several
// blocks). Each prints an address line ("0x...", -a) before that address's frames.
const char* const kSymbolizers[] = {
#ifdef __clang_major__
#define HISTO_SIM_STRING2(x) #x
#define HISTO_SIM_STRING(x) HISTO_SIM_STRING2(x)
    "llvm-symbolizer-" HISTO_SIM_STRING(__clang_major__) " -a -i --obj=",
#undef HISTO_SIM_STRING
#undef HISTO_SIM_STRING2
#endif
    "llvm-symbolizer -a -i --obj=", "addr2line -a -i -e "};
size_t g_symbolizer = 0;  // the first of kSymbolizers that may work

// Runs `tool` on the addresses (offsets in `object`) and fills their identities; false when it
// printed nothing (not installed).
bool symbolize(const char* tool, const std::string& object,
               const std::vector<std::pair<uintptr_t, uintptr_t>>& addresses) {
  std::string command = std::string(tool) + "'" + object + "'";
  std::unordered_map<uintptr_t, uintptr_t> pc_of;  // offset -> pc
  for (const auto& [pc, offset] : addresses) {
    char hex[32];
    std::snprintf(hex, sizeof hex, " 0x%llx", (unsigned long long)offset);
    command += hex;
    pc_of[offset] = pc;
  }
  command += " 2>/dev/null";
  FILE* p = popen(command.c_str(), "r");
  if (!p) return false;
  char buffer[2048];
  std::string* current = nullptr;
  bool any = false;
  while (std::fgets(buffer, sizeof buffer, p)) {
    const std::string text = buffer;
    if (text.rfind("0x", 0) == 0 && text.find('/') == std::string::npos) {
      const auto it = pc_of.find(uintptr_t(std::stoull(text, nullptr, 16)));
      current = it == pc_of.end() ? nullptr : &g_identities[it->second];
      any = true;
    } else if (current && text != "\n") {
      *current += text;
    }
  }
  pclose(p);
  return any;
}
}  // namespace

const std::string& source_identity(uintptr_t pc, const std::vector<uintptr_t>& more) {
  if (const auto found = g_identities.find(pc); found != g_identities.end()) return found->second;
  std::map<std::string, std::vector<std::pair<uintptr_t, uintptr_t>>> by_object;  // (pc, offset)
  std::vector<uintptr_t> pcs = more;
  pcs.push_back(pc);
  for (uintptr_t a : pcs) {
    if (!g_identities.emplace(a, "").second) continue;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(a), &info) || !info.dli_fname) continue;
    const std::string object = info.dli_fname[0] ? info.dli_fname : "/proc/self/exe";
    by_object[object].push_back({a, a - reinterpret_cast<uintptr_t>(info.dli_fbase) - 1});
  }
  for (const auto& [object, addresses] : by_object)
    for (size_t first = 0; first < addresses.size(); first += 200) {
      const std::vector<std::pair<uintptr_t, uintptr_t>> batch(
          addresses.begin() + long(first), addresses.begin() + long(std::min(addresses.size(), first + 200)));
      while (g_symbolizer < std::size(kSymbolizers) && !symbolize(kSymbolizers[g_symbolizer], object, batch))
        ++g_symbolizer;
    }
  return g_identities[pc];
}

}  // namespace histo_sim
