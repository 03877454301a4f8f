# Sourced by the grading tests that grade with the sim engine (grade.py's default without a GPU):
# it grades the cost tests on the simulator's counters, which need Clang, and refuses to start
# without it. Where no Clang is found, such a test is skipped (exit 77), saying why.
if ! python3 -c "import sys; sys.path.insert(0, '$root/grading')
from histo_grading.engines import find_clang
sys.exit(0 if find_clang() else 1)"; then
  echo "skipped: the sim engine grades the cost tests on the CPU simulator's counters, which need" \
       "Clang 14 or newer (clang++ is not on PATH)"
  exit 77
fi
