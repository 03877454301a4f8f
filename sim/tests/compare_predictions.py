#!/usr/bin/env python3
"""Compares the cost model's predicted GB/s (histo_bench --model h200 --predict-size 1G --csv)
with the reference run's measured GB/s on the H200 (report/benchmark.csv), kernel by kernel.

usage: compare_predictions.py PREDICTED_CSV MEASURED_CSV [--check]
       compare_predictions.py --run HISTO_BENCH MEASURED_CSV [--size 1M] [--check]

Prints, per kernel and dataset, predicted and measured GB/s, their ratio and the binding
resource, then the summary: worst ratio per kernel, median error, and the pairs of kernels
whose order on a dataset the model gets wrong where the measured gap exceeds 20%.
--check exits 1 unless every ratio is within 1.5x, the median error within 25% and no such
pair is out of order (the targets the model is held to), leaving out only the kernels in
MODEL_GAPS: what they spend their time on is a resource the model does not have, said below;
and the kernels that sim/tests/known_limits.csv lists for this check ("predictions" for 1 GiB,
"predictions_16M" for 16 MiB: the measured size), each with its reason, which are left out of
the median error too (printed both ways); a row whose subject is "median error" says why the
median target is not held for that size. A listed kernel that meets the ratio on every dataset,
or a listed median that meets its target, is reported, so that the list shrinks.
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sim_runs import run_split  # noqa: E402


# Kernels bound by something the model does not capture (sim/README.md, "The cost model").
MODEL_GAPS = {
    "lab04/shared_runs": "instruction issue: finding runs is ALU work (Nsight Compute: 15.8 M "
                         "instructions at 16 MiB against 3.2 M for shared_vec16), not modelled",
    "lab05/per_row": "loads in flight: nvcc issues the four byte loads of each unrolled trip "
                     "together (#pragma unroll 4 with a stride known at compile time; the packed "
                     "kernel's run-time stride keeps one in flight), which the access trace "
                     "cannot see; and on uniform data its warps wait on those loads far longer "
                     "(Nsight Compute: 32 cycles of long-scoreboard stall per instruction, 9 for "
                     "per_column on degenerate data): the bank-conflicted shared accesses hold up "
                     "the L1 data pipe the loads return through, which the model does not have",
    "lab05/per_column": "loads in flight and the L1 data pipe, as for lab05/per_row",
    "lab06/merge_vec16": "instruction issue: 16 packed increments per 16-byte vector, each a "
                         "shared read-modify-write and its arithmetic (Nsight Compute: 0.47 warp "
                         "instructions per byte), not modelled",
}


# What the model still misses with nvcc's SASS (per_row and per_column come within 1.5x there).
MODEL_GAPS_WITH_SASS = {
    "lab04/shared_runs": "instruction issue, taken at the vendor's peak of 4 warp instructions per "
                         "SM per cycle: run detection's dependent compares and branches sustain "
                         "less (1.84x on uniform data with the issue bound, 2.68x without); the "
                         "rate such code sustains is not measured",
    "lab06/merge_vec16": "instruction issue at the vendor's peak rate, as for lab04/shared_runs "
                         "(1.70x: its SASS estimate of the instructions is also below Nsight "
                         "Compute's count by about 6%)",
}


KNOWN_LIMITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_limits.csv")
MEDIAN = "median error"  # known_limits.csv's subject for the median target


def known_limits(size):
    """{kernel: reason} that known_limits.csv gives the check of this measured size."""
    name = "predictions" if size == 1 << 30 else f"predictions_{size >> 20}M"
    with open(KNOWN_LIMITS, newline="") as f:
        return {r["subject"]: r["reason"] for r in csv.DictReader(f) if r["check"] == name}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predicted", help="the simulator's CSV, or with --run the benchmark to run")
    p.add_argument("measured")
    p.add_argument("--run", action="store_true")
    p.add_argument("--size", default="1M",
                   help="the simulated input that checks each kernel's result; the prediction "
                        "runs on the measured size, its blocks sampled")
    p.add_argument("--check", action="store_true")
    p.add_argument("--max-ratio", type=float, default=1.5,
                   help="with --check: the largest predicted/measured ratio (either way) allowed")
    p.add_argument("--max-median", type=float, default=0.25)
    p.add_argument("--order", choices=("required", "reported"), default="required",
                   help="with --check: whether a pair out of order fails")
    p.add_argument("--datasets", help="only these datasets of the measured table (a,b): every "
                   "kernel on fewer inputs (the quick tier of tests, docs/testing.md)")
    args = p.parse_args()
    only = set(args.datasets.split(",")) if args.datasets else None
    measured = {}
    for r in csv.DictReader(open(args.measured)):
        if only is not None and r["dataset"] not in only:
            continue
        if r["result"] in ("ok", "read only") and r["gbps"]:
            measured[(r["kernel"], r["dataset"])] = (float(r["gbps"]), int(r["bytes"]))
    if args.run:
        datasets = sorted({d for _, d in measured})
        size = max(b for _, b in measured.values())
        out = os.path.join(tempfile.mkdtemp(), "predicted.csv")
        rc, stdout = run_split(args.predicted, ["--model", "h200", "--size", args.size,
                                                "--predict-size", str(size)],
                               datasets, out, os.cpu_count() or 1)
        if rc != 0:
            sys.stdout.write(stdout[-3000:])
            return rc
        if "Incomplete counters" in stdout:
            print("SKIPPED: this build cannot see plain loads and stores (it needs Clang)")
            return 77
        if "and SASS from nvcc" in stdout:
            # nvcc's SASS gives the model instruction issue and the loads in flight: only what it
            # still misses is left out.
            print("With nvcc's SASS: the model has instruction issue and the loads in flight")
            MODEL_GAPS.clear()
            MODEL_GAPS.update(MODEL_GAPS_WITH_SASS)
        args.predicted = out
    rows = []
    for r in csv.DictReader(open(args.predicted)):
        key = (r["kernel"], r["dataset"])
        if key in measured and r["result"] in ("ok", "read only"):
            rows.append((key, float(r["predicted_gbps"]), measured[key][0], r["binding"]))
    limits = known_limits(max((b for _, b in measured.values()), default=0))
    print(f"{'kernel':24} {'dataset':11} {'predicted':>10} {'measured':>10} {'ratio':>6}  binding")
    worst, errors, all_errors = {}, [], []
    covered = [r for r in rows if r[0][0] not in MODEL_GAPS and r[0][0] not in limits]
    for (kernel, dataset), pred, meas, binding in rows:
        ratio = pred / meas
        all_errors.append(abs(ratio - 1))
        if kernel not in limits:
            errors.append(abs(ratio - 1))
        worst[kernel] = max(worst.get(kernel, 1.0), max(ratio, 1 / ratio))
        print(f"{kernel:24} {dataset:11} {pred:10.1f} {meas:10.1f} {ratio:6.2f}  {binding}")
    wrong_order = []
    for dataset in sorted({d for (_, d), *_ in covered}):
        here = [(k, p, m) for (k, d), p, m, _ in covered if d == dataset]
        for i, (k1, p1, m1) in enumerate(here):
            for k2, p2, m2 in here[i + 1:]:
                if max(m1, m2) / min(m1, m2) > 1.2 and (p1 > p2) != (m1 > m2):
                    wrong_order.append(f"{dataset}: {k1} {'>' if m1 > m2 else '<'} {k2} measured, "
                                       f"the model says the opposite")
    median = statistics.median(errors) if errors else 0.0
    print(f"\n{len(rows)} kernel x dataset pairs; median error {median:.0%}"
          + (f" without the known limits ({statistics.median(all_errors):.0%} over every pair)" if limits else ""))
    for kernel, w in sorted(worst.items()):
        print(f"  worst ratio {kernel:24} {w:5.2f}x")
    print(f"{len(wrong_order)} pairs out of order where the measured gap exceeds 20% (kernels "
          f"the model covers)")
    for line in wrong_order[:40]:
        print("  " + line)
    for kernel, why in sorted(MODEL_GAPS.items()):
        print(f"  not held to the targets: {kernel}: {why}")
    median_limit = limits.pop(MEDIAN, None)
    if median_limit and median <= args.max_median:
        print(f"  the median error is listed in {os.path.basename(KNOWN_LIMITS)} but within "
              f"{args.max_median:.0%} now: remove the row")
    elif median_limit:
        print(f"  median error not held to {args.max_median:.0%} (known limit, "
              f"{os.path.basename(KNOWN_LIMITS)}): {median_limit}")
    for kernel, why in sorted(limits.items()):
        if kernel in MODEL_GAPS:
            continue
        if kernel in worst and worst[kernel] <= args.max_ratio:
            print(f"  listed in {os.path.basename(KNOWN_LIMITS)} but within {args.max_ratio}x on every "
                  f"dataset now ({worst[kernel]:.2f}x): remove the row")
        print(f"  not held to the targets (known limit, {os.path.basename(KNOWN_LIMITS)}): {kernel}: {why}")
    failed = (max((w for k, w in worst.items() if k not in MODEL_GAPS and k not in limits), default=1) > args.max_ratio
              or (median > args.max_median and not median_limit) or (wrong_order and args.order == "required"))
    if args.check and failed:
        print(f"FAILED: the model misses its targets (every ratio within {args.max_ratio}x, "
              f"median error {args.max_median:.0%}"
              + (", the measured order kept)" if args.order == "required" else ")"))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
