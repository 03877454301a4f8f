#!/usr/bin/env python3
"""Turns one report folder (scripts/report.sh's output) into numbers.json and the figures that
the slides and handouts use.

usage: scripts/figures.py REPORT_DIR
       scripts/figures.py --sim SIM_CSV OUT_DIR   (no GPU run: lab05's figure from the simulator)

Reads   REPORT_DIR/benchmark.csv   histo_bench on the built-in datasets (required)
        REPORT_DIR/sweep.csv       histo_bench --sweep (lab03's contention sweep)
        REPORT_DIR/sizes.csv       histo_bench --sizes ... (capstone vs CUB vs probe by size)
        REPORT_DIR/ncu/*.csv       Nsight Compute on lab05's layouts (bank conflicts)
        REPORT_DIR/meta.json       GPU, driver, date (written by report.sh)
Writes  REPORT_DIR/numbers.json    every quoted number under a stable key, plus "meta"
        REPORT_DIR/figures/NAME.svg and NAME.png, one message each (names: FIGURES below)

Keys of numbers.json (kernel ids as `histo_bench --list` prints them, "/" -> "."):
  <lab>.<kernel>.<dataset>.gbps | .ms | .pct_probe | .vs_lab01 | .vs_cub
  probe.<dataset>.gbps, cub.<dataset>.gbps, cpu.<sequential|parallel>.<dataset>.gbps
  lab01.racy.<dataset>.lost_pct                     counts the racy demo lost
  <lab>.sweep.<kernel>.<distinct>.gbps              contention sweep, distinct = 256 .. 1
  <lab>.<kernel>.size.<dataset>.<64K|1M|...>.gbps | .us | .pct_probe | .vs_cub   size sweep
  probe.after_memset.size.<dataset>.<size>.us | .pct_probe   the probe after zeroing the bins
  lab05.<layout>.<dataset>.bank_conflicts_ld | _st  Nsight Compute (when it ran)
  capstone.vs_cub.<dataset>, capstone.pct_probe.<dataset>
A figure or key whose input is missing is left out, with a message saying why: the slide
renderer then names exactly what is absent.

--sim draws lab05's figure from `histo_bench --model GPU --labs lab05 --csv SIM_CSV` in a
simulator build: bank conflicts counted by the simulator, GB/s predicted by that GPU's cost
model, both labelled so (nothing in it is measured).
"""
import csv
import glob
import json
import os
import re
import sys
from collections import OrderedDict

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
OKABE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
PROBE_COLOUR = "#000000"
DATASETS = ["uniform", "degenerate", "skewed", "text", "image", "alternating", "runs"]
FIGURES = ["lab01_02_access_vs_atomics", "lab03_contention", "lab04_ladder", "lab05_layouts",
           "lab06_policies", "capstone_sizes", "overview_pct_probe"]


def read_csv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def key_of(kernel):
    """probe -> probe, cub/HistogramEven -> cub, lab04/shared_vec16 -> lab04.shared_vec16."""
    if kernel.startswith("cub/"):
        return "cub"
    return kernel.replace("/", ".")


def size_label(n):
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if n >= (1 << shift) and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def rate(gbps):
    """Rounded the way histo_bench prints GB/s: 3 significant figures or whole numbers."""
    return round(gbps) if gbps >= 100 else round(gbps, 1) if gbps >= 10 else round(gbps, 2)


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


class Numbers:
    def __init__(self):
        self.values = OrderedDict()

    def put(self, key, value):
        if value is not None:
            self.values[key] = value


def dataset_numbers(rows, numbers):
    for r in rows:
        k, ds = key_of(r["kernel"]), r["dataset"]
        lost = re.search(r"lost ([0-9.]+)% of counts", r["result"])
        if lost:
            numbers.put(f"{k}.{ds}.lost_pct", float(lost.group(1)))
        g = num(r["gbps"])
        if g is None:
            continue
        numbers.put(f"{k}.{ds}.gbps", rate(g))
        numbers.put(f"{k}.{ds}.ms", round(float(r["median_ms"]), 3))
        ratio_numbers(r, k, f"{k}.{ds}", numbers)


def ratio_numbers(r, k, prefix, numbers):
    """The ratios histo_bench printed for row r (% probe, x lab01, x CUB), under prefix; not a
    yardstick's ratio to itself."""
    for col, digits in (("pct_probe", 1), ("vs_lab01", 1), ("vs_cub", 2)):
        v = num(r[col])
        if v is not None and (col, k) not in (("pct_probe", "probe"), ("vs_cub", "cub")):
            numbers.put(f"{prefix}.{col}", round(v, digits))


