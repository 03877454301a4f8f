// histo_sim_wrap nvcc-info: what nvcc knows about the kernels of one .cu file, as a C++ source
// of its own the simulator's build compiles and links with them (histo_sim/nvcc_info.hpp; its
// table is found by its section, sim/src/resources.cpp).
//
//   histo_sim_wrap nvcc-info --nvcc NVCC [--cuobjdump CUOBJDUMP] --source FILE.cu
//                            --output FILE.cpp --work DIR [--depfile FILE.d] [-- NVCC_ARGS...]
//
// nvcc compiles the source for sm_90 (the H200's architecture) as a GPU build does, its
// ptxas reporting each kernel's registers and static shared memory (-Xptxas -v). A source nvcc
// rejects stops the build with nvcc's messages, as a GPU build would stop. With cuobjdump (and
// the nvdisasm it runs), the kernels' SASS gives two more figures per kernel:
//   loads_per_round   in the loop with the most global loads (LDG), the loads issued before the
//                     first instruction that needs one of their results: what nvcc keeps in
//                     flight per wait (lab05's unrolled per_row loop: 4; one load per trip: 1)
//   instructions_per  SASS instructions per dynamic memory instruction of each kind, and per
//                     warp outside loops: each basic block's instructions are shared among its
//                     memory instructions; a block without any, inside a loop, is shared among
//                     that loop's global loads (one per trip), or its other memory instructions,
//                     or those of the loop around it; outside every loop, it counts once per
//                     warp. With the simulator's counts of memory instructions this estimates
//                     the warp instructions a launch executes (the model's issue bound).
// Its line table (nvdisasm -gi; -lineinfo changes no instruction) then says, per source line,
// what nvcc made of the atomics the line calls (NvccAtomicLine: ATOM or RED, and whether one
// leader lane makes the warp's update of an address nvcc sees is uniform).
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Runs a shell command; returns its exit status and its output (stdout and stderr).
int run(const std::string& command, std::string* output) {
  output->clear();
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buffer[4096];
  size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, p)) > 0) output->append(buffer, got);
  const int status = pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Kernel {
  std::string mangled;
  long registers = 0, shared = 0;
  bool sass = false;
  double loads_per_round = 1;
  double per[6] = {};
  double per_warp = 0;
};

// ---- SASS ---------------------------------------------------------------------------------------
struct Instr {
  unsigned address;
  std::string op;    // "LDG.E.U8.CONSTANT"
  std::string args;  // operands, as written
};

// Memory instruction classes, in NvccClass order (histo_sim/nvcc_info.hpp); -1 for others.
int memory_class(const std::string& op) {
  const std::string base = op.substr(0, op.find('.'));
  if (base == "LDG") return 0;
  if (base == "STG") return 1;
  if (base == "RED" || base == "REDG" || base == "ATOMG" || base == "ATOM") return 2;
  if (base == "LDS") return 3;
  if (base == "STS") return 4;
  if (base == "ATOMS") return 5;
  return -1;
}

// One SASS instruction line: /*0050*/ [@P0 ]OP operands ; -> its address, its guard ("@P0 ",
// "@!UPT ", or empty), the opcode and the operands.
const std::regex& sass_instruction() {
  static const std::regex instruction(R"(^\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P[T0-9]+\s+)?(\S+)\s*([^;]*);)");
  return instruction;
}

std::map<std::string, std::vector<Instr>> parse_sass(const std::string& text) {
  std::map<std::string, std::vector<Instr>> functions;
  std::vector<Instr>* current = nullptr;
  std::istringstream in(text);
  static const std::regex function(R"(^\s*Function : (\S+))");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, function)) {
      current = &functions[m[1]];
      continue;
    }
    if (current && std::regex_search(line, m, sass_instruction()))
      current->push_back({unsigned(std::stoul(m[1], nullptr, 16)), m[3], m[4]});
  }
  return functions;
}

// Registers an operand list names: R4, R2.64 (R2, R3), [R6.64+0x40].
std::set<int> registers_in(const std::string& s) {
  std::set<int> out;
  static const std::regex reg(R"(\bR(\d+)(\.64|\.128)?)");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), reg); it != std::sregex_iterator(); ++it) {
    const int n = std::stoi((*it)[1]);
    const int width = (*it)[2] == ".64" ? 2 : (*it)[2] == ".128" ? 4 : 1;
    for (int k = 0; k < width; ++k) out.insert(n + k);
  }
  return out;
}

