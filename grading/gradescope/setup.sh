#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image. It installs the build
# tools, then builds the lab's graders with the shipped skeleton, so that grading a submission
# rebuilds only the student's file.
set -euo pipefail
ag=${AUTOGRADER_ROOT:-/autograder}
cd "$ag/source"
. ./lab.env
need=()
command -v cmake > /dev/null || need+=(cmake)
command -v ninja > /dev/null || need+=(ninja-build)
command -v g++ > /dev/null || need+=(g++)
command -v python3 > /dev/null || need+=(python3)
command -v git > /dev/null || need+=(git ca-certificates)  # Catch2 is fetched if not installed
dpkg -s libcatch2-dev > /dev/null 2>&1 || need+=(libcatch2-dev)
if [ ${#need[@]} -gt 0 ]; then
  apt-get install -y -q --no-install-recommends "${need[@]}"
fi
# Grading the skeleton once prepares the build slot that run_autograder reuses.
mkdir -p "$ag/work"
python3 grading/grade.py one "$LAB" "$ag/source" "$ag/work" --name skeleton --gpus none \
  --preset "$GRADE_PRESET" --labels "$GRADE_LABELS" --build-slots 1
