#!/usr/bin/env python3
"""The simulator's per-line counters against Nsight Compute's source view on the H200: writes
report/lines.md from what scripts/gpu_check.sh --part ncu collected on the GPU.

  scripts/compare_lines.py NCU_DIR [--build build/sim-instructor] [--out report/lines.md]

NCU_DIR holds that run's ncu/lines/ (NAME.csv per kernel, ncu_lines.log). The simulator's side
is counted here, on the same input (4 MiB of uniform data, seed 2026), by a simulator build with
the solutions (the sim-instructor preset): its histo_bench and
mistake_lab05_slow_merge_unrotated_sim_bench, built when missing, with --lines-csv.

Per kernel and source line, compared: global requests (loads, stores and atomics: Nsight
Compute's L1 Tag Requests Global), global load and store sectors (L2 Theoretical Sectors
Global; a line with atomics is not compared there: Nsight Compute counts the sectors an atomic
touches, the simulator its passes), shared-memory wavefronts (L1 Wavefronts Shared), their
conflict-free number (L1 Wavefronts Shared Ideal) and so the bank conflicts. A line agrees when
each of its counts is within 2% (or 1 count) of Nsight Compute's. A line that does not, where
sim/tests/known_limits.csv (check "lines", subject NAME:FILE:LINE) lists every count that
differs, is a known limit: marked so, with the reason, in the table and here. Exit 1 when a
kernel's source page cannot be read (the columns it has are printed)."""
import argparse
import csv
import datetime
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = [  # (the CSV's name in NCU_DIR, kernel id, which simulator benchmark)
    ("lab05_packed", "lab05/packed", "solutions"),
    ("lab05_packed_unrotated", "lab05/packed", "lab05_slow_merge_unrotated"),
    ("lab04_shared", "lab04/shared", "solutions"),
    ("lab06_capstone", "lab06/capstone", "solutions"),
]
TITLES = {
    "lab05_packed": "lab05/packed (the solution)",
    "lab05_packed_unrotated": "lab05/packed with the merge unrotated (common/tests/mistakes/lab05_slow_merge_unrotated.cmake)",
    "lab04_shared": "lab04/shared (the solution)",
    "lab06_capstone": "lab06/capstone (the solution)",
}
NCU_COLUMNS = {
    "requests": "L1 Tag Requests Global",
    "sectors": "L2 Theoretical Sectors Global",
    "wavefronts": "L1 Wavefronts Shared",
    "ideal": "L1 Wavefronts Shared Ideal",
}
COUNTS = ("requests", "sectors", "wavefronts", "ideal", "conflicts")
TOLERANCE = 0.02
KNOWN_LIMITS = os.path.join(ROOT, "sim", "tests", "known_limits.csv")


def known_limits():
    """{"NAME:FILE:LINE": (set of counts, reason)} of the lines the comparison cannot settle."""
    out = {}
    for r in csv.DictReader(open(KNOWN_LIMITS, newline="")):
        if r["check"] == "lines":
            counts = set(r["counters"].split())
            if counts - set(COUNTS):
                sys.exit(f"{KNOWN_LIMITS}: {r['subject']}: unknown counts {sorted(counts - set(COUNTS))}")
            out[r["subject"]] = (counts, r["reason"])
    return out


def number(text):
    text = (text or "").replace(",", "").strip()
    if text in ("", "-", "n/a"):
        return 0.0
    try:
        return float(text)
    except ValueError:
        return 0.0


