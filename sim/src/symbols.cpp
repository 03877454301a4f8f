// The executable's symbol table: names for kernels (reports, the per-launch report, nvcc's
// figures), for __device__ and __constant__ variables and for __shared__ arrays (hazard reports).
// Read once from /proc/self/exe's .symtab (a simulator build keeps it: nothing strips it).
#include "internal.hpp"

#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace histo_sim {
namespace {

struct Table {
  std::vector<Symbol> symbols;  // functions and objects, by address
  std::vector<Symbol> tls;      // TLS objects, by offset
};

uintptr_t load_bias() {
  uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* out) -> int {
        *static_cast<uintptr_t*>(out) = info->dlpi_addr;  // the executable comes first
        return 1;
      },
      &bias);
  return bias;
}

Table read_table() {
  Table t;
  const int fd = open("/proc/self/exe", O_RDONLY);
  if (fd < 0) return t;
  struct stat st {};
  void* map = fstat(fd, &st) == 0 && st.st_size > 0
                  ? mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                  : MAP_FAILED;
  close(fd);
  if (map == MAP_FAILED) return t;
  const auto* base = static_cast<const unsigned char*>(map);
  const size_t size = size_t(st.st_size);
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
  const uintptr_t bias = load_bias();
  if (size >= sizeof(Elf64_Ehdr) && std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
      eh->e_ident[EI_CLASS] == ELFCLASS64 &&
      eh->e_shoff + uint64_t(eh->e_shnum) * sizeof(Elf64_Shdr) <= size) {
    const auto* sections = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
    for (unsigned i = 0; i < eh->e_shnum; ++i) {
      if (sections[i].sh_type != SHT_SYMTAB || sections[i].sh_link >= eh->e_shnum) continue;
      const Elf64_Shdr& strings = sections[sections[i].sh_link];
      if (sections[i].sh_offset + sections[i].sh_size > size || strings.sh_offset + strings.sh_size > size)
        continue;
      const auto* symbols = reinterpret_cast<const Elf64_Sym*>(base + sections[i].sh_offset);
      const char* names = reinterpret_cast<const char*>(base + strings.sh_offset);
      for (size_t k = 0; k < sections[i].sh_size / sizeof(Elf64_Sym); ++k) {
        const Elf64_Sym& sym = symbols[k];
        const unsigned type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_OBJECT && type != STT_TLS) || sym.st_name >= strings.sh_size ||
            sym.st_shndx == SHN_UNDEF)
          continue;
        if (type == STT_TLS && sym.st_size == 0) continue;
        const char* mangled = names + sym.st_name;
        int status = 0;
        char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
        Symbol s{type == STT_TLS ? uintptr_t(sym.st_value) : uintptr_t(sym.st_value) + bias,
                 size_t(sym.st_size), type == STT_TLS, mangled,
                 status == 0 && demangled ? demangled : mangled};
        std::free(demangled);
        (type == STT_TLS ? t.tls : t.symbols).push_back(std::move(s));
      }
    }
  }
  munmap(map, size);
  auto by_address = [](const Symbol& a, const Symbol& b) { return a.address < b.address; };
  std::sort(t.symbols.begin(), t.symbols.end(), by_address);
  std::sort(t.tls.begin(), t.tls.end(), by_address);
  return t;
}

const Table& table() {
  static const Table t = read_table();
  return t;
}

}  // namespace

const Symbol* symbol_at(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const std::vector<Symbol>& s = table().symbols;
  auto it = std::upper_bound(s.begin(), s.end(), a,
                             [](uintptr_t x, const Symbol& y) { return x < y.address; });
  // Symbols may nest (an alias, a zero-sized label): take the last that starts at or below a
  // and holds it.
  while (it != s.begin()) {
    --it;
    if (a < it->address + std::max<size_t>(it->size, 1)) return &*it;
    if (it->address + 65536 < a) break;
  }
  return nullptr;
}

std::vector<const Symbol*> tls_symbols() {
  std::vector<const Symbol*> out;
  for (const Symbol& s : table().tls) out.push_back(&s);
  return out;
}

std::string kernel_name(const void* kernel) {
  const Symbol* s = symbol_at(kernel);
  if (!s || s->address != reinterpret_cast<uintptr_t>(kernel)) {
    char text[48];
    std::snprintf(text, sizeof text, "the kernel at %p", kernel);
    return text;
  }
  // The demangled name less its parameter list: from the '(' that matches the last ')'.
  const std::string& d = s->name;
  if (d.empty() || d.back() != ')') return d;
  int depth = 0;
  for (size_t i = d.size(); i-- > 0;) {
    if (d[i] == ')') ++depth;
    if (d[i] == '(' && --depth == 0) return d.substr(0, i);
  }
  return d;
}

}  // namespace histo_sim
