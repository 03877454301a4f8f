// histo_sim_wrap: writes the host C++ file that compiles one .cu file for the CPU simulator
// (sim/CMakeLists.txt, histo_sim_sources, runs it at build time).
//
//   histo_sim_wrap --source FILE.cu --output WRAPPER.cpp [--depfile FILE.d] [--copies DIR]
//                  [--include-dir DIR]...
//
// The wrapper first includes <cuda_runtime.h>, as nvcc does for every .cu file, defines
// __CUDA_ARCH__ as sm_90's (900: one pass for host and device code, sim/README.md), then the
// source. What CUDA C++ writes and host C++ cannot parse is rewritten, always in place, so
// every line keeps its number (a #line directive names the real file):
//   kernel<<<grid, block, shared, stream>>>(args)
//       -> kernel * ::histo_sim::chevrons([&](auto&&... a) { kernel(a...); }, grid, block, shared,
//          stream)(args)
//          (cuda_runtime.h: the launch, with the arguments converted to the kernel's types; the
//          call by name gives a kernel with default arguments the ones left out. A launch of
//          anything but a name, `ns::name` or `name<T, 256>` has no call by name)
//   extern __shared__ [__align__(n)] T name[];            (in a function or at file scope;
//                                                          __shared__ after T too)
//       -> T* const name = ::histo_sim::dynamic_shared<T>();
//          static T* const name = ::histo_sim::dynamic_shared_at_file_scope<T>();  (file scope)
//          (every extern __shared__ array starts where the block's dynamic shared memory does)
//   __device__ T name...;  __constant__ T name...;        (variables at namespace scope)
//       -> HISTO_SIM_DEVICE_VARIABLE T name...;  HISTO_SIM_CONSTANT_VARIABLE T name...;
//          (sections the simulator registers as device memory; _READONLY for const ones)
// Comments, string and character literals and #include lines are never rewritten. A source
// with nothing to rewrite is only #included. The headers it includes with quotes (found beside
// the including file, or in an --include-dir) are read too: one that needs rewriting is copied,
// rewritten, into the --copies folder, and the files that include it include the copy. The
// depfile names every file read, so editing a header rewrites the wrapper.
//
// `histo_sim_wrap nvcc-info` (nvcc_info.cpp) writes what nvcc's sm_90 build of a source says
// about its kernels, a source compiled on its own.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

int nvcc_info_main(int argc, char** argv);  // nvcc_info.cpp