def gbps_table(rows):
    """{(kernel, dataset): GB/s} of the timed rows."""
    return {(r["kernel"], r["dataset"]): float(r["gbps"]) for r in rows if num(r["gbps"]) is not None}


def sweep_numbers(rows, numbers):
    for r in rows:
        g = num(r["gbps"])
        m = re.fullmatch(r"distinct(\d+)", r["dataset"])
        if g is None or not m:
            continue
        k = key_of(r["kernel"])
        head, _, tail = k.partition(".")
        key = f"{head}.sweep.{tail}.{m.group(1)}.gbps" if tail else f"{head}.sweep.{m.group(1)}.gbps"
        numbers.put(key, rate(g))


def size_numbers(rows, numbers):
    for r in rows:
        g = num(r["gbps"])
        if g is None:
            continue
        k, ds, label = key_of(r["kernel"]), r["dataset"], size_label(int(r["bytes"]))
        numbers.put(f"{k}.size.{ds}.{label}.gbps", rate(g))
        numbers.put(f"{k}.size.{ds}.{label}.us", round(1000 * float(r["median_ms"]), 1))
        ratio_numbers(r, k, f"{k}.size.{ds}.{label}", numbers)


def read_ncu(folder):
    """{(layout, dataset): {"ld": conflicts, "st": conflicts}} from ncu --csv logs."""
    found = {}
    for path in sorted(glob.glob(os.path.join(folder, "lab05_*_*.csv"))):
        m = re.fullmatch(r"lab05_(packed|per_row|per_column)_(\w+)\.csv", os.path.basename(path))
        if not m:
            continue
        with open(path, newline="") as f:
            lines = [line for line in f if line.startswith('"')]
        values = {}
        for r in csv.DictReader(lines):
            name = r.get("Metric Name", "")
            value = num((r.get("Metric Value") or "").replace(",", ""))
            if value is None:
                continue
            if name.endswith("_op_ld.sum"):
                values["ld"] = value
            elif name.endswith("_op_st.sum"):
                values["st"] = value
        if "ld" in values and "st" in values:
            found[(m.group(1), m.group(2))] = values
    return found


# ---------------------------------------------------------------------------------- figures

def setup_matplotlib():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({
        "font.size": 15, "axes.titlesize": 17, "axes.labelsize": 15, "legend.fontsize": 13,
        "xtick.labelsize": 13, "ytick.labelsize": 13, "axes.spines.top": False,
        "axes.spines.right": False, "svg.fonttype": "none", "figure.dpi": 100,
    })
    return plt


class Figures:
    def __init__(self, plt, out_dir, footer):
        self.plt, self.out_dir, self.footer = plt, out_dir, footer
        self.inputs = ""
        self.written, self.missing = [], []
        os.makedirs(out_dir, exist_ok=True)

    def new(self, ncols=1):
        return self.plt.subplots(1, ncols, figsize=(12.8, 6.4), squeeze=False)

    def save(self, fig, name, inputs=None, bottom=0.03):
        """bottom: the share of the height below the axes (footer, a figure-wide legend)."""
        footer = self.footer.format(inputs=inputs or self.inputs)
        fig.text(0.995, 0.005, footer, ha="right", va="bottom", fontsize=11, color="#444444")
        fig.tight_layout(rect=(0, bottom, 1, 1))
        for ext in ("svg", "png"):
            fig.savefig(os.path.join(self.out_dir, f"{name}.{ext}"), dpi=150 if ext == "png" else None)
        self.plt.close(fig)
        self.written.append(name)

    def skip(self, name, why):
        self.missing.append((name, why))
        for ext in ("svg", "png"):  # never leave a stale figure from an earlier run behind
            path = os.path.join(self.out_dir, f"{name}.{ext}")
            if os.path.exists(path):
                os.remove(path)


def bars(ax, groups, series, values, colours, log=True, labels=None, annotate=True):
    """Grouped bars: one group per entry of `groups`, one bar per series (missing ones skipped)."""
    width = 0.8 / max(1, len(series))
    for i, s in enumerate(series):
        xs, ys = [], []
        for g, group in enumerate(groups):
            v = values.get((s, group))
            if v is not None:
                xs.append(g - 0.4 + width * (i + 0.5))
                ys.append(v)
        b = ax.bar(xs, ys, width * 0.92, color=colours[i % len(colours)],
                   label=(labels or {}).get(s, s))
        if annotate and len(groups) * len(series) <= 12:
            ax.bar_label(b, labels=[f"{rate(y):g}" for y in ys], fontsize=11, padding=2)
    ax.set_xticks(range(len(groups)))
    if log:
        ax.set_yscale("log")


