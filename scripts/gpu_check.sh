#!/usr/bin/env bash
# The GPU check: one command on a machine with an NVIDIA GPU. It builds the `gpu` preset once
# (build/gpu) and runs the parts asked for, each within 6 minutes on one H200 with 16 cores, and all
# of them (--part all) within 10 there (docs/testing.md; summary.md gives each phase's time):
#   tests    one parallel CTest run: the solutions, common/, the integrity check, the benchmark's
#            tests and the mistakes graded on the GPU must pass; each lab's skeleton must fail
#            (it ships unsolved). Beside it, the solutions' tests with the GPU hidden
#            (CUDA_VISIBLE_DEVICES=: each GPU test must say skipped), and compute-sanitizer
#            memcheck and racecheck of every solution grader (inputs up to 1 MiB, no [large]).
#   bench    histo_bench, every kernel and dataset (1 GiB; BENCH_ARGS adds options, e.g.
#            "--size 256M"), and lab03's contention sweep: benchmark.csv, sweep.csv, figures/.
#   grade    lab06 graded with grade.py's defaults: the solution scores every point; its capstone
#            with colliding lane copies (common/tests/mistakes/lab06_slow_half_the_copies.cmake)
#            loses "cost: the capstone's lane copies take one wavefront per shared atomic" and
#            nothing else; every cost test is graded; both maxima are grading/points/'s.
#   grading  the graders' wrappers of the CUDA runtime on the GPU (common_tests [gpu]; lab01,
#            lab04, lab06 [gpu]~[large]: with tests, its runs are these); codecheck on nvcc's
#            objects; lab01's samples graded with the GPU engine in each sandbox mode this machine
#            allows (without Clang, their cost tests left out: Nsight Compute's grading is
#            grade's check): the correct one scores every point (extra credit may add), the
#            skeleton and the host-counting ones 0, saying why, the crashing one loses points,
#            saying crashed.
#   simval   what the CPU simulator is validated against: calibration.json, benchmark_16M.csv,
#            cuda_programs_ncu.csv, cuda_programs_times.csv, summary.txt (then, here:
#            python3 sim/tests/gpu_validation.py apply simval).
#   ncu      Nsight Compute: counters.csv (every kernel on uniform, degenerate and text, 16 MiB:
#            report/counters.csv's form); lines/, NAME.csv per kernel and ncu_lines.log (then:
#            scripts/compare_lines.py ncu/lines); perf/, each lab's [perf] bounds on ncu's
#            counters, beside the simulator's where SIM_BUILD (default build/sim-sol) has them.
# simval and ncu's counters and lines run first, alone on the GPU: they time it or count over the
# whole device. Then the other parts side by side, Nsight Compute's users one at a time (two
# profilers cannot share a GPU: grade.py profiles only where no Clang is found); bench beside other
# parts is a check, not a measurement. grade.py grades from the checkout as it is, wherever it
# lies (a folder only root may enter included: it stages what its sandboxed runs need).
#
# usage: scripts/gpu_check.sh [--part NAME[,NAME...]] [OUTPUT_DIR]
#   NAME: tests (the default), bench, grade, grading, simval, ncu, or all; OUTPUT_DIR: default
#   build/gpu-check. It gets summary.md (also printed: one line per phase, "PASS|FAIL PHASE:
#   N passed, N failed, N skipped, T s", then "RESULT: PASS|FAIL") and PART.tar.gz per part,
#   which unpacks to PART/ (its logs and results): at most 7 files, no folder. The work is done
#   in build/gpu-check-work/. Exit 1 when something that must pass fails.
set -uo pipefail
umask 022
parts=tests
out=
while [ $# -gt 0 ]; do
  case $1 in
    --part) parts=${2:-}; shift 2 || shift ;;
    --part=*) parts=${1#--part=}; shift ;;
    -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
[ "$parts" = all ] && parts=tests,bench,grade,grading,simval,ncu
[ -n "$parts" ] || { echo "--part needs a name (see --help)" >&2; exit 2; }
for p in ${parts//,/ }; do
  case $p in tests|bench|grade|grading|simval|ncu) ;;
    *) echo "unknown part '$p': tests, bench, grade, grading, simval, ncu or all" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