namespace {

bool read_file(const std::string& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  *text = s.str();
  return true;
}

// Writes `text` unless the file already holds it (so the build does not redo what follows).
bool write_if_changed(const std::string& path, const std::string& text) {
  std::string old;
  if (read_file(path, &old) && old == text) return true;
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

bool is_file(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// An absolute path without "." and ".." components.
std::string normalize(const std::string& path) {
  std::string full = path;
  if (full.empty() || full[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) full = std::string(cwd) + "/" + full;
  }
  std::vector<std::string> parts;
  std::stringstream in(full);
  for (std::string part; std::getline(in, part, '/');) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (const std::string& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A string literal for a #include or #line directive.
std::string quoted(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

// ---- Where the code is: the positions that are code, not comments or literals ----------------
// code[i] is true when text[i] is outside every comment, string and character literal.
std::vector<bool> code_mask(const std::string& t) {
  std::vector<bool> code(t.size(), false);
  size_t i = 0;
  const size_t n = t.size();
  while (i < n) {
    const char c = t[i];
    if (c == '/' && i + 1 < n && t[i + 1] == '/') {
      while (i < n && t[i] != '\n') {
        // A line comment ends at a newline not escaped by a backslash.
        if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n') ++i;
        ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < n && t[i + 1] == '*') {
      const size_t end = t.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
      continue;
    }
    if (c == 'R' && i + 1 < n && t[i + 1] == '"' && (i == 0 || !ident_char(t[i - 1]) ||
                                                     t[i - 1] == 'u' || t[i - 1] == 'U' ||
                                                     t[i - 1] == 'L' || t[i - 1] == '8')) {
      // A raw string: R"delim( ... )delim"
      const size_t open = t.find('(', i + 2);
      if (open != std::string::npos && open - (i + 2) <= 16) {
        const std::string close = ")" + t.substr(i + 2, open - (i + 2)) + "\"";
        const size_t end = t.find(close, open + 1);
        i = end == std::string::npos ? n : end + close.size();
        continue;
      }
    }
    if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(t[i - 1])) &&
                                    i + 1 < n && std::isxdigit(static_cast<unsigned char>(t[i + 1]))))) {
      // A string or character literal (a digit separator, 1'000, is neither).
      const char quote = c;
      ++i;
      while (i < n && t[i] != quote && t[i] != '\n') {
        if (t[i] == '\\') ++i;
        ++i;
      }
      ++i;
      continue;
    }
    code[i] = true;
    ++i;
  }
  return code;
}

// ---- The rewriter -------------------------------------------------------------------------------
struct Include {
  size_t name_begin, name_end;  // the quoted name's text, without the quotes
  std::string name;
};

class Rewriter {
 public:
  explicit Rewriter(const std::string& text) : t_(text), code_(code_mask(text)) {}

  // The rewritten text; `changed` says whether anything was rewritten.
  std::string run(bool* changed, std::vector<Include>* includes) {
    find_includes(includes);
    scan();
    *changed = !edits_.empty();
    std::string out;
    size_t at = 0;
    for (const auto& [begin, edit] : edits_) {
      out += t_.substr(at, begin - at);
      out += edit.second;
      at = edit.first;
    }
    return out + t_.substr(at);
  }

  // An #error in place of a construct the simulator cannot take, at its line.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  bool is_code(size_t i) const { return i < t_.size() && code_[i]; }

  // #include "name" lines (their names are not code: they are string literals to the mask).
  void find_includes(std::vector<Include>* includes) {
    size_t line = 0;
    while (line < t_.size()) {
      size_t end = t_.find('\n', line);
      if (end == std::string::npos) end = t_.size();
      size_t i = line;
      while (i < end && (t_[i] == ' ' || t_[i] == '\t')) ++i;
      if (i < end && t_[i] == '#' && is_code(i)) {
        ++i;
        while (i < end && (t_[i] == ' ' || t_[i] == '\t')) ++i;
        if (t_.compare(i, 7, "include") == 0) {
          i += 7;
          while (i < end && (t_[i] == ' ' || t_[i] == '\t')) ++i;
          if (i < end && t_[i] == '"') {
            const size_t close = t_.find('"', i + 1);
            if (close != std::string::npos && close < end)
              includes->push_back({i + 1, close, t_.substr(i + 1, close - i - 1)});
          }
        }
        directive_lines_.insert(line);
      }
      line = end + 1;
    }
  }

  // The identifier at i, if one starts there.
  std::string word_at(size_t i) const {
    if (!is_code(i) || !ident_char(t_[i]) || (i > 0 && ident_char(t_[i - 1]) && is_code(i - 1)))
      return "";
    size_t j = i;
    while (j < t_.size() && is_code(j) && ident_char(t_[j])) ++j;
    return t_.substr(i, j - i);
  }

  size_t skip_space(size_t i) const {
    while (i < t_.size() && (!is_code(i) || std::isspace(static_cast<unsigned char>(t_[i])))) ++i;
    return i;
  }

  // Whether position i lies on a preprocessor #include line (never rewritten).
  bool on_include_line(size_t i) const {
    const size_t line = t_.rfind('\n', i == 0 ? 0 : i - 1);
    const size_t start = line == std::string::npos ? 0 : line + 1;
    if (!directive_lines_.count(start)) return false;
    size_t j = start;
    while (j < t_.size() && (t_[j] == ' ' || t_[j] == '\t' || t_[j] == '#')) ++j;
    return t_.compare(j, 7, "include") == 0;
  }

  void edit(size_t begin, size_t end, const std::string& with) { edits_[begin] = {end, with}; }

  // Braces: a stack of whether each open brace opened a namespace (or extern "C" block).
  bool at_namespace_scope() const {
    for (bool ns : braces_)
      if (!ns) return false;
    return true;
  }

  void scan() {
    std::string last_word;               // the identifier (or punctuation) before this point
    bool namespace_head = false;         // between `namespace` and its `{`
    bool saw_extern_string = false;      // extern "C" / extern "C++"
    size_t i = 0;
    while (i < t_.size()) {
      if (!is_code(i)) {
        // extern "C" {: the literal follows `extern`.
        if (t_[i] == '"' && last_word == "extern") saw_extern_string = true;
        ++i;
        continue;
      }
      const char c = t_[i];
      if (c == '{') {
        braces_.push_back(namespace_head || (saw_extern_string && last_word == "extern"));
        last_word.clear();
        namespace_head = saw_extern_string = false;
        ++i;
        continue;
      }
      if (c == ';' || c == '=') namespace_head = false;  // a using-directive, an alias
      if (c == '}') {
        if (!braces_.empty()) braces_.pop_back();
        ++i;
        continue;
      }
      if (c == '<' && t_.compare(i, 3, "<<<") == 0 && !on_include_line(i)) {
        i = chevrons(i);
        continue;
      }
      const std::string w = word_at(i);
      if (!w.empty()) {
        if (w == "extern" && !on_include_line(i)) {
          const size_t shared = shared_word(i + w.size());
          if (shared != std::string::npos) {
            i = extern_shared(i, shared);
            continue;
          }
        }
        if ((w == "__device__" || w == "__constant__") && at_namespace_scope() && !on_include_line(i))
          device_variable(i, w);
        if (w == "namespace") namespace_head = true;
        last_word = w;
        if (w != "extern") saw_extern_string = false;
        i += w.size();
        continue;
      }
      if (!std::isspace(static_cast<unsigned char>(c))) {
        if (c != ':' && c != '"') last_word = std::string(1, c);
      }
      ++i;
    }
  }

  // kernel<<<config>>>(args): `<<<` becomes ` * ::histo_sim::chevrons(` and a lambda that calls
  // the kernel by name, the matching `>>>` becomes `)`. Returns where scanning goes on (inside
  // the configuration: it may hold more).
  size_t chevrons(size_t open) {
    int depth = 0;
    for (size_t j = open + 3; j < t_.size(); ++j) {
      if (!is_code(j)) continue;
      const char c = t_[j];
      if (c == '(' || c == '[' || c == '{') ++depth;
      if (c == ')' || c == ']' || c == '}') --depth;
      if (depth < 0) break;
      if (depth == 0 && c == '>' && t_.compare(j, 3, ">>>") == 0) {
        const std::string name = launched_name(open);
        edit(open, open + 3,
             " * ::histo_sim::chevrons(" +
                 (name.empty() ? std::string()
                               : "[&](auto&&... histo_sim_a) { " + name +
                                     "(static_cast<decltype(histo_sim_a)&&>(histo_sim_a)...); }, "));
        edit(j, j + 3, ")");
        return open + 3;
      }
    }
    return open + 3;  // no >>>: left for the compiler to report
  }

  // The kernel a launch at `open` (its `<<<`) names, as written: `name`, `ns::name`, `name<T, 256>`,
  // on one line; "" for anything else (a pointer expression).
  std::string launched_name(size_t open) const {
    size_t j = open;
    while (j > 0 && (t_[j - 1] == ' ' || t_[j - 1] == '\t')) --j;
    if (j > 0 && t_[j - 1] == '>') {  // template arguments
      int depth = 0;
      do {
        --j;
        const char c = t_[j];
        if (!is_code(j) || c == '\n' || c == ';' || c == '{' || c == '}') return "";
        depth += c == '>' ? 1 : c == '<' ? -1 : 0;
      } while (j > 0 && depth > 0);
      if (depth) return "";
      while (j > 0 && (t_[j - 1] == ' ' || t_[j - 1] == '\t')) --j;
    }
    for (;;) {  // name, then :: name before it
      const size_t end = j;
      while (j > 0 && is_code(j - 1) && ident_char(t_[j - 1])) --j;
      if (j == end || std::isdigit(static_cast<unsigned char>(t_[j]))) return "";
      if (j < 2 || t_[j - 1] != ':' || t_[j - 2] != ':') break;
      j -= 2;
      if (j == 0 || !ident_char(t_[j - 1])) break;  // ::name
    }
    size_t before = j;  // a member (s.kernel, p->kernel) is not a name in scope
    while (before > 0 && (t_[before - 1] == ' ' || t_[before - 1] == '\t')) --before;
    if (before > 0 && (t_[before - 1] == '.' || (before > 1 && t_.compare(before - 2, 2, "->") == 0))) return "";
    return t_.substr(j, open - j);
  }

  // Where `__shared__` stands in the declaration that begins at `from` (after an `extern`), before
  // its `;` and outside any parenthesis, brace, initializer or string; npos where it does not.
  size_t shared_word(size_t from) const {
    const size_t semi = find_code(';', from);
    for (size_t j = from; j < semi && j < t_.size(); ++j) {
      if (!is_code(j)) continue;
      const char c = t_[j];
      if (c == '(' || c == '{' || c == '=' || c == '"') return std::string::npos;
      if (t_.compare(j, 10, "__shared__") == 0 && word_at(j) == "__shared__" && !ident_char(t_[j - 1])) return j;
    }
    return std::string::npos;
  }

  // extern __shared__ [__align__(n)] T name[];  ->  T* const name = dynamic_shared<T>();
  // (`extern T __shared__ name[];` too: __shared__ may follow the type, as nvcc allows).
  size_t extern_shared(size_t begin, size_t shared) {
    const size_t semi = find_code(';', shared);
    if (semi == std::string::npos) return shared;
    std::string decl = t_.substr(begin + 6, shared - begin - 6) + " " +  // between extern and
                       t_.substr(shared + 10, semi - shared - 10);       // __shared__, and after
    // Attributes that only place the array: __align__(n), alignas(n), __attribute__((...)).
    for (const char* attr : {"__align__", "alignas", "__attribute__"}) {
      for (size_t a = decl.find(attr); a != std::string::npos; a = decl.find(attr)) {
        size_t p = decl.find('(', a);
        if (p == std::string::npos) break;
        int depth = 0;
        size_t q = p;
        for (; q < decl.size(); ++q) {
          if (decl[q] == '(') ++depth;
          if (decl[q] == ')' && --depth == 0) break;
        }
        decl.erase(a, q + 1 - a);
      }
    }
    // T name [ ]
    std::string flat;
    for (char c : decl) flat += (c == '\n' || c == '\t' || c == '\r') ? ' ' : c;
    const size_t lb = flat.rfind('[');
    const size_t rb = flat.rfind(']');
    bool ok = lb != std::string::npos && rb != std::string::npos && rb > lb &&
              flat.find_first_not_of(' ', lb + 1) == rb && flat.find_first_not_of(' ', rb + 1) == std::string::npos;
    std::string type, name;
    if (ok) {
      size_t e = lb;
      while (e > 0 && flat[e - 1] == ' ') --e;
      size_t s = e;
      while (s > 0 && ident_char(flat[s - 1])) --s;
      name = flat.substr(s, e - s);
      type = flat.substr(0, s);
      while (!type.empty() && type.back() == ' ') type.pop_back();
      while (!type.empty() && type.front() == ' ') type.erase(0, 1);
      ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0])) && !type.empty() &&
           type.find(',') == std::string::npos && type.find('=') == std::string::npos;
    }
    if (!ok) {
      errors_.push_back("this extern __shared__ declaration has no simulator form: write "
                        "`extern __shared__ T name[];`, one array per declaration");
      edit(begin, semi + 1, "static_assert(false, \"" + errors_.back() + "\");" + newlines(begin, semi + 1, 0));
      return semi + 1;
    }
    // The lines the declaration spans stay lines. At file scope a static that takes the fixed
    // buffer's address once (the program's blocks then run one at a time: cuda_runtime.h).
    const bool file_scope = at_namespace_scope();
    edit(begin, semi + 1, std::string(file_scope ? "static " : "") + type + "* const " + name + " = ::histo_sim::" +
                              (file_scope ? "dynamic_shared_at_file_scope<" : "dynamic_shared<") + type + ">();" +
                              newlines(begin, semi + 1, 0));
    return semi + 1;
  }

