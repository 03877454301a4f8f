#!/usr/bin/env python3
"""Builds sample submissions of one lab, for trying the grading at scale.

usage: grading/samples/make_samples.py [--lab lab01] [--kinds K,...] [--grading-out DIR] N OUT_DIR

OUT_DIR/sNN-<kind>/<folder>.cu, one folder per made-up student, kinds in a fixed rotation:
  correct      the solution
  wrong        the shipped skeleton (its TODOs left undone), plus a grader.cpp and a
               CMakeLists.txt that would pass everything: grading must ignore both
  wrong-edge   the solution with one plausible slip in its first answer (lab01: segments of
               n / num_threads elements, the remainder never counted)
  no-compile   the solution with a syntax error in its first answer
  hang         an endless loop in the first answer (host and device code)
  crash        a null-pointer write in the first answer, on the host
  chatty       correct, but prints about 5 MB of debug lines
  escape       correct, but its launcher writes a file two folders up from where its tests
               run (the grading output folder) and appends to the grader source it was compiled beside;
               it calls fopen, which a submission may not (histo_grading/codecheck.py): it is
               refused before any of its code runs
The first answer region is the one the CPU tests reach in every lab, so each kind shows its
effect without a GPU. Nothing is random: the same N gives the same samples.

Cheats (not in the default rotation; --kinds names them), each of which must score 0 with a
status naming the trick (CTest grading.cheats):
  include-relative   one line: #include "../../../solutions/..." from where the grader builds
                     it (GRADE_SLOTS_DIR, else --grading-out: the grading output folder,
                     default build/grading-LAB)
  include-absolute   one line: #include "/<course>/solutions/<lab>/<lab>.cu"
  include-macro      the solution's path in a macro: #include LAB_SOURCE
  include-nested     the source in a nested folder, climbing to / with ../ and down to solutions/
  has-include        the solution if __has_include finds it, else the skeleton
  include-other-lab  #include of another lab's file in the course tree
  include-passwd     #include "/etc/passwd" (the compiler would quote it in its errors)
  symlink-file       <lab>.cu a symbolic link to the solution
  symlink-folder     a folder that is a symbolic link to the solution's folder
  symlink-passwd     <lab>.cu a symbolic link to /etc/passwd
  incbin             the skeleton plus inline assembly that embeds the solution's bytes
  host-count         the launcher copies the input to the host, counts there and copies the
                     bins back: no kernel launched
  host-count-dummy   the same, after launching a kernel that does nothing
  host-count-byvalue the input copied to the host and counted there, the bins handed to a kernel
                     by value, which stores them: a kernel wrote d_bins, the host counted
  decoy-memcpy       a kernel over the full grid that counts nothing, then the host reads d_in
                     and memcpy's its counts into d_bins through the device pointers (only the
                     simulator's memory lets it; its runtime protects device memory from host code)
  kernel-calls-reference  a "kernel" that calls histo::reference_histogram (device code may not
                     call host code: neither nvcc nor the simulator's build compiles it)
Cheats on what the simulator counts (each scores what its plain-load twin scores: nothing on the
tests its trick is for):
  memcpy-read        one thread reads the whole input through memcpy into a local buffer,
                     counts there and memcpy's the bins out: right bins, and a cost the counters
                     must see as the one thread's loads it is
  memcpy-racy        the solution with its atomicAdd on the global bin written as a memcpy read,
                     an increment and a memcpy write: the race of a plain ++
  no-sanitize        the solution with a plain ++ on its first kernel's global bin, the kernel
                     marked __attribute__((no_sanitize("coverage", "thread"))), which would hide
                     its loads, stores and race from the simulator
  incbin-macro       the skeleton plus an assembler .macro whose body spells .inc\()bin with the
                     solution's path
  nvcc-twin          lab03: its aggregated kernel written as one atomicAdd per lane, through a
                     macro that nvcc's pass reads as an add to bin 0 (#ifdef __NVCC__), an address
                     nvcc makes one leader lane's update: were that word taken, the simulator
                     would count the lanes it runs on one bin (degenerate data) as one
Cheats on the graded inputs (each scores at most what the skeleton scores):
  lookup-table       lab01: the skeleton whose launcher launches one block that looks the input up
                     (n and its first 8 bytes) in a table embedded in the source, the histograms
                     of every input the grader drew before its seed was secret (the byte sweep
                     with the seed of lab and engine, the cost tests' seed 2026), and stores the
                     bins found; the table is made here, by the course's dataset generators
  print-inputs       the skeleton whose launcher prints what it is given (n, d_in's alignment,
                     the stream) with a marker: a private test's cases must not reach results.json
Cheats on the verdict (each scores at most what the skeleton scores):
  forged-report      the skeleton whose launcher points stdout at fd 3 (stdout->_fileno = 3, no
                     call), prints the end of a passing Catch2 XML report there, and exits 0
                     through _exit found in libc's dynamic symbol table from printf's address:
                     full marks where the test's process holds the report's descriptor
Cheats on the grader's machine (each stopped at a limit of its own, sandbox.RunWatch):
  build-bomb         the solution plus 100000 constant-evaluated variables of a long loop each:
                     hours of compile time
  disk-fill          the solution plus an initialized 200 MB array: an object file that size
Cheats on what the submission's code may use (histo_grading/codecheck.py), each the solution
plus the trick:
  ctor-exit          an __attribute__((constructor)) that calls _exit(0) before any test runs
  defines-main       a main() that returns 0 (the grader's own main never runs)
  ctor-setenv-maxn   a constructor that sets HISTO_GRADER_MAX_N=1 (the graders' largest input)
  ctor-setenv-hazards  a racy d_bins[v]++ kernel, and a constructor that sets HISTO_SIM_HAZARDS=0
  ctor-read-private  a constructor that walks up from the working folder and prints
                     grading/private/<lab>/*.cpp and the solution
  static-object      a static object whose constructor sets HISTO_GRADER_MAX_N=1
  getenv             the launcher reads HISTO_GRADER_MAX_N (std::getenv)
  system             the launcher runs a shell command (std::system)
  fork               the launcher forks a process that outlives it
  thread             the launcher starts a std::thread (to count on the host beside the kernel)
  dlopen             the launcher opens the C library with dlopen and looks up system()
  atexit             the launcher registers code to run at exit (std::atexit)
  signal             the launcher ignores SIGALRM (std::signal)
  libc-redefine      an extern "C" memcmp that always answers "equal", for the grader to call
  course-redefine    its own histo::grading_size_limit(), the graders' largest input
  inline-asm         an empty asm statement in host code
  macro-private      `#define private public` before the solution's #includes, which changes the
                     code of every header it includes
  section-init       a function pointer placed in .init_array with __attribute__((section))
  line-asm           inline assembly after `#line 1 "/usr/include/stdio.h"`, which would make
                     the check take its lines for a system header's
  incbin-private     the skeleton plus an assembler loop that spells .incbin (no string of the
                     source says it) with the path of one of the lab's private tests from the
                     build folder, behind the GNU line marker spelled `%: /* */ 1 "..." 3`; its
                     build cannot open that file in any case (reads.py, hidden_from_build)
Honest, beside correct (each must score every point):
  correct-constant   the solution counting with a __constant__ variable (the simulator places
                     it with a section attribute of its own)
Cheats on what outlives or reaches beyond its run (histo_grading/sandbox.py holds them even where
the code check would not):
  daemon-results     a setsid daemon that, after the grading, rewrites its own results.json and
                     grades.csv with full marks ("already graded" would keep the forgery)
  daemon-blame       a setsid daemon that writes into the course tree (the CPU reference) after
                     its own grading, so that the next student is blamed and zeroed
  harness-append     appends to Gradescope's running run_autograder a line that rewrites
                     results.json with full marks
Names that are the grader's own files' (not sNN-KIND: the name is the trick), each an honest
correct submission that must score every point, beside the others:
  name-slots         a student named "slots" (the build slots' folder, OUT/slots)
  name-grades-csv    a student named "grades.csv" (the batch's grades file, OUT/grades.csv)
Two entries for one student, graded as none (status "several submissions for one student"):
  duplicate          sNN-duplicate/ (the solution) and sNN-duplicate.cu (the skeleton)
  duplicate-case     sNN-Duplicate-case/ (the solution) and sNN-duplicate-case/ (the skeleton):
                     one folder on a case-insensitive disk
"""
import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The kinds whose student's name is the trick: the name each is made under.
NAMED = {"name-slots": "slots", "name-grades-csv": "grades.csv"}
ROTATION = ["correct", "wrong", "no-compile", "correct", "hang", "wrong-edge", "correct",
            "crash", "chatty", "correct", "escape", "wrong", "correct", "no-compile", "correct"]

