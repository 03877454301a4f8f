#!/usr/bin/env bash
# Batch grading on a GPU machine, sandboxed: grades sample submissions of one lab with the GPU
# engine in each sandbox mode this machine can set up (bubblewrap; the unprivileged-user mode as
# root), then the correct one with the [perf] tests on Nsight Compute's counters (--ncu) where
# ncu is on PATH, and checks the grades: the correct sample scores every point, the skeleton and
# every cheat 0, a crash is recorded as crashed and loses the points of the tests that crash,
# host counting as such; the GPU tests ran (not skipped) inside the sandbox.
#
# usage: grading/tests/gpu_grading.sh [WORK_DIR]   (default build/gpu-grading; GRADE_LAB, GRADE_BWRAP)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:-$root/build/gpu-grading}
lab=${GRADE_LAB:-lab01}
export GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-120} GRADE_TIMEOUT=${GRADE_TIMEOUT:-600}
mkdir -p "$work" && work=$(cd "$work" && pwd)
rm -rf "$work/subs" "$work"/out-*
kinds=${GRADE_KINDS:-correct,wrong,crash,host-count,host-count-dummy}
python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds "$kinds" \
  "$(tr ',' '\n' <<< "$kinds" | wc -l)" "$work/subs" || exit 1
modes=()
python3 - <<PY && modes+=(bwrap)
import sys
sys.path.insert(0, "$root/grading")
from histo_grading import sandbox
sys.exit(0 if sandbox.probe("bwrap", True, 1)[0] else 1)
PY
[ "$(id -u)" -eq 0 ] && modes+=(user)
[ ${#modes[@]} -gt 0 ] || { echo "FAIL: no sandbox mode can be set up here"; exit 1; }
fail=0
for mode in "${modes[@]}"; do
  echo "== engine gpu, sandbox $mode"
  start=$SECONDS
  python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out-$mode" --engine gpu \
    --sandbox "$mode" --slots-dir "$work/slots" --force || { echo "FAIL: grade.py ($mode)"; fail=1; continue; }
  echo "   ($((SECONDS - start)) s)"
  python3 - "$work/out-$mode" "$mode" <<'PY' || fail=1
import json, sys
from pathlib import Path
out, mode = Path(sys.argv[1]), sys.argv[2]
ok = True
for r in sorted(out.glob("*/results.json")):
    d = json.loads(r.read_text())
    e = d["extra_data"]
    name, kind = e["submission"], e["submission"].split("-", 1)[1]
    gpu_ran = [t for t in d["tests"] if ": " in t["name"] and t.get("status") in ("passed", "failed")
               and not t["name"].split(": ")[0].endswith(".sim")]
    problems = []
    if e.get("sandbox") != mode:
        problems.append(f"graded in sandbox {e.get('sandbox')}, not {mode}")
    if kind == "correct":
        # Every point, and the private tests' extra credit on top.
        extra = e.get("extra_credit", {})
        if not (d["score"] == e["max_score"] + extra.get("max_score", 0) and e["max_score"] > 0):
            problems.append(f"scores {d['score']} of {e['max_score']} (+{extra.get('max_score', 0)} extra)")
        skipped = [t["name"] for t in d["tests"] if "status" not in t]
        if any(" gpu" in t or "[gpu]" in t for t in skipped):
            problems.append(f"GPU tests skipped: {skipped[:3]}")
    elif kind == "crash":
        # Its first answer crashes on the host: the tests that call it fail, the others pass.
        if not d["score"] < e["max_score"]:
            problems.append(f"scores {d['score']} of {e['max_score']} (must lose points)")
    elif d["score"] != 0:
        problems.append(f"scores {d['score']} (must be 0)")
    if kind == "crash" and "crashed" not in e["status"]:
        problems.append(f"status '{e['status']}' does not say crashed")
    if kind.startswith("host-count") and "counts on the host" not in e["status"]:
        problems.append(f"status '{e['status']}' does not say it counts on the host")
    print(("FAIL" if problems else "ok") + f": {mode}: {name}: {d['score']:g}/{e['max_score']:g} "
          f"{e['status']}" + (f" -- {'; '.join(problems)}" if problems else ""))
    ok &= not problems
sys.exit(0 if ok else 1)
PY
done
if command -v ncu > /dev/null; then
  echo "== engine gpu, [perf] tests on Nsight Compute's counters (--ncu), sandbox auto"
  rm -rf "$work/subs-ncu" && mkdir -p "$work/subs-ncu" && cp -r "$work"/subs/s01-correct "$work/subs-ncu/"
  python3 "$root/grading/grade.py" run "$lab" "$work/subs-ncu" "$work/out-ncu" --engine gpu --ncu \
    --slots-dir "$work/slots-ncu" --force || { echo "FAIL: grade.py --ncu"; fail=1; }
  python3 - "$work/out-ncu/s01-correct/results.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
e = d["extra_data"]
ncu = e.get("ncu", {})
perf = e["performance"]
ok = not ncu.get("error") and perf["max_score"] > 0 and perf["score"] == perf["max_score"]
print(("ok" if ok else "FAIL") + f": --ncu: {d['score']:g}/{e['max_score']:g}, performance "
      f"{perf['score']:g}/{perf['max_score']:g} counted by {ncu.get('counted_by')}; "
      f"error: {ncu.get('error') or 'none'}; sandbox {e.get('sandbox')}")
sys.exit(0 if ok else 1)
PY
fi
[ $fail -eq 0 ] && echo "RESULT: PASS" || echo "RESULT: FAIL"
exit $fail
