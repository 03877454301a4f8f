#!/usr/bin/env python3
"""Where each lab stands, honestly: CPU checks, kernels in the CPU simulator, kernels on a GPU.

usage: scripts/status.sh [--side student|solution] [--lab labNN] [BUILD_DIR...]
       scripts/status.sh --junit FILE BUILD_DIR      (summarise a finished ctest run)

Without BUILD_DIR it looks for build/student*, build/sim, build/sim-tsan and build/sim-asan
and runs their tests. A skipped test is never counted as passed: GPU tests that did not run are
reported as "not run", with the reason the test gave (no GPU, no driver, ...). The kernels'
tests in a sim-tsan build (ThreadSanitizer: races) and a sim-asan build (AddressSanitizer:
out-of-bounds accesses) get their own columns. Tests named "stretch: ..." (lab06's optional
stretch) are counted apart and never make a lab fail.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "grading"))
from histo_grading.tests import parse_junit  # noqa: E402  (one reader of ctest's JUnit, skip reasons included)
LABS = ["lab01", "lab02", "lab03", "lab04", "lab05", "lab06"]
KINDS = ["cpu", "sim", "tsan", "asan", "gpu"]
KIND_TITLE = {"cpu": "CPU checks", "sim": "kernels, simulator", "tsan": "races (sim-tsan)",
              "asan": "bounds (sim-asan)", "gpu": "kernels, GPU"}
# A sanitizer build's kernel tests are their own kind; its test preset sets their environment.
SANITIZER_PRESET = {"tsan": "sim-tsan", "asan": "sim-asan"}
STRETCH = "stretch: "


def new_entry():
    return {"passed": 0, "failed": [], "skipped": {},
            "stretch": {"passed": 0, "failed": [], "skipped": 0}}


def labels_of(build_dir):
    """Test name -> set of labels, from ctest's own listing."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         capture_output=True, text=True, check=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels[test["name"]] = set(props.get("LABELS", []))
    return labels


def preset_environment(preset):
    """The environment the test preset of that name sets (sim-tsan: TSan's suppressions), with
    the presets it inherits from; {} for a folder that is no preset's."""
    try:
        with open(os.path.join(ROOT, "CMakePresets.json")) as f:
            presets = {p["name"]: p for p in json.load(f).get("testPresets", [])}
    except (OSError, ValueError):
        return {}
    env, name = {}, preset
    while name in presets:
        for key, value in presets[name].get("environment", {}).items():
            env.setdefault(key, value.replace("${sourceDir}", ROOT))
        name = (presets[name].get("inherits") or [None])[0]
    return env


