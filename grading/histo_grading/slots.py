"""Build slots: private copies of the course tree, configured and built once with the shipped
skeleton, restored to the course's files before each submission's build.

Functions of one grading run (a batch.Grading, `g`).
"""
import os
import re
import shlex
import shutil
import stat
import subprocess
import tarfile
from pathlib import Path

from .common import ROOT

# Extract only plain files and folders inside the target (Pythons that know the filter).
SAFE_TAR = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


# A tar of the course tree (no build outputs, no git, no solutions, no slides, no mistakes made
# on the solutions): what every
# slot is restored to before a build, so that nothing a submission wrote survives into the
# next, and nothing a submission could include holds an answer.
def snapshot_course(g):
    g.slots_dir.mkdir(parents=True, exist_ok=True)
    skip = {"build", "solutions", "slides"}
    tmp = g.pristine.with_suffix(".tmp")
    with tarfile.open(tmp, "w") as tar:
        for entry in sorted(ROOT.iterdir()):
            if entry.name in skip or entry.name.startswith(".") or entry.resolve() == g.out:
                continue
            tar.add(entry, arcname=entry.name, filter=lambda t: None if t.name.startswith(
                ("common/tests/mistakes/", "common/tests/mistakes")) else t)
    os.replace(tmp, g.pristine)


# Rewrites only what differs from the course's copy (size or whole-second mtime, as tar
# keeps them): untouched files are not written, so a build never looks like a submission
# writing into the slot, and ninja rebuilds nothing that did not change.
def restore(g, tree):
    with tarfile.open(g.pristine) as tar:
        for member in tar.getmembers():
            target = tree / member.name
            try:
                st = target.lstat()
                if member.isdir() and stat.S_ISDIR(st.st_mode):
                    continue
                if (member.isfile() and stat.S_ISREG(st.st_mode) and st.st_size == member.size
                        and int(st.st_mtime) == int(member.mtime)):
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    target.unlink()  # never written through: a link is replaced, not followed
            except FileNotFoundError:
                pass
            tar.extract(member, tree, **SAFE_TAR)


def grader_targets(g, build):
    out = subprocess.run(["cmake", "--build", str(build), "--target", "help"],
                         capture_output=True, text=True)
    names = sorted(set(re.findall(rf"^({g.lab}_student\w*_grader):", out.stdout, re.M)))
    if not names:
        raise RuntimeError(f"no {g.lab}_student*_grader target in {build}:\n{out.stdout[-2000:]}")
    # The CPU-simulator grader (labNN_student_sim_grader) only when its tests are graded, or
    # when it is the only one (a simulator-only build registers the CPU tests there).
    gpu_side = [n for n in names if "_sim_" not in n]
    if gpu_side and not any("sim" in label for label in g.labels) and not g.settings.ncu:
        return gpu_side
    return names


def prepare_slot(g, index, jobs):
    tree = g.slots_dir / f"slot{index}"
    build = tree / "build" / "grading"
    ready = tree / "ready"
    tree.mkdir(parents=True, exist_ok=True)
    restore(g, tree)
    # A slot is reused only if it was built with the same settings.
    settings = (f"{g.preset} | {os.environ.get('GRADE_CMAKE_ARGS', '')} | {' '.join(g.labels)}"
                f" | compile commands{' | ncu' if g.settings.ncu else ''}")
    if ready.exists() and ready.read_text().splitlines()[1:2] == [settings]:
        return tree
    ready.unlink(missing_ok=True)
    shutil.rmtree(build, ignore_errors=True)
    # compile_commands.json: the commands whose preprocessor lists what a submission reads.
    cmd = ["cmake", "-S", str(tree), "-B", str(build), "--preset", g.preset,
           "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    if g.settings.ncu:
        # GRADE_NCU=1: the simulator's build of the same source as well, whose [perf] values
        # are compared with Nsight Compute's (its counters need Clang: without it they skip,
        # and the comparison says so).
        cmd.append("-DHISTO_SIM=ON")
    cmd += shlex.split(os.environ.get("GRADE_CMAKE_ARGS", ""))
    log = tree / "prepare.log"
    with open(log, "w") as f:
        if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=tree).returncode != 0:
            raise RuntimeError(f"configure failed: {log}")
        targets = grader_targets(g, build)
        if subprocess.run(["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets],
                          stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            raise RuntimeError(f"building the shipped skeleton failed: {log}")
    ready.write_text(" ".join(targets) + "\n" + settings + "\n")
    return tree


# Copies the graders the expected tests run (built in the slot's build folder, by the
# submission's build) into `dest`, so that the slot can build the next submission while this
# one's tests run. Only regular files are copied, never through a link.
def copy_graders(g, tree, dest):
    build = tree / "build" / "grading"
    dest.mkdir(parents=True, exist_ok=True)
    for rel in sorted({c["exe_rel"] for c in g.expected_cases + g.perf_cases}):
        src = build / rel
        st = src.lstat()
        if not stat.S_ISREG(st.st_mode):
            raise RuntimeError(f"{rel} in the build slot is not a regular file")
        copy = dest / src.name
        shutil.copyfile(src, copy, follow_symlinks=False)
        copy.chmod(0o755)
