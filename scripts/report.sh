#!/usr/bin/env bash
# The main job: build the solutions and run the benchmark report on the built-in datasets,
# sized to the device. With a GPU the build targets just that GPU (preset gpu); without one it
# uses the default architectures (preset instructor) and reports the CPU rows, saying why the
# GPU rows are absent, then every kernel's counters in the CPU simulator with the time the H200's
# cost model predicts (predicted.csv; predictions, never measurements). Extra arguments go to histo_bench's dataset run and contention sweep
# (try --help).
#
# With a GPU it also runs, for the slides and handouts:
#   - lab03's contention sweep (histo_bench --sweep);
#   - a size sweep (64 KiB .. 1 GiB) of the probe (also behind a 1 KiB memset), CUB and the
#     fastest kernels;
#   - Nsight Compute on lab05's three counter layouts (shared-memory bank conflicts), when ncu
#     is on PATH and may read the GPU's counters.
# Then scripts/figures.py turns the CSVs into numbers.json and figures/ (needs matplotlib).
#
# usage: scripts/report.sh [histo_bench options]
# Writes build/<preset>/report/: benchmark.csv, sweep.csv, sizes.csv, ncu/, meta.json,
# numbers.json, figures/*.svg and *.png. The committed reference run in report/ is a copy of
# such a folder (report/README.md says how).
set -euo pipefail
cd "$(dirname "$0")/.."
if nvidia-smi -L > /dev/null 2>&1; then preset=gpu; gpu=yes; else preset=instructor; gpu=no; fi
echo "== building preset '$preset' (cmake --preset $preset && cmake --build --preset $preset)"
cmake --preset "$preset" > /dev/null
cmake --build --preset "$preset"
report=build/$preset/report
bench=build/$preset/bench/histo_bench
mkdir -p "$report"
rm -f "$report/sweep.csv" "$report/sizes.csv" "$report/predicted.csv"
rm -rf "$report/ncu"

echo "== 1. the benchmark on the built-in datasets"
"$bench" --csv "$report/benchmark.csv" "$@"

if [ "$gpu" = yes ]; then
  echo "== 2. lab03's contention sweep: 256, 64, 16, 4, 1 distinct values"
  "$bench" --sweep --csv "$report/sweep.csv" "$@" ||
    echo "   the contention sweep failed: lab03's sweep figure will be missing" >&2

  echo "== 3. the size sweep: probe, CUB and the fastest kernels from 64 KiB to 1 GiB"
  # probe/after_memset: the probe behind the 1 KiB memset that every launcher here issues.
  # 101 repetitions: at the small sizes one lasts microseconds and single ones scatter widely.
  "$bench" --sizes 64K,1M,16M,256M,1G --reps 101 \
    --kernels probe,probe/after_memset,cub,lab04/shared_vec16,lab06/merge,lab06/capstone \
    --datasets uniform,degenerate --csv "$report/sizes.csv" ||
    echo "   the size sweep failed: the capstone's size figure will be missing" >&2

  echo "== 4. Nsight Compute: shared-memory bank conflicts of lab05's three layouts"
  if command -v ncu > /dev/null 2>&1; then
    mkdir -p "$report/ncu"
    metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
    ncu_ok=yes
    for layout in packed per_row per_column; do
      for dataset in uniform degenerate; do
        # One launch (the benchmark's checked run) of the layout's kernel on 16 MiB.
        if ! ncu --csv --print-units base --metrics "$metrics" \
            -k "regex:histogram_${layout}_kernel" -c 1 \
            --log-file "$report/ncu/lab05_${layout}_${dataset}.csv" \
            "$bench" --kernels "lab05/$layout" --datasets "$dataset" --size 16M --reps 1 \
            > "$report/ncu/lab05_${layout}_${dataset}.log" 2>&1; then
          ncu_ok=no
          echo "   ncu failed on lab05/$layout ($dataset): see $report/ncu/lab05_${layout}_${dataset}.log"
        fi
      done
    done
    # Paths relative to the repository: the logs travel with the committed reference run.
    for f in "$report"/ncu/*; do [ -f "$f" ] && sed -i "s#$PWD/##g" "$f"; done
    if [ "$ncu_ok" = no ]; then
      echo "   (ERR_NVGPUCTRPERM in the log means this user may not read GPU counters: run as an"
      echo "    administrator, or see NVIDIA's note on enabling performance counters.)"
    fi
  else
    echo "   ncu (Nsight Compute) is not on PATH: lab05's figure will say bank conflicts were not measured"
  fi
else
  echo "== 2-4. the contention sweep, the size sweep and Nsight Compute need a GPU: skipped"
  echo "   (no GPU found by nvidia-smi; numbers.json and the figures will hold only the CPU rows)"
  # What a GPU would show, as the CPU simulator counts it and the H200's cost model predicts it
  # (sim/README.md): labelled as predictions, never mixed into the measured tables.
  sim_bench=build/$preset/bench/histo_bench_sim
  if [ -x "$sim_bench" ]; then
    echo "== 2b. without a GPU: every kernel's counters in the CPU simulator and the time the"
    echo "   NVIDIA H200's cost model PREDICTS for 1 GiB (not measured; $report/predicted.csv)"
    "$sim_bench" --model h200 --size 1M --predict-size 1G --csv "$report/predicted.csv" ||
      echo "   the simulator's report failed: no predictions" >&2
  fi
fi

# What the numbers were measured on, for numbers.json's meta.
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1 || true)
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 || true)
cat > "$report/meta.json" <<EOF
{
  "gpu": "${gpu_name:-none}",
  "driver": "${driver:-none}",
  "date": "$(date -u +%Y-%m-%d)",
  "commit": "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)",
  "preset": "$preset",
  "nvcc": "$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1)"
}
EOF

echo "== 5. numbers.json and figures"
if python3 scripts/figures.py "$report"; then
  echo "== figures: $report/figures/  numbers: $report/numbers.json"
else
  echo "== scripts/figures.py failed (see above): the CSVs are still in $report" >&2
fi
echo "== table: $report/benchmark.csv"
