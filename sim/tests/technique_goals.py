#!/usr/bin/env python3
"""The [perf] tests' technique goals (sim/data/technique_goals.csv, which the configure step
makes into common/src/perf.cpp's kTechniqueGoals): for every (kernel, dataset) a [perf] test
counts, the GB/s that the NVIDIA H200's cost model predicts for the solution on 1 GiB of that
dataset. A failing [perf] test states it beside the kernel's own
prediction (histo::distance_to_goal).

  technique_goals.py HISTO_BENCH          checks every entry against the model (within 0.5%) and
                                           that every [perf] test's (kernel, dataset) has one
  technique_goals.py HISTO_BENCH --write  rewrites the file from the model (then rebuild: the
                                           build folder configures again by itself)

HISTO_BENCH is a simulator build's histo_bench (the solutions). The pairs come from the labs'
grader.cpp files: each TEST_CASE tagged [perf], its find_variant(variants(), "NAME") and the
datasets it names (histo::Dataset::X). Exit 77 (skipped) where the counters are incomplete (no
Clang)."""
import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOALS = os.path.join(ROOT, "sim", "data", "technique_goals.csv")
TOLERANCE = 0.005


def perf_pairs():
    """Every (kernel id, dataset) a [perf] test counts, from the graders."""
    pairs = set()
    for grader in sorted(glob.glob(os.path.join(ROOT, "lab[0-9][0-9]_*", "grader.cpp"))):
        lab = os.path.basename(os.path.dirname(grader))[:5]
        text = open(grader).read()
        starts = [m.start() for m in re.finditer(r"^TEST_CASE\(", text, re.M)] + [len(text)]
        for begin, end in zip(starts, starts[1:]):
            block = text[begin:end]
            head = block[:block.find("{")]
            if "[perf]" not in head:
                continue
            name = re.search(r'find_variant\(variants\(\), "(\w+)"\)', block)
            datasets = set(re.findall(r"histo::Dataset::(\w+)", block))
            if not name or not datasets:
                sys.exit(f"{grader}: a [perf] test whose kernel or datasets this script cannot read:\n{head}")
            pairs |= {(f"{lab}/{name.group(1)}", d) for d in datasets}
    return pairs


def recorded():
    return {(r["kernel"], r["dataset"]): float(r["gbps"]) for r in csv.DictReader(open(GOALS))}


def predict(bench, pairs):
    """The model's GB/s for 1 GiB of each pair's dataset (one benchmark run per dataset)."""
    out = {}
    for dataset in sorted({d for _, d in pairs}):
        kernels = sorted(k for k, d in pairs if d == dataset)
        path = os.path.join(tempfile.mkdtemp(), f"goals_{dataset}.csv")
        run = subprocess.run([bench, "--model", "h200", "--kernels", ",".join(kernels), "--datasets", dataset,
                              "--size", "1M", "--predict-size", "1G", "--csv", path],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"{bench} failed ({run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        if "Incomplete counters" in run.stdout:
            print("SKIPPED: this build cannot see plain loads and stores (it needs Clang)")
            sys.exit(77)
        for r in csv.DictReader(open(path)):
            if (r["kernel"], r["dataset"]) in pairs:
                if r["result"] != "ok":
                    sys.exit(f"{r['kernel']} on {r['dataset']}: {r['result']}")
                out[(r["kernel"], r["dataset"])] = float(r["predicted_gbps"])
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench")
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    pairs = perf_pairs()
    model = predict(args.bench, pairs)
    missing = sorted(pairs - set(model))
    if missing:
        sys.exit(f"the benchmark predicted nothing for {missing} (not registered in this build?)")
    if args.write:
        with open(GOALS, "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["kernel", "dataset", "gbps"])
            w.writerows([k, d, f"{model[(k, d)]:.1f}"] for k, d in sorted(pairs))
        print(f"wrote {len(pairs)} technique goals into {os.path.relpath(GOALS, ROOT)}")
        return 0
    have = recorded()
    problems = []
    for key in sorted(pairs):
        if key not in have:
            problems.append(f"{key[0]} on {key[1]}: a [perf] test counts it and {os.path.relpath(GOALS, ROOT)} has no row")
        elif abs(have[key] - model[key]) > TOLERANCE * model[key] + 0.05:
            problems.append(f"{key[0]} on {key[1]}: recorded {have[key]} GB/s, the model now predicts "
                            f"{model[key]:.1f}")
        else:
            print(f"{key[0]:22} {key[1]:11} recorded {have[key]:8.1f} GB/s, predicted {model[key]:8.1f}")
    for key in sorted(set(have) - pairs):
        problems.append(f"{key[0]} on {key[1]}: an entry no [perf] test counts")
    if problems:
        print("\n".join(problems))
        print(f"run {os.path.relpath(__file__, ROOT)} {args.bench} --write to rewrite them from the model")
        return 1
    print(f"{len(pairs)} technique goals agree with the H200 cost model")
    return 0


if __name__ == "__main__":
    sys.exit(main())