def read_ncu(path):
    """{(file name, line): {count: value}, ...} from an ncu --page source --csv export: sections
    of one source file each ("File Path" rows), a header row naming the columns, then rows of
    CUDA lines (a line number) and, with --print-source cuda,sass, their SASS instructions (an
    address, no line number) after each. A line's counts are those on its own row, or the sum of
    its instructions' where the line's row has none."""
    rows = list(csv.reader(open(path, newline="", encoding="utf-8-sig")))
    lines, file_name, header, current = {}, "?", None, None
    for row in rows:
        if not row:
            continue
        if row[0] == "File Path" and len(row) > 1:
            file_name, header, current = os.path.basename(row[1]), None, None
            continue
        if row[0] == "Function Name":
            continue
        if "Source" in row and any(c in row for c in ("Line No", "#", "Line", "# Line", "Address")):
            header = {}
            for i, name in enumerate(row):
                header.setdefault(name, i)
            missing = [c for c in NCU_COLUMNS.values() if c not in header]
            if missing:
                raise ValueError(f"{path}: the source page has no column {missing}; its columns: {row}")
            continue
        if header is None:
            continue
        line_column = next((header[c] for c in ("Line No", "# Line", "Line", "#") if c in header), None)
        line_text = row[line_column].strip() if line_column is not None and line_column < len(row) else ""
        values = {k: number(row[header[c]]) if header[c] < len(row) else 0.0 for k, c in NCU_COLUMNS.items()}
        if line_text.isdigit():
            current = lines.setdefault((file_name, int(line_text)), {"own": {k: 0.0 for k in NCU_COLUMNS},
                                                                      "sass": {k: 0.0 for k in NCU_COLUMNS}})
            for k, v in values.items():
                current["own"][k] += v
        elif current is not None:  # one SASS instruction of the line above
            for k, v in values.items():
                current["sass"][k] += v
    out = {}
    for key, parts in lines.items():
        counts = parts["own"] if any(parts["own"].values()) else parts["sass"]
        counts = dict(counts)
        counts["conflicts"] = counts["wavefronts"] - counts["ideal"]
        if any(counts.values()):
            out[key] = counts
    if not rows or not out and header is None:
        raise ValueError(f"{path}: no source page with per-line counters in it")
    return out


