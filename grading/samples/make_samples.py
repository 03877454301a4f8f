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
  escape       correct, but writes a file two folders up from where its tests run (the
               grading output folder) and appends to the grader source it was compiled beside
The first answer region is the one the CPU tests reach in every lab, so each kind shows its
effect without a GPU. Nothing is random: the same N gives the same samples.

Cheats (not in the default rotation; --kinds names them), each of which must score 0 with a
status naming the trick (CTest grading.cheats):
  include-relative   one line: #include "../../../solutions/..." from where the grader builds
                     it (--grading-out: the grading output folder, default build/grading-LAB)
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
"""
import argparse
import os
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ROTATION = ["correct", "wrong", "no-compile", "correct", "hang", "wrong-edge", "correct",
            "crash", "chatty", "correct", "escape", "wrong", "correct", "no-compile", "correct"]

HANG = """
  for (volatile unsigned spin = 1; spin != 0; spin = 1) {
  }  // a loop whose exit condition never becomes true
"""
CRASH = """
#ifndef __CUDA_ARCH__
  { volatile int* debug_counter = nullptr; *debug_counter += 1; }
#endif
"""
CHATTY = """
#ifndef __CUDA_ARCH__
  { static bool printed = false;
    if (!printed) {
      printed = true;
      for (int i = 0; i < 100000; ++i) std::printf("debug %6d: still checking my segments ...\\n", i);
    } }
#endif
"""
ESCAPE = """
#ifndef __CUDA_ARCH__
  { static bool written = false;
    if (!written) {
      written = true;
      if (FILE* f = std::fopen("../../escaped.txt", "w")) { std::fputs("hi\\n", f); std::fclose(f); }
      std::string grader = __FILE__;
      grader = grader.substr(0, grader.find_last_of('/') + 1) + "grader.cpp";
      if (FILE* f = std::fopen(grader.c_str(), "a")) { std::fputs("// was here\\n", f); std::fclose(f); }
    } }
#endif
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
#ifndef __CUDA_ARCH__
// The solution's bytes, embedded by the assembler.
__asm__(".pushsection .rodata\\n.incbin \\"{path}\\"\\n.popsection");
#endif
"""


def host_counting(solution, dummy):
    """The solution with its first launch of a kernel on d_bins replaced by counting on the host."""
    launch = re.search(r"^( *)histo::launch\(\w+[^;]*\bd_bins\b[^;]*\);\n", solution, re.M)
    code = HOST_COUNT.format(indent=launch.group(1))
    if dummy:
        code += f"{launch.group(1)}histo::launch(looks_busy_kernel, 1, 32, 0, stream, d_bins);\n"
    text = solution[:launch.start()] + code + solution[launch.end():]
    last_include = list(re.finditer(r"^#include .*\n", text, re.M))[-1]
    extra = "#include <vector>\n" + (LOOKS_BUSY if dummy else "")
    return text[:last_include.end()] + extra + text[last_include.end():]


def cheat(kind, lab, folder, skeleton, solution, grading_out):
    """(relative path in the submission, text or None, symlink target or None) of a cheat."""
    answer = ROOT / "solutions" / folder / f"{folder}.cu"
    name = f"{folder}.cu"
    if kind == "include-relative":
        built_at = Path(grading_out).resolve() / "slots" / "slot0" / folder
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
    return None


def insert_after_first_answer(text, lab, code):
    marker = f"// SOLUTION({lab}) begin\n"
    at = text.index(marker) + len(marker)
    return text[:at] + code + text[at:]


def make(kind, lab, skeleton, solution):
    if kind == "correct":
        return solution
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
        return includes + insert_after_first_answer(solution, lab, ESCAPE)
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
        student = out / f"s{i + 1:02d}-{kind}"
        shutil.rmtree(student, ignore_errors=True)
        student.mkdir()
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