def fig_access(figs, table):
    name = "lab01_02_access_vs_atomics"
    read = ["lab02/probe_segmented", "lab02/probe_interleaved"]
    hist = ["lab01/segmented", "lab02/interleaved"]
    if not all((k, "uniform") in table for k in read + hist):
        return figs.skip(name, "needs lab02's probes and lab01/lab02 kernels on uniform data (GPU rows)")
    fig, axes = figs.new(2)
    for ax, kernels, title in ((axes[0][0], read, "reading only (probe, byte loads)"),
                               (axes[0][1], hist, "counting (global atomics)")):
        vals = [table[(k, "uniform")] for k in kernels]
        b = ax.bar(["segmented", "interleaved"], vals, color=[OKABE[3], OKABE[0]], width=0.6)
        ax.bar_label(b, labels=[f"{rate(v):g}" for v in vals], fontsize=13, padding=2)
        ax.set_yscale("log")
        ax.set_ylim(0.5, 20000)
        ax.set_title(title)
        ax.set_ylabel("GB/s (log scale)")
    fig.suptitle("Segmented vs interleaved: reading alone, and counting with global atomics (uniform)",
                 fontsize=17)
    figs.save(fig, name)


def fig_contention(figs, sweep):
    name = "lab03_contention"
    kernels = [("lab03/global", "global atomics"), ("lab03/aggregated", "warp-aggregated")]
    pts = {k: sorted(((int(d[8:]), v) for (kk, d), v in sweep.items() if kk == k and d.startswith("distinct")),
                     reverse=True) for k, _ in kernels}
    if not all(pts[k] for k, _ in kernels):
        return figs.skip(name, "no contention sweep rows (sweep.csv from histo_bench --sweep on a GPU)")
    fig, axes = figs.new()
    ax = axes[0][0]
    for i, (k, label) in enumerate(kernels):
        xs, ys = zip(*pts[k])
        ax.plot(xs, ys, marker="os"[i], markersize=9, linewidth=2.5, color=OKABE[i], label=label)
        for x, y in zip(xs, ys):
            ax.annotate(f"{rate(y):g}", (x, y), textcoords="offset points", xytext=(0, 10 if i else -20),
                        ha="center", fontsize=11, color=OKABE[i])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks([256, 64, 16, 4, 1])
    ax.set_xticklabels(["256", "64", "16", "4", "1"])
    ax.set_xlim(400, 0.6)  # reversed: contention grows to the right
    ax.set_xlabel("distinct byte values in the input (fewer = more contention)")
    ax.set_ylabel("GB/s (log scale)")
    ax.set_title("Contention sweep: global vs warp-aggregated atomics")
    ax.legend()
    figs.save(fig, name, inputs=f"{figs.sweep_mib} MiB inputs")


def fig_ladder(figs, table):
    name = "lab04_ladder"
    steps = [("lab03/global", "global atomics (lab03)"), ("lab04/shared", "shared, byte loads"),
             ("lab04/shared_vec16", "shared, 16-byte loads"), ("lab04/shared_runs", "shared, runs")]
    datasets = [d for d in DATASETS if any((k, d) in table for k, _ in steps)]
    if not datasets or not any((steps[-1][0], d) in table for d in datasets):
        return figs.skip(name, "no lab04 GPU rows in benchmark.csv")
    fig, axes = figs.new()
    ax = axes[0][0]
    bars(ax, datasets, [k for k, _ in steps], table, OKABE, labels=dict(steps), annotate=False)
    for g, d in enumerate(datasets):
        if ("probe", d) in table:
            ax.hlines(table[("probe", d)], g - 0.45, g + 0.45, colors=PROBE_COLOUR, linestyles="dashed",
                      linewidth=2, label="read-only probe (the limit)" if g == 0 else None)
    ax.set_xticklabels(datasets)
    ax.set_ylabel("GB/s (log scale)")
    ax.set_title("Privatization ladder: each step per dataset")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=12)
    figs.save(fig, name)