  // The newlines of [begin, end), less `fewer` of them.
  std::string newlines(size_t begin, size_t end, int fewer) const {
    int n = 0;
    for (size_t i = begin; i < end; ++i) n += t_[i] == '\n';
    return std::string(size_t(std::max(0, n - fewer)), '\n');
  }

  size_t find_code(char c, size_t from) const {
    for (size_t j = from; j < t_.size(); ++j)
      if (is_code(j) && t_[j] == c) return j;
    return std::string::npos;
  }

  // A __device__ or __constant__ at namespace scope that declares a variable (not a function):
  // its declaration reaches `;`, `=`, `[` or `{` before any `(` that follows a name.
  void device_variable(size_t at, const std::string& word) {
    bool has_const = false, other_space = false;
    // What comes before it in the declaration: `__constant__ __device__ T x;`, `const __device__`.
    for (size_t j = at; j-- > 0;) {
      if (!is_code(j)) continue;
      if (t_[j] == ';' || t_[j] == '{' || t_[j] == '}' || t_[j] == '#') break;
      if (j > 0 && ident_char(t_[j - 1]) && is_code(j - 1)) continue;
      const std::string w = word_at(j);
      if (w == "const" || w == "constexpr") has_const = true;
      if (w == "__shared__" || w == "__managed__" || (w == "__constant__" && word == "__device__"))
        other_space = true;
    }
    size_t j = at + word.size();
    std::string previous;
    for (; j < t_.size(); ++j) {
      if (!is_code(j)) continue;
      const char c = t_[j];
      if (c == ';' || c == '=' || c == '[' || c == '{') break;
      if (c == '(') {
        // name( is a function; (*name) a pointer variable; __align__( / __launch_bounds__( go on.
        if (previous == "__align__" || previous == "alignas" || previous == "__attribute__" ||
            previous == "__launch_bounds__" || previous == "__declspec") {
          int depth = 0;
          for (; j < t_.size(); ++j) {
            if (!is_code(j)) continue;
            if (t_[j] == '(') ++depth;
            if (t_[j] == ')' && --depth == 0) break;
          }
          continue;
        }
        const size_t next = skip_space(j + 1);
        if (next < t_.size() && t_[next] == '*') break;
        return;  // a function
      }
      const std::string w = word_at(j);
      if (!w.empty()) {
        if (w == "const" || w == "constexpr") has_const = true;
        if (w == "__shared__" || w == "__managed__" || (w == "__constant__" && word == "__device__"))
          other_space = true;
        if (w == "operator" || w == "__global__") return;
        previous = w;
        j += w.size() - 1;
        continue;
      }
      if (!std::isspace(static_cast<unsigned char>(c))) previous = std::string(1, c);
    }
    if (other_space) {
      // `__device__ __constant__ T x;` is the constant one: __device__ says nothing more.
      if (word == "__device__") edit(at, at + word.size(), "");
      return;
    }
    std::string macro = word == "__constant__" ? "HISTO_SIM_CONSTANT_VARIABLE" : "HISTO_SIM_DEVICE_VARIABLE";
    if (has_const) macro += "_READONLY";
    edit(at, at + word.size(), macro);
  }

