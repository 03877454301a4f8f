#!/usr/bin/env bash
# The [perf] tests of the solutions on Nsight Compute's counters, beside the CPU simulator's:
# one table per lab with each bound's value and verdict on both, and the bounds where they
# disagree (grading/histo_grading/ncu.py; the same passes as grade.py's GRADE_NCU=1 mode).
#
# usage: scripts/ncu_perf.sh [GPU_BUILD] [SIM_BUILD] [LABS]
#   GPU_BUILD  a GPU build with the solutions (default build/gpu; the graders built if missing)
#   SIM_BUILD  a simulator build with the solutions and its counters (Clang), e.g.
#              cmake --preset sim -B build/sim-sol -DHISTO_BUILD_SOLUTIONS=ON; default
#              build/sim-sol; where missing, only the GPU's values are shown
#   LABS       default "lab02 lab03 lab04 lab05 lab06"
# Output: OUT (default GPU_BUILD/report/ncu_perf)/LAB/: ncu.csv, ncu_calls.txt, ncu_counts.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
gpu_build=${1:-build/gpu}
sim_build=${2:-build/sim-sol}
labs=${3:-lab02 lab03 lab04 lab05 lab06}
out=${OUT:-$gpu_build/report/ncu_perf}
command -v ncu > /dev/null || { echo "ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
[ -f "$gpu_build/CMakeCache.txt" ] || cmake --preset gpu -B "$gpu_build" > /dev/null
targets=()
for lab in $labs; do targets+=("${lab}_solution_grader"); done
cmake --build "$gpu_build" --target "${targets[@]}"
for lab in $labs; do
  folder=$(cd "$lab"_* && basename "$PWD")
  grader=$gpu_build/$folder/${lab}_solution_grader
  sim=$sim_build/$folder/${lab}_solution_sim_grader
  echo "== $lab"
  if [ -x "$sim" ]; then
    python3 grading/histo_grading/ncu.py passes "$grader" "$out/$lab" "$sim"
  else
    python3 grading/histo_grading/ncu.py passes "$grader" "$out/$lab"
  fi
done