std::vector<std::string> operands(const std::string& args) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : args) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool branch_target(const Instr& i, unsigned* target) {
  if (i.op.rfind("BRA", 0) != 0) return false;
  const size_t x = i.args.find("0x");
  if (x == std::string::npos) return false;
  *target = unsigned(std::stoul(i.args.substr(x), nullptr, 16));
  return true;
}

void analyse(const std::vector<Instr>& code, Kernel* k) {
  const size_t n = code.size();
  std::map<unsigned, size_t> at;
  for (size_t i = 0; i < n; ++i) at[code[i].address] = i;
  std::set<size_t> leaders = {0};
  std::vector<std::pair<size_t, size_t>> loops;  // [first, last] instruction of each loop
  for (size_t i = 0; i < n; ++i) {
    const std::string& op = code[i].op;
    if (op.rfind("BRA", 0) == 0 || op.rfind("EXIT", 0) == 0 || op.rfind("RET", 0) == 0 ||
        op.rfind("BSYNC", 0) == 0 || op.rfind("BAR", 0) == 0 || op.rfind("WARPSYNC", 0) == 0)
      if (i + 1 < n) leaders.insert(i + 1);
    unsigned target = 0;
    if (branch_target(code[i], &target) && at.count(target)) {
      leaders.insert(at[target]);
      if (target < code[i].address) loops.push_back({at[target], i});
    }
  }
  auto innermost = [&](size_t i) -> int {
    int best = -1;
    for (size_t l = 0; l < loops.size(); ++l)
      if (loops[l].first <= i && i <= loops[l].second &&
          (best < 0 || loops[l].second - loops[l].first < loops[best].second - loops[best].first))
        best = int(l);
    return best;
  };
  // Loads in flight: the loop with the most LDGs; its LDGs per group of loads issued together.
  size_t most = 0;
  for (const auto& [first, last] : loops) {
    size_t ldg = 0, groups = 0, in_group = 0;
    std::set<int> pending;
    for (size_t i = first; i <= last; ++i) {
      const std::vector<std::string> ops = operands(code[i].args);
      const bool load = memory_class(code[i].op) == 0;
      std::set<int> reads;
      // Destinations come first, except for stores, atomics without a result and branches.
      const int cls = memory_class(code[i].op);
      const bool no_destination = cls == 1 || cls == 4 || code[i].op.rfind("RED", 0) == 0 ||
                                  code[i].op.rfind("BRA", 0) == 0 || code[i].op.rfind("BAR", 0) == 0;
      for (size_t o = no_destination ? 0 : 1; o < ops.size(); ++o)
        for (int r : registers_in(ops[o])) reads.insert(r);
      bool uses = false;
      for (int r : reads) uses = uses || pending.count(r);
      if (uses && in_group) {
        ++groups;
        in_group = 0;
        pending.clear();
      }
      if (load) {
        ++ldg;
        ++in_group;
        if (!ops.empty())
          for (int r : registers_in(ops[0])) pending.insert(r);
      }
    }
    if (in_group) ++groups;
    if (ldg > most && groups) {
      most = ldg;
      k->loads_per_round = double(ldg) / double(groups);
    }
  }
  // Instructions per memory instruction (the header comment says how they are shared).
  double share[6] = {};
  int statics[6] = {};
  std::map<int, double> pools;
  const std::vector<size_t> starts(leaders.begin(), leaders.end());
  for (size_t b = 0; b < starts.size(); ++b) {
    const size_t s = starts[b], e = b + 1 < starts.size() ? starts[b + 1] : n;
    unsigned target = 0;
    if (e - s == 1 && branch_target(code[s], &target) && target == code[s].address) continue;  // the end
    std::vector<int> mem;
    for (size_t i = s; i < e; ++i)
      if (memory_class(code[i].op) >= 0) mem.push_back(memory_class(code[i].op));
    for (int c : mem) ++statics[c];
    if (!mem.empty()) {
      for (int c : mem) share[c] += double(e - s) / double(mem.size());
    } else {
      const int l = innermost(s);
      if (l < 0)
        k->per_warp += double(e - s);
      else
        pools[l] += double(e - s);
    }
  }
  for (const auto& [loop, size] : pools) {
    int l = loop;
    for (;;) {
      std::vector<int> mem, loads;
      for (size_t i = loops[l].first; i <= loops[l].second; ++i) {
        const int c = memory_class(code[i].op);
        if (c >= 0) mem.push_back(c);
        if (c == 0) loads.push_back(c);
      }
      const std::vector<int>& pick = loads.empty() ? mem : loads;
      if (!pick.empty()) {
        for (int c : pick) share[c] += size / double(pick.size());
        break;
      }
      int parent = -1;
      for (size_t p = 0; p < loops.size(); ++p)
        if (int(p) != l && loops[p].first <= loops[l].first && loops[l].second <= loops[p].second &&
            (parent < 0 || loops[p].second - loops[p].first < loops[parent].second - loops[parent].first))
          parent = int(p);
      if (parent < 0) {
        k->per_warp += size;
        break;
      }
      l = parent;
    }
  }
  for (int c = 0; c < 6; ++c) k->per[c] = statics[c] ? share[c] / statics[c] : 0;
  k->sass = true;
}

