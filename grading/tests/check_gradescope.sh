#!/usr/bin/env bash
# CTest "grading.gradescope": makes a lab's Gradescope bundle and checks what it holds, installs
# it the way Gradescope does (setup.sh, in a folder standing for /autograder), then grades two
# submissions with run_autograder: the lab's solution (every test passes, its private tests too,
# listed in results.json) and the skeleton (the private tests fail). Checks that no private
# test's source is left readable after setup, while the graders still run the private tests, and
# that a submission appending to run_autograder scores 0 and leaves it unchanged.
# usage: check_gradescope.sh WORK_DIR   (GRADE_LAB: the lab, default lab01)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: check_gradescope.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
folder=$(basename "$(ls -d "$root/${lab}"_*/)")
export GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-60}
rm -rf "$work" && mkdir -p "$work/ag/source" || exit 1
ag=$work/ag
fail=0

"$root/grading/gradescope/make_bundle.sh" "$lab" "$work/bundle.zip" || { echo "FAIL: make_bundle.sh"; exit 1; }

# What the bundle holds, and Gradescope's unpacking of it (file modes kept).
python3 - "$work/bundle.zip" "$ag/source" "$lab" "$folder" "$root" <<'PY' || fail=1
import os, sys, zipfile
from pathlib import Path
bundle, dest, lab, folder, root = sys.argv[1], Path(sys.argv[2]), sys.argv[3], sys.argv[4], Path(sys.argv[5])
z = zipfile.ZipFile(bundle)
names = z.namelist()
tops = {n.split("/")[0] for n in names}
bad = sorted(n for n in names if n.split("/")[0] in ("solutions", "slides", "report", "bench", "notebooks", ".ci")
             or (n.startswith("lab") and "/" in n and not n.startswith(folder + "/"))
             or (n.startswith("scripts/") and n != "scripts/install_tools.sh") or n.endswith(".md"))
expected_private = sorted(f"grading/private/{lab}/{p.name}" for p in (root / "grading/private" / lab).glob("*.cpp"))
problems = []
if bad:
    problems.append(f"the bundle holds what grading does not need: {bad[:8]}")
for need in ("setup.sh", "run_autograder", "lab.env", "CMakeLists.txt", f"{folder}/{folder}.cu",
             f"{folder}/grader.cpp", "grading/grade.py", f"grading/points/{lab}.toml", "scripts/install_tools.sh"):
    if need not in names:
        problems.append(f"the bundle lacks {need}")
if sorted(n for n in names if n.startswith("grading/private/")) != expected_private:
    problems.append(f"the bundle's private tests are not exactly {expected_private}")
for p in problems:
    print("FAIL: " + p)
if not problems:
    print(f"ok: the bundle holds {len(names)} files, under {sorted(tops)}")
for info in z.infolist():
    z.extract(info, dest)
    mode = info.external_attr >> 16
    if mode:
        os.chmod(dest / info.filename, mode & 0o777)
sys.exit(1 if problems else 0)
PY

echo "== setup.sh"
# apt's words for a repository it cannot reach (as release/tests/check_release.py reads them).
offline='Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|Network is unreachable|Cannot initiate the connection|Connection failed|cannot be reached'
not_checked=""
if ! AUTOGRADER_ROOT=$ag bash "$ag/source/setup.sh" > "$work/setup.log" 2>&1; then
  if grep -Eq "$offline" "$work/setup.log"; then
    # Gradescope's image reaches the package repositories; this machine does not. The rest of
    # the setup runs with the tools installed here, and the test is skipped, never passed.
    echo "note: setup.sh's install step could not reach the package repositories here:"
    tail -n 3 "$work/setup.log"
    not_checked="setup.sh's install step (no network)"
    if ! AUTOGRADER_ROOT=$ag HISTO_SETUP_INSTALL=0 bash "$ag/source/setup.sh" > "$work/setup.log" 2>&1; then
      echo "SKIPPED: setup.sh cannot run without its install step here:"; tail -n 20 "$work/setup.log"
      exit 77
    fi
  else
    echo "FAIL: setup.sh failed:"; tail -n 40 "$work/setup.log"; exit 1
  fi
