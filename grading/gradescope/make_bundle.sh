#!/usr/bin/env bash
# Builds a Gradescope autograder bundle for one lab.
#
# usage: grading/gradescope/make_bundle.sh LAB [OUT_ZIP]   (default build/gradescope-LAB.zip)
#   GRADE_PRESET  configure preset the autograder builds (default sim: the CPU simulator,
#                 no CUDA Toolkit needed, as Gradescope has no GPU)
#   GRADE_LABELS  tests it runs besides LAB (default "cpu|sim": the CPU and simulator tests)
#
# The zip holds, at its root, setup.sh and run_autograder (Gradescope's two required files),
# lab.env (the lab and settings), and only what grading LAB needs: CMakeLists.txt,
# CMakePresets.json, cmake/, common/, sim/, the lab's folder (no handout), grading/*.py,
# grading/worker/ (the split graders' worker),
# grading/points/LAB.toml, grading/private/LAB/ (its private tests, if any) and
# scripts/install_tools.sh. No solutions/, no other lab, no slides/, report/, bench/ or other
# scripts; the solution-line check of scripts/release.py runs on it and refuses a bundle that
# holds solution code (the private tests aside: setup.sh replaces their sources, see setup.sh).
# Upload it as the assignment's autograder ("Ubuntu 24.04" base image: CMake 3.25 or newer and
# Python 3.11 or newer are needed). Students submit their labNN_*.cu; only that file is used.
# Points per test come from grading/points/LAB.toml, as it is when the bundle is made.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,18p' "$0"; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
lab=$1
ls -d "$root/${lab}"_*/ > /dev/null 2>&1 || { echo "unknown lab '$lab'" >&2; exit 2; }
out=${2:-$root/build/gradescope-$lab.zip}
mkdir -p "$(dirname "$out")"
python3 - "$root" "$lab" "$out" "${GRADE_PRESET:-sim}" "${GRADE_LABELS:-cpu|sim}" <<'PY'
import shlex, shutil, sys, tempfile, zipfile
from pathlib import Path
root, lab, out, preset, labels = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]).resolve(), sys.argv[4], sys.argv[5]
sys.path.insert(0, str(root / "scripts"))
import release  # the course's file list and its solution-line check

folder = release.lab_folders()[lab]
here = root / "grading" / "gradescope"
private = f"grading/private/{lab}/"


def needed(f):
    parts = f.split("/")
    if f.endswith(".md") or f.startswith(release.LEFT_OUT_DIRS):
        return False
    return (f in ("CMakeLists.txt", "CMakePresets.json", "scripts/install_tools.sh", f"grading/points/{lab}.toml")
            or parts[0] in ("cmake", "common", "sim", folder)
            or (parts[0] == "grading" and len(parts) == 2 and f.endswith(".py"))
            or (f.startswith("grading/histo_grading/") and f.endswith(".py"))
            or f.startswith("grading/worker/")
            or f.startswith(private))


files = [f for f in release.course_files() if needed(f)]
with tempfile.TemporaryDirectory() as tmp:
    stage = Path(tmp)
    for f in files:
        if not f.startswith(private):
            (stage / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / f, stage / f)
    leaks, _ = release.check_solution_lines(stage, release.answer_lines())
    if leaks:
        for leak in leaks:
            print(f"LEAK: {leak}", file=sys.stderr)
        sys.exit(f"make_bundle: {len(leaks)} line(s) of solution code would be in the bundle: none written")
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
    for name in ("setup.sh", "run_autograder"):
        z.write(here / name, name)
    z.writestr(zipfile.ZipInfo("lab.env"),
               f"LAB={lab}\nGRADE_PRESET={shlex.quote(preset)}\nGRADE_LABELS={shlex.quote(labels)}\n")
    for f in files:
        z.write(root / f, f)
n_private = sum(f.startswith(private) for f in files)
print(f"{out}: Gradescope autograder for {lab} (preset {preset}, tests {lab} + {labels}; "
      f"{len(files)} files, {n_private} private test file(s); no solution line in it)")
PY
