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

from .common import ROOT, write_private

# Extract only plain files and folders inside the target (Pythons that know the filter).
SAFE_TAR = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
SLOT_MODE = 0o755  # a slot's folders and executables (its other files: 0644)


# A tar of the course tree (no build outputs, no git, no solutions, no slides, no mistakes made
# on the solutions): what every
# slot is restored to before a build, so that nothing a submission wrote survives into the
# next, and nothing a submission could include holds an answer.
# The tar is the grader's alone (0600, whatever the course's modes: the runs never read it); its
# files are 0644 (0755 executable) and folders 0755 in a slot, whatever the course's modes, for
# the slot's builds, and a slot is entered only by its own builds' user (batch.Grading.prepare).
def snapshot_course(g):
    g.slots_dir.mkdir(parents=True, exist_ok=True)
    skip = {"build", "solutions", "slides"}
    tmp = g.pristine.with_suffix(".tmp")

    def member(t):
        if t.name.startswith(("common/tests/mistakes/", "common/tests/mistakes")):
            return None
        t.mode = SLOT_MODE if t.isdir() or t.mode & 0o100 else SLOT_MODE & 0o666
        t.uid = t.gid = 0
        t.uname = t.gname = ""
        return t

    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "wb") as f, tarfile.open(fileobj=f, mode="w") as tar:
        for entry in sorted(ROOT.iterdir()):
            if entry.name in skip or entry.name.startswith(".") or entry.resolve() in (g.out, g.stage):
                continue
            tar.add(entry, arcname=entry.name, filter=member)
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
                if member.isdir() and stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == member.mode:
                    continue
                if (member.isfile() and stat.S_ISREG(st.st_mode) and st.st_size == member.size
                        and int(st.st_mtime) == int(member.mtime)
                        and stat.S_IMODE(st.st_mode) == member.mode):
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    target.unlink()  # never written through: a link is replaced, not followed
            except FileNotFoundError:
                pass
            tar.extract(member, tree, **SAFE_TAR)
            if member.isdir():
                target.chmod(member.mode)  # (the data filter leaves folders' modes to the umask)


def grader_targets(g, build):
    out = subprocess.run(["cmake", "--build", str(build), "--target", "help"],
                         capture_output=True, text=True)
    names = sorted(set(re.findall(rf"^({g.lab}_student\w*_grader):", out.stdout, re.M)))
    if not names:
        raise RuntimeError(f"no {g.lab}_student*_grader target in {build}:\n{out.stdout[-2000:]}")
    # The CPU-simulator grader (labNN_student_sim_grader) only when its tests are graded (or its
    # cost tests, or compared with Nsight Compute's), or when it is the only one (a
    # simulator-only build registers the CPU tests there).
    gpu_side = [n for n in names if "_sim_" not in n]
    if gpu_side and not any("sim" in label for label in g.labels) and not g.settings.simulator_twin:
        return gpu_side
    return names


# The cost tests graded on the simulator's counters need them in the build: Clang, and no
# sanitizer (sim/CMakeLists.txt, HISTO_SIM_TRACE). Without them those tests would only skip.
def check_counters(g, build):
    if g.settings.perf != "sim":
        return
    try:
        cache = (build / "CMakeCache.txt").read_text(errors="replace")
    except OSError:
        return
    if re.search(r"^HISTO_SIM_TRACE:BOOL=(ON|TRUE|1)$", cache, re.M):
        return
    compiler = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.*)$", cache, re.M)
    raise RuntimeError(
        "the cost tests ([perf], \"cost: ...\") are graded on the CPU simulator's counters, and "
        f"this build has none (C++ compiler {compiler.group(1) if compiler else 'unknown'}): they "
        "need Clang 14 or newer and no sanitizer. Install clang (Debian/Ubuntu: apt-get install "
        "clang; the configure takes clang++ when it finds one), or grade the cost with Nsight "
        "Compute on a GPU (GRADE_NCU=1), or without it (--perf none: the results then say so)")


def prepare_slot(g, index, jobs):
    tree = g.slots_dir / f"slot{index}"
    build = tree / "build" / "grading"
    ready = tree / "ready"
    tree.mkdir(parents=True, exist_ok=True)
    restore(g, tree)
    # A slot is reused only if it was configured with the same settings; a slot of another lab,
    # or graded with other labels (the same --slots-dir), only builds the graders it lacks.
    settings = (f"{g.preset} | {os.environ.get('GRADE_CMAKE_ARGS', '')}"
                f" | compile commands, hazards always, split graders | perf {g.settings.perf}"
                f"{' | simulator twin' if g.settings.simulator_twin else ''}")
    lines = ready.read_text().splitlines() if ready.exists() else []
    configured = lines[1:2] == [settings]
    if configured and lines[2:3] == [g.lab] and set(grader_targets(g, build)) <= set(lines[0].split()):
        return tree
    ready.unlink(missing_ok=True)
    log = tree / "prepare.log"
    with open(log, "a" if configured else "w", opener=lambda p, f: os.open(p, f, 0o600)) as f:
        if not configured:
            shutil.rmtree(build, ignore_errors=True)
            # compile_commands.json: the commands whose preprocessor lists what a submission reads.
            # HISTO_SIM_HAZARDS_ALWAYS: no environment switches the simulator's hazard checks off.
            # HISTO_SPLIT_GRADERS: the graders (the simulator's and the GPU's) never load the
            # submission; a worker beside each runs it (grading/worker, tests.run_split). A student repository has
            # no grading/worker: its graders there stay whole.
            cmd = ["cmake", "-S", str(tree), "-B", str(build), "--preset", g.preset,
                   "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DHISTO_SIM_HAZARDS_ALWAYS=ON",
                   f"-DHISTO_SPLIT_GRADERS={'ON' if (ROOT / 'grading' / 'worker').is_dir() else 'OFF'}"]
            if g.settings.simulator_twin:
                # The simulator's build of the same source as well: its cost tests grade (perf
                # sim), or their values are compared with Nsight Compute's (GRADE_NCU=1).
                cmd.append("-DHISTO_SIM=ON")
            cmd += shlex.split(os.environ.get("GRADE_CMAKE_ARGS", ""))
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=tree).returncode != 0:
                raise RuntimeError(f"configure failed: {log}")
        check_counters(g, build)
        targets = grader_targets(g, build)
        if subprocess.run(["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets],
                          stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            raise RuntimeError(f"building the shipped skeleton failed: {log}")
    write_private(ready, " ".join(targets) + "\n" + settings + "\n" + g.lab + "\n")
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
        worker = build / (rel + "_worker")  # a split grader's worker (grading/worker)
        if worker.exists():
            if not stat.S_ISREG(worker.lstat().st_mode):
                raise RuntimeError(f"{rel}_worker in the build slot is not a regular file")
            shutil.copyfile(worker, dest / worker.name, follow_symlinks=False)
            (dest / worker.name).chmod(0o755)