def fig_layouts(figs, table, ncu, numbers):
    name = "lab05_layouts"
    layouts = [("lab05/per_row", "per row"), ("lab05/per_column", "per column"),
               ("lab05/packed", "packed 64x64")]
    datasets = ["uniform", "degenerate"]
    if not all((k, d) in table for k, _ in layouts for d in datasets):
        return figs.skip(name, "needs lab05/per_row, per_column and packed on uniform and degenerate (GPU rows)")
    fig, axes = figs.new(2)
    ax = axes[0][0]
    bars(ax, datasets, [k for k, _ in layouts], table, OKABE, log=False, labels=dict(layouts))
    ax.set_xticklabels(datasets)
    ax.set_ylabel("GB/s")
    ax.set_ylim(0, 1.3 * max(table[(k, d)] for k, _ in layouts for d in datasets))
    ax.set_title("Throughput")
    ax.legend(loc="upper left", fontsize=12, ncol=3)
    ax = axes[0][1]
    if all((k.split("/")[1], d) in ncu for k, _ in layouts for d in datasets):
        conflicts = {(k, d): ncu[(k.split("/")[1], d)]["ld"] + ncu[(k.split("/")[1], d)]["st"]
                     for k, _ in layouts for d in datasets}
        bars(ax, datasets, [k for k, _ in layouts], {kk: v / 1e6 for kk, v in conflicts.items()}, OKABE,
             log=False)
        ax.set_xticklabels(datasets)
        ax.set_ylabel("millions (shared loads + stores)")
        ax.set_title("Bank conflicts (Nsight Compute, 16 MiB)")
    else:
        ax.axis("off")
        ax.text(0.5, 0.5, "Bank conflicts not measured:\nNsight Compute (ncu) was absent\n"
                "or could not read the GPU counters\nwhen this report was made.",
                ha="center", va="center", fontsize=16, transform=ax.transAxes,
                bbox=dict(boxstyle="round", facecolor="#f2f2f2", edgecolor="#999999"))
    fig.suptitle("Three layouts of the same 8-bit counters", fontsize=18)
    figs.save(fig, name)


def fig_policies(figs, table):
    name = "lab06_policies"
    policies = [("lab06/check", "overflow check"), ("lab06/avoid", "overflow avoidance"),
                ("lab06/merge", "periodic merge")]
    datasets = [d for d in DATASETS if all((k, d) in table for k, _ in policies)]
    if not datasets:
        return figs.skip(name, "no lab06 GPU rows in benchmark.csv")
    fig, axes = figs.new()
    ax = axes[0][0]
    bars(ax, datasets, [k for k, _ in policies], table, OKABE, log=False, labels=dict(policies),
         annotate=False)
    ax.set_xticklabels(datasets)
    ax.set_ylabel("GB/s")
    ax.set_title("Three overflow policies, same packed kernel, every dataset")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=12)
    figs.save(fig, name)


def fig_sizes(figs, rows):
    name = "capstone_sizes"
    series = [("probe", "read-only probe (the ceiling)"),
              ("probe/after_memset", "probe after zeroing 1 KiB (ceiling for one call)"),
              ("cub/HistogramEven", "CUB HistogramEven"),
              ("lab06/capstone", "capstone"), ("lab04/shared_vec16", "lab04 shared, 16-byte"),
              ("lab06/merge", "lab06 periodic merge")]
    pts = {}
    for r in rows:
        g = num(r["gbps"])
        if g is not None:
            pts.setdefault((r["kernel"], r["dataset"]), []).append((int(r["bytes"]), g))
    datasets = [d for d in ("uniform", "degenerate") if ("lab06/capstone", d) in pts and ("probe", d) in pts]
    if not datasets:
        return figs.skip(name, "no size sweep rows (sizes.csv from histo_bench --sizes on a GPU)")
    fig, axes = figs.new(len(datasets))
    for ax, d in zip(axes[0], datasets):
        for i, (k, label) in enumerate(series):
            if (k, d) not in pts:
                continue
            xs, ys = zip(*sorted(pts[(k, d)]))
            if k.startswith("probe"):
                style = dict(color=PROBE_COLOUR, linewidth=2.5, linestyle="--" if k == "probe" else ":")
            else:
                style = dict(color=OKABE[i - 2], linewidth=2.5, marker="osd^v"[i - 2], markersize=8)
            ax.plot(xs, ys, label=label, **style)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ticks = sorted({x for (k, dd), p in pts.items() if dd == d for x, _ in p})
        ax.set_xticks(ticks)
        ax.set_xticklabels([size_label(t)[:-1] + " " + size_label(t)[-1] + "iB" for t in ticks])
        ax.set_xlabel("input size (log scale)")
        ax.set_ylabel("GB/s (log scale)")
        ax.set_title(f"{d} bytes")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=12, bbox_to_anchor=(0.5, 0.035))
    fig.suptitle("Capstone vs CUB vs the read limit, by input size", fontsize=18)
    figs.save(fig, name, inputs="inputs as on the axis", bottom=0.17)