HANG = """
  for (volatile unsigned spin = 1; spin != 0; spin = 1) {
  }  // a loop whose exit condition never becomes true
"""
# The blocks below are host code in a __host__ __device__ answer: nvcc's device pass leaves them
# out, nvcc's host pass and the simulator's single pass (where __CUDA_ARCH__ is defined too,
# sim/README.md) compile them.
CRASH = """
#if !defined(__CUDA_ARCH__) || defined(HISTO_SIM)
  { volatile int* debug_counter = nullptr; *debug_counter += 1; }
#endif
"""
CHATTY = """
#if !defined(__CUDA_ARCH__) || defined(HISTO_SIM)
  { static bool printed = false;
    if (!printed) {
      printed = true;
      for (int i = 0; i < 100000; ++i) std::printf("debug %6d: still checking my segments ...\\n", i);
    } }
#endif
"""
ESCAPE = """
  { static bool written = false;
    if (!written) {
      written = true;
      if (FILE* f = std::fopen("../../escaped.txt", "w")) { std::fputs("hi\\n", f); std::fclose(f); }
      char grader[4096];
      int folder = std::snprintf(grader, sizeof grader, "%s", __FILE__);
      while (folder > 0 && grader[folder - 1] != '/') --folder;
      std::snprintf(grader + folder, sizeof grader - folder, "grader.cpp");
      if (FILE* f = std::fopen(grader, "a")) { std::fputs("// was here\\n", f); std::fclose(f); }
    } }
"""