  const std::string& t_;
  std::vector<bool> code_;
  std::map<size_t, std::pair<size_t, std::string>> edits_;  // begin -> (end, replacement)
  std::set<size_t> directive_lines_;
  std::vector<bool> braces_;
  std::vector<std::string> errors_;
};

// ---- Files ----------------------------------------------------------------------------------------
struct Options {
  std::string source, output, depfile, copies;
  std::vector<std::string> include_dirs;
};

struct Processed {
  std::string text;      // as the build should see it (rewritten, includes redirected)
  bool needs_copy = false;  // differs from the file: the build must see a rewritten copy
};

class Wrapper {
 public:
  explicit Wrapper(const Options& o) : o_(o) {}

  // Processes `path` (and the headers it includes with quotes); true when it needs a copy.
  const Processed& process(const std::string& path) {
    const auto found = done_.find(path);
    if (found != done_.end()) return found->second;
    Processed& p = done_[path];  // an include cycle sees it unchanged
    std::string text;
    if (!read_file(path, &text)) return p;
    read_.insert(path);
    Rewriter r(text);
    bool changed = false;
    std::vector<Include> includes;
    std::string out = r.run(&changed, &includes);
    // Includes: a header that needs a copy is included as the copy; in a copied file every
    // header found is included by its absolute path (the copy lives elsewhere).
    struct Redirect {
      size_t begin, end;
      std::string header;
      bool copied;
    };
    std::vector<Redirect> redirects;
    for (const Include& inc : includes) {
      const std::string header = resolve(inc.name, dir_of(path));
      if (header.empty()) continue;
      const Processed& h = process(header);
      redirects.push_back({inc.name_begin, inc.name_end, header, h.needs_copy});
      changed = changed || h.needs_copy;
    }
    if (changed) {
      // Apply the redirections to the original text's include lines, which the rewriter leaves
      // alone: their positions are the same in `out` up to the rewrites before them, so redo
      // the rewrite with the names replaced first.
      std::string redirected = text;
      for (auto it = redirects.rbegin(); it != redirects.rend(); ++it) {
        const std::string target = it->copied ? copy_path(it->header) : it->header;
        redirected.replace(it->begin, it->end - it->begin, escape(target));
      }
      Rewriter again(redirected);
      bool unused = false;
      std::vector<Include> ignored;
      out = again.run(&unused, &ignored);
      p.text = "#line 1 " + quoted(path) + "\n" + out;
      p.needs_copy = true;
      if (path != o_.source) write_if_changed(copy_path(path), p.text);
    }
    return done_[path];
  }