def sanitizer_of(build_dir):
    """"tsan" or "asan" for a build compiled with that sanitizer (its CMakeCache), else None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            flags = " ".join(line for line in f if line.startswith("CMAKE_CXX_FLAGS:"))
    except OSError:
        return None
    if "-fsanitize=thread" in flags:
        return "tsan"
    if "-fsanitize=address" in flags:
        return "asan"
    return None


def run_tests(build_dir, lab, side):
    """Runs the side's tests of one lab (or all labs) and returns the JUnit file's path."""
    junit = os.path.join(tempfile.mkdtemp(prefix="histo-status-"), "junit.xml")
    regex = r"^(%s)\.%s(\.sim)?: " % (lab or "lab0[1-6]", side)
    print("== running %s tests in %s ..." % (side, os.path.relpath(build_dir, ROOT)), flush=True)
    folder = os.path.basename(os.path.normpath(build_dir))
    preset = SANITIZER_PRESET.get(sanitizer_of(build_dir), folder)
    env = dict(os.environ, **preset_environment(preset))
    subprocess.run(["ctest", "--test-dir", build_dir, "-R", regex, "-j", str(os.cpu_count() or 2),
                    "--output-junit", junit], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=env)
    return junit


def results_of(junit, labels, side, sanitizer=None):
    """{lab: {kind: entry}}, entry as new_entry(). `sanitizer` ("tsan", "asan"): the build is a
    sanitizer build, whose kernel tests are that kind and whose CPU tests are left out."""
    table = {}
    for test in parse_junit(junit, {}):
        name = test["name"] or ""
        m = re.match(r"^(lab0[1-6])\.(\w+)(\.sim)?: ", name)
        if not m or m.group(2) != side:
            continue
        lab = m.group(1)
        tags = labels.get(name, set())
        kind = "sim" if "sim" in tags else "gpu" if "gpu" in tags else "cpu"
        if sanitizer:
            if kind != "sim":
                continue
            kind = sanitizer
        entry = table.setdefault(lab, {}).setdefault(kind, new_entry())
        case = name.split(": ", 1)[1]
        if case.startswith(STRETCH):
            part = entry["stretch"]
            if test["result"] == "passed":
                part["passed"] += 1
            elif test["result"] == "failed":
                part["failed"].append(case)
            else:
                part["skipped"] += 1
        elif test["result"] == "passed":
            entry["passed"] += 1
        elif test["result"] == "failed":
            entry["failed"].append(case)
        else:
            reason = re.sub(r"needs \d+ MiB", "needs gigabytes", test.get("skip_reason", "skipped"))
            entry["skipped"][reason] = entry["skipped"].get(reason, 0) + 1
    return table


def merge(into, table):
    for lab, kinds in table.items():
        for kind, entry in kinds.items():
            into.setdefault(lab, {})[kind] = entry


def describe(entry):
    if entry is None:
        return "not built here"
    ran = entry["passed"] + len(entry["failed"])
    skipped = sum(entry["skipped"].values())
    stretch = entry["stretch"]
    stretch_ran = stretch["passed"] + len(stretch["failed"])
    if ran == 0 and skipped:
        text = "NOT RUN (%d tests)" % skipped
    else:
        text = "%d/%d passed" % (entry["passed"], ran)
        if entry["failed"]:
            text = "FAILED %d of %d" % (len(entry["failed"]), ran)
        if skipped:
            text += ", %d not run" % skipped
    if stretch_ran:
        text += "; stretch %d/%d" % (stretch["passed"], stretch_ran)
    return text


def passed_all(entry):
    """Ran the required tests, and every one passed."""
    return entry is not None and entry["passed"] > 0 and not entry["failed"]


def next_step(lab, kinds, presets, side):
    cpu, sim, tsan, asan, gpu = (kinds.get(k) for k in KINDS)
    if side == "solution":
        if any(e["failed"] for e in kinds.values()):
            return "a solution fails: ctest --test-dir build/<preset> -L %s --output-on-failure" % lab
        if gpu is None or gpu["passed"] == 0:
            return "on a machine with a GPU: scripts/gpu_check.sh (every grader, sanitizers, benchmark)"
        return "all ran and passed"
    gpu_preset = presets.get("gpu", "student")
    if cpu and cpu["failed"]:
        return "fix the CPU checks first: ctest --preset %s -L %s -L cpu --output-on-failure" % (
            presets.get("cpu", "student"), lab)
    if sim and sim["failed"]:
        return ("your kernels are wrong in the CPU simulator: ctest --preset sim -L %s "
                "--output-on-failure" % lab)
    if tsan and tsan["failed"]:
        return ("your kernels race (ThreadSanitizer names both lines): ctest --preset sim-tsan "
                "-L %s --output-on-failure" % lab)
    if asan and asan["failed"]:
        return ("your kernels read or write out of bounds: ctest --preset sim-asan -L %s "
                "--output-on-failure" % lab)
    if gpu and gpu["failed"]:
        if passed_all(sim) and not passed_all(tsan):
            # Threads take turns in the simulator: a race passes there and fails on a GPU.
            return ("your kernels pass in the simulator but fail on the GPU: the simulator's "
                    "threads take turns, so look for a race (a missing __syncthreads(), a plain "
                    "++ on a shared counter): cmake --workflow --preset sim-tsan, then ctest "
                    "--preset %s -L %s --output-on-failure" % (gpu_preset, lab))
        return "your kernels fail on the GPU: ctest --preset %s -L %s --output-on-failure" % (
            gpu_preset, lab)
    if sim is None:
        return "run your kernels on the CPU: cmake --workflow --preset sim"
    stretch = [k for k in ("sim", "gpu") if kinds.get(k) and kinds[k]["stretch"]["failed"]]
    if stretch:
        return ("the required kernels pass; the optional stretch does not yet (it never fails "
                "the lab): ctest --preset %s -L %s -R stretch --output-on-failure"
                % (presets.get(stretch[0], "sim"), lab))
    if gpu is None or gpu["passed"] == 0:
        if tsan is None:
            return ("your kernels pass in the simulator, where threads take turns: check them for "
                    "races with cmake --workflow --preset sim-tsan; then the GPU has the last word")
        return ("the GPU has the last word: run ctest --preset student-gpu -L %s on a machine "
                "with an NVIDIA GPU (or notebooks/colab_gpu.ipynb)" % lab)
    return "done; measure it: histo_bench_student --labs %s (in build/<preset>/bench/)" % lab


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dirs", nargs="*")
    ap.add_argument("--side", default="student", choices=["student", "solution"])
    ap.add_argument("--lab", choices=LABS)
    ap.add_argument("--junit", help="summarise this finished ctest run instead of running tests")
    args = ap.parse_args()

    dirs = args.build_dirs
    if not dirs:
        build = os.path.join(ROOT, "build")
        names = sorted(os.listdir(build)) if os.path.isdir(build) else []
        dirs = [os.path.join(build, n) for n in names
                if re.match(r"^(student(-gpu|-cpu)?|sim(-tsan|-asan)?)$", n)
                and os.path.exists(os.path.join(build, n, "CTestTestfile.cmake"))]
    if not dirs:
        print("Nothing is built yet. Build and test your labs first:\n"
              "  cmake --workflow --preset sim           # kernels in the CPU simulator (no GPU,\n"
              "                                          # no CUDA Toolkit needed)\n"
              "  cmake --workflow --preset student-gpu   # with an NVIDIA GPU and the CUDA Toolkit")
        return 1

    results, presets = {}, {}
    for d in dirs:
        preset = os.path.basename(os.path.normpath(d))
        labels = labels_of(d)
        junit = args.junit or run_tests(d, args.lab, args.side)
        table = results_of(junit, labels, args.side, sanitizer_of(d))
        merge(results, table)
        for kinds in table.values():
            for kind in kinds:
                presets.setdefault(kind, preset)

    labs = [args.lab] if args.lab else LABS
    # Columns: those that ran somewhere, each as wide as its widest cell, two spaces apart.
    shown = [k for k in KINDS if k in ("cpu", "sim", "gpu") or any(k in results.get(lab, {})
                                                                    for lab in labs)]
    rows = [["lab"] + [KIND_TITLE[k] for k in shown]]
    for lab in labs:
        rows.append([lab] + [describe(results.get(lab, {}).get(k)) for k in shown])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    line = lambda row: "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
    print("\n" + line(rows[0]))
    not_run = {}
    for lab, row in zip(labs, rows[1:]):
        kinds = results.get(lab, {})
        print(line(row))
        print("%s next: %s" % (" " * len(lab), next_step(lab, kinds, presets, args.side)))
        for kind in ("gpu", "sim", "tsan", "asan"):
            for reason, count in kinds.get(kind, {}).get("skipped", {}).items():
                not_run[(kind, reason)] = not_run.get((kind, reason), 0) + count
    if not_run:
        print("\nTests that did NOT run (never counted as passed):")
        where = {"gpu": "GPU", "sim": "simulator", "tsan": "sim-tsan", "asan": "sim-asan"}
        for (kind, reason), count in sorted(not_run.items()):
            print("  %3d %s tests: %s" % (count, where[kind], reason))
    # The optional stretch never fails a lab.
    failed = any(e["failed"] for kinds in results.values() for e in kinds.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
