#!/usr/bin/env bash
# Measures the cost model's constants on this machine's GPU (bench/calibrate.cu says what each
# microbenchmark measures) and writes them as JSON.
#
# usage: scripts/calibrate.sh [BUILD_DIR] [OUT_JSON]   (default build/gpu, BUILD_DIR/report/calibration.json)
# The committed H200 run is report/calibration.json; sim/src/gpus.cpp cites it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
out=${2:-$build/report/calibration.json}
if [ ! -x "$build/bench/histo_calibrate" ]; then
  cmake --preset gpu > /dev/null
  cmake --build --preset gpu --target histo_calibrate
fi
mkdir -p "$(dirname "$out")"
"$build/bench/histo_calibrate" > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