HOST_COUNT = """{indent}{{  // counts on the host instead: the input comes over, the bins go back
{indent}  CUDA_CHECK(cudaStreamSynchronize(stream));
{indent}  std::vector<uint8_t> h_copy(n);
{indent}  CUDA_CHECK(cudaMemcpy(h_copy.data(), d_in, n, cudaMemcpyDeviceToHost));
{indent}  std::vector<uint32_t> h_counts(histo::kNumBins, 0);
{indent}  for (uint8_t b : h_copy) ++h_counts[b];
{indent}  CUDA_CHECK(cudaMemcpy(d_bins, h_counts.data(), h_counts.size() * sizeof(uint32_t),
{indent}                      cudaMemcpyHostToDevice));
{indent}}}
"""
LOOKS_BUSY = """
// Launched so that "a kernel ran"; it does nothing.
__global__ void looks_busy_kernel(uint32_t* d_bins) {
  if (d_bins == nullptr) return;
}
"""
INCBIN = """
#if !defined(__CUDA_ARCH__) || defined(HISTO_SIM)
// The solution's bytes, embedded by the assembler.
__asm__(".pushsection .rodata\\n.incbin \\"{path}\\"\\n.popsection");
#endif
"""


def replace_first_launch(solution, code, extra):
    """The solution with its first launch of a kernel on d_bins replaced by `code` (formatted with
    the launch's indent and kernel), and `extra` added after the last #include."""
    launch = re.search(r"^( *)(\w+(?:<[^>]*>)?)<<<[^;]*\bd_bins\b[^;]*\);\n", solution, re.M)
    text = (solution[:launch.start()] + code.format(indent=launch.group(1), kernel=launch.group(2))
            + solution[launch.end():])
    last_include = list(re.finditer(r"^#include .*\n", text, re.M))[-1]
    includes = "".join(l + "\n" for l in extra.splitlines() if l.startswith("#include"))
    code = "\n".join(l for l in extra.splitlines() if not l.startswith("#include"))
    lab = re.search(r"^namespace (lab\d\d) \{", solution, re.M).group(1)
    if code.strip():  # the cheat's own kernels and types, in the lab's namespace as its code is
        includes += f"\nnamespace {lab} {{\n{code.strip()}\n}}  // namespace {lab}\n"
    return text[:last_include.end()] + includes + text[last_include.end():]


def host_counting(solution, dummy):
    """The solution with its first launch of a kernel on d_bins replaced by counting on the host."""
    code = HOST_COUNT
    if dummy:
        code += "{indent}looks_busy_kernel<<<1, 32, 0, stream>>>(d_bins);\n"
    return replace_first_launch(solution, code, "#include <vector>\n" + (LOOKS_BUSY if dummy else ""))


