#!/usr/bin/env bash
# Nsight Compute's source-level counters, line by line, for the kernels whose per-line counts the
# CPU simulator's are compared with (scripts/compare_lines.py writes report/lines.md from them):
# lab05/packed, lab05/packed with its merge unrotated (the slow mistake
# common/tests/mistakes/lab05_slow_merge_unrotated.cmake), lab04/shared and lab06/capstone, each
# one launch on 4 MiB of uniform data (seed 2026, the [perf] tests' input).
#
# usage: scripts/ncu_lines.sh [OUT_DIR]      (default: $OUT, else build/gpu/report/ncu_lines)
#   JOBS  parallel build jobs (default 16)
#
# It configures the gpu preset, builds histo_bench and mistake_lab05_slow_merge_unrotated_bench
# (the lab05 kernels with the mistake made), then per kernel runs the benchmark under
#   ncu --section SourceCounters --import-source yes -k regex:KERNEL -c 1
# (the first launch: the benchmark's correctness check on that input) and exports the report's
# source page, CUDA lines with their SASS, as CSV (--page source --csv --print-source cuda,sass;
# `cuda` alone where this ncu lacks the pair). It also measures the read probe on 1 GiB (its
# 16-byte loads now use __ldg). Writes into OUT_DIR:
#   NAME.csv          the source page of each kernel (lab05_packed, lab05_packed_unrotated,
#                     lab04_shared, lab06_capstone)
#   reports.tar.gz    the four .ncu-rep files
#   ncu_lines.log     GPU, driver, ncu version, the build's and ncu's output, the probe's table
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-build/gpu/report/ncu_lines}}
jobs=${JOBS:-16}
command -v ncu > /dev/null || { echo "ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
mkdir -p "$out"
log=$out/ncu_lines.log
: > "$log"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
  ncu --version | tail -n 1
  date -u +%Y-%m-%d
} >> "$log" 2>&1
start=$SECONDS
if ! { cmake --preset gpu && cmake --build --preset gpu -j "$jobs" \
         --target histo_bench mistake_lab05_slow_merge_unrotated_bench; } >> "$log" 2>&1; then
  tail -n 40 "$log" >&2
  exit 1
fi
echo "built in $((SECONDS - start)) s"
bench=build/gpu/bench/histo_bench
slow=build/gpu/common/tests/mistakes/mistake_lab05_slow_merge_unrotated_bench

# profile NAME BINARY KERNEL_ID KERNEL_FUNCTION
profile() {
  local name=$1 binary=$2 id=$3 function=$4 t=$SECONDS
  echo "== $name: $id ($function)" >> "$log"
  if ! ncu --section SourceCounters --import-source yes -k "regex:$function" -c 1 -f \
      -o "$out/$name" "$binary" --kernels "$id" --datasets uniform --size 4M --reps 3 >> "$log" 2>&1; then
    echo "   ncu failed on $name (see $log)" >&2
    return 1
  fi
  if ! ncu --import "$out/$name.ncu-rep" --page source --csv --print-source cuda,sass \
      > "$out/$name.csv" 2>> "$log"; then
    echo "   (this ncu has no --print-source cuda,sass: CUDA lines only)" >> "$log"
    ncu --import "$out/$name.ncu-rep" --page source --csv --print-source cuda > "$out/$name.csv" 2>> "$log"
  fi
  echo "   $name: $(wc -l < "$out/$name.csv") CSV lines, $((SECONDS - t)) s"
}
failed=0
profile lab05_packed "$bench" lab05/packed histogram_packed_kernel || failed=1
profile lab05_packed_unrotated "$slow" lab05/packed histogram_packed_kernel || failed=1
profile lab04_shared "$bench" lab04/shared histogram_shared_kernel || failed=1
profile lab06_capstone "$bench" lab06/capstone histogram_capstone_kernel || failed=1
(cd "$out" && tar czf reports.tar.gz ./*.ncu-rep && rm -f ./*.ncu-rep)

echo "== the read probe, 1 GiB" >> "$log"
"$bench" --kernels probe --datasets uniform,degenerate --size 1G >> "$log" 2>&1 || failed=1
grep -E "^probe " "$log" | sed 's/^/   /' || true
echo "done in $((SECONDS - start)) s; files in $out:"
ls -l "$out"
exit $failed
