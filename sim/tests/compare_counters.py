#!/usr/bin/env python3
"""Compares the simulator's counters (histo_bench --model h200 --csv) with Nsight Compute's
(report/counters.csv, scripts/ncu_counters.sh on an H200), metric by metric.

usage: compare_counters.py SIM_CSV NCU_CSV [--tolerance 0.02] [--table]

A counter passes when it is within the tolerance of Nsight Compute's value (relative; a
bank-conflict count relative to the wavefronts it is part of), or both are small: within
0.1% of the input's byte-load requests (a few hundred in half a million cannot tell a kernel
apart). Exit 1 if any counter fails; every failure is printed with both values.
"""
import argparse
import csv
import sys

# The counters validated, and the slack that a small absolute difference gets.
METRICS = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
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


def number(text):
    return float(text.replace(",", "")) if text not in ("", None) else 0.0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sim")
    p.add_argument("ncu")
    p.add_argument("--tolerance", type=float, default=0.02)
    p.add_argument("--table", action="store_true", help="print every counter, not only failures")
    args = p.parse_args()
    ncu = {(r["kernel"], r["dataset"]): r for r in csv.DictReader(open(args.ncu))}
    sim = {(r["kernel"], r["dataset"]): r for r in csv.DictReader(open(args.sim))}
    failures, checked, worst = [], 0, {}
    for key, s in sorted(sim.items()):
        if key not in ncu:
            failures.append(f"{key[0]} on {key[1]}: no Nsight Compute row in {args.ncu}")
            continue
        g = ncu[key]
        n = number(s["bytes"])
        slack = n / 32 * 0.001  # 0.1% of the input's byte-load requests
        for m in METRICS:
            a, b = number(s.get(m)), number(g.get(m))
            # A bank-conflict count is judged against the wavefronts it is part of: a few
            # thousand conflicts in a million wavefronts is a conflict-free kernel either way.
            base = b
            if "bank_conflicts" in m:
                base = max(b, number(g.get(m.replace("data_bank_conflicts_pipe_lsu_mem_shared",
                                                     "data_pipe_lsu_wavefronts_mem_shared"))))
            error = abs(a - b) / base if base else (0.0 if a == 0 else float("inf"))
            ok = error <= args.tolerance or abs(a - b) <= slack
            checked += 1
            if not (abs(a - b) <= slack):
                worst[key[0]] = max(worst.get(key[0], 0.0), error)
            if args.table or not ok:
                line = f"{key[0]:24} {key[1]:11} {m:60} sim {a:>12.0f} ncu {b:>12.0f} {error * 100:7.2f}%"
                (print(line) if ok else failures.append(line + "  FAIL"))
    print(f"{checked} counters of {len(sim)} kernel x dataset rows compared with Nsight Compute "
          f"(tolerance {args.tolerance:.0%}, or within 0.1% of the input's requests)")
    for kernel, e in sorted(worst.items()):
        print(f"  worst counter error {kernel:24} {e * 100:6.2f}%")
    for f in failures:
        print(f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
