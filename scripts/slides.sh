#!/usr/bin/env bash
# Renders the course decks (slides/labNN_*.md) to PowerPoint with pandoc, filling their numbers
# and figures from one benchmark report.
#
# usage: scripts/slides.sh [--student] [REPORT_DIR [OUT_DIR]]
#   --student   the decks to show or give to students: without the slides for instructors only
#               (titled "... (for instructors)", e.g. the solution excerpts of "The shape of the
#               code"); default OUT_DIR build/slides-student
#   REPORT_DIR  a folder written by scripts/report.sh (numbers.json, figures/); default: the
#               committed reference run in report/
#   OUT_DIR     where the .pptx files go; default: build/slides
# Fails (non-zero, naming the deck and the key) on a placeholder it cannot fill or a missing
# figure. Needs pandoc (Debian: apt-get install pandoc) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
fill_args=()
default_out=build/slides
if [ "${1:-}" = --student ]; then
  fill_args=(--student)
  default_out=build/slides-student
  shift
fi
report=${1:-report}
out=${2:-$default_out}

if ! command -v pandoc > /dev/null 2>&1; then
  echo "slides.sh: pandoc is not installed (on Debian: apt-get install pandoc)" >&2
  exit 1
fi
if [ ! -f "$report/numbers.json" ]; then
  if [ "$report" = report ]; then
    echo "slides.sh: no reference run committed in report/ (report/numbers.json is missing)." >&2
    echo "  Make one on a GPU with scripts/report.sh and copy it as report/README.md says," >&2
    echo "  or render from a report folder: scripts/slides.sh build/gpu/report" >&2
  else
    echo "slides.sh: $report/numbers.json is missing: is $report a folder written by scripts/report.sh?" >&2
  fi
  exit 1
fi

meta=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1])).get("meta", {})
print("%s, driver %s, %s" % (m.get("gpu", "?"), m.get("driver", "?"), m.get("date", "?")))' "$report/numbers.json")
echo "== ${fill_args:+student }slides from $report ($meta)"

filled=$(mktemp -d)
trap 'rm -rf "$filled"' EXIT
python3 scripts/fill_slides.py "${fill_args[@]}" "$report" "$filled"
pandoc -o "$filled/default.pptx" --print-default-data-file reference.pptx
python3 scripts/fill_slides.py --reference "$filled/default.pptx" "$filled/reference.pptx"

mkdir -p "$out"
for deck in "$filled"/lab*.md; do
  name=$(basename "$deck" .md)
  pandoc "$deck" --from markdown --to pptx --slide-level=2 --reference-doc "$filled/reference.pptx" \
    -o "$out/$name.pptx"
  echo "   $out/$name.pptx"
done
echo "== $(ls "$filled"/lab*.md | wc -l) decks in $out"
