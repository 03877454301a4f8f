#!/usr/bin/env bash
# CTest "grading.samples": grades one sample submission of each kind (grading/samples) and checks
# that each is recorded as what it is, that a second run skips them all, and that a run with other
# labels grades them again. (CTest
# "grading.results_schema" then validates the results.json files it leaves in
# WORK_DIR/out/students.)
# usage: check_samples.sh WORK_DIR   (GRADE_PRESET, GRADE_LABELS, GRADE_CMAKE_ARGS as for grade.py)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: check_samples.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
# A test that hangs costs its limit; the whole run of a submission stops at GRADE_TIMEOUT.
export GRADE_GPUS=none GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-60} GRADE_TIMEOUT=${GRADE_TIMEOUT:-90}
rm -rf "$work" && mkdir -p "$work" || exit 1
python3 "$root/grading/samples/make_samples.py" --lab "$lab" \
  --kinds correct,wrong,no-compile,hang,crash,chatty,escape 7 "$work/subs" || exit 1
python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out" || { echo "FAIL: grade.py failed"; exit 1; }

fail=0
expect() {  # expect SUBMISSION STATUS_SUBSTRING
  local line
  line=$(grep "^$1," "$work/out/grades.csv")
  case "$line" in
    *"$2"*) echo "ok: $1 recorded as '$2'" ;;
    *) echo "FAIL: $1 should be recorded as '$2'; grades.csv says: ${line:-nothing}"; fail=1 ;;
  esac
}
expect s01-correct ",ok"
expect s02-wrong "fails"
expect s03-no-compile "does not compile"
expect s04-hang "timed out"
expect s05-crash "crashed"
expect s06-chatty "prints megabytes"
# It writes files with fopen, which a submission may not call (histo_grading/codecheck.py): it
# is refused before any of its code runs.
expect s07-escape "uses what a submission may not: calls fopen"
# The correct one scores every point (and its private tests' extra credit on top), the wrong one
# (the skeleton) fewer.
python3 - "$work/out" <<'PY' || fail=1
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
good = json.loads((out / "students/s01-correct/results.json").read_text())
wrong = json.loads((out / "students/s02-wrong/results.json").read_text())
extra = good["extra_data"].get("extra_credit", {}).get("score", 0)
ok = good["score"] > 0 and good["score"] == good["extra_data"]["max_score"] + extra and wrong["score"] < good["score"]
print(("ok" if ok else "FAIL") + f": correct scores {good['score']} of {good['extra_data']['max_score']}, wrong scores {wrong['score']}")
sys.exit(0 if ok else 1)
PY
# A crashed test case ends when its process is gone, not at the test's time limit; and the crash
# sample's execution_time is its own (its build and tests), not its wait behind the hanging
# sample's tests (one test run at a time per build slot without a GPU).
python3 - "$work/out" "$GRADE_TEST_TIMEOUT" <<'PY' || fail=1
import json, sys
from pathlib import Path
out, limit = Path(sys.argv[1]), float(sys.argv[2])
r = json.loads((out / "students/s05-crash/results.json").read_text())
start, end = r["extra_data"]["test_window"]
ok = end - start < limit / 2 and r["execution_time"] < limit
print(("ok" if ok else "FAIL") + f": the crash sample's tests took {end - start:.1f} s, its grading "
      f"{r['execution_time']} s (queued {r['extra_data'].get('queued_s')} s), test time limit {limit:g} s")
sys.exit(0 if ok else 1)
PY

again=$(python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out" 2>&1)
skipped=$(grep -c "already graded" <<< "$again")
if [ "$skipped" -eq 7 ]; then echo "ok: a second run skips all 7 graded submissions"
else echo "FAIL: a second run skipped $skipped of 7:"; echo "$again"; fail=1; fi
# "Already graded" holds for the same source graded the same way only: other labels grade again.
# (The CPU checks take a second: the hanging one need not cost a minute again.)
again=$(GRADE_LABELS=cpu GRADE_TEST_TIMEOUT=10 GRADE_TIMEOUT=30 python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out" 2>&1)
skipped=$(grep -c "already graded" <<< "$again")
if [ "$skipped" -eq 0 ]; then echo "ok: with other labels, all 7 are graded again"
else echo "FAIL: with other labels, $skipped of 7 were skipped as already graded:"; echo "$again"; fail=1; fi

exit $fail
