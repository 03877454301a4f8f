#!/usr/bin/env bash
# Measures grading throughput: grades N sample submissions of one lab (grading/samples: a mix of
# correct, wrong, non-compiling, hanging, crashing, chatty and escaping ones) with one worker
# per visible GPU and prints submissions per hour.
#
# usage: grading/measure_throughput.sh N [LAB] [OUTPUT_DIR]   (default lab01, build/throughput-LAB)
#   CUDA_VISIBLE_DEVICES=0 / =0,1   the GPUs to grade on (default: all that nvidia-smi lists)
#   GRADE_TEST_TIMEOUT             seconds before a test counts as hanging (default here 30)
#   other GRADE_* settings as for grading/grade.py
# Without a GPU it grades with the CPU simulator (engine sim; GRADE_ENGINE=cpu: CPU checks only,
# which measures the build side).
# The one-time preparation (configuring and building the build slots) is reported apart.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
n=$1 lab=${2:-lab01}
out=${3:-$root/build/throughput-$lab}
export GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-30}
rm -rf "$out/subs"
python3 "$root/grading/samples/make_samples.py" --lab "$lab" "$n" "$out/subs"
rm -rf "$out/grades"
start=$(date +%s)
python3 "$root/grading/grade.py" run "$lab" "$out/subs" "$out/grades" --force
end=$(date +%s)
python3 - "$out/grades/timing.json" "$((end - start))" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
total = int(sys.argv[2])
where = f"GPUs {','.join(t['gpus'])}" if t["gpus"] else f"no GPU (engine {t.get('engine', '?')})"
per_hour = lambda s: t["submissions"] * 3600 / s if s > 0 else float("inf")
print(f"\n{t['submissions']} submissions, {where}, {t['build_slots']} build slots, preset {t['preset']}, "
      f"test timeout {__import__('os').environ['GRADE_TEST_TIMEOUT']} s")
print(f"preparation (once per batch): {t['prepare_s']:.0f} s")
print(f"grading: {t['grade_s']:.0f} s = {per_hour(t['grade_s']):.0f} submissions/hour")
print(f"end to end, preparation included: {total} s = {per_hour(total):.0f} submissions/hour")
PY
# No two submissions' tests may have run on one GPU at the same time.
python3 - "$out/grades" <<'PY'
import json, sys
from pathlib import Path
runs = {}
for f in Path(sys.argv[1]).glob("students/*/results.json"):
    e = json.loads(f.read_text())["extra_data"]
    if e.get("gpu") is not None and len(e.get("test_window", [])) == 2:
        runs.setdefault(e["gpu"], []).append((*e["test_window"], e["submission"]))
overlaps = [(g, a[2], b[2]) for g, r in runs.items() for a, b in zip(sorted(r), sorted(r)[1:]) if b[0] < a[1]]
for g in sorted(runs):
    print(f"GPU {g}: {len(runs[g])} submissions' tests, busy {sum(e - s for s, e, _ in runs[g]):.0f} s")
if overlaps:
    print("OVERLAP: " + "; ".join(f"GPU {g}: {a} and {b}" for g, a, b in overlaps))
    sys.exit(1)
if runs:
    print("no two submissions' tests shared a GPU")
PY
