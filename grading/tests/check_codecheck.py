#!/usr/bin/env python3
"""CTest "grading.codecheck": what a submission's code may use (histo_grading/codecheck.py), on
the objects this build compiled and on sample submissions compiled here the same way.

- Every lab source this build compiles (each lab's skeleton and solution, every mistake made on
  a solution: their compile commands in BUILD/compile_commands.json) passes the check as built.
- Every honest sample kind of grading/samples/make_samples.py passes too, compiled with the
  command that compiles the lab's skeleton; `escape` (fopen) is refused, and so is every cheat
  kind on what a submission may use, each with the status it must have.

usage: check_codecheck.py BUILD_DIR [WORK_DIR] [--lab lab01] [--list]   (--list: print every status)
"""
import argparse
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grading"))
from histo_grading import codecheck  # noqa: E402
from histo_grading.submissions import Source  # noqa: E402

HONEST_KINDS = ["correct", "correct-constant", "wrong", "wrong-edge", "hang", "crash", "chatty"]
# kind -> what its status must say (the start of it).
EXPECT = {
    "escape": "uses what a submission may not: calls fopen (",
    "ctor-exit": "runs code outside the tests: a constructor (",
    "defines-main": "defines main (",
    "ctor-setenv-maxn": "runs code outside the tests: a constructor (",
    "ctor-setenv-hazards": "runs code outside the tests: a constructor (",
    "ctor-read-private": "runs code outside the tests: a constructor (",
    "static-object": "runs code outside the tests: a constructor that calls setenv (",
    "getenv": "uses what a submission may not: calls getenv (",
    "system": "uses what a submission may not: calls system (",
    "fork": "uses what a submission may not: calls fork (",
    "thread": "uses what a submission may not: calls std::thread",
    "dlopen": "uses what a submission may not: calls dl",
    "atexit": "uses what a submission may not: calls atexit (",
    "signal": "uses what a submission may not: calls signal (",
    "libc-redefine": "defines a function of the C library: memcmp (",
    "course-redefine": "defines the course's own code: histo::grading_size_limit (",
    "inline-asm": "holds inline assembly (",
    "macro-private": "changes the code of a header it includes: the macro private (",
    "section-init": "places its code where it may not: the section attribute (",
    "line-asm": "hides where its lines are: a line directive (",
    "no-sanitize": "hides its accesses from the checks: the no_sanitize attribute (",
    "incbin-private": "hides where its lines are: a line directive (",
}


def compile_commands(build):
    try:
        return json.loads((build / "compile_commands.json").read_text())
    except (OSError, json.JSONDecodeError):
        sys.exit(f"no compile_commands.json in {build}: configure it with CMAKE_EXPORT_COMPILE_COMMANDS=ON")


def lab_sources(build):
    """The lab sources the build compiles: a .cu compiled by nvcc, or one a simulator wrapper
    (sim_sources/*.cpp) includes."""
    found = set()
    for e in compile_commands(build):
        f = Path(e["directory"], e["file"])
        # (A generated source the build has not made yet, e.g. a mistake outside the default
        # targets, is not compiled by it.)
        if f.suffix == ".cu" and re.match(r"lab\d\d_", f.name) and f.is_file():
            found.add(f.resolve())
        elif f.parent.name == "sim_sources" and f.is_file():
            m = re.search(r'(?:#include|#line 1) "([^"]+\.cu)"', f.read_text(errors="replace"))
            if m and re.match(r"lab\d\d_", Path(m.group(1)).name):
                found.add(Path(m.group(1)).resolve())
    return sorted(found)


def command_for(build, source):
    """(directory, args, wrapper) of a command that compiles `source` (a wrapper's or nvcc's)."""
    for e in compile_commands(build):
        f = Path(e["directory"], e["file"])
        args = e.get("arguments") or shlex.split(e["command"])
        if f.resolve() == source:
            return Path(e["directory"]), args, None
        if f.parent.name == "sim_sources" and f.is_file() and f'"{source}"' in f.read_text(errors="replace"):
            return Path(e["directory"]), args, f
    return None


