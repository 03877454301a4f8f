#!/usr/bin/env bash
# CTest "grading.skeletons": the batch grader (its sim engine, as Gradescope grades) grades each
# lab's untouched skeleton, which must score 0 of a maximum above 0: no point for provided code
# (grading/points/README.md). One build slot serves every lab, so the course's common code is
# built once.
# usage: check_skeletons.sh WORK_DIR   (GRADE_CMAKE_ARGS as for grade.py; GRADE_LABS: the labs,
#        default every lab)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: check_skeletons.sh WORK_DIR}
export GRADE_GPUS=none GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-120}
rm -rf "$work" && mkdir -p "$work" || exit 1
labs=${GRADE_LABS:-$(cd "$root" && ls -d lab[0-9][0-9]_*/ | cut -c1-5 | sort -u | tr '\n' ' ')}
fail=0
for lab in $labs; do
  folder=$(basename "$(ls -d "$root/${lab}"_*/)")
  mkdir -p "$work/subs-$lab/skeleton"
  cp "$root/$folder/$folder.cu" "$work/subs-$lab/skeleton/"
  start=$(date +%s)
  if ! python3 "$root/grading/grade.py" run "$lab" "$work/subs-$lab" "$work/out-$lab" --engine sim \
       --build-slots 1 --slots-dir "$work/slots" > "$work/$lab.log" 2>&1; then
    echo "FAIL: $lab: grade.py failed:"; tail -n 20 "$work/$lab.log"; fail=1; continue
  fi
  python3 - "$work/out-$lab/students/skeleton/results.json" "$lab" "$(( $(date +%s) - start ))" <<'PY' || fail=1
import json, sys
results, lab, seconds = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
extra = results["extra_data"]
passed = [t["name"] for t in results["tests"] if t.get("status") == "passed" and t["score"] > 0]
if results["score"] == 0 and extra["max_score"] > 0:
    print(f"ok: {lab}: the skeleton scores 0 of {extra['max_score']:g} ({extra['passed']} tests of "
          f"provided code pass, worth 0; {seconds} s)")
    sys.exit(0)
print(f"FAIL: {lab}: the skeleton scores {results['score']:g} of {extra['max_score']:g}: "
      f"points for {passed}")
sys.exit(1)
PY
done
exit $fail
