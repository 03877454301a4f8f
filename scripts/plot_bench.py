#!/usr/bin/env python3
"""Plots histo_bench's CSV: GB/s per kernel, one group of bars per dataset, log scale, with the
read-only probe drawn as the limit. usage: plot_bench.py bench.csv out.png"""
import csv
import sys
from collections import OrderedDict


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py needs matplotlib (pip install matplotlib)", file=sys.stderr)
        return 1
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["gbps"]]
    if not rows:
        print("no timed rows in " + sys.argv[1], file=sys.stderr)
        return 1
    datasets = list(OrderedDict.fromkeys(r["dataset"] for r in rows))
    kernels = [k for k in OrderedDict.fromkeys(r["kernel"] for r in rows) if k != "probe"]
    rate = {(r["kernel"], r["dataset"]): float(r["gbps"]) for r in rows}
    width = 0.8 / max(1, len(kernels))
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(datasets) + 0.25 * len(kernels)), 5.5))
    for i, kernel in enumerate(kernels):
        xs = [d + i * width for d in range(len(datasets)) if (kernel, datasets[d]) in rate]
        ys = [rate[(kernel, ds)] for ds in datasets if (kernel, ds) in rate]
        ax.bar(xs, ys, width, label=kernel)
    for d, ds in enumerate(datasets):
        if ("probe", ds) in rate:
            ax.hlines(rate[("probe", ds)], d - width / 2, d + 0.8 - width / 2, colors="black",
                      linestyles="dashed", label="read-only probe" if d == 0 else None)
    ax.set_yscale("log")
    ax.set_ylabel("GB/s (input bytes / median time)")
    ax.set_xticks([d + 0.4 - width / 2 for d in range(len(datasets))])
    ax.set_xticklabels(datasets)
    ax.set_title("Byte histogram throughput on " + rows[0]["gpu"])
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=130)
    print("wrote " + sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