fi
tail -n 1 "$work/setup.log"
left=$(grep -rl --include='*.cpp' "TEST_CASE" "$ag" | grep "grading/private/" || true)
python3 - "$ag" "$lab" <<'PY' || { left="$left a snapshot (tar)"; }
import sys, tarfile
from pathlib import Path
for tar in Path(sys.argv[1]).rglob("*.tar"):
    with tarfile.open(tar) as t:
        for m in t.getmembers():
            if f"grading/private/{sys.argv[2]}/" in m.name and m.isfile() and b"TEST_CASE" in t.extractfile(m).read():
                print(f"{tar} still holds the source of {m.name}")
                sys.exit(1)
PY
if [ -n "$left" ]; then echo "FAIL: private test sources readable after setup: $left"; fail=1
else echo "ok: no private test source is readable after setup"; fi

grade() {  # grade SOURCE_FILE LABEL
  rm -rf "$ag/submission" "$ag/results" && mkdir -p "$ag/submission"
  cp "$1" "$ag/submission/$folder.cu"
  AUTOGRADER_ROOT=$ag bash "$ag/source/run_autograder" > "$work/run-$2.log" 2>&1
  cp "$ag/results/results.json" "$work/results-$2.json" 2>/dev/null
}
grade "$root/solutions/$folder/$folder.cu" solution
grade "$root/$folder/$folder.cu" skeleton
# A submission that appends to the running run_autograder a line rewriting results.json: it
# scores 0, and run_autograder is as it was.
harness_before=$(sha256sum < "$ag/source/run_autograder")
python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds harness-append 1 "$work/harness" > /dev/null
grade "$work/harness/s01-harness-append/$folder.cu" harness
sleep 2
if [ "$(sha256sum < "$ag/source/run_autograder")" = "$harness_before" ] &&
   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["score"] == 0 else 1)' \
     "$work/results-harness.json" 2>/dev/null; then
  echo "ok: a submission appending to run_autograder scores 0 and leaves it unchanged ($(python3 -c \
    'import json,sys; print(json.load(open(sys.argv[1]))["extra_data"]["status"])' "$work/results-harness.json"))"
else
  echo "FAIL: the harness-append submission changed run_autograder or scored (see $work/run-harness.log)"; fail=1
fi

python3 - "$work" "$lab" "$root" <<'PY' || fail=1
import json, re, sys
from pathlib import Path
work, lab, root = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
cases = []
for src in sorted((root / "grading/private" / lab).glob("*.cpp")):
    cases += re.findall(r'TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"', src.read_text())
ok = True
def say(good, what):
    global ok
    ok &= good
    print(("ok: " if good else "FAIL: ") + what)
for side, want in (("solution", "passed"), ("skeleton", "failed")):
    path = work / f"results-{side}.json"
    if not path.exists():
        say(False, f"the {side} got no results.json (see {work}/run-{side}.log)")
        continue
    results = json.loads(path.read_text())
    tests = {t["name"]: t for t in results["tests"]}
    for case in cases:
        found = [t for n, t in tests.items() if n.endswith(": " + case)]
        say(bool(found) and all(t.get("status") == want for t in found),
            f"{side}: private test '{case}' is in results.json, {want} ({[t.get('status') for t in found]})")
    # The private tests are extra credit: on top of the maximum, which never counts them.
    extra = results["extra_data"].get("extra_credit", {})
    full = results["score"] == results["extra_data"]["max_score"] + extra.get("score", 0) > 0
    say(full if side == "solution" else not full,
        f"{side}: {results['score']} of {results['extra_data']['max_score']} points "
        f"({extra.get('score', 0)} of {extra.get('max_score', 0)} extra credit)")
    if side == "skeleton":
        say(results["score"] == 0, f"skeleton: scores 0 ({results['score']})")
sys.exit(0 if ok else 1)
PY
if [ "$fail" -eq 0 ] && [ -n "$not_checked" ]; then
  echo "SKIPPED: not checked on this machine: $not_checked"
  exit 77
fi
exit $fail