def compile_sample(build, work, template, name, text):
    """Compiles `text` as the lab source `template` would be, in its own folder under `work`
    with a compile_commands.json of its own: (build folder, the sample's path) or None when it
    does not compile."""
    directory, args, wrapper = command_for(build, template)
    folder = work / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / template.parent.name).mkdir(parents=True)
    sample = folder / template.parent.name / template.name
    sample.write_text(text)
    out = folder / "sample.o"
    new_args, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        new_args.append(a)
    if wrapper is not None:
        (folder / "sim_sources").mkdir()
        compiled = folder / "sim_sources" / wrapper.name
        # The generated wrapper as it is, the sample in the template's place.
        compiled.write_text(wrapper.read_text().replace(f'"{template}"', f'"{sample}"'))
        new_args = [str(compiled) if Path(directory, a).resolve() == wrapper.resolve() else a for a in new_args]
    else:
        compiled = sample
        new_args = [str(sample) if Path(directory, a).resolve() == template else a for a in new_args]
    new_args += ["-I", str(ROOT / template.parent.name)] if wrapper is None else ["-iquote", str(template.parent)]
    new_args += ["-o", str(out)]
    proc = subprocess.run(new_args, cwd=directory, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    (folder / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(directory), "file": str(compiled), "arguments": new_args}]))
    return folder, sample


def main():
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("work", nargs="?")
    p.add_argument("--lab", default="lab01")
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    build = Path(args.build).resolve()
    work = Path(args.work or build / "codecheck").resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.time()
    failures = []

    # The build's own lab sources: skeletons, solutions, mistakes.
    sources = lab_sources(build)
    if not sources:
        sys.exit(f"no lab source among the compile commands of {build}")

    def check_built(source):
        return source, codecheck.check_build(build, source, Source(source.name, source.read_bytes()))

    with ThreadPoolExecutor(2) as pool:
        for source, status in pool.map(check_built, sources):
            if args.list or status:
                print(f"{'FAIL' if status else 'ok'}: {source.relative_to(ROOT) if source.is_relative_to(ROOT) else source}: {status or 'passes'}")
            if status:
                failures.append(f"{source}: {status}")
    print(f"{len(sources)} lab sources of the build checked")

    # Samples of one lab, compiled as its skeleton is.
    sys.path.insert(0, str(ROOT / "grading" / "samples"))
    import make_samples  # noqa: E402
    folder = sorted(p.name for p in ROOT.glob(f"{args.lab}_*") if p.is_dir())[0]
    template = next((s for s in sources if s == (ROOT / folder / f"{folder}.cu").resolve()), None)
    if template is None:
        sys.exit(f"{args.lab}'s skeleton is not compiled by {build}")
    skeleton = (ROOT / folder / f"{folder}.cu").read_text()
    solution_path = ROOT / "solutions" / folder / f"{folder}.cu"
    solution = solution_path.read_text() if solution_path.exists() else skeleton
    kinds = HONEST_KINDS + list(EXPECT)

    def check_sample(kind):
        made = make_samples.cheat(kind, args.lab, folder, skeleton, solution, work)
        text = made[1] if made else make_samples.make(kind, args.lab, skeleton, solution)
        compiled = compile_sample(build, work, template, kind, text)
        if compiled is None:
            return kind, None
        sample_build, sample = compiled
        return kind, codecheck.check_build(sample_build, sample, Source(sample.name, sample.read_bytes()))

    with ThreadPoolExecutor(2) as pool:
        for kind, status in pool.map(check_sample, kinds):
            want = EXPECT.get(kind, "")
            if status is None:
                ok, line = False, "does not compile"
            else:
                ok = status.startswith(want) if want else status == ""
                line = status or "passes"
            if args.list or not ok:
                print(f"{'ok' if ok else 'FAIL'}: sample {kind}: {line}" + ("" if ok else f" (must {'say ' + repr(want) if want else 'pass'})"))
            if not ok:
                failures.append(f"sample {kind}: {line}")
    print(f"{len(kinds)} sample kinds of {args.lab} checked in {time.time() - started:.0f} s")
    if failures:
        print(f"FAIL: {len(failures)} check(s) wrong")
        sys.exit(1)
    print("ok: every honest source passes, every cheat is refused with its status")


if __name__ == "__main__":
    main()