  std::string wrapper_text() {
    const Processed& main = process(o_.source);
    std::string out = "// Generated: compiles " + o_.source + " for the CPU simulator.\n";
    out += "#include <cuda_runtime.h>  // as nvcc includes it\n";
    // nvcc defines __CUDA_ARCH__ in its device pass only; the simulator compiles the file once,
    // host and device code alike, as device code for the H200's sm_90 (sim/README.md).
    out += "#define __CUDA_ARCH__ 900\n";
    if (main.needs_copy)
      out += main.text + (main.text.empty() || main.text.back() == '\n' ? "" : "\n");
    else
      out += "#include " + quoted(o_.source) + "\n";
    return out;
  }

  const std::set<std::string>& files_read() const { return read_; }

 private:
  std::string resolve(const std::string& name, const std::string& from) const {
    if (name.empty()) return "";
    if (name[0] == '/') return is_file(name) ? normalize(name) : "";
    const std::string beside = from + "/" + name;
    if (is_file(beside)) return normalize(beside);
    for (const std::string& d : o_.include_dirs)
      if (is_file(d + "/" + name)) return normalize(d + "/" + name);
    return "";
  }

  std::string copy_path(const std::string& header) const {
    // The copy keeps the header's name (messages), in a folder per header's directory.
    unsigned long h = 5381;
    for (char c : dir_of(header)) h = h * 33 + static_cast<unsigned char>(c);
    char tag[32];
    std::snprintf(tag, sizeof tag, "%08lx", h & 0xFFFFFFFFul);
    const std::string dir = o_.copies + "/" + tag;
    mkdir(o_.copies.c_str(), 0777);
    mkdir(dir.c_str(), 0777);
    return dir + "/" + base_of(header);
  }