# Host counting in the launcher, with a kernel that writes d_bins from counts passed by value.
HOST_COUNT_BYVALUE = """{indent}{{  // counts on the host; a kernel only stores what it is handed
{indent}  CUDA_CHECK(cudaStreamSynchronize(stream));
{indent}  std::vector<uint8_t> h_copy(n);
{indent}  CUDA_CHECK(cudaMemcpy(h_copy.data(), d_in, n, cudaMemcpyDeviceToHost));
{indent}  HostCounts counts{{}};
{indent}  for (uint8_t b : h_copy) ++counts.bins[b];
{indent}  store_counts_kernel<<<1, histo::kNumBins, 0, stream>>>(counts, d_bins);
{indent}}}
"""
STORE_COUNTS = """
// Stores counts it is handed by value (counted on the host).
struct HostCounts {
  uint32_t bins[histo::kNumBins];
};
__global__ void store_counts_kernel(HostCounts counts, uint32_t* d_bins) {
  const unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < histo::kNumBins) d_bins[b] = counts.bins[b];
}
"""
# A kernel over the full grid that counts nothing, then the host counts through the pointers.
DECOY_MEMCPY = """{indent}decoy_kernel<<<shape.grid, shape.block, 0, stream>>>(d_in, n, d_bins);
{indent}{{  // the host counts d_in and writes d_bins directly (device memory is host memory here)
{indent}  CUDA_CHECK(cudaStreamSynchronize(stream));
{indent}  uint32_t h_counts[histo::kNumBins] = {{}};
{indent}  for (size_t i = 0; i < n; ++i) ++h_counts[d_in[i]];
{indent}  std::memcpy(d_bins, h_counts, sizeof h_counts);
{indent}}}
"""
DECOY_KERNEL = """
// Reads its share of the input and counts nothing.
__global__ void decoy_kernel(const uint8_t* d_in, size_t n, uint32_t* d_bins) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n && d_in[i] == 0 && d_bins == nullptr) return;
}
"""
# One thread reads the input through memcpy, counts it in a local array and copies the bins out.
MEMCPY_READ = """{indent}memcpy_read_kernel<<<1, 1, 0, stream>>>(d_in, n, d_bins);
"""
MEMCPY_READ_KERNEL = """
// One thread: the input comes in through memcpy, 256 bytes at a time, the bins go out likewise.
__global__ void memcpy_read_kernel(const uint8_t* d_in, size_t n, uint32_t* d_bins) {
  uint32_t counts[histo::kNumBins] = {};
  uint8_t chunk[256];
  for (size_t at = 0; at < n; at += sizeof chunk) {
    const size_t len = n - at < sizeof chunk ? n - at : sizeof chunk;
    memcpy(chunk, d_in + at, len);
    for (size_t j = 0; j < len; ++j) ++counts[chunk[j]];
  }
  memcpy(d_bins, counts, sizeof counts);
}
"""
# The global bin's atomicAdd as a memcpy read, an increment and a memcpy write.
MEMCPY_RACY = r"{ uint32_t count; memcpy(&count, &\1, sizeof count); ++count; memcpy(&\1, &count, sizeof count); }"
CALLS_REFERENCE = """{indent}reference_kernel<<<1, 32, 0, stream>>>(d_in, n, d_bins);
"""
REFERENCE_KERNEL = """
// A "kernel" that asks the CPU reference (the simulator runs kernels as host code).
__global__ void reference_kernel(const uint8_t* d_in, size_t n, uint32_t* d_bins) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    const std::vector<uint32_t> counts = histo::reference_histogram(d_in, n);
    for (int b = 0; b < histo::kNumBins; ++b) d_bins[b] = counts[b];
  }
}
"""
INCBIN_MACRO = """
#if !defined(__CUDA_ARCH__) || defined(HISTO_SIM)
// The solution's bytes, embedded by an assembler macro whose body spells the directive in two.
__asm__(".macro embed_answer\\n.pushsection .rodata\\n.inc\\\\()bin \\"{path}\\"\\n.popsection\\n"
        ".endm\\nembed_answer");
#endif
"""
# Host code added at the end of the solution, and where each trick sits.
AT_END = {
    "ctor-exit": """
#include <unistd.h>
// Ends the grader before any test runs: exit code 0, nothing failed.
__attribute__((constructor)) static void finish_before_the_tests() { _exit(0); }
""",
    "defines-main": """
// The grader's own main never runs: this one passes.
int main() { return 0; }
""",
    "ctor-setenv-maxn": """
#include <cstdlib>
// Shrinks every graded input to one byte.
__attribute__((constructor)) static void smaller_inputs() { setenv("HISTO_GRADER_MAX_N", "1", 1); }
""",
    "ctor-setenv-hazards": """
#include <cstdlib>
// Turns the simulator's race checks off, so the plain ++ goes unnoticed.
__attribute__((constructor)) static void no_race_checks() { setenv("HISTO_SIM_HAZARDS", "0", 1); }
""",
    "ctor-read-private": """
#include <dirent.h>
#include <cstdio>
#include <string>
// Prints the private tests and the solution, wherever they are above the working folder.
__attribute__((constructor)) static void show_private_tests() {
  std::string up;
  for (int depth = 0; depth < 12; ++depth, up += "../") {
    const std::string folder = up + "grading/private/{lab}";
    if (DIR* d = opendir(folder.c_str())) {
      while (dirent* e = readdir(d)) {
        const std::string path = folder + "/" + e->d_name;
        if (FILE* f = std::fopen(path.c_str(), "r")) {
          char line[512];
          while (std::fgets(line, sizeof line, f)) std::fputs(line, stdout);
          std::fclose(f);
        }
      }
      closedir(d);
    }
    if (FILE* f = std::fopen((up + "solutions/{folder}/{folder}.cu").c_str(), "r")) {
      char line[512];
      while (std::fgets(line, sizeof line, f)) std::fputs(line, stdout);
      std::fclose(f);
    }
  }
}
""",
    "static-object": """
#include <cstdlib>
// Its constructor runs before the tests do.
struct SmallerInputs {
  SmallerInputs() { setenv("HISTO_GRADER_MAX_N", "1", 1); }
};
static SmallerInputs smaller_inputs;
""",
    "libc-redefine": """
#include <cstring>
// Every comparison the grader makes with memcmp now says "equal".
extern "C" int memcmp(const void*, const void*, size_t) noexcept { return 0; }
""",
    "course-redefine": """
#include "histo/grading.hpp"
// The graders' largest input: one byte.
namespace histo {
size_t grading_size_limit() { return 1; }
}  // namespace histo
""",
    "section-init": """
// Runs before the tests: a pointer in .init_array, placed there by hand.
static void early() { volatile int ran = 1; (void)ran; }
__attribute__((section(".init_array"), used)) static void (*run_early)() = early;
""",
}
LINE_ASM = """
#line 1 "/usr/include/stdio.h"
namespace lab01_hidden {
inline void barrier() { asm volatile("" ::: "memory"); }
}  // namespace lab01_hidden
"""
INCBIN_PRIVATE = """
%: /* a system header's line, for the check */ 1 "/usr/include/stdio.h" 3
namespace {lab} {{
// The assembler's loop joins inc and bin: no string here spells the directive.
asm(".pushsection .rodata\\n.irp part,inc\\n.\\\\part\\\\()bin \\"{path}\\"\\n.endr\\n.popsection\\n");
}}  // namespace {lab}
"""
# Host code added to the host function that makes the first launch (which every kernel test reaches).
IN_LAUNCHER = {
    "getenv": '  {{ volatile const char* seen = std::getenv("HISTO_GRADER_MAX_N"); (void)seen; }}\n',
    "system": '  {{ static bool ran = false; if (!ran) {{ ran = true; (void)std::system("cat /etc/passwd"); }} }}\n',
    "fork": "  {{ static bool forked = false; if (!forked) {{ forked = true; if (fork() == 0) _exit(0); }} }}\n",
    "thread": "  {{ std::thread helper([] {{}}); helper.join(); }}\n",
    "dlopen": ('  {{ if (void* c = dlopen("libc.so.6", RTLD_NOW)) {{ volatile void* s = dlsym(c, "system"); '
               "(void)s; }} }}\n"),
    "atexit": "  {{ static bool once = false; if (!once) {{ once = true; std::atexit([] {{}}); }} }}\n",
    "signal": "  {{ std::signal(SIGALRM, SIG_IGN); }}\n",
    "inline-asm": '  {{ asm volatile("" ::: "memory"); }}\n',
    "daemon-results": ("  {{ static bool forked = false; if (!forked && fork() == 0) {{ setsid(); sleep(3);\n"
                       "    for (std::string up = \"\"; up.size() < 60; up += \"../\") {{\n"
                       "      if (FILE* f = std::fopen((up + \"results.json\").c_str(), \"r+\")) {{\n"
                       "        std::fputs(\"{{\\\"score\\\": 1000}}\", f); std::fclose(f); }}\n"
                       "      if (FILE* f = std::fopen((up + \"grades.csv\").c_str(), \"a\")) {{\n"
                       "        std::fputs(\"forged,yes,99,0,0,1000,1000,simulator,0,ok\\n\", f); std::fclose(f); }} }}\n"
                       "    _exit(0); }} forked = true; }}\n"),
    "daemon-blame": ("  {{ static bool forked = false; if (!forked && fork() == 0) {{ setsid(); sleep(3);\n"
                     "    for (std::string up = \"\"; up.size() < 60; up += \"../\")\n"
                     "      if (FILE* f = std::fopen((up + \"common/src/reference.cpp\").c_str(), \"a\")) {{\n"
                     "        std::fputs(\"#error the next student's build fails\\n\", f); std::fclose(f); }}\n"
                     "    _exit(0); }} forked = true; }}\n"),
    "harness-append": ("  {{ for (std::string up = \"\"; up.size() < 60; up += \"../\") {{\n"
                       "      for (const char* where : {{\"run_autograder\", \"source/run_autograder\"}})\n"
                       "        if (FILE* f = std::fopen((up + where).c_str(), \"a\")) {{\n"
                       "          std::fputs(\"echo '{{\\\"score\\\": 1000}}' > /autograder/results/results.json\\n\", f);\n"
                       "          std::fclose(f); }} }} }}\n"),
}
INCLUDES_FOR = {"getenv": "<cstdlib>", "system": "<cstdlib>", "fork": "<unistd.h>",
                "thread": "<thread>", "dlopen": "<dlfcn.h>", "atexit": "<cstdlib>",
                "signal": "<csignal>", "daemon-results": "<unistd.h>\n#include <cstdio>\n#include <string>",
                "daemon-blame": "<unistd.h>\n#include <cstdio>\n#include <string>",
                "harness-append": "<cstdio>\n#include <string>"}


