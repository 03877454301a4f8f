#!/usr/bin/env bash
# CTest "grading.cheats": grades one sample submission of each cheat (grading/samples, kinds
# include-* ... host-count-dummy) beside an honest correct one, and checks that every cheat scores
# 0 with a status naming its trick, that none of their results.json files holds a line of the
# grader's files (the solution's answers, /etc/passwd), and that the honest one scores every point.
# usage: check_cheats.sh WORK_DIR   (GRADE_PRESET, GRADE_LABELS, GRADE_CMAKE_ARGS as for grade.py)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: check_cheats.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
export GRADE_GPUS=none GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-60}
rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
kinds=correct,include-relative,include-absolute,include-macro,include-nested,has-include
kinds+=,include-other-lab,include-passwd,symlink-file,symlink-folder,symlink-passwd,incbin
kinds+=,host-count,host-count-dummy
python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds "$kinds" \
  --grading-out "$work/out" 14 "$work/subs" || exit 1
python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out" || { echo "FAIL: grade.py failed"; exit 1; }

python3 - "$work/out" "$root" "$lab" <<'PY'
import csv, json, re, sys
from pathlib import Path
out, root, lab = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
folder = sorted(p.name for p in root.glob(f"{lab}_*") if p.is_dir())[0]
expect = {  # submission -> what its status must say
    "s02-include-relative": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "s03-include-absolute": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "s04-include-macro": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "s05-include-nested": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "s06-has-include": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "s07-include-other-lab": "includes a file it may not: lab0",
    "s08-include-passwd": "includes a file it may not: /etc/passwd",
    "s09-symlink-file": f"{folder}.cu is a symbolic link (to solutions/{folder}/{folder}.cu in the course)",
    "s10-symlink-folder": f"{folder}.cu is in a folder that is a symbolic link (code -> solutions/{folder} in the course)",
    "s11-symlink-passwd": f"{folder}.cu is a symbolic link (to /etc/passwd)",
    "s12-incbin": f"includes a file it may not: solutions/{folder}/{folder}.cu (.incbin in inline assembly)",
    "s13-host-count": "counts on the host, not in its kernel: no kernel launched",
    "s14-host-count-dummy": "counts on the host, not in its kernel: bins copied in from the host",
}
# Lines of the grader's files that a cheat must never get to see: the solution's answers (its
# lines that the skeleton lacks) and the password file.
solution = (root / "solutions" / folder / f"{folder}.cu").read_text().splitlines()
skeleton = set((root / folder / f"{folder}.cu").read_text().splitlines())
secret = [l.strip() for l in solution if l not in skeleton and len(l.strip()) > 24
          and not l.strip().startswith("//")]
try:
    secret += [l for l in Path("/etc/passwd").read_text().splitlines() if len(l) > 12]
except OSError:
    pass
fail = 0
rows = {r["submission"]: r for r in csv.DictReader(open(out / "grades.csv"))}
for name, status in expect.items():
    row = rows.get(name)
    text = (out / name / "results.json").read_text() if (out / name / "results.json").exists() else ""
    leaked = [l for l in secret if l in text or json.dumps(l)[1:-1] in text]
    problems = []
    if not row:
        problems.append("not in grades.csv")
    else:
        if status not in row["status"]:
            problems.append(f"status '{row['status']}' does not say '{status}'")
        if float(row["score"]) != 0:
            problems.append(f"scores {row['score']} (must be 0)")
    if leaked:
        problems.append(f"results.json holds {len(leaked)} line(s) of the grader's files, e.g. {leaked[0]!r}")
    if problems:
        fail = 1
        print(f"FAIL: {name}: " + "; ".join(problems))
    else:
        print(f"ok: {name}: 0 points, '{status}'")
good = rows.get("s01-correct")
# Every point, and the private tests' extra credit on top.
if good and good["status"].startswith("ok") and float(good["score"]) >= float(good["max_score"]) > 0:
    print(f"ok: s01-correct scores {good['score']} of {good['max_score']} ({good['status']})")
else:
    fail = 1
    print(f"FAIL: the honest submission s01-correct: {good}")
sys.exit(fail)
PY
