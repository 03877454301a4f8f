#!/usr/bin/env python3
"""Grades students' versions of one lab: many at once, on Gradescope, or as Slurm array tasks.

usage:
  grade.py run    LAB SUBMISSIONS OUT [--force] [--gpus LIST|none] [--build-slots K] ...
  grade.py one    LAB SUBMISSION_DIR OUT [--results FILE]      (Gradescope: one submission)
  grade.py slurm  LAB SUBMISSIONS OUT [--per-task B] [--sbatch-args "..."]
  grade.py gather OUT                                          (grades.csv from every result)

SUBMISSIONS holds one entry per student: a folder with the lab's source file somewhere inside
(e.g. alice/lab03_global_atomics.cu) or a file <student>.cu. Only that one source is taken from
a submission: its other files (headers, graders, CMake files) are never used.

How it works. A build slot is a private copy of the course tree, configured once and built once
with the shipped skeleton (that builds common/ and tells which tests exist). To grade a
submission, a slot is restored to the course's files, the student source is copied in, and only
the lab's student grader targets are rebuilt. The graders and their CTest files are then copied
into the submission's own folder OUT/<student>/, the slot is freed for the next build, and CTest
runs the lab's tests there, holding one GPU (CUDA_VISIBLE_DEVICES) so that two submissions never
share a GPU. Builds run in parallel on the CPU cores while other submissions hold the GPUs.

Per submission OUT/<student>/ gets results.json (Gradescope's format, with the grading status
in extra_data), junit.xml, build.log and test.log; OUT/grades.csv sums them up. A submission
that does not compile, crashes, runs past its time, prints megabytes, or writes files outside
its folder is recorded as such; nothing a submission does stops the batch. A submission already
graded (same source) is skipped unless --force.

Settings (options, or the environment):
  --preset / GRADE_PRESET        CMake configure preset (default student-gpu with a GPU, else student)
  --labels / GRADE_LABELS        CTest labels a test must carry besides LAB, all required; "a|b"
                                 takes either (default: "cpu|gpu" with a GPU, else "cpu"; for the
                                 CPU simulator preset "cpu|sim")
  --gpus / GRADE_GPUS            GPU ids to use, comma-separated, or "none" (default: every GPU
                                 nvidia-smi lists, else none)
  --build-slots / GRADE_BUILD_SLOTS  parallel builds (default: half the CPU cores, 1 to 8)
  GRADE_TEST_TIMEOUT             seconds per test before it counts as hanging (default 120)
  GRADE_TIMEOUT                  seconds for one submission's whole test run (default 600)
  GRADE_BUILD_TIMEOUT            seconds for one build (default 600)
  GRADE_CMAKE_ARGS               extra configure arguments, e.g. -DCMAKE_CUDA_ARCHITECTURES=90-real
  RACECHECK=1                    also run compute-sanitizer racecheck (GPU) on small inputs
Points per test: grading/points/LAB.toml (see grading/points/README.md).
"""
import argparse
import codecs
import concurrent.futures
import contextlib
import csv
import fnmatch
import hashlib
import json
import os
import queue
import re
import shlex
import shutil
import stat
import subprocess
import sys
import tarfile
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRADING = ROOT / "grading"
# What a student sees of one test's output, and of a compiler's complaints.
OUTPUT_LIMIT = 8000
BUILD_LOG_LIMIT = 200_000
# A test whose captured output passes this is recorded as printing too much.
HUGE_OUTPUT = 1_000_000
# Largest file a test run may write (bytes): stops a runaway writer filling the disk.
FILE_SIZE_LIMIT = 256 * 1024 * 1024

print_lock = threading.Lock()


class TestRuns:
    """Test runs of several submissions go on side by side (shared); a run that must be the only
    one (alone) waits until the others are done and keeps new ones from starting."""

    def __init__(self):
        self.cond = threading.Condition()
        self.active = 0
        self.exclusive = False

    @contextlib.contextmanager
    def shared(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.exclusive)
            self.active += 1
        try:
            yield
        finally:
            with self.cond:
                self.active -= 1
                self.cond.notify_all()

    @contextlib.contextmanager
    def alone(self):
        with self.cond:
            self.cond.wait_for(lambda: not self.exclusive)
            self.exclusive = True
            self.cond.wait_for(lambda: self.active == 0)
        try:
            yield
        finally:
            with self.cond:
                self.exclusive = False
                self.cond.notify_all()


# Extract only plain files and folders inside the target (Pythons that know the filter).
SAFE_TAR = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


def say(*args):
    with print_lock:
        print(*args, flush=True)


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def lab_folder(lab):
    found = sorted(p.name for p in ROOT.glob(f"{lab}_*") if p.is_dir())
    if not re.fullmatch(r"lab\d\d", lab) or not found:
        sys.exit(f"unknown lab '{lab}': expected lab01 ... lab06")
    return found[0]


def detect_gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    gpus = [line for line in out.stdout.splitlines() if line.startswith("GPU ")]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [v for v in visible.split(",") if v.strip()]
    return [str(i) for i in range(len(gpus))]


# The cores this process may use (a Slurm task or a container may have fewer than the machine).
def usable_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def truncate(text, limit):
    if len(text) <= limit:
        return text
    half = limit // 2
    return (text[:half] + f"\n[... {len(text) - limit} characters cut ...]\n" + text[-half:])


# ----------------------------------------------------------------------------------------------
# Points: grading/points/LAB.toml, first matching pattern wins.