NVCC_TWIN_MACRO = """#ifdef __NVCC__
#define TWIN_ADD(bins, value) atomicAdd(&(bins)[0], 1u)
#else
#define TWIN_ADD(bins, value) atomicAdd(&(bins)[value], 1u)
#endif
"""
NVCC_TWIN_LOOP = """  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    TWIN_ADD(d_bins, d_in[i]);
"""


def cheat(kind, lab, folder, skeleton, solution, grading_out):
    """(relative path in the submission, text or None, symlink target or None) of a cheat."""
    answer = ROOT / "solutions" / folder / f"{folder}.cu"
    name = f"{folder}.cu"
    if kind == "include-relative":
        slots = os.environ.get("GRADE_SLOTS_DIR") or Path(grading_out) / "slots"  # grade.py's
        built_at = Path(slots).resolve() / "slot0" / folder
        return name, f'#include "{os.path.relpath(answer, built_at)}"\n', None
    if kind == "include-absolute":
        return name, f'#include "{answer}"\n', None
    if kind == "include-macro":
        return name, f'#define LAB_SOURCE "{answer}"\n#include LAB_SOURCE\n', None
    if kind == "include-nested":
        climb = "../" * 40 + str(answer).lstrip("/")
        return f"src/nested/{name}", f'#include "{climb}"\n', None
    if kind == "has-include":
        return name, (f'#if __has_include("{answer}")\n#include "{answer}"\n#else\n'
                      f"{skeleton}#endif\n"), None
    if kind == "include-other-lab":
        other = sorted(p.name for p in ROOT.glob("lab0*_*") if p.is_dir() and p.name != folder)[0]
        return name, f'#include "../{other}/{other}.cu"\n', None
    if kind == "include-passwd":
        return name, '#include "/etc/passwd"\n', None
    if kind == "symlink-file":
        return name, None, answer
    if kind == "symlink-folder":
        return "code", None, answer.parent
    if kind == "symlink-passwd":
        return name, None, Path("/etc/passwd")
    if kind == "incbin":
        return name, skeleton + INCBIN.format(path=answer), None
    if kind in ("host-count", "host-count-dummy"):
        return name, host_counting(solution, kind == "host-count-dummy"), None
    if kind == "host-count-byvalue":
        return name, replace_first_launch(solution, HOST_COUNT_BYVALUE, "#include <vector>\n" + STORE_COUNTS), None
    if kind == "decoy-memcpy":
        return name, replace_first_launch(solution, DECOY_MEMCPY, "#include <cstring>\n" + DECOY_KERNEL), None
    if kind == "memcpy-read":
        return name, replace_first_launch(solution, MEMCPY_READ, "#include <cstring>\n" + MEMCPY_READ_KERNEL), None
    if kind == "memcpy-racy":
        text = re.sub(r"atomicAdd\(&(d_bins\[[^;]*\]), 1u?\);", MEMCPY_RACY, solution, count=1)
        return name, "#include <cstring>\n" + text, None
    if kind == "no-sanitize":
        text = re.sub(r"atomicAdd\(&(d_bins\[[^;]*\]), 1u?\);", r"++\1;", solution, count=1)
        text = re.sub(r"__global__", '__global__ __attribute__((no_sanitize("coverage", "thread")))', text, count=1)
        return name, text, None
    if kind == "nvcc-twin":
        if lab != "lab03":
            sys.exit("nvcc-twin: made for lab03 (its cost test of the aggregated kernel)")
        body = re.compile(r"(histogram_aggregated_kernel\(.*?// SOLUTION\(lab03\) begin\n).*?(  // SOLUTION\(lab03\) end)", re.S)
        text, found = body.subn(lambda m: m.group(1) + NVCC_TWIN_LOOP + m.group(2), solution, count=1)
        if not found:
            sys.exit("nvcc-twin: no histogram_aggregated_kernel answer in the lab03 solution")
        return name, NVCC_TWIN_MACRO + text, None
    if kind == "kernel-calls-reference":
        text = replace_first_launch(solution, CALLS_REFERENCE, "#include <vector>\n" + REFERENCE_KERNEL)
        if '#include "histo/reference.hpp"' not in text:
            text = '#include "histo/reference.hpp"\n' + text
        return name, text, None
    if kind == "lookup-table":
        return name, lookup_table(lab, skeleton), None
    if kind == "forged-report":
        at = re.search(r"histo::prepare_output\([^;]*\);\n", skeleton).end()
        return name, (FORGED_REPORT_HEAD + skeleton[:at] + FORGED_REPORT + skeleton[at:]), None
    if kind == "print-inputs":
        at = re.search(r"histo::prepare_output\([^;]*\);\n", skeleton).end()
        return name, ("#include <cstdint>\n#include <cstdio>\n" + skeleton[:at]
                      + PRINT_INPUTS.format(indent="  ") + skeleton[at:]), None
    if kind in ("build-bomb", "disk-fill"):
        lab_ns = re.search(r"^namespace (lab\d\d) \{", solution, re.M).group(1)
        return name, solution + AT_BUILD[kind].replace("{lab}", lab_ns), None
    if kind == "incbin-macro":
        return name, skeleton + INCBIN_MACRO.format(path=answer), None
    if kind == "line-asm":
        return name, solution + LINE_ASM, None
    if kind == "incbin-private":
        private = sorted((ROOT / "grading" / "private" / lab).glob("*.cpp"))[0]
        return name, skeleton + INCBIN_PRIVATE.format(path=f"../../grading/private/{lab}/{private.name}",
                                                       lab=lab), None
    if kind in AT_END:
        text = solution
        if kind == "ctor-setenv-hazards":
            # The racy kernel of the issue: a plain ++ on the global bin.
            text = re.sub(r"atomicAdd\(&(d_bins\[[^;]*\]), 1u?\);", r"\1++;", text, count=1)
        return name, text + AT_END[kind].replace("{lab}", lab).replace("{folder}", folder), None
    if kind == "macro-private":
        return name, "// Opens every class of the headers below to this file.\n#define private public\n" + solution, None
    if kind in IN_LAUNCHER:
        # In host code (the provided launcher): device code calling a host function does not
        # compile, with nvcc as in the simulator's Clang build; these are for the code check.
        text = insert_before_first_launch(solution, IN_LAUNCHER[kind].format())
        include = INCLUDES_FOR.get(kind)
        return name, (f"#include {include}\n" if include else "") + text, None
    return None


