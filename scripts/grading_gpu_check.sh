#!/usr/bin/env bash
# On a machine with a GPU: what grading checks of a submission's code and its host counting hold
# there as in the simulator. One command, about 8 minutes on one H200 with 16 cores.
#   1. the solutions' graders and common_tests, built with nvcc for this GPU, linked with the
#      graders' wrappers of the CUDA runtime (--wrap, common/src/runtime_watch.cpp): the GPU
#      tests of common_tests pass (a copy of device memory to the host, a copy into the bins, are
#      seen), and so do the solutions' GPU tests of lab01, lab04 and lab06 (no honest copy is
#      taken for host counting);
#   2. what a submission's code may use (grading/histo_grading/codecheck.py) on nvcc's objects:
#      every lab's skeleton and solution passes, each cheat is refused (grading.codecheck's
#      script on this build);
#   3. lab01 samples graded by grade.py with the GPU engine: the correct one scores every point;
#      host-count-byvalue ("device memory copied to the host") and host-count-dummy ("bins
#      copied in from the host") score 0 on the GPU too.
# usage: scripts/grading_gpu_check.sh [BUILD]   (default build/gpu-grading); results under $OUT
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu-grading}
out=${OUT:-$build/grading-gpu-check}
mkdir -p "$out"
jobs=$(nproc)
fail=0
say() { echo "$*" | tee -a "$out/summary.txt"; }
: > "$out/summary.txt"

# 1. Build and run the GPU tests that the wrappers touch.
cmake --preset instructor -B "$build" -DCMAKE_CUDA_ARCHITECTURES=native -DHISTO_SIM=OFF \
  -DHISTO_BUILD_BENCH=OFF > "$out/configure.log" 2>&1 || { say "FAIL: configure (configure.log)"; exit 1; }
targets=(common_tests)
for lab in lab01 lab02 lab03 lab04 lab05 lab06; do targets+=("${lab}_student" "${lab}_solution"); done
targets+=(lab01_solution_grader lab04_solution_grader lab06_solution_grader)
if cmake --build "$build" -j "$jobs" --target "${targets[@]}" > "$out/build.log" 2>&1; then
  say "ok: built ${#targets[@]} targets"
else
  say "FAIL: build (build.log)"; tail -20 "$out/build.log"; exit 1
fi
if "$build/common/common_tests" "[gpu]" --reporter compact > "$out/common_tests.log" 2>&1; then
  say "ok: common_tests [gpu]: $(tail -1 "$out/common_tests.log")"
else
  say "FAIL: common_tests [gpu] (common_tests.log)"; grep -B2 -A8 "FAILED" "$out/common_tests.log" | head -40; fail=1
fi
for lab in lab01 lab04 lab06; do
  folder=$(cd "$lab"_* && basename "$PWD")
  if timeout 300 "$build/$folder/${lab}_solution_grader" "[gpu]~[large]" --reporter compact > "$out/$lab.log" 2>&1; then
    say "ok: $lab solution [gpu]~[large]: $(tail -1 "$out/$lab.log")"
  else
    say "FAIL: $lab solution [gpu]~[large] ($lab.log)"; grep -A8 "FAILED" "$out/$lab.log" | head -30; fail=1
  fi
done

# 2. What the code may use, on nvcc's objects.
if python3 grading/tests/check_codecheck.py "$build" "$build/codecheck" > "$out/codecheck.log" 2>&1; then
  say "ok: codecheck: $(tail -1 "$out/codecheck.log")"
else
  say "FAIL: codecheck (codecheck.log)"; grep "FAIL" "$out/codecheck.log" | head -20; fail=1
fi

# 3. Host counting graded on the GPU.
work=$build/gpu-samples
rm -rf "$work"
python3 grading/samples/make_samples.py --lab lab01 --kinds correct,host-count-byvalue,host-count-dummy \
  3 "$work/subs" > /dev/null
if GRADE_TEST_TIMEOUT=120 python3 grading/grade.py run lab01 "$work/subs" "$work/out" --engine gpu \
    > "$out/grade.log" 2>&1; then
  cp "$work/out/grades.csv" "$out/grades.csv"
  python3 - "$work/out/grades.csv" <<'PY' | tee -a "$out/summary.txt" || fail=1
import csv, sys
rows = {r["submission"]: r for r in csv.DictReader(open(sys.argv[1]))}
want = {"s02-host-count-byvalue": "device memory copied to the host",
        "s03-host-count-dummy": "bins copied in from the host"}
bad = 0
good = rows.get("s01-correct")
if good and good["status"].startswith("ok") and float(good["score"]) == float(good["max_score"]) > 0:
    print(f"ok: s01-correct scores {good['score']} of {good['max_score']} on the GPU")
else:
    bad = 1; print(f"FAIL: s01-correct: {good}")
for name, said in want.items():
    r = rows.get(name)
    if r and float(r["score"]) == 0 and said in r["status"]:
        print(f"ok: {name}: 0 points, {r['status']}")
    else:
        bad = 1; print(f"FAIL: {name}: {r}")
sys.exit(bad)
PY
else
  say "FAIL: grade.py (grade.log)"; tail -20 "$out/grade.log"; fail=1
fi
[ $fail -eq 0 ] && say "ALL OK" || say "SOME CHECKS FAILED"
exit $fail