def read_toml(path):
    try:
        import tomllib  # Python 3.11 and newer
        with open(path, "rb") as f:
            return tomllib.load(f)
    except ImportError:
        pass
    # Older Pythons (cluster nodes): the subset the points files use, `key = value` lines and
    # [[test]] tables, with strings and numbers as values.
    data, table = {}, None
    for raw in Path(path).read_text().splitlines():
        line = raw.split(" #")[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        if line == "[[test]]":
            table = {}
            data.setdefault("test", []).append(table)
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        value = value[1:-1] if value.startswith('"') else float(value)
        (table if table is not None else data)[key] = value
    return data


def load_points(lab):
    path = GRADING / "points" / f"{lab}.toml"
    config = {"default": 1.0, "visibility": "visible", "tests": []}
    if path.exists():
        data = read_toml(path)
        config["default"] = float(data.get("default", 1.0))
        config["visibility"] = data.get("visibility", "visible")
        config["tests"] = data.get("test", [])
    return config


def points_for(name, config):
    for rule in config["tests"]:
        if fnmatch.fnmatchcase(name, rule["pattern"]):
            return float(rule.get("points", config["default"])), rule.get("visibility", config["visibility"])
    return config["default"], config["visibility"]


# ----------------------------------------------------------------------------------------------
# Intake: the one source taken from a submission. It must be a regular file (never a symbolic
# link, nor anything reached through one, nor a device or pipe), at most SOURCE_LIMIT bytes, and
# text. Anything else is recorded as what it is, with 0 points.

SOURCE_LIMIT = 1 << 20
# Folders a zip or an editor adds that hold no submission (macOS resource forks, VCS metadata).
IGNORED_FOLDERS = {"__MACOSX", ".git", ".svn", ".hg", ".vscode", ".idea"}


class Source:
    """The source taken from a submission: its name relative to the submission, and its bytes
    (read once, so that what is hashed, checked and built is the same)."""

    def __init__(self, name, data):
        self.name = name
        self.data = data
        self.sha256 = hashlib.sha256(data).hexdigest()


def kind_of(mode):
    for test, what in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def link_text(path):
    """Where a symbolic link points, as its text says (a place in the course named from the
    course's root)."""
    try:
        target = os.readlink(path)
    except OSError:
        return "?"
    resolved = Path(os.path.normpath(Path(path).parent / target))
    if within(resolved, ROOT):
        return f"{resolved.relative_to(ROOT)} in the course"
    return target if len(target) <= 120 else target[:117] + "..."


def read_source(path, name):
    """(Source, "") for a regular text file of at most SOURCE_LIMIT bytes, else (None, why)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as e:
        if os.path.islink(path):
            return None, f"{name} is a symbolic link (to {link_text(path)}), not a file: links are not graded"
        return None, f"{name} cannot be read ({e.strerror})"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{name} is {kind_of(st.st_mode)}, not a file"
        if st.st_size > SOURCE_LIMIT:
            return None, (f"{name} is {st.st_size} bytes, more than the {SOURCE_LIMIT >> 20} MiB "
                          f"a source may have")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(SOURCE_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > SOURCE_LIMIT:
        return None, f"{name} is more than the {SOURCE_LIMIT >> 20} MiB a source may have"
    controls = sum(data.count(bytes([c])) for c in range(32) if c not in (9, 10, 11, 12, 13))
    if b"\0" in data or controls > len(data) // 100:
        return None, f"{name} is not text (it holds NUL or control bytes: a binary file?)"
    return Source(name, data), ""


def decorated(name, source_name):
    """True for a name a download or an upload form makes of the lab file's name:
    "lab04_shared_privatized (1).cu", "lab04_shared_privatized-2.cu", "Copy of lab04_...cu"."""
    stem, lower = source_name[:-3].lower(), name.lower()
    if not lower.endswith(".cu"):
        return False
    lower = re.sub(r"^copy of\s+", "", lower[:-3])
    return lower.startswith(stem) and re.fullmatch(r"[\s_.\-()0-9]*(copy|v)?[\s_.\-()0-9]*",
                                                   lower[len(stem):]) is not None


def listing(paths, limit=8):
    names = [str(p) for p in paths]
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "") if names else "nothing"


def take_source(entry, source_name):
    """The lab's source in a submission (a folder, or a file <student>.cu): (Source, "") or
    (None, the one-line status saying why none is taken)."""
    entry = Path(entry)
    if entry.is_symlink():
        return None, f"the submission is a symbolic link (to {link_text(entry)}): links are not graded"
    try:
        mode = entry.lstat().st_mode
    except OSError as e:
        return None, f"the submission cannot be read ({e.strerror})"
    if stat.S_ISREG(mode):
        return read_source(entry, entry.name)
    if not stat.S_ISDIR(mode):
        return None, f"the submission is {kind_of(mode)}, not a file or a folder"
    received, exact, other_cu, folder_links = [], [], [], []
    for dirpath, dirnames, filenames in os.walk(entry):  # never follows a link
        d = Path(dirpath)
        for n in sorted(dirnames):
            if (d / n).is_symlink():
                folder_links.append(d / n)
                received.append((d / n).relative_to(entry))
        dirnames[:] = sorted(n for n in dirnames if n not in IGNORED_FOLDERS and not (d / n).is_symlink())
        for n in sorted(filenames):
            p = d / n
            if n.startswith("._"):  # macOS resource forks in a zip
                continue
            received.append(p.relative_to(entry))
            if n == source_name:
                exact.append(p)
            elif n.lower().endswith(".cu"):
                other_cu.append(p)

    def take(p):
        return read_source(p, str(p.relative_to(entry)))

    if exact:
        depth = min(len(p.relative_to(entry).parts) for p in exact)
        top = [p for p in exact if len(p.relative_to(entry).parts) == depth]
        if len(top) == 1:
            return take(top[0])
        return None, (f"several candidates for {source_name}: "
                      f"{listing(p.relative_to(entry) for p in top)} (submit one)")
    for link in folder_links:
        if os.path.lexists(link / source_name):
            return None, (f"{source_name} is in a folder that is a symbolic link "
                          f"({link.relative_to(entry)} -> {link_text(link)}): links are not graded")
    candidates = [p for p in other_cu if decorated(p.name, source_name)]
    if len(candidates) == 1:
        return take(candidates[0])
    if candidates:
        return None, (f"missing {source_name}; several candidates: "
                      f"{listing(p.relative_to(entry) for p in candidates)} (submit one, named {source_name})")
    return None, f"missing {source_name}; received: {listing(received)}"


# ----------------------------------------------------------------------------------------------
# What a submission may read at compile time. The compiler itself lists the files it opened
# (its dependency output, so an #include through a macro or behind __has_include counts): the
# submission, its lab's headers, common/include/histo/, sim/include/, and system or CUDA Toolkit
# headers. Anything else (another lab's file, the build tree, a file outside the course) fails as
# "includes a file it may not: <name>" before the real build, so no compiler message can quote
# it. Embedding a file (.incbin in inline assembly, #embed) fails the same way.

HEADER_SUFFIXES = {".h", ".hpp", ".cuh"}
PREPROCESS_TIMEOUT = 120  # seconds for the preprocessor alone
PREPROCESS_MEMORY = 8 << 30  # bytes of address space for it
_system_dirs_cache = {}


def system_include_dirs(compiler):
    """The directories `compiler` searches for <...> headers (resolved)."""
    if compiler not in _system_dirs_cache:
        dirs = []
        try:
            out = subprocess.run([compiler, "-E", "-x", "c++", "-", "-v"], input="", capture_output=True,
                                 text=True, timeout=60).stderr
            inside = False
            for line in out.splitlines():
                if line.startswith("#include <...> search starts here"):
                    inside = True
                elif line.startswith("End of search list"):
                    inside = False
                elif inside and line.strip():
                    dirs.append(Path(line.split(" (framework")[0].strip()).resolve())
        except (OSError, subprocess.TimeoutExpired):
            pass
        _system_dirs_cache[compiler] = dirs
    return _system_dirs_cache[compiler]


def within(path, folder):
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


class ReadPolicy:
    """Which files the build of one submission may read, and how to name a file to a student."""

    def __init__(self, tree, folder, out, source):
        self.tree = tree.resolve()
        self.folder = folder
        self.out = out.resolve()
        self.submission = (self.tree / folder / (folder + ".cu"))
        self.source = source  # the Source, for its name
        self.extra_allowed = set()  # the build's own files that compile the source (sim wrappers)
        self.system = []

    def add_compiler(self, args):
        """System directories of the compile command `args` (its compiler's, the CUDA Toolkit's,
        and its -I/-isystem folders outside the course tree)."""
        compiler = args[0]
        resolved = Path(shutil.which(compiler) or compiler).resolve()
        if resolved.name.startswith("nvcc"):
            self.system.append(resolved.parent.parent)  # the toolkit: include/, targets/*/include
            host = next((a.split("=", 1)[1] for a in args if a.startswith("-ccbin=")), None)
            if host is None and "-ccbin" in args:
                host = args[args.index("-ccbin") + 1]
            self.system += system_include_dirs(host or "g++")
        else:
            self.system += system_include_dirs(compiler)
        for i, a in enumerate(args):
            for flag in ("-isystem", "-I"):
                if a.startswith(flag):
                    d = a[len(flag):] or (args[i + 1] if i + 1 < len(args) else "")
                    d = Path(d).resolve()
                    if d.is_dir() and not self.in_course(d):
                        self.system.append(d)

    def in_course(self, p):
        return within(p, self.tree) or within(p, ROOT) or within(p, self.out)

    def allowed(self, p):
        p = Path(p).resolve()
        if p == self.submission or p in self.extra_allowed:
            return True
        if within(p, self.tree):
            rel = p.relative_to(self.tree)
            return ((rel.parent == Path(self.folder) and p.suffix in HEADER_SUFFIXES)
                    or within(rel, Path("common/include/histo")) or within(rel, Path("sim/include")))
        if self.in_course(p):
            return False
        return any(within(p, d) for d in self.system)

    def name(self, p):
        """A file as the student may see it named: never a path of the grader's slots."""
        resolved = Path(p).resolve()
        if resolved == self.submission:
            return self.source.name
        for base in (self.tree, ROOT, self.out):
            if within(resolved, base):
                return str(resolved.relative_to(base))
        return os.path.normpath(p)


def string_literals(text):
    """The contents of the C string literals in `text`, escapes decoded and adjacent literals
    joined (as the compiler joins "a" "b"); comments and character literals are skipped."""
    token = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|"
                       r'(?:\bu8|\bu|\bU|\bL)?R"([^()\\\s]{0,16})\((.*?)\)\1"|"((?:\\.|[^"\\\n])*)"', re.S)
    runs, current, last_end = [], None, None
    for m in token.finditer(text):
        if m.group(2) is None and m.group(3) is None:
            continue  # a comment or a character literal
        body = m.group(2)
        if body is None:
            try:
                body = codecs.decode(m.group(3).encode("latin-1", "backslashreplace"), "unicode_escape")
            except (UnicodeDecodeError, ValueError):
                body = m.group(3)
        if current is not None and text[last_end:m.start()].strip() == "":
            current += body
        else:
            if current is not None:
                runs.append(current)
            current = body
        last_end = m.end()
    if current is not None:
        runs.append(current)
    return runs