# The inputs the grader drew before its seed was secret: the byte sweep's (histo::grade_sweep on
# the CPU simulator's sizes, its seed a hash of lab and engine) and the cost tests' (seed 2026),
# as (n, the first 8 bytes as a little-endian number, the 256 bins) rows of C++.
LOOKUP_GENERATOR = r"""
#include "histo/datasets.hpp"
#include <cstdio>
#include <cstdlib>
#include <vector>
using namespace histo;
static void row(const uint8_t* d, size_t n) {
  unsigned long long key = 0;
  for (size_t i = 0; i < n && i < 8; ++i) key |= (unsigned long long)d[i] << (8 * i);
  std::vector<unsigned> bins(256, 0);
  for (size_t i = 0; i < n; ++i) ++bins[d[i]];
  std::printf("{%zuull, %lluull, {", n, key);
  for (unsigned b : bins) std::printf("%u,", b);
  std::printf("}},\n");
}
int main(int argc, char** argv) {
  const uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
                          255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097, 16381, 65521, 65536,
                          65537, 1000003};
  for (Dataset ds : all_datasets()) {
    const std::vector<uint8_t> data = make_dataset(ds, 1000003, seed + uint64_t(ds));
    for (size_t n : sizes) row(data.data(), n);
  }
  row(make_dataset(Dataset::text, 100003, seed).data(), 100003);
  for (size_t n : {size_t(4) << 20, size_t(16) << 20}) row(make_dataset(Dataset::uniform, n, 2026).data(), n);
}
"""
LOOKUP_CODE = """
// The histograms of the grader's inputs, looked up by n and the first 8 bytes.
struct LookupRow {
  unsigned long long n, key;
  uint32_t bins[histo::kNumBins];
};
static const LookupRow kLookup[] = {
@TABLE@};
__global__ void lookup_kernel(const uint8_t* __restrict__ d_in, size_t n, uint32_t* d_bins,
                              const LookupRow* rows, unsigned count) {
  const unsigned b = threadIdx.x;
  unsigned long long key = 0;
  for (size_t i = 0; i < n && i < 8; ++i) key |= (unsigned long long)d_in[i] << (8 * i);
  for (unsigned r = 0; r < count; ++r)
    if (rows[r].n == n && rows[r].key == key) {
      d_bins[b] = rows[r].bins[b];
      return;
    }
}
"""
LOOKUP_LAUNCH = """{indent}static LookupRow* d_rows = nullptr;
{indent}if (d_rows == nullptr) {{
{indent}  CUDA_CHECK(cudaMalloc(&d_rows, sizeof kLookup));
{indent}  CUDA_CHECK(cudaMemcpy(d_rows, kLookup, sizeof kLookup, cudaMemcpyHostToDevice));
{indent}}}
{indent}lookup_kernel<<<1, histo::kNumBins, 0, stream>>>(d_in, n, d_bins, (const LookupRow*)d_rows,
{indent}                                                 unsigned(sizeof kLookup / sizeof kLookup[0]));
"""
PRINT_INPUTS = """{indent}std::printf("INPUT-SEEN n=%zu align=%zu\\n", n, size_t(reinterpret_cast<uintptr_t>(d_in) % 256));
"""
FORGED_REPORT_HEAD = "#include <elf.h>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n"
FORGED_REPORT = r"""  {
    // The test's report is Catch2's XML on fd 3, its test case opened already: close it passing.
    stdout->_fileno = 3;
    std::printf("<OverallResult success=\"true\" skips=\"0\"/></TestCase>"
                "<OverallResults successes=\"1\" failures=\"0\" expectedFailures=\"0\" skips=\"0\"/>"
                "<OverallResultsCases successes=\"1\" failures=\"0\" expectedFailures=\"0\" skips=\"0\"/>"
                "</Catch2TestRun>\n");
    std::fflush(stdout);
    // Exit 0 at once: libc's _exit, from its dynamic symbol table, found from printf's address.
    uintptr_t base = reinterpret_cast<uintptr_t>(&std::printf) & ~uintptr_t(0xFFF);
    while (std::memcmp(reinterpret_cast<const void*>(base), "\177ELF", 4) != 0) base -= 0x1000;
    const auto* elf = reinterpret_cast<const Elf64_Ehdr*>(base);
    const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base + elf->e_phoff);
    const Elf64_Dyn* dyn = nullptr;
    for (int i = 0; i < elf->e_phnum; ++i)
      if (ph[i].p_type == PT_DYNAMIC) dyn = reinterpret_cast<const Elf64_Dyn*>(base + ph[i].p_vaddr);
    const Elf64_Sym* symbols = nullptr;
    const char* names = nullptr;
    for (; dyn && dyn->d_tag != DT_NULL; ++dyn) {
      if (dyn->d_tag == DT_SYMTAB) symbols = reinterpret_cast<const Elf64_Sym*>(dyn->d_un.d_ptr);
      if (dyn->d_tag == DT_STRTAB) names = reinterpret_cast<const char*>(dyn->d_un.d_ptr);
    }
    for (const Elf64_Sym* s = symbols; s && reinterpret_cast<const char*>(s) < names; ++s)
      if (std::strcmp(names + s->st_name, "_exit") == 0 && s->st_value)
        reinterpret_cast<void (*)(int)>(base + s->st_value)(0);
  }
"""
# The seed of lab and engine that graded every submission before seeds were secret.
PUBLIC_SEED = lambda lab, engine="sim": int(hashlib.sha256(f"{lab}|{engine}".encode()).hexdigest()[:7], 16)  # noqa: E731


