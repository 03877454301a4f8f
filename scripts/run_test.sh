#!/bin/sh
# Runs one CTest test, named exactly, and exits 0 only when it ran and passed: a test that was
# skipped (a GPU test without a GPU, an input too large for the CPU simulator) is no pass.
# GitHub Classroom's autograding runs one of these per graded test (.github/workflows/classroom.yml).
#
# usage: scripts/run_test.sh BUILD_DIR 'labNN.student: <test case>'
#   e.g. scripts/run_test.sh build/sim 'lab01.student.sim: histogram_segmented matches the CPU reference on every dataset'
set -u
if [ $# -ne 2 ]; then
  echo "usage: scripts/run_test.sh BUILD_DIR TEST_NAME (ctest --test-dir BUILD_DIR -N lists the names)" >&2
  exit 2
fi
dir=$1
name=$2
# The name as an anchored CTest regular expression, every special character escaped.
regex=$(printf '%s' "$name" | sed 's/[][\\.^$*+?(){}|]/\\&/g')
out=$(ctest --test-dir "$dir" -R "^$regex\$" --no-tests=error --output-on-failure 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "tests did not run"; then
  echo "NOT RUN: '$name' was skipped here (the reason is above): it earns no points here" >&2
  exit 1
fi
exit "$rc"
