#!/usr/bin/env python3
"""Rewrites the measured tables of the handouts from the reference run's numbers.json.

usage: scripts/sync_numbers.py [--check] [REPORT_DIR]     (default REPORT_DIR: report/)

Each table a handout quotes sits between two markers:
    <!-- numbers:NAME -->
    ...generated: the table, then a line naming the run it comes from...
    <!-- /numbers -->
TABLES below says which file holds each NAME and what goes in it (numbers.json keys). Without
--check the regions are rewritten in place; with --check nothing is written and the exit status
is 1 when a region is out of date, missing, or names a key the run lacks.
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL = ["uniform", "degenerate", "skewed", "text", "image", "alternating", "runs"]
SIX = ["uniform", "degenerate", "skewed", "text", "image", "runs"]

# name: (file, kind, columns, rows). kind "kernels": one row per kernel (label, key pattern(s)
# with {d} for the column); "datasets": one row per column entry, one column per kernel;
# "sizes": like "datasets" with sizes ({d} is 64K, 1M, ...), each column label naming its unit.
SIZES = ["64K", "1M", "16M", "256M", "1G"]
UD = ["uniform", "degenerate"]
TABLES = {
    "overview": ("README.md", "kernels", ["uniform", "degenerate"], [
        ("read-only probe, 16-byte loads (the limit)", ["probe.{d}.gbps"]),
        ("CUB `DeviceHistogram::HistogramEven`", ["cub.{d}.gbps"]),
        ("lab01 segmented, global atomics", ["lab01.segmented.{d}.gbps"]),
        ("lab02 interleaved, global atomics", ["lab02.interleaved.{d}.gbps"]),
        ("lab03 warp-aggregated global atomics", ["lab03.aggregated.{d}.gbps"]),
        ("lab04 per-block shared atomics, byte loads / 16-byte loads",
         ["lab04.shared.{d}.gbps", "lab04.shared_vec16.{d}.gbps"]),
        ("lab05 per-thread packed 8-bit counters", ["lab05.packed.{d}.gbps"]),
        ("lab06 periodic merge / capstone (32 lane copies)",
         ["lab06.merge.{d}.gbps", "lab06.capstone.{d}.gbps"]),
        ("CPU, all cores, private histograms", ["cpu.parallel.{d}.gbps"]),
    ]),
    "lab01": ("lab01_naive/README.md", "kernels", SIX, [
        ("lab01 segmented, global atomics", ["lab01.segmented.{d}.gbps"]),
        ("read-only probe (16-byte loads)", ["probe.{d}.gbps"]),
        ("CUB `HistogramEven`", ["cub.{d}.gbps"]),
        ("CPU, 1 thread / all cores", ["cpu.sequential.{d}.gbps", "cpu.parallel.{d}.gbps"]),
    ]),
    "lab02": ("lab02_interleaved/README.md", "kernels", SIX, [
        ("read-only probe, byte loads, segmented", ["lab02.probe_segmented.{d}.gbps"]),
        ("read-only probe, byte loads, interleaved", ["lab02.probe_interleaved.{d}.gbps"]),
        ("read-only probe, 16-byte loads (the limit)", ["probe.{d}.gbps"]),
        ("lab01 histogram, segmented", ["lab01.segmented.{d}.gbps"]),
        ("lab02 histogram, interleaved", ["lab02.interleaved.{d}.gbps"]),
    ]),
    "lab03-sweep": ("lab03_global_atomics/README.md", "datasets", ["256", "64", "16", "4", "1"], [
        ("distinct values", None),
        ("global", ["lab03.sweep.global.{d}.gbps"]),
        ("aggregated", ["lab03.sweep.aggregated.{d}.gbps"]),
    ]),
    "lab03": ("lab03_global_atomics/README.md", "datasets", ALL, [
        ("dataset", None),
        ("global", ["lab03.global.{d}.gbps"]),
        ("aggregated", ["lab03.aggregated.{d}.gbps"]),
    ]),
    "lab04": ("lab04_shared_privatized/README.md", "kernels", ["uniform", "degenerate", "skewed", "text"], [
        ("lab02 interleaved, global atomics", ["lab02.interleaved.{d}.gbps"]),
        ("lab04 shared, byte loads", ["lab04.shared.{d}.gbps"]),
    ]),
    "lab04-loads": ("lab04_shared_privatized/README.md", "kernels", ["uniform", "degenerate", "text", "runs"], [
        ("`shared` (byte loads)", ["lab04.shared.{d}.gbps"]),
        ("`shared_vec16` (16-byte loads)", ["lab04.shared_vec16.{d}.gbps"]),
        ("`shared_runs` (16-byte loads, run aggregation)", ["lab04.shared_runs.{d}.gbps"]),
        ("CUB `DeviceHistogram::HistogramEven`", ["cub.{d}.gbps"]),
    ]),
    "lab05": ("lab05_per_thread_packed/README.md", "kernels", ["uniform", "degenerate"], [
        ("lab04 `shared` (per-block, shared atomics, byte loads)", ["lab04.shared.{d}.gbps"]),
        ("lab04 `shared_vec16` (per-block, shared atomics, 16-byte loads)", ["lab04.shared_vec16.{d}.gbps"]),
        ("lab05 `per_row` (per-thread 8-bit counters, one histogram per row)", ["lab05.per_row.{d}.gbps"]),
        ("lab05 `per_column` (per-thread 8-bit counters, one histogram per column)",
         ["lab05.per_column.{d}.gbps"]),
        ("lab05 `packed` (per-thread, 8-bit packed, byte loads)", ["lab05.packed.{d}.gbps"]),
    ]),
    "lab06": ("lab06_overflow/README.md", "kernels", ["uniform", "degenerate"], [
        ("`check` (overflow check, spill at 128)", ["lab06.check.{d}.gbps"]),
        ("`avoid` (overflow avoidance, 63 words per thread)", ["lab06.avoid.{d}.gbps"]),
        ("`merge` (periodic merge every 63 words)", ["lab06.merge.{d}.gbps"]),
    ]),
    "lab06-capstone": ("lab06_overflow/README.md", "kernels", ["uniform", "degenerate"], [
        ("`capstone` (32 lane copies, shared atomics, two 16-byte loads)", ["lab06.capstone.{d}.gbps"]),
        ("CUB `HistogramEven`", ["cub.{d}.gbps"]),
        ("read-only probe (16-byte loads: the limit)", ["probe.{d}.gbps"]),
        ("capstone / CUB (x)", ["capstone.vs_cub.{d}"]),
        ("capstone / probe (%)", ["capstone.pct_probe.{d}"]),
    ]),
    # Cells: uniform / degenerate.
    "lab06-sizes": ("lab06_overflow/README.md", "sizes", SIZES, [
        ("input", None),
        ("probe (us)", [f"probe.size.{u}.{{d}}.us" for u in UD]),
        ("probe after the 1 KiB memset (% of probe)", [f"probe.after_memset.size.{u}.{{d}}.pct_probe" for u in UD]),
        ("CUB (% of probe)", [f"cub.size.{u}.{{d}}.pct_probe" for u in UD]),
        ("lab04 `shared_vec16` (% of probe)", [f"lab04.shared_vec16.size.{u}.{{d}}.pct_probe" for u in UD]),
        ("`capstone` (% of probe)", [f"lab06.capstone.size.{u}.{{d}}.pct_probe" for u in UD]),
        ("`capstone` (us)", [f"lab06.capstone.size.{u}.{{d}}.us" for u in UD]),
        ("`capstone` / CUB (x)", [f"lab06.capstone.size.{u}.{{d}}.vs_cub" for u in UD]),
    ]),
}

REGION = re.compile(r"(<!-- numbers:([\w.-]+) -->\n)(.*?)(<!-- /numbers -->)", re.S)


def show(value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def generate(name, numbers, missing):
    file, kind, columns, rows = TABLES[name]

    def cell(patterns, d):
        out = []
        for p in patterns:
            key = p.format(d=d)
            if key not in numbers:
                missing.append(key)
                out.append("?")
            else:
                out.append(show(numbers[key]))
        return " / ".join(out)

    lines = []
    if kind == "kernels":
        lines.append("| kernel (GB/s) | " + " | ".join(columns) + " |")
        lines.append("|---" * (len(columns) + 1) + "|")
        for label, patterns in rows:
            lines.append(f"| {label} | " + " | ".join(cell(patterns, d) for d in columns) + " |")
    else:
        head, kernels = rows[0][0], rows[1:]
        unit = "" if kind == "sizes" else " (GB/s)"
        lines.append(f"| {head} | " + " | ".join(label + unit for label, _ in kernels) + " |")
        lines.append("|---" * (len(kernels) + 1) + "|")
        for d in columns:
            shown = d[:-1] + " " + d[-1] + "iB" if kind == "sizes" else d
            lines.append(f"| {shown} | " + " | ".join(cell(p, d) for _, p in kernels) + " |")
    meta = numbers.get("meta", {})
    mib = meta.get("sweep_mib") if name.endswith("-sweep") else meta.get("input_mib")
    inputs = "each size as its row says; cells: uniform / degenerate" if kind == "sizes" else f"{mib} MiB inputs"
    lines.append("")
    link = os.path.relpath("report/README.md", os.path.dirname(file) or ".")
    lines.append(f"*From the reference run in [`report/`]({link}): {meta.get('gpu', '?')}, "
                 f"driver {meta.get('driver', '?')}, {meta.get('date', '?')}, {inputs}" +
                 (".*" if kind == "sizes" else ", GB/s = input bytes / median time.*"))
    return "\n".join(lines) + "\n"


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    report = args[0] if args else os.path.join(ROOT, "report")
    path = os.path.join(report, "numbers.json")
    if not os.path.exists(path):
        print(f"sync_numbers: no reference run: {path} is missing (scripts/report.sh on a GPU, then "
              "copy its report folder to report/ as report/README.md says)", file=sys.stderr)
        return 1
    numbers = json.load(open(path))
    problems, changed, rewritten = [], [], {}
    for file in sorted({t[0] for t in TABLES.values()}):
        full = os.path.join(ROOT, file)
        text = open(full).read()
        found = set()

        def replace(m):
            name = m.group(2)
            found.add(name)
            if name not in TABLES or TABLES[name][0] != file:
                problems.append(f"{file}: unknown table marker numbers:{name}")
                return m.group(0)
            missing = []
            body = generate(name, numbers, missing)
            for key in missing:
                problems.append(f"{file}: table {name}: key {key} is not in {path}")
            if body != m.group(3):
                changed.append(f"{file}: table {name}")
            return m.group(1) + body + m.group(4)

        new = REGION.sub(replace, text)
        for name, spec in TABLES.items():
            if spec[0] == file and name not in found:
                problems.append(f"{file}: no <!-- numbers:{name} --> ... <!-- /numbers --> region")
        if new != text:
            rewritten[full] = new
    for p in problems:
        print("sync_numbers: " + p, file=sys.stderr)
    if check:
        for c in changed:
            print(f"sync_numbers: out of date: {c} (run scripts/sync_numbers.py)", file=sys.stderr)
        if not problems and not changed:
            print(f"sync_numbers: every handout table matches {path}")
        return 1 if problems or changed else 0
    if problems:
        print("sync_numbers: nothing written", file=sys.stderr)
        return 1
    for full, new in rewritten.items():
        with open(full, "w") as f:
            f.write(new)
    print(f"sync_numbers: {len(changed)} table(s) rewritten from {path}" +
          "".join(f"\n  {c}" for c in changed))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