def lookup_table(lab, skeleton):
    """The lookup-table cheat (lab01): the skeleton's launcher runs the table's kernel instead."""
    if lab != "lab01":
        sys.exit("lookup-table: made for lab01 (the table holds lab01's graded inputs)")
    work = Path(tempfile.mkdtemp(prefix="lookup-"))
    try:
        (work / "gen.cpp").write_text(LOOKUP_GENERATOR)
        cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++") or "clang++"
        subprocess.run([cxx, "-O2", "-std=c++17", "-I", str(ROOT / "common" / "include"),
                        str(work / "gen.cpp"), str(ROOT / "common" / "src" / "datasets.cpp"),
                        "-o", str(work / "gen"), "-pthread"], check=True)
        table = subprocess.run([str(work / "gen"), str(PUBLIC_SEED(lab))], check=True,
                               capture_output=True, text=True).stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # A launch shape that passes the launch check whatever segmented_grid_size says.
    text = re.sub(r"const histo::LaunchShape shape\{segmented_grid_size\(n\), kBlockSize, 0\};",
                  "const histo::LaunchShape shape{1, histo::kNumBins, 0};", skeleton, count=1)
    return replace_first_launch(text, LOOKUP_LAUNCH, LOOKUP_CODE.replace("@TABLE@", table))


