#!/usr/bin/env python3
"""Where each lab stands, honestly: CPU checks, kernels in the CPU simulator, kernels on a GPU.

usage: scripts/status.sh [--side student|solution] [--lab labNN] [BUILD_DIR...]
       scripts/status.sh --junit FILE BUILD_DIR      (summarise a finished ctest run)

Without BUILD_DIR it looks for build/student*, build/sim* and runs their tests. A skipped test
is never counted as passed: GPU tests that did not run are reported as "not run", with the
reason the test gave (no GPU, no driver, ...).
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
KINDS = ["cpu", "sim", "gpu"]
KIND_TITLE = {"cpu": "CPU checks", "sim": "kernels, CPU simulator", "gpu": "kernels, GPU"}


def labels_of(build_dir):
    """Test name -> set of labels, from ctest's own listing."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         capture_output=True, text=True, check=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels[test["name"]] = set(props.get("LABELS", []))
    return labels


def run_tests(build_dir, lab, side):
    """Runs the side's tests of one lab (or all labs) and returns the JUnit file's path."""
    junit = os.path.join(tempfile.mkdtemp(prefix="histo-status-"), "junit.xml")
    regex = r"^(%s)\.%s(\.sim)?: " % (lab or "lab0[1-6]", side)
    print("== running %s tests in %s ..." % (side, os.path.relpath(build_dir, ROOT)), flush=True)
    subprocess.run(["ctest", "--test-dir", build_dir, "-R", regex, "-j", str(os.cpu_count() or 2),
                    "--output-junit", junit], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return junit


def results_of(junit, labels, side):
    """{lab: {kind: {"passed": n, "failed": [...], "skipped": {reason: n}}}}"""
    table = {}
    for test in parse_junit(junit, {}):
        name = test["name"] or ""
        m = re.match(r"^(lab0[1-6])\.(\w+)(\.sim)?: ", name)
        if not m or m.group(2) != side:
            continue
        lab = m.group(1)
        tags = labels.get(name, set())
        kind = "sim" if "sim" in tags else "gpu" if "gpu" in tags else "cpu"
        entry = table.setdefault(lab, {}).setdefault(kind, {"passed": 0, "failed": [], "skipped": {}})
        if test["result"] == "passed":
            entry["passed"] += 1
        elif test["result"] == "failed":
            entry["failed"].append(name.split(": ", 1)[1])
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
        return "not run: not in this build"
    ran = entry["passed"] + len(entry["failed"])
    skipped = sum(entry["skipped"].values())
    if ran == 0 and skipped:
        reason = max(entry["skipped"], key=entry["skipped"].get)
        return "NOT RUN (%d tests): %s" % (skipped, reason)
    text = "%d/%d passed" % (entry["passed"], ran)
    if entry["failed"]:
        text = "FAILED %d of %d" % (len(entry["failed"]), ran)
    if skipped:
        text += ", %d not run" % skipped
    return text


def next_step(lab, kinds, presets, side):
    cpu, sim, gpu = (kinds.get(k) for k in KINDS)
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
    if gpu and gpu["failed"]:
        return "your kernels fail on the GPU: ctest --preset %s -L %s --output-on-failure" % (
            gpu_preset, lab)
    if sim is None:
        return "run your kernels on the CPU: cmake --workflow --preset sim"
    if gpu is None or gpu["passed"] == 0:
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
                if re.match(r"^(student(-gpu|-cpu)?|sim)$", n)
                and os.path.exists(os.path.join(build, n, "CTestTestfile.cmake"))]
    if not dirs:
        print("Nothing is built yet. Build and test your labs first:\n"
              "  cmake --workflow --preset sim       # kernels on the CPU simulator, no GPU needed\n"
              "  cmake --workflow --preset student   # CPU checks, and GPU tests where there is a GPU")
        return 1

    results, presets = {}, {}
    for d in dirs:
        labels = labels_of(d)
        junit = args.junit or run_tests(d, args.lab, args.side)
        table = results_of(junit, labels, args.side)
        merge(results, table)
        preset = os.path.basename(os.path.normpath(d))
        for kinds in table.values():
            for kind in kinds:
                presets.setdefault(kind, preset)

    labs = [args.lab] if args.lab else LABS
    print("\n%-6s %-26s %-26s %s" % ("lab", KIND_TITLE["cpu"], KIND_TITLE["sim"], KIND_TITLE["gpu"]))
    not_run = {}
    for lab in labs:
        kinds = results.get(lab, {})
        cells = [describe(kinds.get(k)) for k in KINDS]
        print("%-6s %-26s %-26s %s" % (lab, cells[0], cells[1], cells[2]))
        print("       next: %s" % next_step(lab, kinds, presets, args.side))
        for kind in ("gpu", "sim"):
            for reason, count in kinds.get(kind, {}).get("skipped", {}).items():
                not_run[(kind, reason)] = not_run.get((kind, reason), 0) + count
    if not_run:
        print("\nTests that did NOT run (never counted as passed):")
        for (kind, reason), count in sorted(not_run.items()):
            print("  %3d %s tests: %s" % (count, kind.upper() if kind == "gpu" else "simulator", reason))
    failed = any(e["failed"] for kinds in results.values() for e in kinds.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
