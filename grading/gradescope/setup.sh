#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image (a bare Ubuntu whose
# package index may be empty). It installs the build tools (apt-get update, then a
# non-interactive install: scripts/install_tools.sh), then builds the lab's graders with the
# shipped skeleton, its private tests included, so that grading a submission rebuilds only the
# student's file. Last, every copy of a private test's source (grading/private/LAB/*.cpp) is
# replaced by a stub of the same name and time stamp, so the build still sees it as compiled
# and a submission finds no source to read.
#
# What it protects: each submission's build and tests run in grading's sandbox (bubblewrap
# where the container allows user namespaces, else an unprivileged uid of their own, with limits,
# every process of it killed after the run), never as root; run_autograder and the results are
# root's. What cannot be hidden: the submission's code is linked into the grader, so it can read
# the grader's own memory (the private tests' compiled code, their names and messages), and in
# the unprivileged-user mode whatever that user may read of the image (world-readable files);
# the test names and outputs a student sees in results.json follow grading/points/LAB.toml's
# visibility. The uploaded zip itself still holds the private tests' sources: keep it with the
# course staff.
set -euo pipefail
ag=${AUTOGRADER_ROOT:-/autograder}
cd "$ag/source"
. ./lab.env
# HISTO_SETUP_INSTALL=0: the tools are there already (a machine that cannot reach the package
# repositories, such as the course's own test of this bundle offline).
if [ "${HISTO_SETUP_INSTALL:-1}" != 0 ]; then
  bash scripts/install_tools.sh
fi
# Grading the skeleton once prepares the build slot that run_autograder reuses.
mkdir -p "$ag/work"
python3 grading/grade.py one "$LAB" "$ag/source" "$ag/work" --name skeleton --gpus none \
  --preset "$GRADE_PRESET" --labels "$GRADE_LABELS" --build-slots 1
rm -rf "$ag/work/students/skeleton"  # its test logs name and quote the private tests

python3 - "$ag" "$LAB" <<'PY'
import io, os, sys, tarfile
from pathlib import Path
ag, lab = Path(sys.argv[1]), sys.argv[2]
where = f"grading/private/{lab}"
sources = sorted((ag / "source" / where).glob("*.cpp"))
if not sources:
    print(f"setup: {lab} has no private tests")
    sys.exit(0)
names = {p.name for p in sources}
stub = (b"// A private test of this lab: compiled into its graders when the autograder was set up.\n"
        b"// Its source was removed here so that a submission cannot read it.\n")
replaced = 0
for base in (ag / "source", ag / "work"):
    for path in list(base.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        if path.name in names and path.parent.as_posix().endswith(where):
            st = path.stat()
            path.write_bytes(stub)
            # The original time stamp: the build's object file stays newer, nothing recompiles.
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            replaced += 1
        elif path.suffix == ".tar":
            # Snapshots of the course tree the grader restores build slots from.
            with tarfile.open(path) as old:
                members = [(m, old.extractfile(m).read() if m.isfile() else None) for m in old.getmembers()]
            hit = False
            with tarfile.open(path.with_suffix(".tmp"), "w") as new:
                for m, data in members:
                    if m.isfile() and Path(m.name).name in names and Path(m.name).parent.as_posix().endswith(where):
                        data, m.size, hit = stub, len(stub), True
                    new.addfile(m, io.BytesIO(data) if data is not None else None)
            os.replace(path.with_suffix(".tmp"), path)
            replaced += hit
print(f"setup: {len(sources)} private test source(s) of {lab} compiled, then replaced by stubs ({replaced} copies)")
PY