out=${out:-$root/build/gpu-check}
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 2
cd "$root" || exit 2
work=$root/build/gpu-check-work
bin=build/gpu
jobs=$(nproc)
rm -rf "$work" && mkdir -p "$work/steps" || exit 2
# grade.py's build slots, kept where its sandboxed builds reach them whatever the checkout's
# folder (a checkout under /root included).
slots=${TMPDIR:-/tmp}/histo-gpu-check-slots
for p in summary.md build.tar.gz tests.tar.gz bench.tar.gz grade.tar.gz grading.tar.gz simval.tar.gz ncu.tar.gz; do
  rm -f "${out:?}/$p"
done
for p in ${parts//,/ }; do mkdir -p "$work/$p"; done
# ncu and compute-sanitizer are in the CUDA Toolkit's bin folder, which PATH may lack.
command -v ncu > /dev/null || export PATH="$PATH:/usr/local/cuda/bin"

has() { [[ ",$parts," == *",$1,"* ]]; }
# note PHASE ok|FAIL|skip TEXT: one step of a phase, which its line counts.
note() { echo "$2: $3" >> "$work/steps/$1"; }
# check PHASE LOG WHAT COMMAND...: a step that passes when COMMAND exits 0 (its output in LOG).
check() {
  local phase=$1 log=$2 what=$3 rc
  shift 3
  "$@" > "$log" 2>&1
  rc=$?
  if [ $rc = 0 ]; then note "$phase" ok "$what"; else note "$phase" FAIL "$what: exit $rc (${log#"$work"/})"; fi
  return $rc
}
# phase NAME START [END]: the phase's summary line; it passes when a step passed and none failed.
phase() {
  local f=$work/steps/$1 n_ok n_fail n_skip verdict=FAIL
  touch "$f"
  n_ok=$(grep -c '^ok:' "$f"); n_fail=$(grep -c '^FAIL:' "$f"); n_skip=$(grep -c '^skip:' "$f")
  [ "$n_fail" = 0 ] && [ "$n_ok" -gt 0 ] && verdict=PASS
  echo "$verdict $1: $n_ok passed, $n_fail failed, $n_skip skipped, $(( ${3:-$SECONDS} - $2 )) s" |
    tee "$f.line"
}
# One "ok|FAIL|skip: NAME" line per test of a CTest log.
ctest_steps() {
  sed -nE 's/^.*Test +#[0-9]+: (.*[^ .]) \.+ *(\*\*\*)?(Passed|Failed|Skipped|Timeout|Not Run|Exception).*$/\3: \1/p' "$1" |
    sed -E 's/^Passed:/ok:/; s/^Skipped:/skip:/; s/^(Failed|Timeout|Not Run|Exception):/FAIL:/'
}
# need_ncu PHASE: false, and the phase failed, where ncu is not on PATH.
need_ncu() {
  command -v ncu > /dev/null && return
  note "$1" FAIL "ncu (Nsight Compute) is not on PATH"
  phase "$1" $SECONDS
  return 1
}
lab_dir() { local dirs=("$1"_*/); echo "${dirs[0]%/}"; }
build_all() {
  local t=$SECONDS d=$work/build targets=(all)
  mkdir -p "$d"
  has ncu && targets+=(mistake_lab05_slow_merge_unrotated_bench)  # what ncu's lines profile
  check build "$d/configure.log" "configure (preset gpu)" cmake --preset gpu &&
    check build "$d/build.log" "build (${targets[*]})" cmake --build --preset gpu -j "$jobs" --target "${targets[@]}" &&
    check build "$d/doctor.log" "histo_doctor: this GPU runs the build" "$bin/common/histo_doctor"
  local rc=$?
  phase build "$t"
  return $rc
}

part_tests() {
  local t=$SECONDS d=$work/tests g lab n n_fail want end_tests
  # compute-sanitizer over every solution grader, beside CTest: each grader's [gpu]~[large] test
  # cases dealt into SAN_CHUNKS runs (default 4), so that no one grader sets the time.
  local chunks=${SAN_CHUNKS:-4} name
  for g in "$bin"/lab0*/lab0*_solution_grader; do
    name=$(basename "$g" _solution_grader)
    # One name a line, as a Catch2 test spec: its special characters (a comma) escaped.
    "$g" "[gpu]~[large]" --list-tests --verbosity quiet | sed '/^$/d; s/[]\\,[*"]/\\&/g; s/^~/\\~/' \
      > "$d/$name.cases"
    split -n "r/$chunks" -d "$d/$name.cases" "$d/$name.cases."
    for c in "$d/$name".cases.*; do
      [ -s "$c" ] && printf '%s %s %s\n' memcheck "$g" "$c" racecheck "$g" "$c"
    done
  done > "$d/sanitize.jobs"
  # shellcheck disable=SC2016  # the script of sh -c expands its own arguments
  { HISTO_GRADER_MAX_N=${HISTO_GRADER_MAX_N:-1048576} D=$d xargs -P "$jobs" -L 1 sh -c '
      log=sanitize-$(basename "$1" _solution_grader)-$0-${2##*.}.log
      timeout 900 compute-sanitizer --tool "$0" --error-exitcode 99 "$1" --input-file "$2" > "$D/$log" 2>&1
      echo "$? $log"' < "$d/sanitize.jobs" > "$d/sanitize.rc"
    echo $SECONDS > "$d/sanitize.end"; } &
  # The solutions' tests with the GPU hidden: their GPU tests must say skipped, never passed.
  { CUDA_VISIBLE_DEVICES='' ctest --test-dir "$bin" -L '^solution$' -LE sanitize -j "$jobs" \
      > "$d/gpu-hidden.log" 2>&1; echo $SECONDS > "$d/gpu-hidden.end"; } &
  ctest --test-dir "$bin" -L '^(solution|student|common|integrity|bench|mistakes)$' -LE sanitize \
    -j "$jobs" --output-on-failure > "$d/ctest.log" 2>&1
  end_tests=$SECONDS
  wait
  ctest_steps "$d/ctest.log" > "$d/ctest.steps"
  grep -vE '^[a-zA-Z]+: lab[0-9]+\.student' "$d/ctest.steps" >> "$work/steps/tests"
  sed -nE 's/^[a-zA-Z]+: (lab[0-9]+)\.student.*/\1/p' "$d/ctest.steps" | sort -u > "$d/labs"
  while read -r lab; do
    n=$(grep -cE "^[a-zA-Z]+: $lab\.student" "$d/ctest.steps")
    n_fail=$(grep -cE "^FAIL: $lab\.student" "$d/ctest.steps")
    if [ "$n_fail" -gt 0 ]; then note skeletons ok "$lab: the skeleton fails $n_fail of its $n tests, as shipped"
    else note skeletons FAIL "$lab: the skeleton passes its $n tests: it must ship unsolved"; fi
  done < "$d/labs"
  ctest_steps "$d/gpu-hidden.log" >> "$work/steps/gpu-hidden"
  want=$(ctest --test-dir "$bin" -N -L '^solution$' -L '^gpu$' | sed -n 's/^Total Tests: //p')
  n=$(grep -c '^skip:' "$work/steps/gpu-hidden")
  if [ "$n" != "${want:-0}" ] || [ "$n" = 0 ]; then
    note gpu-hidden FAIL "$n tests skipped with the GPU hidden; the solutions have ${want:-0} GPU tests, each must skip"
  fi
  while read -r rc log; do
    g=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$d/$log" | tail -n 1 | sed 's/^=* *//')
    if [ "$rc" = 0 ]; then note sanitizers ok "${log%.log}: ${g:-no summary}"
    else note sanitizers FAIL "${log%.log}: exit $rc, ${g:-no summary} (tests/$log)"; fi
  done < "$d/sanitize.rc"
  phase tests "$t" "$end_tests"
  phase skeletons "$t" "$end_tests"
  phase gpu-hidden "$t" "$(cat "$d/gpu-hidden.end" 2> /dev/null || echo $SECONDS)"
  phase sanitizers "$t" "$(cat "$d/sanitize.end" 2> /dev/null || echo $SECONDS)"
}

part_bench() {
  local t=$SECONDS d=$work/bench
  # shellcheck disable=SC2086  # BENCH_ARGS holds options
  check bench "$d/bench.log" "histo_bench: every kernel and dataset (benchmark.csv)" \
    "$bin/bench/histo_bench" --csv "$d/benchmark.csv" ${BENCH_ARGS:-}
  # shellcheck disable=SC2086
  check bench "$d/sweep.log" "histo_bench --sweep: lab03's contention sweep (sweep.csv)" \
    "$bin/bench/histo_bench" --sweep --csv "$d/sweep.csv" ${BENCH_ARGS:-}
  if python3 -c 'import matplotlib' 2> /dev/null; then
    check bench "$d/figures.log" "scripts/figures.py: figures/" python3 scripts/figures.py "$d"
  else
    note bench skip "figures: scripts/figures.py needs python3 with matplotlib"
  fi
  phase bench "$t"
}

part_grade() {
  local t=$SECONDS d=$work/grade lab=lab06 folder expected s
  folder=$(lab_dir $lab)
  mkdir -p "$d/subs/solution" "$d/subs/colliding_copies"
  cp "solutions/$folder/$folder.cu" "$d/subs/solution/"
  cmake -D MODE=apply -D MISTAKE="$root/common/tests/mistakes/lab06_slow_half_the_copies.cmake" \
    -D SOLUTION="$root/solutions/$folder/$folder.cu" -D MUTATED="$d/subs/colliding_copies/$folder.cu" \
    -P "$root/common/tests/mistakes/mistake.cmake" > "$d/mistake.log" 2>&1 ||
    note grade FAIL "the mistake could not be made (grade/mistake.log)"
  expected=$(python3 grading/tests/check_points.py --print | awk -v lab="$lab:" '$1 == lab { print $3 }' | tr -d ,)
  GRADE_BUILD_SLOTS=${GRADE_BUILD_SLOTS:-2} python3 grading/grade.py run "$lab" \
    "$d/subs" "$d/out" --slots-dir "$slots/grade" > "$d/grade.log" 2>&1 ||
    note grade FAIL "grade.py (grade/grade.log)"
  for s in solution colliding_copies; do cp "$d/out/students/$s/results.json" "$d/$s.results.json" 2> /dev/null; done
  cp "$d/out/grades.csv" "$d/" 2> /dev/null
  python3 - "$d" "$expected" <<'PY' | tee "$d/check.txt" | grep -E '^(ok|FAIL): ' >> "$work/steps/grade"
import json, sys
from pathlib import Path
out, expected = Path(sys.argv[1]), float(sys.argv[2] or "nan")
LANES = "cost: the capstone's lane copies take one wavefront per shared atomic"
def say(good, what):
    print(("ok: " if good else "FAIL: ") + what)
results = {}
for s in ("solution", "colliding_copies"):
    path = out / f"{s}.results.json"
    if not path.exists():
        say(False, f"{s}: no results.json (grade.log)")
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
    e = r["extra_data"]
    say(r["score"] >= e["max_score"], f"the solution scores every point ({r['score']:g} of {e['max_score']:g}: {e['status']})")
if "colliding_copies" in results:
    lanes = [t for t in results["colliding_copies"]["tests"] if t["name"].endswith(LANES)]
    say(bool(lanes) and all(t.get("status") == "failed" and t["score"] == 0 for t in lanes),
        f"the colliding copies lose the lane-copies cost test's points ({[t.get('status') for t in lanes]})")
    others = [t for t in results["colliding_copies"]["tests"] if not t["name"].endswith(LANES)
              and t.get("status") == "failed"]
    say(not others, f"and fail nothing else ({[t['name'] for t in others][:3]})")
PY
  phase grade "$t"
}

grading_gpu() {
  local t=$SECONDS d=$work/grading lab
  if has tests; then  # the same runs: no suite twice
    note grading-gpu ok "in tests: common_tests [gpu] and the solutions' [gpu] tests, linked with the same wrappers"
    phase grading-gpu "$t"
    return
  fi
  check grading-gpu "$d/common_tests.log" "common_tests [gpu]: the wrappers see the copies" \
    "$bin/common/common_tests" "[gpu]" --reporter compact
  for lab in lab01 lab04 lab06; do
    check grading-gpu "$d/$lab.log" "$lab solution [gpu]~[large]: no honest copy taken for host counting" \
      timeout 300 "$bin/$(lab_dir $lab)/${lab}_solution_grader" "[gpu]~[large]" --reporter compact
  done
  phase grading-gpu "$t"
}

grading_codecheck() {
  local t=$SECONDS
  check grading-codecheck "$work/grading/codecheck.log" \
    "codecheck on nvcc's objects: every honest source passes, each cheat is refused" \
    python3 grading/tests/check_codecheck.py "$bin" "$work/codecheck"
  phase grading-codecheck "$t"
}

grading_samples() {
  local t=$SECONDS d=$work/grading mode modes=() kinds=correct,wrong,crash,host-count,host-count-byvalue,host-count-dummy
  python3 grading/samples/make_samples.py --lab lab01 --kinds "$kinds" 6 "$d/subs" > "$d/samples.log" 2>&1 ||
    note grading-samples FAIL "make_samples.py (samples.log)"
  python3 -c 'import sys; sys.path.insert(0, "grading"); from histo_grading import sandbox
sys.exit(0 if sandbox.probe("bwrap", True, 1)[0] else 1)' > /dev/null 2>&1 && modes+=(bwrap)
  [ "$(id -u)" = 0 ] && modes+=(user)
  [ ${#modes[@]} -gt 0 ] || note grading-samples FAIL "no sandbox mode can be set up here"
  for mode in "${modes[@]}"; do
    GRADE_BUILD_SLOTS=${GRADE_BUILD_SLOTS:-2} GRADE_TEST_TIMEOUT=120 python3 grading/grade.py \
      run lab01 "$d/subs" "$d/out-$mode" --engine gpu --sandbox "$mode" --slots-dir "$slots/grading" $samples_perf \
      > "$d/grade-$mode.log" 2>&1 ||
      note grading-samples FAIL "grade.py, sandbox $mode (grade-$mode.log)"
    cp "$d/out-$mode/grades.csv" "$d/grades-$mode.csv" 2> /dev/null
    python3 - "$d/out-$mode" "$mode" 6 <<'PY' | tee -a "$d/check.txt" | grep -E '^(ok|FAIL): ' >> "$work/steps/grading-samples"
import json, sys
from pathlib import Path
out, mode, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
SAYS = {"host-count": "counts on the host", "host-count-byvalue": "device memory copied to the host",
        "host-count-dummy": "bins copied in from the host"}
found = sorted(out.glob("students/*/results.json"))
if len(found) != count:
    print(f"FAIL: {mode}: {len(found)} results.json of {count} samples")
for r in found:
    d = json.loads(r.read_text())
    e = d["extra_data"]
    name, score, top, status = e["submission"], d["score"], e["max_score"], e["status"]
    kind = name.split("-", 1)[1]
    bad = [] if e.get("sandbox") == mode else [f"graded in sandbox {e.get('sandbox')}"]
    if kind == "correct":
        # Every point, and the private tests' extra credit may add to it; every test ran.
        if not (top > 0 and score >= top and status.startswith("ok")):
            bad.append("must score every point")
        skipped = [t["name"] for t in d["tests"] if "status" not in t]
        if skipped:
            bad.append(f"skipped {skipped[:3]}")
        ncu, perf = e.get("ncu"), e.get("performance", {})
        if ncu and (ncu.get("error") or perf.get("score", 0) < perf.get("max_score", 0)):
            bad.append(f"cost tests on Nsight Compute: {ncu.get('error') or perf}")
    elif kind == "crash":
        if not (score < top and "crashed" in status):
            bad.append("must lose points, saying crashed")
    elif score != 0 or SAYS.get(kind, "") not in status:
        bad.append("must score 0" + (f", saying {SAYS[kind]!r}" if kind in SAYS else ""))
    print(("FAIL" if bad else "ok") + f": {mode}: {name}: {score:g}/{top:g} {status}"
          + (f" -- {'; '.join(bad)}" if bad else ""))
PY
  done
  phase grading-samples "$t"
}

# The textbook CUDA programs of sim/tests/cuda (host_call.cu must not build: a test of the build).
programs() { local f; for f in sim/tests/cuda/*.cu; do f=${f##*/}; [ "$f" = host_call.cu ] || echo "${f%.cu}"; done; }
simval_programs() {
  local p
  mkdir -p "$bin/cuda_programs"
  for p in $(programs); do
    rm -f "$bin/cuda_programs/$p"
    nvcc -O3 -std=c++17 -arch=native -lineinfo -o "$bin/cuda_programs/$p" "sim/tests/cuda/$p.cu" \
      > "$work/simval/build-$p.log" 2>&1 &
  done
  wait
}

simval_measure() {
  local t=$SECONDS d=$work/simval raw=$work/simval-raw p bytes metrics wanted
  mkdir -p "$raw"
  for p in $(programs); do
    if [ -x "$bin/cuda_programs/$p" ]; then rm -f "$d/build-$p.log"
    else note simval FAIL "nvcc failed on $p.cu (simval/build-$p.log)"; fi
  done
  # The cost model's constants, and every registered kernel at 16 MiB as histo_bench times it.
  check simval "$d/calibrate.log" "calibration.json" sh -c "'$bin/bench/histo_calibrate' > '$d/calibration.json'"
  check simval "$d/benchmark_16M.log" "benchmark_16M.csv" \
    "$bin/bench/histo_bench" --size 16M --budget-ms 300 --csv "$d/benchmark_16M.csv"
  # The programs: Nsight Compute at 16 MiB (every launch, caches flushed before each), then their
  # own timing at 16 MiB and 1 GiB ("PROGRAM BYTES MEDIAN_US KERNEL": a kernel's name may hold spaces).
  mapfile -t wanted < <(python3 grading/histo_grading/ncu.py metrics 2> /dev/null)
  metrics=$(IFS=,; echo "${wanted[*]}")
  : > "$raw/times.txt"
  for p in $(programs); do
    [ -x "$bin/cuda_programs/$p" ] || continue
    check simval "$d/$p.ncu.log" "ncu: $p" ncu --csv --print-units base --metrics "$metrics" \
      --log-file "$raw/$p.csv" "$bin/cuda_programs/$p" 16777216 && rm -f "$d/$p.ncu.log"
    [ "$p" = racy ] && continue  # a race, not a timing
    for bytes in 16777216 1073741824; do
      if "$bin/cuda_programs/$p" "$bytes" 20 | sed -n "s/^time /$p $bytes /p" >> "$raw/times.txt"; then
        note simval ok "$p timed at $bytes bytes"
      else note simval FAIL "$p failed at $bytes bytes"; fi
    done
  done
  check simval "$d/collect.log" "cuda_programs_ncu.csv, cuda_programs_times.csv" python3 \
    sim/tests/gpu_validation.py collect "$raw" "$raw/times.txt" "$d/cuda_programs_ncu.csv" "$d/cuda_programs_times.csv"
  phase simval "$t"
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>&1
    cat "$d/collect.log" "$work/steps/simval" "$work/steps/simval.line"; } > "$d/summary.txt"
}

ncu_counters() {  # one ncu run per kernel and dataset: the first launch, caches flushed first
  local t=$SECONDS raw=$work/ncu/counters k ds f list wanted
  need_ncu ncu-counters || return
  mkdir -p "$raw"
  mapfile -t wanted < <(python3 grading/histo_grading/ncu.py metrics 2> "$work/ncu/metrics.log")
  list=$(IFS=,; echo "${wanted[*]}")
  for k in $("$bin/bench/histo_bench" --list | awk '$1 ~ /^lab0[1-6]\// {print $1}'); do
    for ds in uniform degenerate text; do
      f=$raw/${k//\//_}_$ds.csv
      check ncu-counters "$f.log" "$k $ds" ncu --csv --print-units base --metrics "$list" \
        -k regex:'histogram|probe_(segmented|interleaved)' -c 1 --log-file "$f" \
        "$bin/bench/histo_bench" --kernels "$k" --datasets "$ds" --size 16M --reps 3 && rm -f "$f.log"
    done
  done
  check ncu-counters "$work/ncu/counters.log" "counters.csv" \
    python3 grading/histo_grading/ncu.py table "$raw" "$work/ncu/counters.csv" 16M "${wanted[@]}"
  phase ncu-counters "$t"
}

# Source-level counters, line by line, one launch on 4 MiB of uniform data (seed 2026, the [perf]
# tests' input), for the kernels whose lines the simulator's are compared with; and the read probe
# on 1 GiB. ncu_lines.log opens with the GPU, ncu's version and the date (compare_lines.py reads them).
ncu_lines() {
  local t=$SECONDS d=$work/ncu/lines log=$work/ncu/lines/ncu_lines.log
  local slow=$bin/common/tests/mistakes/mistake_lab05_slow_merge_unrotated_bench
  need_ncu ncu-lines || return
  mkdir -p "$d" "$work/ncu-reports"
  { nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
    ncu --version | tail -n 1; date -u +%Y-%m-%d; } > "$log" 2>&1
  # profile NAME BINARY KERNEL_ID KERNEL_FUNCTION: its source page, CUDA lines with their SASS
  # (CUDA lines only where this ncu lacks the pair), as NAME.csv; the report stays in the work folder.
  profile() {
    local rep=$work/ncu-reports/$1
    echo "== $1: $3 ($4)" >> "$log"
    if ncu --section SourceCounters --import-source yes -k "regex:$4" -c 1 -f -o "$rep" "$2" \
        --kernels "$3" --datasets uniform --size 4M --reps 3 >> "$log" 2>&1 &&
       { ncu --import "$rep.ncu-rep" --page source --csv --print-source cuda,sass > "$d/$1.csv" 2>> "$log" ||
         ncu --import "$rep.ncu-rep" --page source --csv --print-source cuda > "$d/$1.csv" 2>> "$log"; }; then
      note ncu-lines ok "$1: $(wc -l < "$d/$1.csv") CSV lines"
    else note ncu-lines FAIL "$1 (ncu/lines/ncu_lines.log)"; fi
  }
  profile lab05_packed "$bin/bench/histo_bench" lab05/packed histogram_packed_kernel
  profile lab05_packed_unrotated "$slow" lab05/packed histogram_packed_kernel
  profile lab04_shared "$bin/bench/histo_bench" lab04/shared histogram_shared_kernel
  profile lab06_capstone "$bin/bench/histo_bench" lab06/capstone histogram_capstone_kernel
  echo "== the read probe, 1 GiB" >> "$log"
  if "$bin/bench/histo_bench" --kernels probe --datasets uniform,degenerate --size 1G >> "$log" 2>&1; then
    note ncu-lines ok "the read probe on 1 GiB"
  else note ncu-lines FAIL "the read probe on 1 GiB (ncu/lines/ncu_lines.log)"; fi
  phase ncu-lines "$t"
}

ncu_perf() {  # both passes of grading/histo_grading/ncu.py over each lab's [perf] tests
  local t=$SECONDS lab folder sim=${SIM_BUILD:-build/sim-sol} args
  need_ncu ncu-perf || return
  mkdir -p "$work/ncu/perf"
  for lab in lab02 lab03 lab04 lab05 lab06; do
    folder=$(lab_dir $lab)
    args=("$bin/$folder/${lab}_solution_grader" "$work/ncu/perf/$lab")
    [ -x "$sim/$folder/${lab}_solution_sim_grader" ] && args+=("$sim/$folder/${lab}_solution_sim_grader")
    check ncu-perf "$work/ncu/perf/$lab.txt" "$lab: the [perf] bounds on Nsight Compute's counters" \
      python3 grading/histo_grading/ncu.py passes "${args[@]}"
  done
  phase ncu-perf "$t"
}

summary() {
  local ph
  {
    echo "# GPU check: $parts"
    echo
    echo "- $(date -u '+%Y-%m-%d %H:%M UTC'); $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'nvidia-smi unavailable'); $(nvcc --version 2>/dev/null | tail -n 1)"
    echo "- here: summary.md, and PART.tar.gz per part (each unpacks to PART/: its logs and results)"
    has bench && { has tests || has grade || has grading || has ncu; } &&
      echo "- bench shared the GPU with other parts: its times are a check, not a measurement"
    sed 's/^/    /' "$work/build/doctor.log" 2> /dev/null
    echo
    echo '```'
    for ph in build tests skeletons gpu-hidden sanitizers bench grade grading-gpu grading-codecheck \
              grading-samples simval ncu-counters ncu-lines ncu-perf; do
      [ -f "$work/steps/$ph.line" ] || continue
      cat "$work/steps/$ph.line"
      grep -q '^FAIL' "$work/steps/$ph.line" && grep '^FAIL:' "$work/steps/$ph" | head -n 10 | sed 's/^/    /'
    done
    echo '```'
    echo
    if cat "$work"/steps/*.line | grep -q '^FAIL'; then echo "RESULT: FAIL"; else echo "RESULT: PASS"; fi
  } > "$out/summary.md"
  cat "$out/summary.md"
  ! grep -q '^RESULT: FAIL' "$out/summary.md"
}

has simval && simval_programs &
if ! build_all; then
  wait
  tail -n 40 "$work/build/build.log" "$work/build/configure.log" 2> /dev/null
  tar -C "$work" -czf "$out/build.tar.gz" build
  summary
  exit 1
fi
wait
# Alone on the GPU: what times it or counts over the whole device.
has simval && simval_measure
has ncu && { ncu_counters; ncu_lines; }
# Side by side. Nsight Compute's users take turns: grade.py counts the cost tests with Nsight
# Compute only where it finds no Clang for the simulator's counters (engines.default_perf), and
# then waits for ncu's perf tables. grade and grading build slots of their own (a slot folder
# serves one grade.py at a time).
if python3 -c 'import sys; sys.path.insert(0, "grading")
from histo_grading import engines; sys.exit(0 if engines.find_clang() else 1)' 2> /dev/null; then
  samples_perf=
  has ncu && ncu_perf &
  has grade && part_grade &
else
  # Without Clang the cost tests are counted by Nsight Compute (grade's check of that grading);
  # the samples, which check the sandbox modes and their kinds, leave them out (--perf none) so
  # that they need not wait for the profiler.
  samples_perf="--perf none"
  { has ncu && ncu_perf; has grade && part_grade; } &
fi
has grading && grading_samples &
has tests && part_tests &
has bench && part_bench &
has grading && { grading_gpu; grading_codecheck; } &
wait
for p in ${parts//,/ }; do tar -C "$work" -czf "$out/$p.tar.gz" "$p"; done
summary
