#!/bin/sh
# Runs one CTest test, named exactly, and exits 0 only when it ran and passed: a test that was
# skipped (a GPU test without a GPU, an input too large for the CPU simulator) is no pass.
# GitHub Classroom's autograding runs one of these per graded test (.github/workflows/classroom.yml).
# A test whose grader did not build says so, with the compiler's first errors for that lab
# (from BUILD_DIR/build.log, which the workflow's build step writes).
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
lab=${name%%.*}
# The name as an anchored CTest regular expression, every special character escaped.
regex=$(printf '%s' "$name" | sed 's/[][\\.^$*+?(){}|]/\\&/g')
out=$(ctest --test-dir "$dir" -R "^$regex\$" --no-tests=error --output-on-failure 2>&1)
rc=$?
# The last build failed for this lab (an older grader may still be there: not this source's).
failed_build=no
if [ -f "$dir/build.log" ] && grep "^FAILED: " "$dir/build.log" | grep -q "$lab"; then
  failed_build=yes
fi
if [ "$failed_build" = yes ] || printf '%s\n' "$out" | grep -q "No tests were found"; then
  echo "NOT BUILT: '$name' did not run: $lab's grader did not build (your source does not compile?)."
  if [ -f "$dir/build.log" ]; then
    echo "The compiler's first errors for $lab ($dir/build.log):"
    # ninja's report of each failed step: "FAILED: <output>", the command, then the messages,
    # up to the next step's "[N/M]" line. Only the steps of this lab's files.
    awk -v lab="$lab" '
      /^FAILED: / { show = index($0, lab) > 0; skip = 1; next }
      /^\[[0-9]+\/[0-9]+\] / || /^ninja: / { show = 0 }
      show && skip { skip = 0; next }
      show && shown < 40 { print; shown++ }' "$dir/build.log" | sed "s|$(pwd)/||g"
  else
    echo "($dir/build.log is missing: build with cmake --build --preset sim to see why)"
  fi
  exit 1
fi
printf '%s\n' "$out"
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "tests did not run"; then
  echo "NOT RUN: '$name' was skipped here (the reason is above): it earns no points here" >&2
  exit 1
fi
exit "$rc"