// ---- Atomics by source line (nvdisasm -gi) ---------------------------------------------------
struct AtomicTally {
  int instructions = 0, one_lane = 0, atom = 0;
};

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

// Every global or shared atomic of every function, by the source line that calls it: the first
// frame of its inlining chain whose file does not lie under `toolkit` (nvcc's own headers). One
// leader lane's update: predicated on a predicate that ISETP.EQ set from SR_LANEID's register
// and a uniform register UFLO set (the lowest active lane), nothing writing either in between.
void tally_atomics(const std::string& text, const std::string& toolkit,
                   std::map<std::pair<std::string, long>, AtomicTally>* lines) {
  static const std::regex location(R"re(//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?)re");
  static const std::regex function(R"(^\.text\.\S+:)");
  std::map<std::string, bool> under_toolkit;
  auto outside = [&](const std::string& file) {
    auto [it, fresh] = under_toolkit.try_emplace(file, false);
    if (fresh) it->second = real_path(file).rfind(toolkit + "/", 0) == 0;
    return !it->second;
  };
  std::vector<std::pair<std::string, long>> chain;  // innermost first
  bool in_location = false;
  std::set<std::string> lane_ids, leaders, leader_predicates;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, function)) {
      lane_ids.clear(), leaders.clear(), leader_predicates.clear(), chain.clear();
      continue;
    }
    if (std::regex_search(line, m, location)) {
      if (!in_location) chain = {{m[1], std::stol(m[2])}};
      if (m[3].matched) chain.push_back({m[3], std::stol(m[4])});
      in_location = true;
      continue;
    }
    if (!std::regex_search(line, m, sass_instruction())) continue;
    in_location = false;
    const std::string guard = m[2], op = m[3];
    const std::vector<std::string> ops = operands(m[4]);
    auto trimmed = [](std::string s) {
      s.erase(0, s.find_first_not_of(' '));
      return s.substr(0, s.find_last_not_of(' ') + 1);
    };
    const std::string destination = ops.empty() ? "" : trimmed(ops[0]);
    const std::string base = op.substr(0, op.find('.'));
    if (base == "RED" || base == "REDG" || base == "ATOM" || base == "ATOMG" || base == "ATOMS") {
      const auto frame = std::find_if(chain.begin(), chain.end(), [&](const auto& f) { return outside(f.first); });
      if (frame == chain.end()) continue;
      const std::string file = frame->first.substr(frame->first.find_last_of('/') + 1);
      AtomicTally& t = (*lines)[{file, frame->second}];
      ++t.instructions;
      const std::string predicate = guard.empty() || guard[1] == '!' ? "" : trimmed(guard.substr(1));
      if (!predicate.empty() && leader_predicates.count(predicate)) ++t.one_lane;
      if (base == "ATOM" || base == "ATOMG") ++t.atom;
      continue;
    }
    // What writes a register or predicate ends what it held.
    if (op.find("SETP") != std::string::npos || base == "PLOP3" || base == "R2P") {
      for (size_t o = 0; o < std::min<size_t>(2, ops.size()); ++o) leader_predicates.erase(trimmed(ops[o]));
      if (op.rfind("ISETP.EQ", 0) == 0 && ops.size() >= 3) {
        bool lane = false, leader = false;
        for (size_t o = 2; o < ops.size(); ++o) {
          lane = lane || lane_ids.count(trimmed(ops[o]));
          leader = leader || leaders.count(trimmed(ops[o]));
        }
        if (lane && leader && guard.empty()) leader_predicates.insert(destination);
      }
      continue;
    }
    lane_ids.erase(destination);
    leaders.erase(destination);
    if (base == "S2R" && ops.size() == 2 && trimmed(ops[1]) == "SR_LANEID") lane_ids.insert(destination);
    if (base == "UFLO") leaders.insert(destination);
  }
}