  static std::string escape(const std::string& path) {
    std::string out;
    for (char c : path) {
      if (c == '\\' || c == '"') out += '\\';
      out += c;
    }
    return out;
  }

  const Options& o_;
  std::map<std::string, Processed> done_;
  std::set<std::string> read_;
};

std::string depfile_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#' || c == ':') out += '\\';
    if (c == '$') out += '$';
    out += c;
  }
  return out;
}

int usage() {
  std::fprintf(stderr,
               "usage: histo_sim_wrap --source FILE.cu --output WRAPPER.cpp [--depfile FILE.d] "
               "[--copies DIR] [--include-dir DIR]...\n"
               "       histo_sim_wrap nvcc-info ... (see nvcc_info.cpp)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "nvcc-info") return nvcc_info_main(argc - 1, argv + 1);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "histo_sim_wrap: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--source") o.source = normalize(value());
    else if (a == "--output") o.output = value();
    else if (a == "--depfile") o.depfile = value();
    else if (a == "--copies") o.copies = value();
    else if (a == "--include-dir") o.include_dirs.push_back(normalize(value()));
    else return usage();
  }
  if (o.source.empty() || o.output.empty()) return usage();
  if (o.copies.empty()) o.copies = o.output + ".headers";
  if (!is_file(o.source)) {
    std::fprintf(stderr, "histo_sim_wrap: cannot read %s\n", o.source.c_str());
    return 1;
  }
  Wrapper w(o);
  const std::string text = w.wrapper_text();
  if (!write_if_changed(o.output, text)) {
    std::fprintf(stderr, "histo_sim_wrap: cannot write %s\n", o.output.c_str());
    return 1;
  }
  if (!o.depfile.empty()) {
    std::string dep = depfile_escape(o.output) + ":";
    for (const std::string& f : w.files_read()) dep += " \\\n  " + depfile_escape(f);
    if (!write_if_changed(o.depfile, dep + "\n")) return 1;
  }
  return 0;
}
