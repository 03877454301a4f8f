#!/usr/bin/env bash
# CTest's checks of the decks and the handout numbers against the committed reference run.
#   check.sh render OUT_DIR   render every deck from report/ (scripts/slides.sh), and the student
#                             decks (--student) into OUT_DIR/student
#   check.sh numbers          the handouts' marked tables match report/ (sync_numbers.py --check)
# Exit 77 (CTest: skipped) with the reason when the check cannot run here.
set -uo pipefail
cd "$(dirname "$0")/.."
skip() { echo "SKIPPED: $*"; exit 77; }

[ -f report/numbers.json ] ||
  skip "no reference run committed in report/ (report/README.md says how to make one on a GPU)"
command -v python3 > /dev/null 2>&1 || skip "python3 is not installed"
case "${1:-}" in
  render)
    command -v pandoc > /dev/null 2>&1 || skip "pandoc is not installed (Debian: apt-get install pandoc)"
    out=${2:?check.sh render OUT_DIR}
    scripts/slides.sh report "$out" && scripts/slides.sh --student report "$out/student"
    ;;
  numbers)
    exec python3 scripts/sync_numbers.py --check report
    ;;
  *)
    echo "usage: check.sh render OUT_DIR | numbers" >&2
    exit 2
    ;;
esac
