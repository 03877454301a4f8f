#!/usr/bin/env bash
# Nsight Compute's memory counters for every registered kernel: the table the CPU simulator's
# counters are validated against (sim/README.md, CTest label perfmodel).
#
# usage: scripts/ncu_counters.sh [BUILD_DIR] [OUT_CSV]
#   BUILD_DIR  a GPU build with the solutions (default build/gpu; built if missing)
#   OUT_CSV    default BUILD_DIR/report/counters.csv; the committed copy is report/counters.csv
#   DATASETS   default uniform,degenerate,text;  SIZE  default 16M
#
# One ncu run per kernel and dataset profiles the first launch of `histo_bench --kernels K`
# (its correctness check, on the same input the timing uses) with caches flushed first, so
# DRAM bytes are those of a cold input. Output: one row per kernel and dataset, one column per
# metric, named exactly as Nsight Compute names it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
out=${2:-$build/report/counters.csv}
datasets=${DATASETS:-uniform,degenerate,text}
size=${SIZE:-16M}
# The metrics, and how ncu's CSV is read: grading/histo_grading/ncu.py (shared with the
# GRADE_NCU=1 grading mode).
ncu_py=grading/histo_grading/ncu.py
command -v ncu > /dev/null || { echo "ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
if [ ! -x "$build/bench/histo_bench" ]; then
  cmake --preset gpu > /dev/null
  cmake --build --preset gpu --target histo_bench
fi
bench=$build/bench/histo_bench
mkdir -p "$(dirname "$out")"
raw=$(dirname "$out")/ncu_counters  # one Nsight Compute CSV per kernel and dataset
rm -rf "$raw"
mkdir -p "$raw"

# Metrics this ncu knows on this GPU (a name it does not know would fail every run).
mapfile -t wanted < <(python3 "$ncu_py" metrics)
list=$(IFS=,; echo "${wanted[*]}")

kernels=$("$bench" --list | awk '$1 ~ /^lab0[1-6]\// {print $1}')
for k in $kernels; do
  for d in ${datasets//,/ }; do
    f=$raw/${k//\//_}_$d.csv
    if ! ncu --csv --print-units base --metrics "$list" \
        -k regex:'histogram|probe_(segmented|interleaved)' -c 1 --log-file "$f" \
        "$bench" --kernels "$k" --datasets "$d" --size "$size" --reps 3 > "$raw/ncu.log" 2>&1; then
      echo "   ncu failed on $k ($d):" >&2
      tail -n 5 "$raw/ncu.log" >&2
      continue
    fi
    echo "   $k $d" >&2
  done
done

python3 "$ncu_py" table "$raw" "$out" "$size" "${wanted[@]}"
