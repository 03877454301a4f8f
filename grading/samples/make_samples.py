#!/usr/bin/env python3
"""Builds sample submissions of one lab, for trying the grading at scale.

usage: grading/samples/make_samples.py [--lab lab01] N OUT_DIR

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
"""
import argparse
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
        (student / f"{folder}.cu").write_text(make(kind, args.lab, skeleton, solution))
        if kind == "wrong":
            (student / "grader.cpp").write_text(
                '#include <catch2/catch_test_macros.hpp>\nTEST_CASE("all good", "[cpu]") { CHECK(true); }\n')
            (student / "CMakeLists.txt").write_text("message(FATAL_ERROR \"a student's CMake file ran\")\n")
    print(f"{args.n} sample submission(s) of {args.lab} in {out}")


if __name__ == "__main__":
    main()