def fig_overview(figs, table):
    name = "overview_pct_probe"
    kernels = [k for k in OrderedDict.fromkeys(k for k, _ in table)
               if k != "probe" and not k.startswith("cpu/") and "/probe_" not in k]
    datasets = [d for d in DATASETS if ("probe", d) in table]
    if not kernels or not datasets:
        return figs.skip(name, "no GPU rows in benchmark.csv (the probe is the 100% mark)")
    import numpy as np

    grid = np.full((len(kernels), len(datasets)), np.nan)
    for i, k in enumerate(kernels):
        for j, d in enumerate(datasets):
            if (k, d) in table:
                grid[i, j] = 100 * table[(k, d)] / table[("probe", d)]
    fig, ax = figs.plt.subplots(figsize=(12.8, 7.2))
    im = ax.imshow(grid, cmap="cividis", vmin=0, vmax=100, aspect="auto")
    for i in range(len(kernels)):
        for j in range(len(datasets)):
            if not np.isnan(grid[i, j]):
                v = grid[i, j]
                ax.text(j, i, f"{v:.0f}" if v >= 1 else f"{v:.1f}" if v >= 0.1 else "<0.1", ha="center", va="center", fontsize=14,
                        color="black" if v > 55 else "white")
    ax.set_xticks(range(len(datasets)))
    ax.set_xticklabels(datasets)
    ax.set_yticks(range(len(kernels)))
    ax.set_yticklabels(["CUB HistogramEven" if k.startswith("cub/") else k for k in kernels])
    ax.spines[:].set_visible(False)
    fig.colorbar(im, ax=ax, label="% of the read-only probe's GB/s")
    ax.set_title("Every kernel as % of the read-bandwidth limit, per dataset")
    figs.save(fig, name)