def embedding(text):
    """(file, how) when a source embeds a file's bytes: #embed, or .incbin (or .include) in
    inline assembly, however its string is spelled (split, escaped, built by macros); else None."""
    m = (re.search(r'^\s*#\s*embed\s*[<"]([^>"\n]*)', text, re.M)
         or re.search(r'__has_embed\s*\(\s*[<"]([^>"\n]*)', text))
    if m:
        return m.group(1), "#embed"
    for literal in string_literals(text):
        m = (re.search(r"\b(incbin)\b\s*\"?([^\"\n]*)", literal, re.I)
             or re.search(r"(?:^|[\n;])\s*\.(include)\b\s*\"?([^\"\n]*)", literal, re.I))
        if m:
            return m.group(2).strip() or "a file", f".{m.group(1).lower()} in inline assembly"
    if re.search(r"incbin", text, re.I):
        return "a file named by .incbin", "inline assembly"
    return None


def parse_depfile(text):
    """The prerequisites of a Make-style dependency file (-M / -MD output)."""
    text = text.replace("\\\n", " ")
    deps = []
    for rule in text.splitlines():
        if ":" not in rule:
            continue
        # The target ends at the first ": " (or ":" at the end); paths may hold escaped spaces.
        m = re.match(r"^((?:\\.|[^:\\]|:(?!\s|$))*):(?:\s|$)(.*)$", rule)
        if not m:
            continue
        for token in re.findall(r"(?:\\.|[^\s\\])+", m.group(2)):
            deps.append(re.sub(r"\\(.)", r"\1", token).replace("$$", "$"))
    return deps


def compile_commands_for(build, submission):
    """The compile commands (compile_commands.json) that compile the submission: its own file,
    or a simulator wrapper (sim_sources/*.cpp) that #includes it."""
    try:
        entries = json.loads((build / "compile_commands.json").read_text())
    except (OSError, json.JSONDecodeError):
        return []
    found = []
    for e in entries:
        f = Path(e["directory"], e["file"]).resolve()
        wraps = f.parent.name == "sim_sources" and str(submission) in f.read_text(errors="replace")
        if f == submission.resolve() or wraps:
            args = e.get("arguments") or shlex.split(e["command"])
            found.append((Path(e["directory"]), f, args))
    return found


# Flags of a compile command that produce its outputs: dropped for the preprocessing run.
_OUTPUT_FLAGS_WITH_VALUE = {"-o", "-MT", "-MQ", "-MF", "--dependency-output", "-odir"}
_OUTPUT_FLAGS = {"-c", "-MD", "-MMD", "--generate-dependencies-with-compile",
                 "--generate-nonsystem-dependencies-with-compile", "-Winvalid-pch"}


def preprocess_only(args, depfile, preprocessed):
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _OUTPUT_FLAGS_WITH_VALUE:
            skip = True
            continue
        if a in _OUTPUT_FLAGS or any(a.startswith(f + "=") for f in _OUTPUT_FLAGS_WITH_VALUE):
            continue
        kept.append(a)
    # -H also names each header as it is opened, so a run stopped by a missing header (which
    # writes no dependency file) still tells what it read before.
    if Path(kept[0]).name.startswith("nvcc"):
        # nvcc -M lists the files of every pass (host and each GPU architecture).
        return kept + ["-M", "-MF", str(depfile), "-Xcompiler=-H"]
    return kept + ["-E", "-H", "-MD", "-MF", str(depfile), "-o", str(preprocessed)]


