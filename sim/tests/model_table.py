#!/usr/bin/env python3
"""The --model tables as a student reads them: renders them for every lab's kernels and checks
what they claim.

  model_table.py HISTO_BENCH [--size 64K]

Two runs of HISTO_BENCH (a simulator build's benchmark): every registered kernel on uniform and
degenerate data (--lines, --csv, --lines-csv), and one kernel of each lab with --kernels, which
does not name the read probe, predicted for a larger input than it counts (--predict-size).
Checked:
  - the wording: predictions said to be PREDICTED by the named GPU's model and not measured; no
    path of a file that a student release lacks (report/...)
  - sizes: every table's title gives its size in bytes and in words, the counted size and the
    predicted size each where they apply
  - units: every column but the kernel's names its unit
  - the read probe: a row of every table, at 100% of the read limit, with a line saying so when
    --kernels does not name it; every row's % of the read limit is its GB/s over the probe's
  - bounds: the binding resource and the next bound are the model's resources, the next no
    larger than the binding one
  - the legend against every row: each column's numbers are what the CSV's counters give, and a
    conflict-free instruction takes 1 to 4 wavefronts (one per 128 bytes), as the legend says;
    the legend never calls 1 conflict-free
  - per line: the lines' counters (--lines-csv) add up to their kernel's, and --lines names the
    lines of each kernel's binding resource with shares that add up to at most 100%
  - where the cost is (the output without --lines): every kernel with a prediction, and no probe,
    gets its binding resource as the table names it and at most 3 lines, the first in its lab's
    own .cu file, each with its count, shares in decreasing order adding up to at most 100%
Exit 77 (skipped) where the counters are incomplete (a build without Clang)."""
import argparse
import csv
import os
import re
from pathlib import Path
import subprocess
import sys
import tempfile

# The model's resources as histo_sim/model.hpp declares them (kResources), and launch overhead.
MODEL_HPP = Path(__file__).resolve().parents[1] / "include" / "histo_sim" / "model.hpp"
RESOURCES = set(re.findall(r'"([^"]+)"', re.search(r"kResources\[\] = \{(.*?)\};", MODEL_HPP.read_text(),
                                                    re.S).group(1))) | {"launch overhead"}
UNIT = re.compile(r"/|%|GB/s|\(pred time\)|blocks x threads")
KINDS = {"ld": "ld", "st": "st", "at": "atom"}


def wavefront_metric(kind, what):
    prefix = {"wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_",
              "conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"}[what]
    return prefix + KINDS[kind] + ".sum"


INSTRUCTIONS = {k: f"smsp__sass_inst_executed_op_shared_{v}.sum" for k, v in KINDS.items()}


def num(x):
    return float(x) if x not in ("", None) else 0.0