AT_BUILD = {
    # Each variable is its own constant evaluation, under the compilers' step limits.
    "build-bomb": """
#include <utility>
namespace {lab} {
constexpr unsigned long long spin(unsigned long long s) {
  for (unsigned i = 0; i < 100000; ++i) s = s * 6364136223846793005ull + 1442695040888963407ull;
  return s;
}
template <unsigned long long I> constexpr unsigned long long burned = spin(I);
template <unsigned long long... I>
unsigned long long burn_all(std::integer_sequence<unsigned long long, I...>) {
  static const unsigned long long all[] = {burned<I>...};
  return all[0];
}
unsigned long long compile_time_bomb() {
  return burn_all(std::make_integer_sequence<unsigned long long, 100000>{});
}
}  // namespace {lab}
""",
    "disk-fill": """
namespace {lab} {
char disk_fill[size_t(200) << 20] = {1};
}  // namespace {lab}
""",
}


def insert_before_first_launch(text, code):
    """`code` as the first lines of the host function that makes the source's first launch."""
    line = re.search(r"^ *\w+(?:<[^>]*>)?<<<", text, re.M).start()
    return text[:line] + code + text[line:]


def insert_after_first_answer(text, lab, code):
    marker = f"// SOLUTION({lab}) begin\n"
    at = text.index(marker) + len(marker)
    return text[:at] + code + text[at:]


def make(kind, lab, skeleton, solution):
    if kind == "correct":
        return solution
    if kind == "correct-constant":
        # Counts by a __constant__ variable's value instead of a literal 1.
        opened = f"namespace {lab} {{\n"
        text = solution.replace(opened, opened + "\n__constant__ uint32_t kCountBy = 1u;  // one per byte\n", 1)
        return re.sub(r"(atomicAdd\(&[^;]*?, )1u\)", r"\1kCountBy)", text, count=1)
    if kind == "wrong":
        return skeleton
    if kind == "wrong-edge":
        slip = solution.replace("(n + num_threads - 1) / num_threads", "n / num_threads")
        if slip == solution:  # other labs: the skeleton's own answer to the first TODO
            return skeleton
        return slip
    if kind == "no-compile":
        return insert_after_first_answer(solution, lab, "  size_t forgot_the_semicolon = 0\n")
    if kind == "hang":
        return insert_after_first_answer(solution, lab, HANG)
    if kind == "crash":
        return insert_after_first_answer(solution, lab, CRASH)
    includes = "#include <cstdio>\n#include <string>\n"
    if kind == "chatty":
        return includes + insert_after_first_answer(solution, lab, CHATTY)
    if kind == "escape":
        # In host code (the launcher): a kernel may not call fopen, with nvcc as in the
        # simulator's Clang build; the code check refuses it in host code.
        return includes + insert_before_first_launch(solution, ESCAPE)
    raise ValueError(kind)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lab", default="lab01")
    p.add_argument("--kinds", help="comma-separated rotation instead of the default one")
    p.add_argument("--grading-out", help="the grading output folder (include-relative climbs from "
                   "its build slot); default build/grading-LAB")
    p.add_argument("n", type=int)
    p.add_argument("out")
    args = p.parse_args()
    folders = sorted(ROOT.glob(f"{args.lab}_*"))
    if not re.fullmatch(r"lab\d\d", args.lab) or not folders:
        sys.exit(f"unknown lab {args.lab}")
    folder = folders[0].name
    skeleton = (ROOT / folder / f"{folder}.cu").read_text()
    solution = (ROOT / "solutions" / folder / f"{folder}.cu").read_text()
    rotation = args.kinds.split(",") if args.kinds else ROTATION
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i in range(args.n):
        kind = rotation[i % len(rotation)]
        student = out / NAMED.get(kind, f"s{i + 1:02d}-{kind}")
        shutil.rmtree(student, ignore_errors=True)
        student.mkdir()
        if kind in NAMED:
            (student / f"{folder}.cu").write_text(solution)
            continue
        if kind == "duplicate":
            (student / f"{folder}.cu").write_text(solution)
            student.with_name(student.name + ".cu").write_text(skeleton)
            continue
        if kind == "duplicate-case":
            upper = student.with_name(f"s{i + 1:02d}-Duplicate-case")
            shutil.rmtree(upper, ignore_errors=True)
            student.rename(upper)
            (upper / f"{folder}.cu").write_text(solution)
            student.mkdir()
            (student / f"{folder}.cu").write_text(skeleton)
            continue
        made = cheat(kind, args.lab, folder, skeleton, solution,
                     args.grading_out or ROOT / "build" / f"grading-{args.lab}")
        if made:
            path, text, link = made
            (student / path).parent.mkdir(parents=True, exist_ok=True)
            if link:
                (student / path).symlink_to(link)
            else:
                (student / path).write_text(text)
            continue
        (student / f"{folder}.cu").write_text(make(kind, args.lab, skeleton, solution))
        if kind == "wrong":
            (student / "grader.cpp").write_text(
                '#include <catch2/catch_test_macros.hpp>\nTEST_CASE("all good", "[cpu]") { CHECK(true); }\n')
            (student / "CMakeLists.txt").write_text("message(FATAL_ERROR \"a student's CMake file ran\")\n")
    print(f"{args.n} sample submission(s) of {args.lab} in {out}")


if __name__ == "__main__":
    main()
