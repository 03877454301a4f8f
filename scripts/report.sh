#!/usr/bin/env bash
# The main job: build the solutions and run the benchmark report on the built-in datasets,
# sized to the device. With a GPU the build targets just that GPU (preset gpu); without one it
# uses the default architectures (preset instructor) and reports the CPU rows, saying why the
# GPU rows are absent. Extra arguments go to histo_bench (try --help).
#
# usage: scripts/report.sh [histo_bench options]
# Writes build/<preset>/report/benchmark.csv (and benchmark.png where matplotlib is installed).
set -euo pipefail
cd "$(dirname "$0")/.."
if nvidia-smi -L > /dev/null 2>&1; then preset=gpu; else preset=instructor; fi
echo "== building preset '$preset' (cmake --preset $preset && cmake --build --preset $preset)"
cmake --preset "$preset" > /dev/null
cmake --build --preset "$preset"
report=build/$preset/report
mkdir -p "$report"
echo "== running the benchmark"
build/$preset/bench/histo_bench --csv "$report/benchmark.csv" "$@"
if python3 scripts/plot_bench.py "$report/benchmark.csv" "$report/benchmark.png" > /dev/null 2>&1; then
  echo "== plot: $report/benchmark.png"
fi
echo "== table: $report/benchmark.csv"
