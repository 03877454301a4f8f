#!/usr/bin/env bash
# Grades many students' versions of one lab with the shipped grader (grading/grade.py does it).
#
# usage: scripts/grade_submissions.sh LAB SUBMISSIONS_DIR [OUTPUT_DIR] [--slurm] [options]
#   LAB              lab01 ... lab06
#   SUBMISSIONS_DIR  one entry per student: a folder holding the lab's source file (e.g.
#                    alice/lab03_global_atomics.cu) or a file named <student>.cu
#   OUTPUT_DIR       default build/grading-LAB: grades.csv, and per student
#                    students/NAME/results.json (Gradescope's format) and build.log
#   --slurm          submit a Slurm job array (one task per --per-task submissions, each with
#                    --gres=gpu:1) and a dependent job that gathers grades.csv
#   options          --engine gpu|sim|cpu (what runs the kernels: the GPUs where nvidia-smi lists
#                    one, else the CPU simulator; cpu: CPU checks only), --force (grade again
#                    what was graded), --gpus 0,1 | none, --build-slots K, --preset P,
#                    --labels L; see grading/grade.py --help
#
# Only the lab's student source is taken from a submission; it is built in a private copy of
# this tree. Submissions are graded in parallel: builds on the CPU cores, tests with one GPU
# each (CUDA_VISIBLE_DEVICES), never two submissions on one GPU; without a GPU the kernels run in
# the CPU simulator, and the summary line says which engine graded. A submission that does not
# compile, crashes, hangs (GRADE_TEST_TIMEOUT per test, default 120 s), prints megabytes or
# writes outside its folder is recorded as such. RACECHECK=1 also runs compute-sanitizer racecheck.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,23p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
lab=$1 subs=$2
shift 2
out=$root/build/grading-$lab
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then out=$1; shift; fi
mode=run
opts=()
for arg in "$@"; do
  if [ "$arg" = --slurm ]; then mode=slurm; else opts+=("$arg"); fi
done
exec python3 "$root/grading/grade.py" "$mode" "$lab" "$subs" "$out" "${opts[@]}"