def read_sim(lines_csv, kernel):
    """{(file name, line): {count: value, "text": ..., "atomics": bool}} from --lines-csv."""
    out = {}
    for r in csv.DictReader(open(lines_csv)):
        if r["kernel"] != kernel or r["line"] == "?":
            continue
        name, _, line = r["line"].rpartition(":")
        m = lambda metric: number(r[metric])
        wavefronts = sum(m(f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{k}.sum") for k in ("ld", "st", "atom"))
        conflicts = sum(m(f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{k}.sum") for k in ("ld", "st", "atom"))
        out[(name, int(line))] = {
            "requests": sum(m(f"l1tex__t_requests_pipe_lsu_mem_global_op_{k}.sum") for k in ("ld", "st", "red", "atom")),
            "sectors": m("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + m("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
            "wavefronts": wavefronts,
            "ideal": wavefronts - conflicts,
            "conflicts": conflicts,
            "atomics": m("l1tex__t_requests_pipe_lsu_mem_global_op_red.sum") + m("l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum") > 0,
            "text": r["text"],
        }
    return out


def sim_lines(build, which, kernels):
    """Runs the simulator's benchmark (building it first when missing) and returns its
    --lines-csv file."""
    if which == "solutions":
        target, exe = "histo_bench", os.path.join(build, "bench", "histo_bench")
    else:
        target = f"mistake_{which}_sim_bench"
        exe = os.path.join(build, "common", "tests", "mistakes", target)
    if not os.path.exists(exe):
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            # Not configured yet: the sim-instructor preset, into this folder.
            subprocess.run(["cmake", "--preset", "sim-instructor", "-B", build], cwd=ROOT, check=True)
        subprocess.run(["cmake", "--build", build, "--target", target, "-j", str(os.cpu_count() or 2)],
                       check=True)
    path = os.path.join(tempfile.mkdtemp(), f"{which}.lines.csv")
    run = subprocess.run([exe, "--model", "h200", "--kernels", ",".join(sorted(kernels)), "--datasets", "uniform",
                          "--size", "4M", "--lines-csv", path], capture_output=True, text=True)
    if run.returncode != 0 or "Incomplete counters" in run.stdout:
        sys.exit(f"{exe} failed or cannot count plain accesses (it needs Clang):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
    return path


def agrees(a, b):
    return abs(a - b) <= max(1.0, TOLERANCE * max(abs(a), abs(b)))


def fmt(v):
    return f"{v:.0f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ncu_dir")
    p.add_argument("--build", default=os.path.join(ROOT, "build", "sim-instructor"))
    p.add_argument("--out", default=os.path.join(ROOT, "report", "lines.md"))
    args = p.parse_args()

    log = open(os.path.join(args.ncu_dir, "ncu_lines.log")).read().splitlines()
    gpu = log[0].strip() if log else "?"
    ncu_version = next((l.strip() for l in log[:4] if "Version" in l or "version" in l), "?")
    date = next((l.strip() for l in log[:4] if re.fullmatch(r"\d{4}-\d\d-\d\d", l.strip())), "?")

    csvs = {}
    for which in sorted({w for _, _, w in KERNELS}):
        csvs[which] = sim_lines(args.build, which, {k for _, k, w in KERNELS if w == which})

    out = [
        "# The simulator's per-line counters against Nsight Compute's source view",
        "",
        f"Each kernel once on 4 MiB of uniform data (seed 2026, the [perf] tests' input): Nsight "
        f"Compute's source page (`--section SourceCounters`, CUDA lines) on an {gpu} ({ncu_version}, "
        f"{date}; `scripts/gpu_check.sh --part ncu`), beside the CPU simulator's counters by source line with the "
        f"H200's shape (`histo_bench --model h200 --lines-csv`); written by `scripts/compare_lines.py`. "
        f"Per line, simulator / Nsight Compute: global requests (loads, stores, atomics), global load "
        f"and store sectors, shared wavefronts, conflict-free wavefronts, bank conflicts. A line agrees "
        f"when each count is within {TOLERANCE:.0%} (or 1); a line with global atomics is not compared on "
        f"sectors (Nsight Compute counts the sectors an atomic touches, the simulator its passes).",
        "",
    ]
    summary, failed, limits, used, printed = [], False, known_limits(), set(), []
    for name, kernel, which in KERNELS:
        try:
            ncu = read_ncu(os.path.join(args.ncu_dir, f"{name}.csv"))
        except (OSError, ValueError) as e:
            print(f"{name}: {e}")
            failed = True
            continue
        sim = read_sim(csvs[which], kernel)
        files = {f for f, _ in sim}
        keys = sorted(set(sim) | {k for k in ncu if k[0] in files})
        out += [f"## {TITLES[name]}", "",
                "| line | code | global requests | global ld/st sectors | shared wavefronts | conflict-free wavefronts | bank conflicts | agree |",
                "|---|---|---|---|---|---|---|---|"]
        agreeing, known = 0, []
        for key in keys:
            s = sim.get(key, {c: 0.0 for c in COUNTS} | {"atomics": False, "text": ""})
            g = ncu.get(key, {c: 0.0 for c in COUNTS})
            compared = [c for c in COUNTS if not (c == "sectors" and s["atomics"])]
            differing = {c for c in compared if not agrees(s[c], g[c])}
            subject = f"{name}:{key[0]}:{key[1]}"
            limit = limits.get(subject)
            if limit and differing:
                used.add(subject)
            verdict = "yes"
            if differing and limit and differing <= limit[0]:
                verdict = f"known limit ({len(known) + 1})"
                known.append(f"({len(known) + 1}) {key[0]}:{key[1]}, {' and '.join(sorted(differing))}: {limit[1]}")
            elif differing:
                verdict = "**no**"
            agreeing += not differing
            cells = [f"{fmt(s[c])} / {fmt(g[c])}" if c in compared else f"{fmt(s[c])} passes / {fmt(g[c])}"
                     for c in COUNTS]
            text = s["text"].replace("|", "\\|")
            out.append(f"| {key[0]}:{key[1]} | `{text}` | " + " | ".join(cells) + f" | {verdict} |")
        if known:
            out += ["", "Known limits (`sim/tests/known_limits.csv`):", *[f"- {k}" for k in known]]
            printed.append(f"{TITLES[name]}, known limits:")
            printed += [f"  {k}" for k in known]
        top = lambda d: max(d, key=lambda k: d[k]["conflicts"]) if d and max(v["conflicts"] for v in d.values()) > 0 else None
        ts, tg = top(sim), top({k: v for k, v in ncu.items() if k[0] in files})
        summary.append(f"- {TITLES[name]}: {agreeing} of {len(keys)} lines agree"
                       f"{'' if not known else ', 1 more differs as a known limit' if len(known) == 1 else f', {len(known)} more differ as known limits'}"
                       f"; the most bank "
                       f"conflicts: {'%s:%d' % ts if ts else 'none'} in the simulator, "
                       f"{'%s:%d' % tg if tg else 'none'} on the H200")
        out.append("")
    stale = sorted(s for s in limits if s not in used)
    out[4:4] = ["Summary:", *summary, *[f"- {s}: listed as a known limit, but it agrees or was not compared (sim/tests/known_limits.csv: remove it)" for s in stale], ""]
    if failed:
        return 1
    with open(args.out, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print("\n".join(summary + printed + [s for s in out if "listed as a known limit" in s]))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