// ---- ptxas -v ------------------------------------------------------------------------------------
void parse_resources(const std::string& text, std::map<std::string, Kernel>* kernels) {
  std::istringstream in(text);
  static const std::regex entry(R"(Compiling entry function '([^']+)' for 'sm_)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::string current;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      current = m[1];
      (*kernels)[current].mangled = current;
      continue;
    }
    if (!current.empty() && std::regex_search(line, m, used)) {
      Kernel& k = (*kernels)[current];
      k.registers = std::stol(m[1]);
      if (std::regex_search(line, m, smem)) k.shared = std::stol(m[1]);
      current.clear();
    }
  }
}

std::string c_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int nvcc_info_main(int argc, char** argv) {
  std::string nvcc, cuobjdump, source, output, work, depfile;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--") {
      args.assign(argv + i + 1, argv + argc);
      break;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "histo_sim_wrap nvcc-info: %s needs a value\n", a.c_str());
      return 2;
    }
    const std::string v = argv[++i];
    if (a == "--nvcc") nvcc = v;
    else if (a == "--cuobjdump") cuobjdump = v;
    else if (a == "--source") source = v;
    else if (a == "--output") output = v;
    else if (a == "--work") work = v;
    else if (a == "--depfile") depfile = v;
  }
  if (nvcc.empty() || source.empty() || output.empty() || work.empty()) {
    std::fprintf(stderr, "usage: histo_sim_wrap nvcc-info --nvcc NVCC [--cuobjdump CUOBJDUMP] "
                         "--source FILE.cu --output FILE.cpp --work DIR [-- NVCC_ARGS...]\n");
    return 2;
  }
  mkdir(work.c_str(), 0777);
  const std::string object = work + "/kernels.o";
  const std::string nvcc_deps = work + "/kernels.d";
  // An object, not a cubin alone: the host side is compiled too, so what a GPU build refuses (a
  // device intrinsic in a __host__ __device__ function) stops this build as well. The sm_90
  // cubin it makes on the way is kept (-keep) for cuobjdump: STEM.sm_90.cubin.
  const size_t name_at = source.find_last_of('/') + 1;
  const std::string stem = source.substr(name_at, source.rfind('.') - name_at);
  const std::string cubin = work + "/" + stem + ".sm_90.cubin";
  std::string command = shell_quote(nvcc) + " -arch=sm_90 -c -O3 -std=c++17 -lineinfo -Xptxas -v -keep -keep-dir " +
                        shell_quote(work);
  if (!depfile.empty()) command += " -MD -MF " + shell_quote(nvcc_deps);
  for (const std::string& a : args) command += " " + shell_quote(a);
  command += " -o " + shell_quote(object) + " " + shell_quote(source);
  std::string out;
  if (run(command, &out) != 0) {
    std::fprintf(stderr,
                 "nvcc rejects %s (the CPU simulator's build compiles every source with nvcc too, "
                 "for sm_90, where nvcc is installed):\n%s",
                 source.c_str(), out.c_str());
    return 1;
  }
  if (!depfile.empty()) {
    // nvcc names the object as the target: the build wants the table.
    std::ifstream in(nvcc_deps);
    std::ostringstream deps;
    deps << in.rdbuf();
    std::string text = deps.str();
    size_t colon = text.find(": ");
    if (colon == std::string::npos) colon = text.find(":\n");
    std::ofstream o(depfile);
    o << output << (colon == std::string::npos ? std::string(": ") + source + "\n" : text.substr(colon));
  }
  std::map<std::string, Kernel> kernels;
  std::map<std::pair<std::string, long>, AtomicTally> atomics;
  parse_resources(out, &kernels);
  if (!cuobjdump.empty()) {
    const size_t slash = cuobjdump.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "." : cuobjdump.substr(0, slash);
    std::string sass;
    // cuobjdump runs nvdisasm, which lies beside it.
    if (run("PATH=" + shell_quote(dir) + ":\"$PATH\" " + shell_quote(cuobjdump) + " -sass " +
                shell_quote(cubin), &sass) == 0) {
      for (const auto& [name, code] : parse_sass(sass))
        if (kernels.count(name)) analyse(code, &kernels[name]);
    } else {
      std::fprintf(stderr, "histo_sim_wrap nvcc-info: cuobjdump -sass failed (no SASS figures for %s):\n%s",
                   source.c_str(), sass.c_str());
    }
    std::string lined;
    if (run("PATH=" + shell_quote(dir) + ":\"$PATH\" nvdisasm -gi -c " + shell_quote(cubin), &lined) == 0) {
      const std::string nvcc_dir = nvcc.find('/') == std::string::npos ? "" : nvcc.substr(0, nvcc.find_last_of('/'));
      const std::string toolkit = nvcc_dir.empty() ? "" : real_path(nvcc_dir + "/..");
      if (!toolkit.empty()) tally_atomics(lined, toolkit, &atomics);
    } else {
      std::fprintf(stderr, "histo_sim_wrap nvcc-info: nvdisasm -gi failed (no atomics by line for %s):\n%s",
                   source.c_str(), lined.c_str());
    }
  }
  std::ostringstream inc;
  inc << "// Generated by histo_sim_wrap nvcc-info from nvcc's sm_90 build of " << source << ".\n"
      << "#include \"histo_sim/nvcc_info.hpp\"\n";
  if (!kernels.empty()) {
    inc << "namespace {\nconst ::histo_sim::NvccKernelInfo histo_sim_nvcc_info_table[] = {\n";
    char number[64];
    for (const auto& [name, k] : kernels) {
      inc << "  {" << c_string(name) << ", \"sm_90\", " << k.registers << ", " << k.shared << ", "
          << (k.sass ? 1 : 0) << ", ";
      std::snprintf(number, sizeof number, "%.4g", k.loads_per_round);
      inc << number << ", {";
      for (int c = 0; c < 6; ++c) {
        std::snprintf(number, sizeof number, "%.4g", k.per[c]);
        inc << (c ? ", " : "") << number;
      }
      std::snprintf(number, sizeof number, "%.4g", k.per_warp);
      inc << "}, " << number << "},\n";
    }
    inc << "};\nconst ::histo_sim::NvccAtomicLine histo_sim_nvcc_atomic_lines[] = {\n";
    size_t listed = 0;
    for (const auto& [where, t] : atomics) {
      const int flags = (t.one_lane == t.instructions ? 1 : 0) | (t.atom == t.instructions ? 2 : 0);
      if (flags) inc << "  {" << c_string(where.first) << ", " << where.second << ", " << flags << "},\n", ++listed;
    }
    if (!listed) inc << "  {nullptr, 0, 0},\n";
    inc << "};\n__attribute__((section(\"histo_nvcc_info\"), used)) const ::histo_sim::NvccTable "
           "histo_sim_nvcc_info_entry{histo_sim_nvcc_info_table, histo_sim_nvcc_info_table + "
        << kernels.size() << ", histo_sim_nvcc_atomic_lines, histo_sim_nvcc_atomic_lines + " << listed
        << "};\n}  // namespace\n";
  }
  std::string old;
  {
    std::ifstream in(output);
    std::ostringstream s;
    s << in.rdbuf();
    old = s.str();
  }
  if (old != inc.str()) {
    std::ofstream o(output);
    o << inc.str();
    if (!o) return 1;
  }
  return 0;
}
