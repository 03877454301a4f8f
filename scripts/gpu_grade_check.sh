#!/usr/bin/env bash
# On a GPU machine: the batch grader's default GPU grading grades the cost tests, with the same
# maximum as every other way of grading. Grades two lab06 submissions with grade.py's defaults
# (engine gpu; its cost tests counted by the simulator's build of the same source where clang++
# is found, else by Nsight Compute): the solution, and the solution with its capstone's lane
# copies colliding (lane % 16: correct, bank-conflicted: common/tests/mistakes/
# lab06_slow_half_the_copies.cmake). The colliding one must lose the points of
# "cost: the capstone's lane copies take one wavefront per shared atomic", the solution score
# every point, and both maxima equal grading/tests/check_points.py's (the sim engine's).
# usage: scripts/gpu_grade_check.sh [OUT]   (default $OUT or build/gpu-grade-check); exit 1 if not
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/build/gpu-grade-check}}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# ncu is in the CUDA Toolkit's bin folder, which PATH may lack.
command -v ncu > /dev/null || export PATH="/usr/local/cuda/bin:$PATH"
lab=lab06
folder=lab06_overflow
mkdir -p "$work/subs/solution" "$work/subs/colliding_copies"
cp "$root/solutions/$folder/$folder.cu" "$work/subs/solution/"
cmake -D MODE=apply -D MISTAKE="$root/common/tests/mistakes/lab06_slow_half_the_copies.cmake" \
  -D SOLUTION="$root/solutions/$folder/$folder.cu" -D MUTATED="$work/subs/colliding_copies/$folder.cu" \
  -P "$root/common/tests/mistakes/mistake.cmake" || exit 1
expected=$(python3 "$root/grading/tests/check_points.py" --print | awk -v lab="$lab:" '$1 == lab { print $3 }' | tr -d ,)
echo "== grading $lab with grade.py's defaults (expected maximum: $expected, from grading/points/)"
start=$(date +%s)
GRADE_BUILD_SLOTS=${GRADE_BUILD_SLOTS:-2} python3 "$root/grading/grade.py" run "$lab" "$work/subs" \
  "$work/grading" 2>&1 | tee "$out/grade.log"
echo "== graded in $(( $(date +%s) - start )) s"
for s in solution colliding_copies; do
  cp "$work/grading/$s/results.json" "$out/$s.results.json" 2>/dev/null
done
cp "$work/grading/grades.csv" "$out/grades.csv" 2>/dev/null
python3 - "$out" "$expected" <<'PY' | tee "$out/summary.txt"
import json, sys
from pathlib import Path
out, expected = Path(sys.argv[1]), float(sys.argv[2] or "nan")
LANES = "cost: the capstone's lane copies take one wavefront per shared atomic"
ok = True
def say(good, what):
    global ok
    ok &= good
    print(("ok: " if good else "FAIL: ") + what)
results = {}
for s in ("solution", "colliding_copies"):
    path = out / f"{s}.results.json"
    if not path.exists():
        say(False, f"{s}: no results.json (see grade.log)")
        continue
    r = results[s] = json.loads(path.read_text())
    e = r["extra_data"]
    cost = {t["name"]: t for t in r["tests"] if ": cost: " in t["name"]}
    print(f"{s}: {r['score']:g} of {e['max_score']:g} (engine {e['engine']}, cost counted by "
          f"{e.get('cost_counted_by') or 'nothing'}; status {e['status']})")
    for name, t in sorted(cost.items()):
        print(f"    {t.get('status', 'skipped'):7} {t['score']:g}/{t['max_score']:g}  {name}")
    say(e["max_score"] == expected, f"{s}: the maximum {e['max_score']:g} is the sim engine's ({expected:g})")
    say(bool(cost) and all(t.get("status") in ("passed", "failed") for t in cost.values()),
        f"{s}: every cost test graded, none left 'not graded' ({len(cost)})")
    if "ncu" in e:
        print(f"    Nsight Compute: {e['ncu'].get('error') or 'counted'}; disagreements with the "
              f"simulator: {len(e['ncu'].get('disagree', []))}; simulator: {e['ncu'].get('simulator')}")
if "solution" in results:
    r = results["solution"]
    say(r["score"] >= r["extra_data"]["max_score"], "the solution scores every point")
if "colliding_copies" in results:
    lanes = [t for t in results["colliding_copies"]["tests"] if t["name"].endswith(LANES)]
    say(bool(lanes) and all(t.get("status") == "failed" and t["score"] == 0 for t in lanes),
        f"the colliding copies lose the lane-copies cost test's points ({[t.get('status') for t in lanes]})")
    others = [t for t in results["colliding_copies"]["tests"] if not t["name"].endswith(LANES)
              and t.get("status") == "failed"]
    say(not others, f"and fail nothing else ({[t['name'] for t in others][:3]})")
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
PY