def sim_layouts(sim_csv, out_dir):
    """lab05's figure from the simulator's counters and the cost model's predictions."""
    rows = read_csv(sim_csv)
    layouts = [("lab05/per_row", "per row"), ("lab05/per_column", "per column"),
               ("lab05/packed", "packed 64x64")]
    datasets = ["uniform", "degenerate"]
    got = {(r["kernel"], r["dataset"]): r for r in rows}
    missing = [f"{k} on {d}" for k, _ in layouts for d in datasets if (k, d) not in got]
    if missing:
        print(f"figures.py: {sim_csv} lacks {', '.join(missing)} "
              "(histo_bench --model h200 --labs lab05 --datasets uniform,degenerate --csv FILE)",
              file=sys.stderr)
        return 1
    model = rows[0]["model"]
    try:
        plt = setup_matplotlib()
    except ImportError:
        print("figures.py: matplotlib is missing (python3 -m pip install matplotlib): no figures drawn",
              file=sys.stderr)
        return 1
    size_mib = int(rows[0]["bytes"]) >> 20
    figs = Figures(plt, out_dir, f"CPU simulator: counts of {size_mib} MiB inputs; GB/s PREDICTED by "
                                 f"the {model.upper()} cost model, not measured")
    fig, axes = figs.new(2)
    predicted = {(k, d): num(got[(k, d)]["predicted_gbps"]) or 0.0 for k, _ in layouts for d in datasets}
    ax = axes[0][0]
    bars(ax, datasets, [k for k, _ in layouts], predicted, OKABE, log=False, labels=dict(layouts))
    ax.set_xticklabels(datasets)
    ax.set_ylabel(f"GB/s, predicted ({model.upper()} model)")
    ax.set_ylim(0, 1.3 * max(predicted.values()))
    ax.set_title("Throughput (predicted)")
    ax.legend(loc="upper left", fontsize=12, ncol=3)
    ax = axes[0][1]
    conflicts = {(k, d): (num(got[(k, d)]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]) +
                          num(got[(k, d)]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"])) / 1e6
                 for k, _ in layouts for d in datasets}
    bars(ax, datasets, [k for k, _ in layouts], conflicts, OKABE, log=False)
    ax.set_xticklabels(datasets)
    ax.set_ylabel("millions (shared loads + stores)")
    ax.set_title(f"Bank conflicts (CPU simulator, {size_mib} MiB)")
    fig.suptitle("Three layouts of the same 8-bit counters (simulator)", fontsize=18)
    figs.save(fig, "lab05_layouts")
    print(f"figures.py: {', '.join(figs.written)} -> {out_dir}/")
    return 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--sim":
        return sim_layouts(sys.argv[2], sys.argv[3])
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    report = sys.argv[1]
    bench_rows = read_csv(os.path.join(report, "benchmark.csv"))
    if not bench_rows:
        print(f"figures.py: no {report}/benchmark.csv (run scripts/report.sh first)", file=sys.stderr)
        return 1
    sweep_rows = read_csv(os.path.join(report, "sweep.csv"))
    size_rows = read_csv(os.path.join(report, "sizes.csv"))
    ncu = read_ncu(os.path.join(report, "ncu"))
    meta_path = os.path.join(report, "meta.json")
    meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}

    numbers = Numbers()
    dataset_numbers(bench_rows, numbers)
    sweep_numbers(sweep_rows, numbers)
    size_numbers(size_rows, numbers)
    for (layout, d), v in sorted(ncu.items()):
        numbers.put(f"lab05.{layout}.{d}.bank_conflicts_ld", int(v["ld"]))
        numbers.put(f"lab05.{layout}.{d}.bank_conflicts_st", int(v["st"]))
    table = gbps_table(bench_rows)
    for d in DATASETS:
        cap, cub, probe = (table.get((k, d)) for k in ("lab06/capstone", "cub/HistogramEven", "probe"))
        if cap and cub:
            numbers.put(f"capstone.vs_cub.{d}", round(cap / cub, 2))
        if cap and probe:
            numbers.put(f"capstone.pct_probe.{d}", round(100 * cap / probe, 1))

    gpu = bench_rows[0]["gpu"]
    have_gpu = any(r["gpu"] != "none" for r in bench_rows)
    input_bytes = max(int(r["bytes"]) for r in bench_rows)
    meta_out = OrderedDict(gpu=meta.get("gpu") if meta.get("gpu") not in (None, "", "none") else gpu,
                           driver=meta.get("driver", "unknown"), date=meta.get("date", "unknown"),
                           input_bytes=input_bytes, input_mib=input_bytes >> 20,
                           sweep_mib=(max(int(r["bytes"]) for r in sweep_rows) >> 20) if sweep_rows else None,
                           sizes=sorted({size_label(int(r["bytes"])) for r in size_rows},
                                        key=lambda s: int(s[:-1]) << {"K": 10, "M": 20, "G": 30}.get(s[-1], 0))
                           if size_rows else [],
                           ncu="measured" if ncu else "absent",
                           commit=meta.get("commit", "unknown"), nvcc=meta.get("nvcc", "unknown"))
    out = OrderedDict(meta=meta_out)
    out.update(numbers.values)
    with open(os.path.join(report, "numbers.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"figures.py: {len(numbers.values)} numbers -> {report}/numbers.json")
    if not have_gpu:
        print("figures.py: benchmark.csv has no GPU rows (it was run without a GPU): "
              "numbers.json holds the CPU rows only; the GPU figures are not drawn")

    try:
        plt = setup_matplotlib()
    except ImportError:
        print("figures.py: matplotlib is missing (python3 -m pip install matplotlib): no figures drawn",
              file=sys.stderr)
        return 1
    footer = f"Measured on {meta_out['gpu']}, driver {meta_out['driver']}, {meta_out['date']}; " \
             "{inputs}; median of repeated runs"
    figs = Figures(plt, os.path.join(report, "figures"), footer)
    figs.inputs = f"{meta_out['input_mib']} MiB inputs"
    figs.sweep_mib = meta_out["sweep_mib"]
    sweep_table = gbps_table(sweep_rows)
    fig_access(figs, table)
    fig_contention(figs, sweep_table)
    fig_ladder(figs, table)
    fig_layouts(figs, table, ncu, numbers)
    fig_policies(figs, table)
    fig_sizes(figs, size_rows)
    fig_overview(figs, table)
    print(f"figures.py: {len(figs.written)} figures -> {report}/figures/ ({', '.join(figs.written) or 'none'})")
    for name, why in figs.missing:
        print(f"figures.py: figure {name} not drawn: {why}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
