#!/usr/bin/env bash
# What the CPU simulator is validated against, measured in one go on a GPU machine (an NVIDIA
# H200): the cost model's microbenchmarks (with the L2's), every registered kernel timed at
# 16 MiB, and the textbook CUDA programs of sim/tests/cuda counted by Nsight Compute at 16 MiB
# and timed at 16 MiB and 1 GiB. About 6 minutes on 16 cores, the build included.
#
# usage: OUT=DIR scripts/gpu_sim_validation.sh
# Writes into $OUT:
#   calibration.json          bench/calibrate.cu's constants (report/calibration.json's form)
#   benchmark_16M.csv         histo_bench --size 16M --csv: every kernel and dataset, measured
#   cuda_programs_ncu.csv     one row per kernel launch of each program: Nsight Compute's metrics
#   cuda_programs_times.csv   program, kernel, bytes, median_us (event-timed, repeated launches)
#   summary.txt               what ran, how long each step took, what failed
# Then, in the repository: python3 sim/tests/gpu_validation.py apply $OUT (sim/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:?"set OUT to the folder the results go to"}
mkdir -p "$out"
jobs=$(nproc 2> /dev/null || echo 8)
summary=$out/summary.txt
: > "$summary"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start )) s] $*" | tee -a "$summary"; }
command -v nvcc > /dev/null || { say "nvcc is not on PATH"; exit 2; }
command -v ncu > /dev/null || { say "ncu (Nsight Compute) is not on PATH"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> "$summary" 2>&1 || true

# ---- Build: the benchmark and the microbenchmarks (the gpu preset, no graders), the programs.
say "building histo_bench and histo_calibrate (gpu preset)"
log=$out/build.log
cmake --preset gpu -DHISTO_MISTAKES_GPU=OFF > "$log" 2>&1
cmake --build --preset gpu --target histo_bench histo_calibrate -j "$jobs" >> "$log" 2>&1 ||
  { tail -n 30 "$log"; say "build failed"; exit 1; }
bin=build/gpu/cuda_programs
mkdir -p "$bin"
programs=()
for f in sim/tests/cuda/*.cu; do
  p=$(basename "$f" .cu)
  [ "$p" = host_call ] && continue  # must not build (a test of the build)
  programs+=("$p")
  nvcc -O3 -std=c++17 -arch=native -lineinfo -o "$bin/$p" "$f" >> "$log" 2>&1 &
done
wait
for p in "${programs[@]}"; do [ -x "$bin/$p" ] || { say "nvcc failed on $p.cu"; exit 1; }; done
rm -f "$log"  # only a failure's log is kept
say "built ${#programs[@]} programs"

# ---- The cost model's constants.
build/gpu/bench/histo_calibrate > "$out/calibration.json.tmp"
mv "$out/calibration.json.tmp" "$out/calibration.json"
say "calibration: $(tr -d '\n' < "$out/calibration.json" | grep -o '"l2_[a-z_]*": [0-9.e+]*' | tr '\n' ' ')"

# ---- Every registered kernel at 16 MiB, each timed as histo_bench times it (repeated launches).
build/gpu/bench/histo_bench --size 16M --budget-ms 300 --csv "$out/benchmark_16M.csv" > /dev/null
say "benchmark_16M.csv: $(($(wc -l < "$out/benchmark_16M.csv") - 1)) rows"

# ---- The programs: Nsight Compute at 16 MiB (every launch, caches flushed before each), then
# their own timing at 16 MiB and 1 GiB.
raw=$(mktemp -d)
mapfile -t wanted < <(python3 grading/histo_grading/ncu.py metrics 2> /dev/null)
metrics=$(IFS=,; echo "${wanted[*]}")
times=$raw/times.txt
: > "$times"
for p in "${programs[@]}"; do
  if ! ncu --csv --print-units base --metrics "$metrics" --log-file "$raw/$p.csv" \
      "$bin/$p" 16777216 > "$raw/$p.ncu.log" 2>&1; then
    say "ncu failed on $p (its output: $(tail -n 3 "$raw/$p.ncu.log" | tr '\n' ' '))"
  fi
  [ "$p" = racy ] && continue  # a race, not a timing
  for bytes in 16777216 1073741824; do
    # "PROGRAM BYTES MEDIAN_US KERNEL" (a kernel's name may hold spaces: last)
    "$bin/$p" "$bytes" 20 | sed -n "s/^time /$p $bytes /p" >> "$times" || say "$p failed at $bytes bytes"
  done
done
python3 sim/tests/gpu_validation.py collect "$raw" "$times" "$out/cuda_programs_ncu.csv" \
  "$out/cuda_programs_times.csv" | tee -a "$summary"
rm -rf "$raw"
say "done: $(ls "$out" | tr '\n' ' ')"