def run(bench, args):
    out = subprocess.run([bench, "--model", "h200", *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{bench} {' '.join(args)} failed ({out.returncode}):\n{out.stdout[-3000:]}{out.stderr[-3000:]}")
    if "Incomplete counters" in out.stdout:
        print("SKIPPED: this build cannot see plain loads and stores (it needs Clang)")
        sys.exit(77)
    return out.stdout


def cells(line):
    return re.split(r"\s{2,}", line.strip())


def tables(text):
    """{(kind, dataset): (title, header cells, {kernel: cells})} for the COUNTED and PREDICTED
    tables of the output."""
    found, lines, i = {}, text.splitlines(), 0
    while i < len(lines):
        m = re.match(r"^(\w+): (COUNTED|PREDICTED) ", lines[i])
        if not m:
            i += 1
            continue
        title, header, rows = lines[i], cells(lines[i + 1]), {}
        i += 2
        while i < len(lines) and lines[i].strip() and not lines[i].startswith(("Columns", " ")):
            c = cells(lines[i])
            rows[c[0]] = c
            i += 1
        found[(m.group(2), m.group(1))] = (title, header, rows)
    return found


def size_words(n):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit} ({n} bytes)"
    return f"{n} bytes"


def parse_size(text):
    shift = {"K": 10, "M": 20, "G": 30}.get(text[-1], 0)
    return int(text[:-1] if shift else text) << shift


def check_output(text, counted_bytes, predicted_bytes, probe_named, problems, csv_rows=None):
    head = text.split("\n\n", 1)[0]
    first = text.splitlines()[0]
    if not re.search(r"PREDICTED by the cost model of the NVIDIA H200, not measured", first):
        problems.append(f"the first line does not say the numbers are PREDICTED by the H200's model, not measured: {first}")
    if re.search(r"report/|calibration\.json", text):
        problems.append("the output names a file under report/, which a student release does not have")
    if "1 is conflict-free" in text:
        problems.append("the legend says \"1 is conflict-free\", untrue for 8- and 16-byte accesses")
    for words in (f"Counters: one launcher call on {size_words(counted_bytes)}",
                  f"Predictions: for {size_words(predicted_bytes)}"):
        if words not in head:
            problems.append(f"the header does not say \"{words}\"")
    note = "(it is there although --kernels does not name it)"
    if (note in head) == probe_named:
        problems.append(f"the line about the read probe {'says' if probe_named else 'does not say'} \"{note}\"")
    found = tables(text)
    if not found:
        problems.append("no COUNTED or PREDICTED table in the output")
    for (kind, dataset), (title, header, rows) in sorted(found.items()):
        size = counted_bytes if kind == "COUNTED" else predicted_bytes
        if f"{size_words(size)} of {dataset} data" not in title:
            problems.append(f"{kind} {dataset}: the title does not say {size_words(size)}: {title}")
        for name in header[1:]:
            if not UNIT.search(name):
                problems.append(f"{kind} {dataset}: column \"{name}\" names no unit")
        if "probe" not in rows:
            problems.append(f"{kind} {dataset}: no read probe row")
            continue
        if kind == "PREDICTED":
            probe = float(rows["probe"][1])
            for kernel, c in rows.items():
                if c[1] == "-":
                    continue
                gbps, pct = float(c[1]), float(c[2])
                # Both GB/s are rounded to 0.1, the % to 0.1.
                # (A skeleton's kernel may round to 0.0 GB/s: then its % rounds to 0 as well.)
                if gbps == 0 and pct > 0.1 or gbps > 0 and \
                        abs(pct - 100 * gbps / probe) > 0.051 + pct * (0.05 / gbps + 0.05 / probe):
                    problems.append(f"{dataset} {kernel}: {pct}% of the read limit, but {gbps} / {probe} GB/s")
                binding, nxt = (re.match(r"(.+), ([0-9.]+) us$", x) for x in c[3:5])
                if not binding or binding.group(1) not in RESOURCES:
                    problems.append(f"{dataset} {kernel}: binding resource \"{c[3]}\" is no resource of the model")
                    continue
                if not nxt or nxt.group(1) not in RESOURCES:
                    problems.append(f"{dataset} {kernel}: next bound \"{c[4]}\" is no resource of the model")
                    continue
                if binding.group(1) != "launch overhead" and float(nxt.group(2)) > float(binding.group(2)):
                    problems.append(f"{dataset} {kernel}: the next bound ({c[4]}) is larger than the binding one ({c[3]})")
                if csv_rows and abs(float(csv_rows[(kernel, dataset)]["predicted_gbps"]) - gbps) > 0.06:
                    problems.append(f"{dataset} {kernel}: {gbps} GB/s printed, {csv_rows[(kernel, dataset)]['predicted_gbps']} in the CSV")
        elif csv_rows:
            check_counters_against_legend(dataset, header, rows, csv_rows, problems)
    return found


def check_counters_against_legend(dataset, header, rows, csv_rows, problems):
    col = {name: i for i, name in enumerate(header)}
    for kernel, c in rows.items():
        r = csv_rows.get((kernel, dataset))
        if r is None:
            problems.append(f"{dataset} {kernel}: a row of the table without a row in the CSV")
            continue
        conflicts = instructions = 0.0
        for kind in KINDS:
            wf, cf, ins = (num(r[wavefront_metric(kind, "wf")]), num(r[wavefront_metric(kind, "conflicts")]),
                           num(r[INSTRUCTIONS[kind]]))
            conflicts, instructions = conflicts + cf, instructions + ins
            shown = c[col[f"sh {kind} wf/instr"]]
            if ins == 0:
                if shown != "-":
                    problems.append(f"{dataset} {kernel}: sh {kind} wf/instr shows {shown} for a kernel with no such instruction")
                continue
            if shown == "-" or abs(float(shown) - wf / ins) > 0.006:
                problems.append(f"{dataset} {kernel}: sh {kind} wf/instr shows {shown}, the counters give {wf / ins:.3f}")
            # The legend: without conflicts, one wavefront per 128 bytes a warp accesses (1 to 4).
            ideal = (wf - cf) / ins
            if not 1 - 1e-9 <= ideal <= 4 + 1e-9:
                problems.append(f"{dataset} {kernel}: {ideal:.2f} conflict-free wavefronts per sh {kind} "
                                "instruction, outside the legend's 1 to 4")
        shown = c[col["conflicts/sh instr"]]
        if instructions == 0:
            if shown != "-":
                problems.append(f"{dataset} {kernel}: conflicts/sh instr shows {shown} without shared instructions")
        elif shown == "-" or abs(float(shown) - conflicts / instructions) > 0.006:
            problems.append(f"{dataset} {kernel}: conflicts/sh instr shows {shown}, the counters give "
                            f"{conflicts / instructions:.3f}")
        for name, sectors, requests in (("ld sectors/req", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                         "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
                                        ("at passes/req", "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
                                         "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum")):
            shown, a, b = c[col[name]], num(r[sectors]), num(r[requests])
            if (b == 0) != (shown == "-") or (b and abs(float(shown) - a / b) > 0.006):
                problems.append(f"{dataset} {kernel}: {name} shows {shown}, the counters give {a}/{b}")


def check_lines(text, csv_rows, lines_csv, problems):
    sums = {}
    metrics = None
    for r in csv.DictReader(open(lines_csv)):
        metrics = [m for m in r if m.startswith(("l1tex__", "smsp__", "dram__"))]
        s = sums.setdefault((r["kernel"], r["dataset"]), {m: 0 for m in metrics})
        for m in metrics:
            s[m] += int(r[m])
    if not metrics:
        problems.append("--lines-csv wrote no line")
        return
    for key, r in sorted(csv_rows.items()):
        for m in metrics:
            if int(r[m]) != sums.get(key, {}).get(m, 0):
                problems.append(f"{key[0]} on {key[1]}: {m} is {r[m]}, its lines add up to {sums.get(key, {}).get(m, 0)}")
    # --lines: a block per predicted kernel, its top lines with shares.
    for block in re.finditer(r"^(\S+): binding resource (.+?), by line: .*\n((?:  .*\n)*)", text, re.M):
        kernel, shares = block.group(1), [float(s) for s in re.findall(r"^\s+([0-9.]+)%\s", block.group(3), re.M)]
        lines = re.findall(r"^\s+[0-9.]+%\s+(\S+\.\w+:\d+)\s", block.group(3), re.M)
        if not shares or not lines:
            problems.append(f"--lines names no line for {kernel}")
        elif sum(shares) > 100.5:
            problems.append(f"--lines: {kernel}'s shares add up to {sum(shares):.1f}%")
    # ... and, for a kernel with bank conflicts, the lines that hold them.
    # (A kernel with wrong bins, a skeleton's, gets no prediction and so no --lines block.)
    conflicted = {k for k, r in csv_rows.items() if r["result"] in ("ok", "read only")
                  and sum(num(r[wavefront_metric(kind, "conflicts")]) for kind in KINDS) > 0}
    shown = set(re.findall(r"^(\S+): shared bank conflicts .*, by line:\n  +[0-9.]+%", text, re.M))
    for kernel in sorted({k for k, _ in conflicted} - shown):
        problems.append(f"--lines names no line for {kernel}'s bank conflicts")


def check_where_cost(text, found, problems):
    """The default output's "where the cost is" blocks against its PREDICTED tables."""
    for (kind, dataset), (_, _, rows) in sorted(found.items()):
        if kind != "PREDICTED":
            continue
        part = re.search(rf"^{dataset}: where the cost is: the 3 source lines .*\n((?:.+\n)*)", text, re.M)
        # (Where launch overhead binds, no line holds the time: a line says so instead.)
        kernels = {k: c for k, c in rows.items() if c[1] != "-" and "/probe" not in k and k != "probe"
                   and not c[3].startswith("launch overhead")}
        if not part:
            if kernels:
                problems.append(f"{dataset}: no \"where the cost is\" block")
            continue
        blocks = {m.group(1): (m.group(2), m.group(3)) for m in
                  re.finditer(r"^(\S+): binding resource (.+?), by line: .*\n((?:  .*\n)*)", part.group(1), re.M)}
        if set(blocks) != set(kernels):
            problems.append(f"{dataset}: \"where the cost is\" names {sorted(blocks)}, the kernels with a "
                            f"prediction are {sorted(kernels)}")
        for kernel, (binding, body) in blocks.items():
            if kernel in kernels and not kernels[kernel][3].startswith(binding + ", "):
                problems.append(f"{dataset} {kernel}: where the cost is: binding resource {binding}, the table "
                                f"says {kernels[kernel][3]}")
            lines = re.findall(r"^\s+([0-9.]+)%\s+(\S+?\.\w+):(\d+)\s+(\d+) ", body, re.M)
            if not lines or len(lines) > 3:
                problems.append(f"{dataset} {kernel}: where the cost is shows {len(lines)} lines, not 1 to 3:\n{body}")
                continue
            shares = [float(s) for s, *_ in lines]
            if shares != sorted(shares, reverse=True) or sum(shares) > 100.5:
                problems.append(f"{dataset} {kernel}: where the cost is: shares {shares} not decreasing or over 100%")
            lab_file = re.compile(rf"lab{kernel[3:5]}_\w+\.cu$")
            if not lab_file.match(lines[0][1]):
                problems.append(f"{dataset} {kernel}: where the cost is: the top line is {lines[0][1]}:{lines[0][2]}, "
                                f"not in lab{kernel[3:5]}'s .cu file")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("bench")
    p.add_argument("--size", default="64K")
    args = p.parse_args()
    problems = []
    tmp = tempfile.mkdtemp()
    size = parse_size(args.size)

    # Every kernel, counters and predictions for the same size.
    table_csv, lines_csv = os.path.join(tmp, "table.csv"), os.path.join(tmp, "lines.csv")
    text = run(args.bench, ["--size", args.size, "--datasets", "uniform,degenerate", "--lines",
                            "--csv", table_csv, "--lines-csv", lines_csv])
    csv_rows = {(r["kernel"], r["dataset"]): r for r in csv.DictReader(open(table_csv))}
    found = check_output(text, size, size, True, problems, csv_rows)
    kernels = sorted({k for _, _, rows in found.values() for k in rows} - {"probe"})
    check_lines(text, csv_rows, lines_csv, problems)

    # One kernel per lab, the probe not named, predicted for 16 times the counted size.
    one_per_lab = sorted({k.split("/")[0]: k for k in kernels}.values())
    big = size * 16
    text2 = run(args.bench, ["--size", args.size, "--predict-size", str(big), "--datasets", "uniform",
                             "--kernels", ",".join(one_per_lab)])
    found2 = check_output(text2, size, big, False, problems)
    check_where_cost(text2, found2, problems)

    print(f"{len(kernels)} kernels of {len({k.split('/')[0] for k in kernels})} labs rendered")
    if problems:
        print("\n".join(problems))
        return 1
    print("the tables say what they show: wording, sizes, units, the probe row, the bounds, the "
          "legend against every row, lines adding up, where the cost is")
    return 0


if __name__ == "__main__":
    sys.exit(main())
