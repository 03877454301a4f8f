#!/usr/bin/env bash
# Builds a Gradescope autograder bundle for one lab.
#
# usage: grading/gradescope/make_bundle.sh LAB [OUT_ZIP]   (default build/gradescope-LAB.zip)
#   GRADE_PRESET  configure preset the autograder builds (default sim: the CPU simulator,
#                 no CUDA Toolkit needed, as Gradescope has no GPU)
#   GRADE_LABELS  tests it runs besides LAB (default "cpu|sim": the CPU and simulator tests)
#
# The zip holds, at its root, setup.sh and run_autograder (Gradescope's two required files),
# lab.env (the lab and settings), and this course tree without solutions/, build/ or .git.
# Upload it as the assignment's autograder ("Ubuntu 24.04" base image: CMake 3.25 or newer and
# Python 3.11 or newer are needed). Students submit their labNN_*.cu; only that file is used.
# Points per test come from grading/points/LAB.toml, as it is when the bundle is made.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,13p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$1
ls -d "$root/${lab}"_*/ > /dev/null 2>&1 || { echo "unknown lab '$lab'" >&2; exit 2; }
out=${2:-$root/build/gradescope-$lab.zip}
mkdir -p "$(dirname "$out")"
python3 - "$root" "$lab" "$out" "${GRADE_PRESET:-sim}" "${GRADE_LABELS:-cpu|sim}" <<'PY'
import os, shlex, sys, zipfile
from pathlib import Path
root, lab, out, preset, labels = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).resolve(), sys.argv[4], sys.argv[5]
here = root / "grading" / "gradescope"
skip = {"build", "solutions"}
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in ("setup.sh", "run_autograder"):
        z.write(here / name, name)
    z.writestr(zipfile.ZipInfo("lab.env"),
               f"LAB={lab}\nGRADE_PRESET={shlex.quote(preset)}\nGRADE_LABELS={shlex.quote(labels)}\n")
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        dirnames[:] = sorted(n for n in dirnames if not n.startswith(".") and not (d == root and n in skip)
                             and (d / n).resolve() != out.parent)
        for f in sorted(filenames):
            p = d / f
            if f.startswith(".") or p.resolve() == out:
                continue
            z.write(p, str(p.relative_to(root)))
print(f"{out}: Gradescope autograder for {lab} (preset {preset}, tests {lab} + {labels})")
PY
