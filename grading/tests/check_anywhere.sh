#!/usr/bin/env bash
# CTest "grading.anywhere": batch grading works from any folder. A copy of the course (its files
# readable by its owner only, as a checkout made with umask 077), the submissions (an honest one
# and the skeleton) and the output all lie under a 0700 folder, as in `mktemp -d` or /root; each
# is graded as it must be:
#   - by root, in each sandbox mode this machine can set up (bubblewrap, the unprivileged user):
#     the sandbox's runs are uids of their own, which may not enter that folder; the grading
#     stages what they need where they can reach it (histo_grading/batch.py, stage_runs);
#   - by root, with the build slots asked for inside that folder (--slots-dir): the grading stops
#     before anything is graded, saying which folder the runs cannot enter;
#   - by a normal user (a uid of its own, setpriv, owning that folder), in bubblewrap.
# Root's runs reuse the build slots of GRADE_SLOTS_DIR (default WORK_DIR/slots); the normal user's
# are its own, WORK_DIR/user-slots, kept between runs. A case this machine cannot set up is
# skipped, saying why; exit 77 where no case could run.
# usage: check_anywhere.sh WORK_DIR   (GRADE_PRESET, GRADE_LABELS, GRADE_CMAKE_ARGS as for grade.py;
#        GRADE_TEST_USER_UID: the normal user's uid, default 60990)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: check_anywhere.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
export GRADE_GPUS=none GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-60}
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
slots=${GRADE_SLOTS_DIR:-$work/slots}
unset GRADE_SLOTS_DIR
closed=$work/closed
rm -rf "$closed" && mkdir -m 700 "$closed" || exit 1

# The course as a grader's own copy (what snapshot_course takes, mtimes kept so that the slots'
# builds stay up to date), readable by its owner only.
python3 - "$root" "$closed/course" "$work" <<'PY' || exit 1
import shutil, sys
from pathlib import Path
root, dest, work = (Path(a) for a in sys.argv[1:4])
dest.mkdir()
for e in sorted(root.iterdir()):
    if e.name.startswith(".") or e.name in ("build", "solutions", "slides") or work.is_relative_to(e):
        continue
    if e.is_dir() and not e.is_symlink():
        shutil.copytree(e, dest / e.name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        shutil.copy2(e, dest / e.name, follow_symlinks=False)
PY
chmod -R go-rwx "$closed/course"
python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds correct,wrong 2 "$closed/subs" > /dev/null || exit 1
chmod -R go-rwx "$closed/subs"
grader=$closed/course/grading/grade.py

fail=0 ran=0
check() {  # check CASE OUT: the honest one scores every point, the skeleton fewer and fails
  python3 - "$1" "$2" <<'PY' || fail=1
import json, sys
from pathlib import Path
case, out = sys.argv[1], Path(sys.argv[2])
def load(name):
    path = out / "students" / name / "results.json"
    return json.loads(path.read_text()) if path.exists() else None
good, wrong = load("s01-correct"), load("s02-wrong")
if not good or not wrong:
    print(f"FAIL: {case}: no results.json for {'s01-correct' if not good else 's02-wrong'}")
    sys.exit(1)
g, w = good["extra_data"], wrong["extra_data"]
ok = (g["status"].startswith("ok") and good["score"] >= g["max_score"] > 0 and w["built"]
      and "fails" in w["status"] and wrong["score"] < w["max_score"])
print(("ok" if ok else "FAIL") + f": {case}: the honest one {good['score']:g} of {g['max_score']:g} "
      f"({g['status']}), the skeleton {wrong['score']:g} ({w['status']})")
sys.exit(0 if ok else 1)
PY
}
can_bwrap() {  # can_bwrap [RUNNER...]: bubblewrap can make a sandbox for this user
  "$@" python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); from histo_grading import sandbox
sys.exit(0 if sandbox.probe("bwrap", False, 1)[0] else 1)' "$closed/course/grading" > /dev/null 2>&1
}

if [ "$(id -u)" -eq 0 ]; then
  modes=(user)
  if can_bwrap; then modes=(bwrap user); else echo "skipped: root, bubblewrap: bubblewrap cannot make a sandbox here"; fi
  for mode in "${modes[@]}"; do
    if python3 "$grader" run "$lab" "$closed/subs" "$closed/out-root-$mode" --sandbox "$mode" \
         --slots-dir "$slots" > "$work/root-$mode.log" 2>&1; then
      check "root, sandbox $mode" "$closed/out-root-$mode"
    else
      echo "FAIL: root, sandbox $mode: grade.py failed:"; tail -n 5 "$work/root-$mode.log"; fail=1
    fi
    ran=1
  done
  # Build slots asked for where the runs cannot reach: one clear error, nothing graded.
  python3 "$grader" run "$lab" "$closed/subs" "$closed/out-root-error" --slots-dir "$closed/slots" \
    > "$work/root-error.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && grep -q "may not enter $closed (mode 0700" "$work/root-error.log" &&
     [ ! -e "$closed/out-root-error/students" ]; then
    echo "ok: root, slots asked for under the 0700 folder: stops before grading: $(grep -m1 'could not start' "$work/root-error.log" | cut -c1-160)..."
  else
    echo "FAIL: root, slots asked for under the 0700 folder: exit $rc, $(tail -n 2 "$work/root-error.log")"; fail=1
  fi
  ran=1
  # A normal user owning the folder, in bubblewrap.
  uid=${GRADE_TEST_USER_UID:-60990}
  as_user=(setpriv "--reuid=$uid" "--regid=$uid" --clear-groups env "HOME=$closed/home")
  mkdir -p "$closed/home" "$work/user-slots" && chown -R "$uid:$uid" "$closed" "$work/user-slots"
  if ! "${as_user[@]}" test -w "$work/user-slots"; then
    echo "skipped: a normal user: uid $uid cannot reach $work (a folder above it is closed to others)"
  elif ! can_bwrap "${as_user[@]}"; then
    echo "skipped: a normal user: bubblewrap cannot make a sandbox for uid $uid here (unprivileged user namespaces refused?)"
  else
    if "${as_user[@]}" python3 "$grader" run "$lab" "$closed/subs" "$closed/out-user" \
         --slots-dir "$work/user-slots" > "$work/user.log" 2>&1; then
      check "a normal user (uid $uid), sandbox bwrap" "$closed/out-user"
    else
      echo "FAIL: a normal user: grade.py failed:"; tail -n 5 "$work/user.log"; fail=1
    fi
    ran=1
  fi
else
  echo "skipped: root's cases (its sandbox's runs as uids of their own): this test is not run as root"
  if can_bwrap; then
    if python3 "$grader" run "$lab" "$closed/subs" "$closed/out-user" --slots-dir "$slots" \
         > "$work/user.log" 2>&1; then
      check "a normal user ($(id -un)), sandbox bwrap" "$closed/out-user"
    else
      echo "FAIL: a normal user: grade.py failed:"; tail -n 5 "$work/user.log"; fail=1
    fi
    ran=1
  else
    echo "skipped: a normal user: bubblewrap cannot make a sandbox here"
  fi
fi
[ $ran -eq 1 ] || exit 77
exit $fail