def limit_preprocessor():
    """In the preprocessor's process: memory enough for any honest source, so that an include of
    a device such as /dev/zero fails at once instead of reading it for minutes."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (PREPROCESS_MEMORY, PREPROCESS_MEMORY))


def compile_read_problem(policy, build, work):
    """Runs before the build. Returns (refused, failed): `refused` is the status of a submission
    whose build would read a file it may not ("" if none); `failed` is the preprocessor's output
    when it stopped with an error, which the build would meet too (None if it did not). `work`
    is a scratch folder."""
    def embedded(text):
        found = embedding(text)
        if not found:
            return ""
        name, how = found
        return f"includes a file it may not: {policy.name(name) if name.startswith('/') else name} ({how})"

    problem = embedded(policy.source.data.decode("utf-8", errors="replace"))
    if problem:
        return problem, None
    commands = compile_commands_for(build, policy.submission)
    for _, f, _ in commands:
        policy.extra_allowed.add(f)
    work.mkdir(parents=True, exist_ok=True)
    for n, (directory, f, args) in enumerate(commands):
        policy.add_compiler(args)
        depfile, pre = work / f"deps{n}.d", work / f"pre{n}.i"
        depfile.unlink(missing_ok=True)
        # -H names each file as it is opened: the run stops at the first one not allowed, or
        # after PREPROCESS_TIMEOUT seconds.
        try:
            proc = subprocess.Popen(preprocess_only(args, depfile, pre), cwd=directory,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True, errors="replace",
                                    preexec_fn=limit_preprocessor)
        except OSError:
            continue  # the build itself will say what is wrong
        watchdog = threading.Timer(PREPROCESS_TIMEOUT, proc.kill)
        watchdog.start()
        refused, messages = "", []
        try:
            for line in proc.stderr:
                m = re.match(r"^\.+ (\S.*)$", line.rstrip("\n"))
                if not m:
                    messages.append(line)
                elif not policy.allowed(directory / m.group(1)):
                    refused = f"includes a file it may not: {policy.name(directory / m.group(1))}"
                    proc.kill()
                    break
        finally:
            watchdog.cancel()
            proc.stderr.close()
            proc.wait()
        if refused:
            return refused, None
        try:
            deps = parse_depfile(depfile.read_text(errors="replace"))
        except OSError:
            deps = []
        for dep in deps:
            p = (directory / dep)
            if not policy.allowed(p):
                return f"includes a file it may not: {policy.name(p)}", None
        if pre.exists():
            # Macros can assemble an .incbin that the source never spells out.
            problem = embedded(pre.read_text(errors="replace"))
            pre.unlink()
            if problem:
                return problem, None
        if proc.returncode != 0:
            why = "".join(messages) or f"the preprocessor stopped (exit {proc.returncode})\n"
            return "", why
    return "", None


# ----------------------------------------------------------------------------------------------
# What a student sees of a failed build: the compiler's messages about the submission's lines
# (and about the course's own headers), with files named as the student knows them. A message
# located in any other file is left out, with its quoted lines, so that no file of the grader's
# (nor one a link or #line pointed at) is ever shown.

_GCC_LOCATION = re.compile(r"^(\S[^:]*?):(\d+):(?:(\d+):)? (.*)$")
_NVCC_LOCATION = re.compile(r"^(\S.*?)\((\d+)\): (.*)$")


def student_messages(log, policy, cwd):
    kept, keeping = [], False
    tree = re.escape(str(policy.tree)) + r"/[^\s:()'\"`]+"

    def rename(line):
        return re.sub(tree, lambda m: policy.name(m.group(0)), line)

    for line in log.splitlines():
        m = _GCC_LOCATION.match(line) or _NVCC_LOCATION.match(line)
        if m and (Path(cwd) / m.group(1)).is_file():
            keeping = policy.allowed(Path(cwd) / m.group(1))
            if keeping:
                kept.append(rename(line))
            continue
        if line[:1].isspace() and keeping:
            kept.append(rename(line))
            continue
        keeping = False
        for what in ("undefined reference to", "multiple definition of"):
            if what in line:
                kept.append("link error: " + what + line.split(what, 1)[1])
        if "build ran past" in line or re.match(r"^(cc1plus|cc1|nvcc|cicc|ptxas)( fatal)?\s*: ", line):
            kept.append(rename(line))  # the build or a compiler stopped, naming no file's lines
    if not kept:
        return ("(the compiler's messages concern files other than your source and are not shown; "
                "check what your file includes)")
    return "\n".join(kept[:200])


# ----------------------------------------------------------------------------------------------
# Build slots.

class Grading:
    def __init__(self, lab, out, preset, labels, gpus, build_slots, slots_dir=None):
        self.lab = lab
        self.folder = lab_folder(lab)
        self.source_name = self.folder + ".cu"
        self.out = Path(out).resolve()
        self.preset = preset
        self.labels = labels
        self.gpus = gpus
        self.build_slots = build_slots
        self.slots_dir = Path(slots_dir).resolve() if slots_dir else self.out / "slots"
        self.points = load_points(lab)
        self.submissions = None
        self.names = set()
        self.pristine = self.slots_dir / "course.tar"
        self.expected = []
        self.skipped_here = {}
        self.test_runs = TestRuns()
        self.parallel_tests = 1  # how many submissions' tests may run at once (set by run())

    # A tar of the course tree (no build outputs, no git, no solutions, no slides): what every
    # slot is restored to before a build, so that nothing a submission wrote survives into the
    # next, and nothing a submission could include holds an answer.
    def snapshot_course(self):
        self.slots_dir.mkdir(parents=True, exist_ok=True)
        skip = {"build", "solutions", "slides"}
        tmp = self.pristine.with_suffix(".tmp")
        with tarfile.open(tmp, "w") as tar:
            for entry in sorted(ROOT.iterdir()):
                if entry.name in skip or entry.name.startswith(".") or entry.resolve() == self.out:
                    continue
                tar.add(entry, arcname=entry.name)
        os.replace(tmp, self.pristine)

    # Rewrites only what differs from the course's copy (size or whole-second mtime, as tar
    # keeps them): untouched files are not written, so a build never looks like a submission
    # writing into the slot, and ninja rebuilds nothing that did not change.
    def restore(self, tree):
        with tarfile.open(self.pristine) as tar:
            for member in tar.getmembers():
                target = tree / member.name
                try:
                    st = target.lstat()
                    if member.isdir() and stat.S_ISDIR(st.st_mode):
                        continue
                    if (member.isfile() and stat.S_ISREG(st.st_mode) and st.st_size == member.size
                            and int(st.st_mtime) == int(member.mtime)):
                        continue
                except FileNotFoundError:
                    pass
                tar.extract(member, tree, **SAFE_TAR)

    def grader_targets(self, build):
        out = subprocess.run(["cmake", "--build", str(build), "--target", "help"],
                             capture_output=True, text=True)
        names = sorted(set(re.findall(rf"^({self.lab}_student\w*_grader):", out.stdout, re.M)))
        if not names:
            raise RuntimeError(f"no {self.lab}_student*_grader target in {build}:\n{out.stdout[-2000:]}")
        # The CPU-simulator grader (labNN_student_sim_grader) only when its tests are graded, or
        # when it is the only one (a simulator-only build registers the CPU tests there).
        gpu_side = [n for n in names if "_sim_" not in n]
        if gpu_side and not any("sim" in label for label in self.labels):
            return gpu_side
        return names

    def prepare_slot(self, index, jobs):
        tree = self.slots_dir / f"slot{index}"
        build = tree / "build" / "grading"
        ready = tree / "ready"
        tree.mkdir(parents=True, exist_ok=True)
        self.restore(tree)
        # A slot is reused only if it was built with the same settings.
        settings = (f"{self.preset} | {os.environ.get('GRADE_CMAKE_ARGS', '')} | {' '.join(self.labels)}"
                    " | compile commands")
        if ready.exists() and ready.read_text().splitlines()[1:2] == [settings]:
            return tree
        ready.unlink(missing_ok=True)
        shutil.rmtree(build, ignore_errors=True)
        # compile_commands.json: the commands whose preprocessor lists what a submission reads.
        cmd = ["cmake", "-S", str(tree), "-B", str(build), "--preset", self.preset,
               "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
        cmd += shlex.split(os.environ.get("GRADE_CMAKE_ARGS", ""))
        log = tree / "prepare.log"
        with open(log, "w") as f:
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=tree).returncode != 0:
                raise RuntimeError(f"configure failed: {log}")
            targets = self.grader_targets(build)
            if subprocess.run(["cmake", "--build", str(build), "-j", str(jobs), "--target", *targets],
                              stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                raise RuntimeError(f"building the shipped skeleton failed: {log}")
        ready.write_text(" ".join(targets) + "\n" + settings + "\n")
        return tree

    def prepare(self):
        self.snapshot_course()
        slots = self.build_slots
        jobs = max(1, usable_cores() // slots)
        say(f"preparing {slots} build slot(s) for {self.lab} (preset {self.preset})")
        with concurrent.futures.ThreadPoolExecutor(slots) as pool:
            trees = list(pool.map(lambda i: self.prepare_slot(i, jobs), range(slots)))
        # The tests the skeleton registers are the tests every submission is scored on.
        probe = self.slots_dir / "expected"
        shutil.rmtree(probe, ignore_errors=True)
        self.collect_graders(trees[0], probe)
        listing = subprocess.run(["ctest", "--test-dir", str(probe), "-N", "--show-only=json-v1",
                                 *self.label_args()], capture_output=True, text=True)
        self.expected = [t["name"] for t in json.loads(listing.stdout)["tests"]]
        # Without a GPU some tests skip whatever the code (too large for the simulator, say):
        # running the skeleton's tests once finds them, so that a submission that does not
        # compile is not charged for them either.
        if not self.gpus:
            junit = probe / "junit.xml"
            subprocess.run(["ctest", "--test-dir", str(probe), *self.label_args(), "--output-junit",
                            str(junit)], capture_output=True, timeout=env_int("GRADE_TIMEOUT", 600))
            self.skipped_here = {t["name"]: t["output"].splitlines()[0]
                                 for t in parse_junit(junit, {}) if t["result"] == "skipped"}
        shutil.rmtree(probe, ignore_errors=True)
        if not self.expected:
            raise RuntimeError(f"no test of {self.lab} matches labels {self.labels}")
        self.slot_queue = queue.Queue()
        for tree in trees:
            self.slot_queue.put(tree)

    # Test output names the grader's files by where a build slot had them: named from the
    # course's root instead (and the submission's folder from itself).
    def course_paths(self, text):
        text = re.sub(re.escape(str(self.slots_dir)) + r"/slot\d+/", "", text)
        return text.replace(str(self.out) + "/", "").replace(str(ROOT) + "/", "")

    def label_args(self):
        args = ["-L", f"^{self.lab}$"]
        for label in self.labels:  # "cpu|sim": either label
            args += ["-L", f"^({label})$"]
        return args

    # Copies the lab's built student graders into `dest` with a CTest file that runs them there,
    # so the slot can build the next submission while this one's tests run.
    def collect_graders(self, tree, dest):
        build = tree / "build" / "grading"
        dest.mkdir(parents=True, exist_ok=True)
        includes = []
        test_timeout = env_int("GRADE_TEST_TIMEOUT", 120)
        for tests_file in sorted(build.rglob(f"{self.lab}_student*_tests.cmake")):
            text = tests_file.read_text()
            for exe in sorted(set(re.findall(r'^add_test\(\[==\[.*?\]==\] "([^"]+)"', text, re.M))):
                copy = dest / Path(exe).name
                shutil.copy2(exe, copy)
                text = text.replace(f'"{exe}"', f'"{copy}"')
            text = re.sub(r"\bTIMEOUT \d+", f"TIMEOUT {test_timeout}", text)
            local = dest / tests_file.name
            local.write_text(text)
            includes.append(f'include("{local}")\n')
        (dest / "CTestTestfile.cmake").write_text("".join(includes))

    # ------------------------------------------------------------------------------------------
    # One submission.

    def already_graded(self, name, source):
        results = self.out / name / "results.json"
        if not results.exists() or source is None:
            return False
        try:
            extra = json.loads(results.read_text()).get("extra_data", {})
        except (json.JSONDecodeError, OSError):
            return False
        return extra.get("source_sha256") == source.sha256

    def grade(self, name, entry, gpu_queue):
        source, problem = take_source(entry, self.source_name)
        sub = self.out / name
        start = time.time()
        shutil.rmtree(sub, ignore_errors=True)
        sub.mkdir(parents=True)
        record = {"submission": name, "built": False, "status": [], "tests": []}
        if source is None:
            record["status"].append(problem)
            record["not_run"] = problem
            return self.finish(sub, record, None, start)

        tree = self.slot_queue.get()
        try:
            self.restore(tree)
            (tree / self.folder / self.source_name).write_bytes(source.data)
            build = tree / "build" / "grading"
            policy = ReadPolicy(tree, self.folder, self.out, source)
            # Before the build: a file it may not read is refused unread by any compiler message.
            refused, failed = compile_read_problem(policy, build, build / "intake")
            if refused:
                built, log = False, refused + "\n"
            elif failed is not None:
                # The preprocessor already failed: so would the build; its messages are the same.
                built, log = False, failed
                record["build_output"] = truncate(student_messages(log, policy, build), OUTPUT_LIMIT)
            else:
                targets = (tree / "ready").read_text().splitlines()[0].split()
                cmd = ["cmake", "--build", str(build), "-j", "1", "--target", *targets]
                try:
                    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                                          timeout=env_int("GRADE_BUILD_TIMEOUT", 600))
                    built, log = proc.returncode == 0, proc.stdout + proc.stderr
                except subprocess.TimeoutExpired as e:
                    built, log = False, f"build ran past {e.timeout} s\n"
                if not built:
                    record["build_output"] = truncate(student_messages(log, policy, build), OUTPUT_LIMIT)
            (sub / "build.log").write_text(truncate(log, BUILD_LOG_LIMIT))
            if built:
                self.collect_graders(tree, sub / "run")
        finally:
            self.slot_queue.put(tree)
        record["built"] = built
        if refused:
            record["status"].append(refused)
            record["not_run"] = refused
            return self.finish(sub, record, source, start)
        if not built:
            record["status"].append("does not compile")
            return self.finish(sub, record, source, start)

        gpu = gpu_queue.get()
        record["test_window"] = [time.time()]
        try:
            with self.test_runs.shared():
                outside = self.run_tests(sub, record, gpu)
            if outside and self.parallel_tests > 1:
                # Another submission's tests, running at the same time, may have written these:
                # this one runs its tests again with nobody else's running. Only what it writes
                # then is its own.
                with self.test_runs.alone():
                    outside = self.run_tests(sub, {"status": [], "tests": []}, gpu, again=True)
            if outside:
                record["status"].append("writes outside its folder: " + ", ".join(outside[:3]))
        finally:
            record["test_window"].append(time.time())
            record["gpu"] = gpu
            gpu_queue.put(gpu)
        return self.finish(sub, record, source, start)

    # Runs the submission's tests; returns the files written outside its folder meanwhile.
    # again=True: a second run only to see what it writes (its results are not kept).
    def run_tests(self, sub, record, gpu, again=False):
        run = sub / "run"
        work = run / ("work-again" if again else "work")
        (work / "tmp").mkdir(parents=True)
        stamp = time.time()
        env = dict(os.environ, HOME=str(work), TMPDIR=str(work / "tmp"))
        if gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = gpu
        junit = sub / ("junit-again.xml" if again else "junit.xml")
        cmd = ["ctest", "--test-dir", str(run), *self.label_args(), "--output-junit", str(junit),
               "--test-output-size-passed", str(HUGE_OUTPUT), "--test-output-size-failed",
               str(HUGE_OUTPUT), "--no-tests=error"]

        def limit_files():
            import resource
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_LIMIT, FILE_SIZE_LIMIT))

        with open(sub / ("test-again.log" if again else "test.log"), "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=work, env=env,
                                    preexec_fn=limit_files, start_new_session=True)
            try:
                proc.wait(timeout=env_int("GRADE_TIMEOUT", 600))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
                record["status"].append("timed out")
        record["tests"] = parse_junit(junit, ctest_verdicts(sub / "test.log"))
        if not record["tests"] and "timed out" not in record["status"]:
            record["status"].append("no test report (see test.log)")
        # CTest keeps a full copy of every output here: megabytes for a chatty submission.
        shutil.rmtree(run / "Testing", ignore_errors=True)
        if os.environ.get("RACECHECK") == "1" and gpu is not None and not again:
            self.racecheck(sub, record, env)
        return writes_outside(self, sub, stamp)

    # RACECHECK=1: compute-sanitizer racecheck over each grader on small inputs.
    def racecheck(self, sub, record, env):
        env = dict(env, HISTO_GRADER_MAX_N="1048576")
        for exe in sorted((sub / "run").glob(f"{self.lab}_student*_grader")):
            log = sub / f"{exe.name}.racecheck.log"
            with open(log, "w") as f:
                rc = subprocess.run(["compute-sanitizer", "--tool", "racecheck", "--error-exitcode", "99",
                                     str(exe), "~[large]"], stdout=f, stderr=subprocess.STDOUT,
                                    cwd=sub / "run", env=env).returncode
            if rc == 99:
                record["status"].append(f"races (see {log.name})")

    def finish(self, sub, record, source, start):
        tests = {t["name"]: t for t in record["tests"]}
        if record.get("not_run"):
            note = f"not run: {record['not_run']}"
        elif not record["built"]:
            note = "not run: the submission does not compile"
        else:
            note = "not run: the test run was stopped (time limit)"
        for name in self.expected:
            if name in tests:
                continue
            if name in self.skipped_here:
                tests[name] = {"name": name, "result": "skipped", "output": self.skipped_here[name]}
            else:
                tests[name] = {"name": name, "result": "failed", "output": note}
        results = self.results_json(record, list(tests.values()), source, time.time() - start)
        (sub / "results.json").write_text(json.dumps(results, indent=1) + "\n")
        extra = results["extra_data"]
        say(f"{record['submission']}: {results['score']:g}/{extra['max_score']:g} {extra['status']}")
        return results

    def results_json(self, record, tests, source, elapsed):
        counts = {"passed": 0, "failed": 0, "skipped": 0}
        gs_tests, score, max_score = [], 0.0, 0.0
        status = list(record["status"])
        # Bins that no kernel counted (the graders' OutputWatch): the lab's work was not done, so
        # no test of this submission scores, not even the CPU checks it passed.
        not_counted = counted_elsewhere(tests)
        if not_counted:
            status.insert(0, not_counted)
            for t in tests:
                if t["result"] == "passed":
                    t["result"] = "failed"
                    t["output"] = (f"0 points: {not_counted} (see the failing kernel tests); no test "
                                   f"of this submission scores\n\n" + t["output"])
        for number, t in enumerate(sorted(tests, key=lambda t: t["name"]), 1):
            points, visibility = points_for(t["name"], self.points)
            counts[t["result"]] += 1
            entry = {"name": t["name"], "number": str(number), "visibility": visibility,
                     "output": truncate(self.course_paths(t["output"]), OUTPUT_LIMIT),
                     "output_format": "text"}
            if t["result"] == "skipped":
                # Skipped is neither passed nor a student's fault: shown, worth nothing here.
                entry.update(score=0.0, max_score=0.0)
            else:
                entry.update(score=points if t["result"] == "passed" else 0.0, max_score=points,
                             status=t["result"])
                score += entry["score"]
                max_score += points
            gs_tests.append(entry)
        for flag in ("timed out", "crashed", "prints megabytes"):
            if any(t.get(flag) for t in tests) and flag not in status:
                status.append(flag)
        if not status:
            status = ["ok"] if counts["failed"] == 0 and counts["passed"] else []
            if counts["failed"]:
                status = [f"fails {counts['failed']} test(s)"]
            if not counts["passed"] and not counts["failed"]:
                status = ["all skipped: no GPU"]
            elif counts["skipped"]:
                status.append(f"{counts['skipped']} skipped (not graded)")
        summary = [f"{self.lab}: {score:g} of {max_score:g} points ({'; '.join(status)})."]
        if "build_output" in record:
            summary.append("Your file did not compile:\n" + record["build_output"])
        if self.labels and not any("gpu" in label for label in self.labels):
            summary.append("Only the tests that run without a GPU are graded here; the GPU tests "
                           "are graded separately on a GPU machine.")
        return {
            "score": round(score, 4),
            "execution_time": round(elapsed, 1),
            "output": "\n".join(summary),
            "output_format": "text",
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": gs_tests,
            "extra_data": {
                "submission": record["submission"], "lab": self.lab, "built": record["built"],
                "passed": counts["passed"], "failed": counts["failed"],
                "skipped": counts["skipped"], "max_score": round(max_score, 4),
                "status": "; ".join(status),
                "source_sha256": source.sha256 if source else "",
                "source": source.name if source else "",
                # Which GPU ran the tests, and when: shows that no two submissions shared one.
                "gpu": record.get("gpu"),
                "test_window": [round(t, 2) for t in record.get("test_window", [])],
            },
        }


# CTest's console verdict per test ("Passed", "***Failed", "***Timeout", "***Exception:
# SegFault", ...): its JUnit file leaves the failure message empty.
def ctest_verdicts(log):
    verdicts = {}
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return verdicts
    for m in re.finditer(r"^\s*\d+/\d+ Test\s+#\d+: (.+?) \.+\s*(\**)(.+?)\s+[\d.]+ sec$", text, re.M):
        verdicts[m.group(1)] = m.group(3).strip()
    return verdicts


# What the graders say when a launcher's bins were not counted by a kernel (compare_bins with a
# work problem, common/src/grading.cpp), as a status.
NOT_COUNTED = "the bins were not counted by a kernel"


def counted_elsewhere(tests):
    said = " ".join(" ".join(t["output"].split()) for t in tests if t["result"] == "failed"
                    and NOT_COUNTED in t["output"])
    if not said:
        return ""
    how = []
    if "no kernel was launched" in said:
        how.append("no kernel launched")
    if "the host wrote into the output" in said:
        how.append("bins copied in from the host (cudaMemcpy into d_bins)")
    return "counts on the host, not in its kernel: " + ", ".join(how or ["see the kernel tests"])


def parse_junit(path, verdicts):
    tests = []
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return tests
    for case in root.iter("testcase"):
        out = case.findtext("system-out") or ""
        failure, skipped = case.find("failure"), case.find("skipped")
        name = case.get("name")
        verdict = verdicts.get(name, "")
        t = {"name": name, "time": float(case.get("time") or 0), "output": out}
        if skipped is not None or case.get("status") == "notrun":
            t["result"] = "skipped"
            # Catch2: "file:line: SKIPPED:\nexplicitly with message:\n  <reason, wrapped>\n\n".
            reason = re.search(r"SKIPPED:\s*\n(?:explicitly with message:\s*\n)?((?:[ \t]+\S.*\n?)+)", out)
            why = " ".join(reason.group(1).split()) if reason else "no reason given"
            t["skip_reason"] = why
            t["output"] = f"skipped here (not graded): {why}\n\n" + out
        elif failure is not None or case.get("status") == "fail":
            t["result"] = "failed"
            if verdict.startswith("Timeout"):
                t["timed out"] = True
                t["output"] = ("TIMED OUT: the test ran past its time limit (an endless loop, or a "
                               "kernel that never finishes?)\n" + out)
            elif verdict.startswith("Exception") or verdict.startswith("Child aborted"):
                t["crashed"] = True
                t["output"] = f"CRASHED ({verdict}): the program stopped before the test ended\n" + out
        else:
            t["result"] = "passed"
        if len(out) >= HUGE_OUTPUT or "exceeds the threshold" in out or "was removed since" in out:
            t["prints megabytes"] = True
        tests.append(t)
    return tests


# Files changed during the test run where a submission has no business writing: the course
# tree, the build slots' sources, the submissions, and the output folder outside the
# per-submission folders. With several submissions' tests running at once, a hit may be another
# submission's: grade() then runs this one's tests again alone before reporting it.
def writes_outside(grading, sub, stamp):
    roots = [ROOT, grading.slots_dir, grading.out]
    if grading.submissions:
        roots.append(grading.submissions)
    # Written by the grading itself: every submission's own folder, build outputs, the slots'
    # copies of the student source, and the summary files.
    skip_dirs = {grading.out / name for name in grading.names} | {sub}
    skip_names = {"build", ".git", "ready", "prepare.log", "grades.csv", "course.tar",
                  "course.tmp", "submissions.txt", "timing.json", grading.source_name}
    hits, seen = [], set()
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            d = Path(dirpath)
            if d in seen:
                dirnames[:] = []
                continue
            seen.add(d)
            dirnames[:] = [n for n in dirnames if n not in skip_names and d / n not in skip_dirs]
            for f in filenames:
                p = d / f
                if f in skip_names and (d.parent == grading.slots_dir or d == grading.out or
                                        d.name == grading.folder):
                    continue
                try:
                    if p.lstat().st_mtime >= stamp:
                        hits.append(str(p))
                except OSError:
                    pass
    return hits


# ----------------------------------------------------------------------------------------------
# Commands.

def submissions_of(folder):
    entries = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith("."):
            continue
        if entry.is_dir() or entry.suffix == ".cu":
            entries.append((entry.stem if entry.is_file() else entry.name, entry))
    return entries


def gather(out):
    out = Path(out)
    rows = []
    for results in sorted(out.glob("*/results.json")):
        try:
            data = json.loads(results.read_text())
        except json.JSONDecodeError:
            continue
        e = data["extra_data"]
        rows.append([e["submission"], "yes" if e["built"] else "no", e["passed"], e["failed"],
                     e["skipped"], f"{data['score']:g}", f"{e['max_score']:g}", e["status"]])
    # A submission listed for grading but without results (a Slurm task that died, say).
    listed = out / "submissions.txt"
    if listed.exists():
        have = {r[0] for r in rows}
        for name in listed.read_text().split("\n"):
            if name and name not in have:
                rows.append([name, "no", 0, 0, 0, "0", "", "not graded: no results.json (see the logs)"])
        rows.sort()
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["submission", "built", "passed", "failed", "skipped", "score", "max_score", "status"])
        w.writerows(rows)
    return rows


def default_settings(args):
    gpus_setting = args.gpus or os.environ.get("GRADE_GPUS", "")
    if gpus_setting == "none":
        gpus = []
    elif gpus_setting:
        gpus = [g for g in gpus_setting.split(",") if g]
    else:
        gpus = detect_gpus()
    preset = args.preset or os.environ.get("GRADE_PRESET") or ("student-gpu" if gpus else "student")
    labels = args.labels if args.labels is not None else os.environ.get("GRADE_LABELS")
    if labels is None:
        labels = "cpu|gpu" if gpus else "cpu"
    labels = [l for l in re.split(r"[;, ]+", labels) if l]  # all required; "a|b": either
    cores = usable_cores()
    slots = args.build_slots or env_int("GRADE_BUILD_SLOTS", min(8, max(1, cores // 2)))
    return preset, labels, gpus, slots


def list_submissions(out, entries):
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / "submissions.txt").write_text("".join(f"{name}\n" for name, _ in entries))


def run(args, names_and_entries, slots_dir=None):
    preset, labels, gpus, slots = default_settings(args)
    g = Grading(args.lab, args.out, preset, labels, gpus, slots, slots_dir)
    if getattr(args, "submissions", None):
        g.submissions = Path(args.submissions).resolve()
    # Folders of OUT the grading writes: every submission's (not just this batch's), the Slurm
    # jobs' logs.
    g.names = {name for name, _ in names_and_entries} | {"slurm"}
    if g.submissions:
        g.names |= {name for name, _ in submissions_of(g.submissions)}
    todo = []
    for name, entry in names_and_entries:
        source, _ = take_source(entry, g.source_name)
        if not args.force and g.already_graded(name, source):
            say(f"{name}: already graded (use --force to grade again)")
            continue
        todo.append((name, entry))
    if todo:
        started = time.time()
        try:
            g.prepare()
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            sys.exit(f"grading could not start: {e}")
        # One token per GPU: a submission's tests hold one GPU, and no other's run there at once.
        # Without a GPU, as many test runs at once as there are build slots.
        prepared = time.time()
        tokens = queue.Queue()
        for t in (gpus or [None] * slots):
            tokens.put(t)
        g.parallel_tests = tokens.qsize()
        workers = slots + max(1, len(gpus))
        say(f"grading {len(todo)} submission(s): {slots} build slot(s), "
            f"{'GPUs ' + ','.join(gpus) if gpus else 'no GPU'}, labels {' '.join([args.lab] + labels)}")
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = {pool.submit(g.grade, name, entry, tokens): name for name, entry in todo}
            for future in concurrent.futures.as_completed(futures):
                try:
                    future.result()
                except Exception as e:  # a grading bug must not stop the batch either
                    say(f"{futures[future]}: grading error: {e}")
        done = time.time()
        (g.out / "timing.json").write_text(json.dumps({
            "submissions": len(todo), "gpus": gpus, "build_slots": slots, "preset": preset,
            "labels": labels, "prepare_s": round(prepared - started, 1),
            "grade_s": round(done - prepared, 1)}) + "\n")
    return g


def submit_slurm(args, entries):
    """One array task per batch of --per-task submissions, then a gather job after all of them."""
    out = Path(args.out).resolve()
    jobs = out / "slurm"
    jobs.mkdir(parents=True, exist_ok=True)
    if not entries:
        sys.exit(f"no submission in {args.submissions}")
    tasks = (len(entries) + args.per_task - 1) // args.per_task
    list_submissions(out, entries)
    me = shlex.quote(str(Path(__file__).resolve()))
    passed = []
    for opt in ("preset", "labels", "gpus"):
        if getattr(args, opt) is not None:
            passed += [f"--{opt}", shlex.quote(getattr(args, opt))]
    if args.force:
        passed.append("--force")
    subs = shlex.quote(str(Path(args.submissions).resolve()))
    (jobs / "task.sbatch").write_text(f"""#!/bin/bash
