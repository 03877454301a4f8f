#!/usr/bin/env bash
# CTest "grading.split_gpu": the GPU engine's graders, split as grade.py's build slots build them
# (grading/worker: the CUDA runtime's calls cross to the worker), built with nvcc and graded here
# without a GPU (their CPU tests: preset student-cpu, engine cpu). An honest sample scores every
# point of them and the forged report (the skeleton writing a passing report on fd 3) none, each
# test through a worker. Their kernels are graded on a GPU (scripts/gpu_check.sh --part grade).
# Skipped (77) without nvcc.
# usage: check_split_gpu.sh WORK_DIR   (GRADE_CMAKE_ARGS as for grade.py)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: check_split_gpu.sh WORK_DIR}
command -v nvcc > /dev/null || { echo "skipped: no nvcc (the CUDA Toolkit) to build the GPU graders"; exit 77; }
unset GRADE_PRESET GRADE_LABELS  # (the other grading tests': the sim engine's)
export GRADE_GPUS=none GRADE_CMAKE_ARGS="${GRADE_CMAKE_ARGS:-} -DHISTO_SIM=OFF"
rm -rf "$work" && mkdir -p "$work" || exit 1
python3 "$root/grading/samples/make_samples.py" --lab lab01 --kinds correct,forged-report 2 \
  "$work/subs" > "$work/samples.log" 2>&1 || { echo "FAIL: make_samples.py"; cat "$work/samples.log"; exit 1; }
if ! python3 "$root/grading/grade.py" run lab01 "$work/subs" "$work/out" --preset student-cpu \
     --build-slots 1 --slots-dir "$work/slots" > "$work/grade.log" 2>&1; then
  echo "FAIL: grade.py failed:"; tail -n 20 "$work/grade.log"; exit 1
fi
python3 - "$work" <<'PY'
import json, sys
from pathlib import Path
work = Path(sys.argv[1])
ok = True
def say(good, what):
    global ok
    ok &= good
    print(("ok: " if good else "FAIL: ") + what)
workers = sorted(p.name for p in (work / "slots").glob("slot*/build/grading/lab01_*/lab01_student_grader_worker"))
say(bool(workers), f"the build slot made the GPU grader's worker ({workers})")
for name, expect in (("s01-correct", "every point"), ("s02-forged-report", "none")):
    r = json.loads((work / "out" / "students" / name / "results.json").read_text())
    e = r["extra_data"]
    good = r["score"] == e["max_score"] > 0 if expect == "every point" else r["score"] == 0
    say(good, f"{name}: {r['score']:g} of {e['max_score']:g} ({e['status']}; engine {e['engine']}), expected {expect}")
sys.exit(0 if ok else 1)
PY
