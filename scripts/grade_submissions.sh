#!/usr/bin/env bash
# Grades many students' versions of one lab with the shipped grader.
#
# usage: scripts/grade_submissions.sh LAB SUBMISSIONS_DIR [OUTPUT_DIR]
#   LAB              lab01 ... lab06
#   SUBMISSIONS_DIR  one entry per student: a folder holding the lab's source file (e.g.
#                    alice/lab03_global_atomics.cu) or a file named <student>.cu
#   OUTPUT_DIR       default build/grading-LAB: grades.csv, one JUnit XML and one log each
#
# Each submission replaces only the lab's student source in a private copy of this tree (the
# header, the grader and common/ stay the course's own), is built, and runs the lab's grader.
# A submission that does not compile, crashes, or runs past GRADE_TIMEOUT seconds (default
# 600) is recorded as such. RACECHECK=1 also runs compute-sanitizer racecheck on small inputs.
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,15p' "$0"; exit 2; }
lab=$1
subs=$(cd "$2" && pwd) || exit 2
root=$(cd "$(dirname "$0")/.." && pwd)
folder=$(cd "$root" && ls -d ${lab}_*/ 2>/dev/null | head -n 1)
folder=${folder%/}
[ -n "$folder" ] || { echo "unknown lab '$lab'" >&2; exit 2; }
source_name=$folder.cu
out=${3:-$root/build/grading-$lab}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# A private copy of the tree, configured once; each submission rebuilds one library.
tree=$out/tree
rm -rf "$tree"
mkdir -p "$tree"
(cd "$root" && tar --exclude=./build --exclude=./.git -cf - .) | (cd "$tree" && tar -xf -)
if [ -n "${GRADE_PRESET:-}" ]; then preset=$GRADE_PRESET
elif nvidia-smi -L > /dev/null 2>&1; then preset=student-gpu; else preset=student; fi
cmake -S "$tree" --preset "$preset" > "$out/configure.log" 2>&1 || { echo "configure failed: $out/configure.log" >&2; exit 1; }
grader=$tree/build/$preset/$folder/${lab}_student_grader

echo "submission,built,passed,failed,skipped,status" > "$out/grades.csv"
for entry in "$subs"/*; do
  name=$(basename "$entry" .cu)
  if [ -d "$entry" ]; then src=$entry/$source_name; else src=$entry; fi
  case "$src" in *.cu) ;; *) continue ;; esac
  log=$out/$name.log
  if [ ! -f "$src" ]; then
    echo "$name,no,0,0,0,missing $source_name" >> "$out/grades.csv"
    continue
  fi
  cp "$src" "$tree/$folder/$source_name"
  if ! cmake --build "$tree/build/$preset" --target ${lab}_student_grader > "$log" 2>&1; then
    echo "$name,no,0,0,0,does not compile" >> "$out/grades.csv"
    continue
  fi
  timeout "${GRADE_TIMEOUT:-600}" "$grader" --reporter "junit::out=$out/$name.xml" \
    --reporter console >> "$log" 2>&1
  rc=$?
  # Counts from the JUnit report: test cases, failures, errors, skipped.
  read -r total failed skipped < <(python3 - "$out/$name.xml" <<'PY' 2>/dev/null || echo "0 0 0"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
total = failed = skipped = 0
for c in cases:
    total += 1
    failed += c.find("failure") is not None or c.find("error") is not None
    skipped += c.find("skipped") is not None
print(total, failed, skipped)
PY
)
  status=ok
  [ $rc -eq 124 ] && status="timed out"
  [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 4 ] && status="fails (exit $rc)"
  [ $rc -eq 4 ] && status="all skipped: no GPU"
  if [ "${RACECHECK:-0}" = 1 ] && [ "$status" = ok ]; then
    HISTO_GRADER_MAX_N=1048576 compute-sanitizer --tool racecheck --error-exitcode 99 "$grader" "~[large]" \
      > "$out/$name.racecheck.log" 2>&1 || status="races (see $name.racecheck.log)"
  fi
  echo "$name,yes,$((total - failed - skipped)),$failed,$skipped,$status" >> "$out/grades.csv"
done
column -s, -t < "$out/grades.csv"
echo "grades: $out/grades.csv"
