#!/usr/bin/env python3
"""Compares the simulator's counters (histo_bench --model h200 --csv) with Nsight Compute's
(report/counters.csv, scripts/gpu_check.sh --part ncu on an H200), metric by metric.

usage: compare_counters.py SIM_CSV NCU_CSV [--tolerance 0.02] [--table]
       compare_counters.py --run HISTO_BENCH NCU_CSV [--size 16M]   (CTest perfmodel.counters)

--run first runs `HISTO_BENCH --model h200 --size SIZE --csv SIM_CSV` on every kernel and the
Nsight Compute table's datasets; exit 77 (skipped) when that build cannot see plain loads and
stores (not a Clang build).

A counter passes when it is within the tolerance of Nsight Compute's value (relative; a
bank-conflict count relative to the wavefronts it is part of), or both are small: within
0.1% of the input's byte-load requests (a few hundred in half a million cannot tell a kernel
apart). Exit 1 if any counter fails; every failure is printed with both values.
"""
import argparse
import csv
import fnmatch
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sim_runs import run_split  # noqa: E402

# The counters validated, and the slack that a small absolute difference gets.
METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "dram__bytes_read.sum",
]


# Where the hardware differs from the simulator's rules, a wider tolerance, and why.
WIDER = [
    ("*", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", 0.03,
     "on uniform data the GPU counts 2.4-2.7% more atomic sector passes than the pass rule "
     "(per sector, the most lanes on one word)"),
    ("lab04/shared_vec16", "*shared_op_atom.sum", 0.03,
     "on degenerate and text data the GPU shows 2.6-2.8% more shared-atomic wavefronts than "
     "the bank rule; cause not identified"),
    ("lab06/check", "*shared_op_ld.sum", 0.06,
     "nvcc reads a thread's four spill bins with one 16-byte load; the simulator sees four "
     "4-byte loads, and their bank conflicts"),
    ("lab06/*", "*shared_op_st.sum", 0.07,
     "the GPU counts 2-6% more shared-store wavefronts (bank conflicts) in lab06's unrolled "
     "kernels than the bank rule, and a different number each run (two Nsight Compute runs of "
     "lab06/merge_vec16 on uniform data: 55609 and 60500): conflicts between warps, not a "
     "property of one instruction, which the simulator does not model"),
]
# Counters that depend on the number of blocks (zeroing, the merge), not on the input alone.
PER_BLOCK = [m for m in METRICS
             if any(k in m for k in ("shared_op_ld", "shared_op_st", "op_shared_ld", "op_shared_st", "global_op_red", "global_op_atom"))]


def tolerance_for(kernel, metric, default):
    for k, m, tol, why in WIDER:
        if fnmatch.fnmatch(kernel, k) and fnmatch.fnmatch(metric, m):
            return tol, why
    return default, ""


def number(text):
    return float(text.replace(",", "")) if text not in ("", None) else 0.0


def compare_metrics(kernel, dataset, s, g, n, tolerance, table, failures, worst, notes):
    """Compares one simulator row `s` with Nsight Compute's row `g` (CSV rows keyed by metric
    name) for `kernel` on `dataset`, an input of n bytes: failures and notes appended, the worst
    error per kernel kept in `worst`. Returns the number of counters compared."""
    slack = n / 32 * 0.001  # 0.1% of the input's byte-load requests
    grid_differs = number(s["grid"]) != number(g["grid"])
    if grid_differs:
        notes.add(f"{kernel}: the GPU ran {g['grid']} blocks, the simulator {s['grid']}: "
                  f"registers ({g.get('launch__registers_per_thread', '?')} per thread) limit "
                  "its blocks per SM on the GPU, which the simulator knows only from nvcc's "
                  "figures (a build configured with nvcc); counters that depend on the number "
                  "of blocks are not compared")
    checked = 0
    for m in METRICS:
        if grid_differs and m in PER_BLOCK:
            continue
        a, b = number(s.get(m)), number(g.get(m))
        # A bank-conflict count is judged against the wavefronts it is part of: a few
        # thousand conflicts in a million wavefronts is a conflict-free kernel either way.
        base = b
        if "bank_conflicts" in m:
            base = max(b, number(g.get(m.replace("data_bank_conflicts_pipe_lsu_mem_shared",
                                                 "data_pipe_lsu_wavefronts_mem_shared"))))
        error = abs(a - b) / base if base else (0.0 if a == 0 else float("inf"))
        tol, why = tolerance_for(kernel, m, tolerance)
        if why and error > tolerance:
            notes.add(f"{kernel}, {m}: within {tol:.0%}: {why}")
        ok = error <= tol or abs(a - b) <= slack
        checked += 1
        if not (abs(a - b) <= slack):
            worst[kernel] = max(worst.get(kernel, 0.0), error)
        if table or not ok:
            line = f"{kernel:24} {dataset:11} {m:60} sim {a:>12.0f} ncu {b:>12.0f} {error * 100:7.2f}%"
            (print(line) if ok else failures.append(line + "  FAIL"))
    return checked


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sim", help="the simulator's CSV, or with --run the benchmark to run")
    p.add_argument("ncu")
    p.add_argument("--run", action="store_true")
    p.add_argument("--size", default="16M")
    p.add_argument("--tolerance", type=float, default=0.02)
    p.add_argument("--table", action="store_true", help="print every counter, not only failures")
    p.add_argument("--datasets", help="only these datasets of the Nsight Compute table (a,b): "
                   "every kernel on fewer inputs (the quick tier of tests, docs/testing.md)")
    args = p.parse_args()
    only = set(args.datasets.split(",")) if args.datasets else None
    ncu = {(r["kernel"], r["dataset"]): r for r in csv.DictReader(open(args.ncu))
           if only is None or r["dataset"] in only}
    if args.run:
        datasets = sorted({d for _, d in ncu})
        out = os.path.join(tempfile.mkdtemp(), "sim_counters.csv")
        rc, stdout = run_split(args.sim, ["--model", "h200", "--size", args.size], datasets, out,
                               os.cpu_count() or 1)
        sys.stdout.write(stdout[-3000:])
        if rc != 0:
            return rc
        if "Incomplete counters" in stdout:
            print("SKIPPED: this build cannot see plain loads and stores (it needs Clang)")
            return 77
        args.sim = out
    # The read probe's row (the read limit of every --model table) has no Nsight Compute row:
    # scripts/gpu_check.sh --part ncu counts the labs' kernels.
    sim = {(r["kernel"], r["dataset"]): r for r in csv.DictReader(open(args.sim)) if r["kernel"] != "probe"}
    failures, checked, worst, notes = [], 0, {}, set()
    for key, s in sorted(sim.items()):
        if key not in ncu:
            failures.append(f"{key[0]} on {key[1]}: no Nsight Compute row in {args.ncu}")
            continue
        checked += compare_metrics(key[0], key[1], s, ncu[key], number(s["bytes"]), args.tolerance,
                                   args.table, failures, worst, notes)
    print(f"{checked} counters of {len(sim)} kernel x dataset rows compared with Nsight Compute "
          f"(tolerance {args.tolerance:.0%}, or within 0.1% of the input's requests)")
    for kernel, e in sorted(worst.items()):
        print(f"  worst counter error {kernel:24} {e * 100:6.2f}%")
    for note in sorted(notes):
        print("  note: " + note)
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