#SBATCH --job-name=grade-{args.lab}
#SBATCH --output={jobs}/task-%a.log
# One array task grades submissions [task * {args.per_task}, (task + 1) * {args.per_task}) in a
# build slot of its own, on node-local scratch where the cluster gives one.
slots="${{TMPDIR:-/tmp}}/histo-grading-${{SLURM_ARRAY_JOB_ID}}-${{SLURM_ARRAY_TASK_ID}}"
python3 {me} run {args.lab} {subs} {shlex.quote(str(out))} --task "$SLURM_ARRAY_TASK_ID" \\
  --per-task {args.per_task} --slots-dir "$slots" --build-slots 1 --no-gather {' '.join(passed)}
rc=$?
rm -rf "$slots"
exit $rc
""")
    (jobs / "gather.sbatch").write_text(f"""#!/bin/bash
#SBATCH --job-name=gather-{args.lab}
#SBATCH --output={jobs}/gather.log
python3 {me} gather {shlex.quote(str(out))}
""")
    extra = shlex.split(args.sbatch_args)
    gres = [] if args.gres in ("", "none") else [f"--gres={args.gres}"]
    array = subprocess.run(["sbatch", "--parsable", f"--array=0-{tasks - 1}", *gres, *extra,
                            str(jobs / "task.sbatch")], capture_output=True, text=True)
    if array.returncode != 0:
        sys.exit(f"sbatch failed: {array.stderr.strip()}")
    array_id = array.stdout.strip().split(";")[0]
    # afterany: the grades are gathered whatever happened to single tasks.
    gather_job = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{array_id}",
                                 *extra, str(jobs / "gather.sbatch")], capture_output=True, text=True)
    if gather_job.returncode != 0:
        sys.exit(f"sbatch (gather) failed: {gather_job.stderr.strip()}")
    gather_id = gather_job.stdout.strip().split(";")[0]
    (jobs / "jobs").write_text(f"array {array_id}\ngather {gather_id}\n")
    print(f"submitted {len(entries)} submission(s) as array job {array_id} ({tasks} task(s)); "
          f"gather job {gather_id} writes {out / 'grades.csv'}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(q):
        q.add_argument("--preset")
        q.add_argument("--labels")
        q.add_argument("--gpus")
        q.add_argument("--build-slots", type=int)
        q.add_argument("--force", action="store_true", help="grade again what was graded")

    r = sub.add_parser("run", help="grade every submission in a folder")
    r.add_argument("lab"), r.add_argument("submissions"), r.add_argument("out")
    r.add_argument("--task", type=int, help="Slurm array task: grade only batch TASK")
    r.add_argument("--per-task", type=int, default=1)
    r.add_argument("--slots-dir")
    r.add_argument("--no-gather", action="store_true")
    common(r)
    o = sub.add_parser("one", help="grade one submission folder (Gradescope)")
    o.add_argument("lab"), o.add_argument("submission"), o.add_argument("out")
    o.add_argument("--results", help="also copy results.json here")
    o.add_argument("--name", default="submission")
    common(o)
    s = sub.add_parser("slurm", help="submit a Slurm job array and a dependent gather job")
    s.add_argument("lab"), s.add_argument("submissions"), s.add_argument("out")
    s.add_argument("--per-task", type=int, default=int(os.environ.get("GRADE_PER_TASK", "4")))
    s.add_argument("--sbatch-args", default=os.environ.get("GRADE_SBATCH_ARGS", ""))
    s.add_argument("--gres", default=os.environ.get("GRADE_GRES", "gpu:1"),
                   help='per task; "none" for CPU-only grading')
    common(s)
    ga = sub.add_parser("gather", help="write OUT/grades.csv from every OUT/*/results.json")
    ga.add_argument("out")
    args = p.parse_args()

    if args.command == "gather":
        rows = gather(args.out)
        print(f"{len(rows)} submission(s): {Path(args.out) / 'grades.csv'}")
        return 0
    if args.command == "one":
        args.force = True
        g = run(args, [(args.name, Path(args.submission))])
        if args.results:
            shutil.copyfile(Path(args.out) / args.name / "results.json", args.results)
        return 0
    if args.command == "slurm":
        return submit_slurm(args, submissions_of(args.submissions))
    entries = submissions_of(args.submissions)
    if args.task is None:
        list_submissions(args.out, entries)
    else:
        entries = entries[args.task * args.per_task:(args.task + 1) * args.per_task]
    run(args, entries, args.slots_dir)
    if not args.no_gather:
        rows = gather(args.out)
        table = [["submission", "built", "passed", "failed", "skipped", "score", "max", "status"]] + rows
        width = [max(len(str(r[i])) for r in table) for i in range(7)]
        for r in table:
            say("  ".join(str(c).ljust(w) for c, w in zip(r, width)) + "  " + r[7])
        say(f"grades: {Path(args.out).resolve() / 'grades.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
