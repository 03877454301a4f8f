#!/usr/bin/env bash
# The whole GPU check in one command, for a machine with an NVIDIA GPU:
#   1. configure and build the `gpu` preset (solutions + skeletons, native architecture);
#   2. run every grader: solutions, common and the skeleton integrity check must pass; the
#      skeletons' own graders are run too and must fail (they ship unsolved); the solution
#      graders once more with the GPU hidden, where GPU tests must report as skipped;
#   3. compute-sanitizer memcheck and racecheck over every solution grader (small inputs:
#      HISTO_GRADER_MAX_N, and without the [large] tests);
#   4. the benchmark on every dataset and the contention sweep (CSV + plot);
#   5. a summary: tests per side, sanitizer results, the benchmark tables.
#
# usage: scripts/gpu_check.sh [OUTPUT_DIR]     (default: build/gpu-check)
# Environment: SKIP_BENCH=1 or SKIP_SANITIZERS=1 leave those phases out; BENCH_ARGS adds
# options to the benchmark (e.g. "--size 256M").
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/gpu-check}
mkdir -p "$out"
out=$(cd "$out" && pwd)
summary=$out/summary.md
status=0
fail() { echo "FAILED: $*" | tee -a "$summary"; status=1; }

{
  echo "# GPU check"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo 'nvidia-smi unavailable')"
  echo "- nvcc: $(nvcc --version 2>/dev/null | tail -n 1)"
  echo
} > "$summary"

# 1. Build.
start=$SECONDS
if cmake --preset gpu > "$out/configure.log" 2>&1 && cmake --build --preset gpu > "$out/build.log" 2>&1; then
  echo "- build: ok in $((SECONDS - start)) s" >> "$summary"
else
  fail "build (see build.log / configure.log)"
  tail -n 40 "$out/build.log" "$out/configure.log" 2>/dev/null
  cat "$summary"
  exit 1
fi
bin=build/gpu
build/gpu/common/histo_doctor > "$out/doctor.log" 2>&1 || fail "histo_doctor: the GPU cannot run this build"
sed 's/^/    /' "$out/doctor.log" >> "$summary"

# 2. Tests. Results are counted from CTest's own lines: Passed, ***Failed, ***Skipped.
count() { # log -> "passed P, failed F, skipped S"
  local p f s
  p=$(grep -cE 'Test +#[0-9]+: .* Passed' "$1")
  f=$(grep -cE 'Test +#[0-9]+: .*\*\*\*(Failed|Timeout|Exception)|Not Run' "$1")
  s=$(grep -cE 'Test +#[0-9]+: .*\*\*\*Skipped' "$1")
  echo "passed $p, failed $f, skipped $s"
}
echo >> "$summary"
echo "## Tests" >> "$summary"
ctest --test-dir $bin -LE "student|sanitize" --timeout 600 --output-on-failure > "$out/tests-solution.log" 2>&1
sol_rc=$?
echo "- solutions, common, integrity, bench smoke (must all pass): $(count "$out/tests-solution.log")" >> "$summary"
[ $sol_rc -eq 0 ] || fail "solution-side tests (tests-solution.log)"
grep -E 'integrity .* (Passed|Failed)' "$out/tests-solution.log" | sed 's/^ */    /' >> "$summary"
ctest --test-dir $bin -L student -LE sanitize --timeout 600 > "$out/tests-student.log" 2>&1
echo "- skeletons as shipped (expected to fail): $(count "$out/tests-student.log")" >> "$summary"
for lab in lab01 lab02 lab03 lab04 lab05 lab06; do
  [ -x $bin/${lab}_*/${lab}_student_grader ] || continue
  echo "    $lab skeleton: $(grep -E "Test +#[0-9]+: $lab\.student" "$out/tests-student.log" | grep -c Passed) passed," \
       "$(grep -E "Test +#[0-9]+: $lab\.student" "$out/tests-student.log" | grep -cE '\*\*\*Failed') failed" >> "$summary"
done

# The same solution graders with the GPU hidden: GPU tests must say skipped, never passed.
CUDA_VISIBLE_DEVICES= ctest --test-dir $bin -L solution -LE sanitize --timeout 600 --output-on-failure > "$out/tests-hidden-gpu.log" 2>&1
hidden_rc=$?
echo "- solutions with the GPU hidden (CUDA_VISIBLE_DEVICES=''; GPU tests must skip): $(count "$out/tests-hidden-gpu.log")" >> "$summary"
if [ $hidden_rc -ne 0 ] || ! grep -q '\*\*\*Skipped' "$out/tests-hidden-gpu.log"; then
  fail "GPU tests did not report as skipped with the GPU hidden (tests-hidden-gpu.log)"
fi

# 3. Sanitizers, several graders at a time (each on small inputs).
if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  echo >> "$summary"
  echo "## compute-sanitizer (inputs up to 1 MiB, [large] tests excluded)" >> "$summary"
  export HISTO_GRADER_MAX_N=${HISTO_GRADER_MAX_N:-1048576}
  jobs=()
  for grader in $bin/lab0*/lab0*_solution_grader; do
    for tool in memcheck racecheck; do
      jobs+=("$tool $grader")
    done
  done
  printf '%s\n' "${jobs[@]}" | xargs -P 6 -L 1 sh -c '
    tool=$0; grader=$1; name=$(basename "$grader" _solution_grader)
    timeout 900 compute-sanitizer --tool "$tool" --error-exitcode 99 "$grader" "~[large]" \
      > "'"$out"'/sanitize-$name-$tool.log" 2>&1
    echo $? > "'"$out"'/sanitize-$name-$tool.rc"'
  for rcfile in "$out"/sanitize-*.rc; do
    [ -e "$rcfile" ] || continue
    name=$(basename "$rcfile" .rc)
    rc=$(cat "$rcfile")
    log="$out/$name.log"
    verdict=$(grep -E '(ERROR SUMMARY|RACECHECK SUMMARY)' "$log" | tail -n 1)
    tests=$(grep -E '^(All tests passed|test cases:)' "$log" | tail -n 1)
    echo "- ${name#sanitize-}: exit $rc; ${verdict:-no summary}; ${tests}" >> "$summary"
    [ "$rc" = 0 ] || fail "${name#sanitize-} (exit $rc, $log)"
  done
  rm -f "$out"/sanitize-*.rc
fi

# 4. Benchmark.
if [ "${SKIP_BENCH:-0}" != 1 ]; then
  echo >> "$summary"
  echo "## Benchmark" >> "$summary"
  # shellcheck disable=SC2086
  if $bin/bench/histo_bench --csv "$out/bench.csv" ${BENCH_ARGS:-} > "$out/bench.log" 2>&1 &&
     $bin/bench/histo_bench --sweep --csv "$out/sweep.csv" ${BENCH_ARGS:-} > "$out/sweep.log" 2>&1; then
    { echo '```'; cat "$out/bench.log" "$out/sweep.log"; echo '```'; } >> "$summary"
    cp "$out/bench.csv" "$out/benchmark.csv" && python3 scripts/figures.py "$out" > /dev/null 2>&1 ||
      echo "(figures skipped: python3 with matplotlib is needed)" >> "$summary"
  else
    fail "benchmark (bench.log / sweep.log)"
    tail -n 30 "$out/bench.log" "$out/sweep.log"
  fi
fi

echo >> "$summary"
if [ $status -eq 0 ]; then echo "RESULT: PASS" >> "$summary"; else echo "RESULT: FAIL" >> "$summary"; fi
cat "$summary"
exit $status
