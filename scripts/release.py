#!/usr/bin/env python3
"""Writes the student repository: what a course gives its students, with no answer in it.

usage: scripts/release.sh OUT [--labs lab01,lab03] [--code-hints] [--keep-provided lab05]
       scripts/release.sh --check DIR       (the solution-line check alone, on any folder)

OUT (new or empty) becomes a fresh git repository with one commit, holding:
  labNN_*/          the labs (handout, skeleton, grader, variants, header), all or --labs
  common/ sim/ bench/ cmake/ notebooks/   as in the course tree
  CMakeLists.txt    as in the course tree (it builds the student side when solutions/ is absent)
  CMakePresets.json the presets that build no solution (student*, sim*), generated
  README.md         the student README, from release/student_README.md
  slides/           the decks without their slides for instructors, numbers and figures filled
                    in from report/ (scripts/fill_slides.py --student)
  report/README.md  where the handouts' measured numbers come from (the run itself stays here)
  .github/workflows/classroom.yml   GitHub Classroom autograding (see below)
  scripts/status.sh, watch.sh, run_test.sh, sim_run.sh, install_tools.sh, figures.py, and
                    every file a released script runs or imports (watch.sh runs watch.py, which
                    imports status.py, which reads ctest's JUnit files with grading/histo_grading);
                    grading/*.py
It leaves out solutions/, grading/ (points, private tests, the Gradescope bundle, samples),
report/ (a benchmark of the solutions), the slide sources, the instructor scripts and .ci/.
Each lab's near-code hints (the handout's "Hint N (near code)" blocks) are left out too, unless
--code-hints keeps them.

--labs lab02[,...]  only these labs (one GitHub Classroom assignment per lab: one release each);
                    given twice, both lists. The README's commands then name the released labs.
--keep-provided LAB LAB is over (released before, not in this release): see "No answers" below.

The course tree is read as git lists it where it is a git checkout of its own, else (an unpacked
download, even inside another repository) as the files on disk, build/ and dot-folders aside.
Released Markdown loses its course-only text (between <!-- course-only --> and
<!-- /course-only -->: what names the course's report/ run and instructor scripts).

No answers: a lab's skeleton that provides an earlier lab's answer (lab03's provides lab02's
grid size in grid_for, lab06's lab05's packed_row, split_pairs and unpack) would hand it out to
that lab's students, whether the earlier lab is released with it or after it. In the release, each function of the skeleton that holds
such a line becomes a TODO region asking for the student's own (their lab05 version), and its
handout says which; --keep-provided lab05 keeps them as provided, for a release made once lab05
is over.

A release where a released script runs or imports a file that the release lacks (a
"$(dirname "$0")/NAME" of a shell script, a Python import found in the course tree) is refused:
nothing is written. Such files are released with their scripts, never listed by hand.

The solution-line check runs on every release and fails it (nothing is committed) when a
released file contains an answer. An answer line of lab NN is a line inside a
"// SOLUTION(labNN) begin ... end" region of solutions/labNN_*/*.cu that, with all whitespace
removed, is at least MIN_CHARS (20) characters long (shorter ones are common idioms such as
"__syncthreads();") and occurs nowhere (as part of a line, whitespace removed) in the code lab
NN gives its students anyway: the sources of its own folder that its build compiles and its
headers (skeleton, grader.cpp, variants, labNN.h), and every source file (.cu .cuh .h .hpp .cpp
.in) of common/, sim/ and bench/. A released file fails the check when one of its lines,
whitespace removed, contains an answer line. Two things are reported, not failed: an answer of
one lab that another lab's unchanged source hands out as provided code (lab06's skeleton
provides lab05's packed-counter helpers: release lab05 on its own to keep them apart), and an
answer inside a near-code hint kept with --code-hints.

GitHub Classroom: classroom.yml builds the CPU-simulator graders (apt packages only, no download
at test time) and runs one classroom-resources/autograding-command-grader step per test of
each released lab's CPU checks and simulator kernel tests, worth the points that
grading/points/labNN.toml gives it (see grading/points/README.md); a reporter step
(autograding-grading-reporter) sends the total to Classroom. Tests that cannot run in the
simulator (tagged [large]: inputs of gigabytes; and the race demonstrations that need real
parallel threads) are graded on a GPU machine instead and are not listed.
"""
import argparse
import ast
import fnmatch
import json
import os
import posixpath
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_CHARS = 20
PROVIDED_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".in"}
SHARED_CODE = ("common", "sim", "bench")
# Copied as they are (besides the labs); everything else of the course tree stays behind.
KEPT_DIRS = ("common", "sim", "bench", "cmake", "notebooks")
# The scripts here are the students' entry points: what they run or import comes with them.
KEPT_FILES = ("CMakeLists.txt", ".gitignore", "scripts/status.sh",
              "scripts/watch.sh", "scripts/run_test.sh", "scripts/install_tools.sh",
              "scripts/figures.py", "scripts/sim_run.sh")
KEPT_GLOBS = ("grading/*.py", "grading/histo_grading/*.py")
# Instructor-only parts of the kept folders: mistakes made on purpose on the solutions.
LEFT_OUT_DIRS = ("common/tests/mistakes/",)
NEVER_RELEASED = LEFT_OUT_DIRS + ("solutions/",)
# What a released script runs or imports from the course tree goes with it (script_dependencies):
# a shell script's "$(dirname "$0")/NAME" and "$repo/PATH" (repo being the script's parent
# folder's parent), a Python script's imports from its own folder, from the folders it puts on
# sys.path (os.path.join(ROOT, "grading")) and relative ones from its package.
SHELL_SIBLING = re.compile(r'\$\(dirname "?\$0"?\)/([\w./-]+)')
SHELL_REPO = re.compile(r'\$\{?repo\}?/([\w./-]+)')
PYTHON_PATH = re.compile(r'sys\.path\.insert\(\s*0\s*,\s*os\.path\.join\(\s*ROOT((?:\s*,\s*"[\w.-]+")*)\s*\)')
# Text of the course's Markdown that names what only the course tree has (report/'s run, the
# instructor scripts): left out of every released Markdown file.
COURSE_ONLY = re.compile(r"<!-- course-only -->.*?<!-- /course-only -->", re.S)
NEAR_CODE_HINT = re.compile(r"<details><summary>Hint \d+ \([^)]*near code\)</summary>.*?</details>\n*",
                            re.S)
SLIDES_LINE = re.compile(r"^Instructors: this lab's slides are (\[`slides/[^`]+`\]\([^)]+\)).*$", re.M)
# Tests that skip in the CPU simulator whatever the code: graded on a GPU machine only.
SIM_SKIPS_TAG = "[large]"  # inputs of gigabytes: worth 0, not graded in the simulator (engines.py)
SIM_SKIPS_CALL = "require_parallel_gpu"
ACTIONS = {"checkout": "actions/checkout@v4",
           "grader": "classroom-resources/autograding-command-grader@v1",
           "reporter": "classroom-resources/autograding-grading-reporter@v1"}
GRADER_TIMEOUT_MINUTES = 10
RELEASE_IDENTITY = {"GIT_AUTHOR_NAME": "Parallel Histogram Labs", "GIT_AUTHOR_EMAIL": "labs@invalid",
                    "GIT_COMMITTER_NAME": "Parallel Histogram Labs",
                    "GIT_COMMITTER_EMAIL": "labs@invalid"}


def squash(line):
    return re.sub(r"\s+", "", line)


def lab_folders(root=ROOT):
    """{"lab01": "lab01_naive", ...} for every lab folder of the tree."""
    found = {}
    for p in sorted(root.glob("lab[0-9][0-9]_*")):
        if p.is_dir() and (p / "CMakeLists.txt").exists():
            found[p.name[:5]] = p.name
    return found


def course_files():
    """The course tree's files (relative paths): git's tracked and untracked-but-not-ignored
    files where the tree is a git checkout of its own, else (an unpacked download, or one inside
    another repository) every file outside build/ and dot-folders."""
    try:
        top = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if Path(top).resolve() != ROOT.resolve():
            raise ValueError(f"{ROOT} is inside the git checkout {top}, not one of its own")
        out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        return sorted(f for f in files if (ROOT / f).is_file())
    except (OSError, ValueError, subprocess.CalledProcessError):
        files = []
        for dirpath, dirnames, filenames in os.walk(ROOT):
            d = Path(dirpath)
            dirnames[:] = [n for n in dirnames if not n.startswith(".") and not (d == ROOT and n == "build")
                           and n != "__pycache__"]
            files += [str((d / f).relative_to(ROOT)) for f in filenames if not f.endswith(".pyc")]
        return sorted(files)


# ----------------------------------------------------------------------------------------------
# The solution-line check.

def solution_regions(path, lab):
    """(line number, text) of every line inside the file's SOLUTION(lab) regions."""
    inside, lines = False, []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        if re.match(rf"\s*// SOLUTION\({lab}\) begin", line):
            inside = True
        elif re.match(rf"\s*// SOLUTION\({lab}\) end", line):
            inside = False
        elif inside:
            lines.append((number, line))
    return lines


def provided_sources(folder, root=ROOT):
    """The source files a folder gives students. A lab folder: what its build compiles (the
    SOURCE and SHARED files of histo_add_lab, grader.cpp) and its headers, so that a stray copy
    of an answer in the folder is not mistaken for provided code; common/, sim/, bench/: every
    source file."""
    base = root / folder
    if not re.match(r"lab\d\d_", folder):
        return sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in PROVIDED_SUFFIXES)
    call = re.search(r"histo_add_lab\((.*?)\)", (base / "CMakeLists.txt").read_text(), re.S)
    names = set(re.findall(r"[\w.-]+\.(?:cu|cpp)\b", call.group(1) if call else "")) | {"grader.cpp"}
    return sorted(p for p in base.iterdir() if p.is_file() and
                  (p.name in names or p.suffix in (".h", ".hpp", ".cuh")))


def provided_text(folder, root=ROOT):
    """Every line (whitespace removed) of the folder's provided sources, one per line."""
    lines = []
    for p in provided_sources(folder, root):
        lines += [squash(l) for l in p.read_text(errors="replace").splitlines()]
    return "\n".join(lines)


def answer_lines(root=ROOT):
    """{lab: [(source file, line number, squashed, original)]}: the lines only the answer has.
    A line that the lab or an earlier one hands out as provided code is no answer: its students
    have it (lab03's provided baseline holds the grid-stride loop that lab04's kernels reuse)."""
    folders = lab_folders(root)
    own = "\n".join(provided_text(d, root) for d in SHARED_CODE if (root / d).is_dir())
    answers = {}
    for lab, folder in sorted(folders.items()):
        own += "\n" + provided_text(folder, root)
        for sol in sorted((root / "solutions" / folder).glob("*.cu")):
            for number, line in solution_regions(sol, lab):
                s = squash(line)
                if len(s) >= MIN_CHARS and s not in own:
                    answers.setdefault(lab, []).append(
                        (str(sol.relative_to(root)), number, s, line.strip()))
    return answers


def near_code_spans(text):
    return [(m.start(), m.end()) for m in NEAR_CODE_HINT.finditer(text)]


def check_solution_lines(out, answers, root=ROOT, code_hints=False, released=None):
    """Scans every file under `out`. Returns (failures, notes): lists of sentences. `released`:
    the labs of this release (for the notes' advice)."""
    out = Path(out)
    folders = lab_folders(root)
    owner = {folder: lab for lab, folder in folders.items()}
    flat = [(lab, *a) for lab, items in answers.items() for a in items]
    failures, handed_out, in_hints = [], {}, {}
    for p in sorted(out.rglob("*")):
        rel = p.relative_to(out)
        if not p.is_file() or rel.parts[0] == ".git":
            continue
        text = p.read_text(errors="replace")
        lines = text.splitlines()
        squashed = [squash(l) for l in lines]
        joined = "\n".join(squashed)
        # A provided source of a lab: what its lines, as the course has them, hand out is the
        # course's own choice (a release may have rewritten other lines of it: bring_your_own).
        course = root / rel
        provider = owner.get(rel.parts[0]) if len(rel.parts) > 1 else None
        provided = set()
        if provider is not None and course.is_file() and course in provided_sources(rel.parts[0], root):
            provided = {squash(l) for l in course.read_text(errors="replace").splitlines()}
        hint_lines = set()
        if code_hints and p.name == "README.md":
            for start, end in near_code_spans(text):
                first = text.count("\n", 0, start)
                hint_lines.update(range(first, text.count("\n", 0, end) + 1))
        for lab, src, number, s, original in flat:
            if s not in joined:
                continue
            for i, line in enumerate(squashed):
                if s not in line:
                    continue
                if line in provided and provider != lab:
                    handed_out[(str(rel), lab)] = handed_out.get((str(rel), lab), 0) + 1
                    break
                if i in hint_lines:  # kept on request; later lines of the file are still read
                    in_hints[(str(rel), lab)] = in_hints.get((str(rel), lab), 0) + 1
                    continue
                failures.append(f"{rel}:{i + 1} has a line of {lab}'s answer ({src}:{number}: "
                                f"{original})")
                break

    def advice(lab):
        if released is None or lab in released:
            return f": release {lab} on its own (--labs {lab}) to keep them apart"
        return ""
    notes = [f"{f} hands out {n} line(s) of {lab}'s answer as provided code{advice(lab)}"
             for (f, lab), n in sorted(handed_out.items())]
    notes += [f"{f}: its near-code hints show {n} line(s) of {lab}'s answer (kept: --code-hints)"
              for (f, lab), n in sorted(in_hints.items())]
    return failures, notes


# ----------------------------------------------------------------------------------------------
# No answers handed out: a later lab's skeleton that provides an earlier lab's helpers (lab06's
# provides lab05's packed-counter helpers) asks for the student's own instead.

FUNCTION_START = re.compile(r"^(?![/#\s}])(?P<signature>[^;{}]*\b(?P<name>\w+)\s*\([^;{}]*\)[^;{}]*)\{")


def bring_your_own(path, answers, owner, lab_folder_of):
    """Rewrites the skeleton at `path` so that every function holding a line of lab `owner`'s
    answer (`answers`: squashed lines) becomes a TODO of the skeleton's lab: the student copies
    their own `owner` helper in. Returns the names of the functions rewritten."""
    lines = path.read_text().splitlines()
    lab = path.parent.name[:5]
    rewritten, out, i = [], [], 0
    while i < len(lines):
        m = FUNCTION_START.match(lines[i])
        if not m:
            out.append(lines[i])
            i += 1
            continue
        end = i
        if not lines[i].rstrip().endswith("}"):
            while end + 1 < len(lines) and lines[end] != "}":
                end += 1
        body = "\n".join(squash(l) for l in lines[i:end + 1] if not l.lstrip().startswith("//"))
        if not any(a in body for a in answers):
            out += lines[i:end + 1]
            i = end + 1
            continue
        signature, name = m.group("signature").rstrip(), m.group("name")
        returns = "" if re.match(r"^(?:(?:__host__|__device__|inline|static)\s+)*void\b", signature) \
            else "  return {};\n"
        # Its comments stay: they state the contract the student's own version must meet.
        contract = "".join(f"  {l.strip()}\n" for l in lines[i + 1:end] if l.lstrip().startswith("//"))
        out += (f"{signature} {{\n"
                f"  // TODO({lab}) begin: {name}, your own from {owner} ({lab_folder_of(owner)}.cu):\n"
                f"  // copy your {owner} version here (this release does not hand out {owner}'s answers)\n"
                f"{contract}{returns}"
                f"  // TODO({lab}) end\n"
                "}").splitlines()
        rewritten.append(name)
        i = end + 1
    # A comment that an answer's region shares with provided code goes too: it is no code.
    out = [l for l in out if not (l.lstrip().startswith("//") and any(a in squash(l) for a in answers))]
    path.write_text("\n".join(out) + "\n")
    return rewritten


def handout_brings_own(text, lab, names, owner, owner_file):
    """The handout of a skeleton that bring_your_own rewrote: a note under its title, the names
    gone from its "Provided:" paragraph, one row each in its TODO table."""
    title, _, rest = text.partition("\n")
    where = f"its `TODO({lab})` region" if len(names) == 1 else f"their `TODO({lab})` regions"
    rest = (f"\n> In this repository the skeleton does not provide "
            f"{', '.join(f'`{n}`' for n in names)}: {'it holds' if len(names) == 1 else 'they hold'} "
            f"{owner}'s answer. Fill {where} from your own {owner} (`{owner_file}`).\n{rest}")
    paragraphs = rest.split("\n\n")
    for i, para in enumerate(paragraphs):
        if para.startswith("Provided:"):
            for n in names:
                para = re.sub(rf"`{re.escape(n)}`(\s*\([^)]*\))?,\s*", "", para)
            paragraphs[i] = para
        if re.search(r"^\| TODO \|", para, re.M) and para.rstrip().endswith("|"):
            paragraphs[i] = para.rstrip("\n") + "".join(
                f"\n| `{n}` | as in your {owner} (`{owner_file}`): this repository does not provide "
                f"it | - |" for n in names)
    return f"{title}\n" + "\n\n".join(paragraphs)


def withhold_handed_out(stage, labs, keep_provided, root=ROOT):
    """Every released lab's skeleton that hands out another lab's answer asks for the student's
    own instead, unless that lab is over (--keep-provided LAB: released before, not now).
    Returns notes, one per rewritten skeleton."""
    folders = lab_folders(root)
    answers = answer_lines(root)
    notes = []
    for lab in labs:
        skeleton = stage / folders[lab] / f"{folders[lab]}.cu"
        if not skeleton.exists():
            continue
        text = "\n".join(squash(l) for l in skeleton.read_text().splitlines())
        # An earlier lab's answer only: a later lab's answer that builds on this lab's provided
        # code (a loop it reuses) gives nothing of this lab away.
        for owner, items in sorted(answers.items()):
            if owner >= lab or owner in keep_provided:
                continue
            mine = [s for _, _, s, _ in items if s in text]
            if not mine:
                continue
            names = bring_your_own(skeleton, mine, owner, lambda l: folders[l])
            handout = stage / folders[lab] / "README.md"
            if handout.exists():
                handout.write_text(handout_brings_own(handout.read_text(), lab, names, owner,
                                                      f"{folders[owner]}.cu"))
            notes.append(f"{skeleton.relative_to(stage)}: {', '.join(names)} (from {owner}) became "
                         f"TODO({lab}) regions: students bring their own {owner} helpers, as "
                         f"{owner}'s answers are not handed out (--keep-provided {owner} keeps them "
                         f"once {owner} is over)")
    return notes


# ----------------------------------------------------------------------------------------------
# What the release holds.

def python_module_files(name, level, script, search, files):
    """The course files (of `files`) that importing `name` from `script` loads: the module and
    its packages' __init__.py; [] for a module the course does not have (the standard library)."""
    if level:
        bases = [posixpath.dirname(script)]
        for _ in range(level - 1):
            bases = [posixpath.dirname(bases[0])]
    else:
        bases = search
    parts = name.split(".") if name else []
    for base in bases:
        found = []
        for i in range(1, len(parts) + 1):
            stem = posixpath.join(base, *parts[:i])
            for candidate in (stem + ".py", posixpath.join(stem, "__init__.py")):
                if candidate.lstrip("./") in files:
                    found.append(candidate.lstrip("./"))
        if found:
            return found
    return []


def script_dependencies(path, text, files):
    """The course files (relative paths, of `files`) that the script at `path` runs or imports,
    and the paths it names that `files` lacks, as (present, missing)."""
    here = posixpath.dirname(path)
    present, missing = set(), set()

    def named(target):
        target = posixpath.normpath(target)
        if target in files:
            present.add(target)
            return
        under = [f for f in files if f.startswith(target + "/")]
        if under:
            present.update(under)
        else:
            missing.add(target)

    if path.endswith(".sh"):
        refs = [posixpath.join(here, m) for m in SHELL_SIBLING.findall(text)]
        refs += SHELL_REPO.findall(text) if "repo=" in text else []
        for ref in refs:
            # Not the tree itself ("$(dirname "$0")/.."), nor what it writes under build/.
            if posixpath.basename(posixpath.normpath(ref)) not in ("", ".", "..") and \
                    not posixpath.normpath(ref).startswith("build/"):
                named(ref)
    elif path.endswith(".py"):
        search = [here] + [posixpath.join(*re.findall(r'"([^"]+)"', m)) if m else "."
                           for m in PYTHON_PATH.findall(text)]
        try:
            tree = ast.parse(text)
        except SyntaxError:
            return present, missing
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imports = [(a.name, 0) for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                # "from . import codecheck": each name may be a module of the package.
                imports = [(base, node.level)] + [(f"{base}.{a.name}".lstrip("."), node.level)
                                                  for a in node.names]
            else:
                continue
            for name, level in imports:
                present.update(python_module_files(name, level, path, search, files))
    present.discard(path)
    return present, missing


def with_dependencies(chosen, files, read=lambda f: (ROOT / f).read_text(errors="replace")):
    """`chosen` and, transitively, every course file a chosen script runs or imports (never a
    solution or an instructor-only file: check_dependencies then refuses the release)."""
    chosen, todo = set(chosen), sorted(chosen)
    files = set(files)
    while todo:
        f = todo.pop()
        if not f.endswith((".sh", ".py")):
            continue
        present, _ = script_dependencies(f, read(f), files)
        for dep in sorted(present - chosen):
            if not dep.startswith(NEVER_RELEASED):
                chosen.add(dep)
                todo.append(dep)
    return sorted(chosen)


def check_dependencies(stage, course=None):
    """Sentences, one per file that a released script runs or imports and the release lacks."""
    stage = Path(stage)
    released = {str(p.relative_to(stage)) for p in stage.rglob("*")
                if p.is_file() and ".git" not in p.relative_to(stage).parts}
    known = released | set(course if course is not None else course_files())
    problems = []
    for f in sorted(released):
        if not f.endswith((".sh", ".py")):
            continue
        present, missing = script_dependencies(f, (stage / f).read_text(errors="replace"), known)
        for dep in sorted((present - released) | missing):
            problems.append(f"{f} runs or imports {dep}, which the release lacks")
    return problems


def released_files(labs, folders):
    keep_labs = {folders[lab] for lab in labs}
    chosen = []
    files = course_files()
    for f in files:
        top = f.split("/", 1)[0]
        in_dir = "/" in f and (top in keep_labs or top in KEPT_DIRS)
        globbed = any(fnmatch.fnmatchcase(f, g) and f.count("/") == g.count("/") for g in KEPT_GLOBS)
        if (in_dir or f in KEPT_FILES or globbed) and not f.startswith(LEFT_OUT_DIRS):
            chosen.append(f)
    return with_dependencies(chosen, files)


def student_handout(text, code_hints, with_slides):
    if not code_hints:
        text = NEAR_CODE_HINT.sub("", text)
    return SLIDES_LINE.sub((lambda m: f"This lab's slides: {m.group(1)}.") if with_slides else "",
                           text).rstrip("\n") + "\n"


def student_presets(presets):
    """The presets that build no solution (HISTO_BUILD_SOLUTIONS OFF, set or inherited), and the
    build, test and workflow presets that use only those."""
    configure = {p["name"]: p for p in presets["configurePresets"]}

    def parents(p):
        inherits = p.get("inherits", [])
        return [inherits] if isinstance(inherits, str) else inherits

    def solutions_off(name):
        p = configure[name]
        value = p.get("cacheVariables", {}).get("HISTO_BUILD_SOLUTIONS")
        if isinstance(value, dict):
            value = value.get("value")
        if value is not None:
            return str(value).upper() in ("OFF", "FALSE", "0", "NO")
        return any(solutions_off(q) for q in parents(p))

    kept = {n for n, p in configure.items() if p.get("hidden") or solutions_off(n)}
    visible = {n for n in kept if not configure[n].get("hidden")}
    out = dict(presets)
    out["configurePresets"] = [p for p in presets["configurePresets"] if p["name"] in kept]
    out["buildPresets"] = [b for b in presets.get("buildPresets", []) if b["configurePreset"] in visible]
    out["testPresets"] = [t for t in presets.get("testPresets", [])
                          if t.get("configurePreset") in visible
                          or (t.get("hidden") and "configurePreset" not in t)]
    names = {"configure": visible, "build": {b["name"] for b in out["buildPresets"]},
             "test": {t["name"] for t in out["testPresets"]}}
    out["workflowPresets"] = [w for w in presets.get("workflowPresets", [])
                              if all(s["name"] in names[s["type"]] for s in w["steps"])]
    for kind, inherited in (("configurePresets", kept), ("testPresets", names["test"])):
        for p in out[kind]:
            missing = [q for q in parents(p) if q not in inherited]
            if missing:
                raise SystemExit(f"release: preset {p['name']} inherits {', '.join(missing)}, "
                                 "which builds solutions")
    return out


def section(markdown, title):
    """The body of the "## title" section of a Markdown text (up to the next "## ")."""
    m = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", markdown, re.S | re.M)
    if not m:
        raise SystemExit(f"release: README.md has no section '## {title}' (release/student_README.md uses it)")
    return m.group(1).strip("\n")


def student_readme(labs, folders, with_slides):
    template = (ROOT / "release" / "student_README.md").read_text()
    readme = (ROOT / "README.md").read_text()
    table = section(readme, "The labs")
    rows = [l for l in table.splitlines() if l.startswith("| [")]
    kept_rows = [r for r in rows if any(f"[{folders[lab]}]" in r for lab in labs)]
    header = [l for l in table.splitlines() if l.startswith("|") and not l.startswith("| [")][:2]

    def fill(m):
        key = m.group(1)
        if key == "labs":
            return "\n".join(header + kept_rows)
        if key == "slides":
            return ("The lecture slides are in [`slides/`](slides/), one deck per lab."
                    if with_slides else "")
        if key.startswith("section:"):
            return section(readme, key[8:])
        raise SystemExit(f"release: release/student_README.md: unknown placeholder {{{{{key}}}}}")

    text = re.sub(r"\{\{([^{}]+)\}\}", fill, template)
    return re.sub(r"\n{3,}", "\n\n", retarget(text, labs, folders))


def retarget(markdown, labs, folders):
    """The commands of a Markdown text (code blocks and `code`) made to name released labs: a
    lab the release lacks becomes its first lab (lab01_naive/lab01 -> lab04_shared_privatized/
    lab04 in a lab04 release), and a lab named twice in one list (--labs lab04,lab04) once."""
    absent = {lab: folder for lab, folder in folders.items() if lab not in labs}
    if not absent:
        return markdown
    first = labs[0]

    def one(code):
        for lab, folder in absent.items():
            code = code.replace(folder, folders[first])
            code = re.sub(rf"(?<!\w){lab}(?![0-9/])", first, code)  # not a kernel id (lab03/global)
        return re.sub(r"\b(lab\d\d)((?:,lab\d\d)+)\b",
                      lambda m: ",".join(dict.fromkeys([m.group(1)] + m.group(2)[1:].split(","))),
                      code)

    return re.sub(r"```.*?```|`[^`\n]+`", lambda m: one(m.group(0)), markdown, flags=re.S)


def strip_course_only(stage):
    """Every released Markdown file without its course-only text (COURSE_ONLY)."""
    for path in sorted(stage.rglob("*.md")):
        text = path.read_text()
        if "<!-- course-only -->" in text:
            path.write_text(COURSE_ONLY.sub("", text))


def report_readme():
    meta = {}
    numbers = ROOT / "report" / "numbers.json"
    if numbers.exists():
        meta = json.loads(numbers.read_text()).get("meta", {})
    run = (f"on an {meta['gpu']} (driver {meta.get('driver', '?')}, {meta.get('date', '?')})"
           if meta.get("gpu") else "on one GPU")
    text = (f"The measured tables in the handouts (and the slides) come from one benchmark run of the "
            f"course's reference kernels {run}, GB/s = input bytes / median time. The run itself "
            "stays with the course staff. Measure your own kernels the same way with "
            "`build/<preset>/bench/histo_bench_student --labs labNN` on a machine with a GPU.")
    return "# The reference run\n\n" + textwrap.fill(text, 96) + "\n"


def parse_test_cases(grader):
    """[(name, tags, body)] of the TEST_CASEs of a grader source (adjacent literals joined)."""
    text = Path(grader).read_text()
    literal = r'"(?:[^"\\]|\\.)*"'
    pattern = re.compile(rf"TEST_CASE\(\s*((?:{literal}\s*)+),\s*((?:{literal}\s*)+)\)")
    found = list(pattern.finditer(text))
    cases = []
    for i, m in enumerate(found):
        join = lambda group: "".join(json.loads(s) for s in re.findall(literal, group))
        body = text[m.end(): found[i + 1].start() if i + 1 < len(found) else len(text)]
        cases.append((join(m.group(1)), join(m.group(2)), body))
    if len(cases) != text.count("TEST_CASE("):
        raise SystemExit(f"release: could not read every TEST_CASE of {grader}")
    return cases


def read_points(lab):
    path = ROOT / "grading" / "points" / f"{lab}.toml"
    if not path.exists():
        return {"default": 1, "test": []}
    try:
        import tomllib  # Python 3.11 and newer
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            raise SystemExit("release: reading grading/points/*.toml needs Python 3.11 or the tomli package")
    with open(path, "rb") as f:
        return tomllib.load(f)


def points_for(name, points):
    """The points rule of grading/points/README.md: the first pattern that matches wins."""
    for rule in points.get("test", []):
        if fnmatch.fnmatchcase(name, rule["pattern"]):
            return rule.get("points", points.get("default", 1))
    return points.get("default", 1)


def classroom_tests(lab, folder):
    """[(CTest name, points)] of one lab's tests as its simulator build registers them, left out
    the ones that skip in the simulator whatever the code and the inputs of gigabytes."""
    points = read_points(lab)
    tests = []
    for name, tags, body in parse_test_cases(ROOT / folder / "grader.cpp"):
        if SIM_SKIPS_TAG in tags or SIM_SKIPS_CALL in body:
            continue
        ctest_name = f"{lab}.student: {name}" if "[cpu]" in tags else f"{lab}.student.sim: {name}"
        value = points_for(ctest_name, points)
        if float(value) != int(value):
            raise SystemExit(f"release: {lab}.toml gives '{ctest_name}' {value} points: GitHub "
                             "Classroom's command grader takes whole points only")
        tests.append((ctest_name, int(value)))
    return tests


def q(value):
    """A YAML double-quoted scalar (JSON's string syntax is valid YAML)."""
    return json.dumps(value)


def classroom_workflow(labs, folders):
    steps = [f"      - name: Check out the code\n        uses: {ACTIONS['checkout']}\n",
             "      - name: Install the build tools (apt)\n"
             "        run: bash scripts/install_tools.sh\n",
             # A lab that does not compile still gets its tests (failed) reported, each with the
             # compiler's errors from build.log (scripts/run_test.sh); ninja's -k 0 builds every
             # other lab's graders all the same.
             "      - name: Build the CPU-simulator graders\n"
             "        continue-on-error: true\n"
             "        run: |\n"
             "          cmake --preset sim -DHISTO_FETCH_CATCH2=OFF\n"
             "          cmake --build --preset sim -j \"$(nproc)\" -- -k 0 2>&1 | tee build/sim/build.log\n"]
    ids, total = [], 0
    for lab in labs:
        for k, (name, points) in enumerate(classroom_tests(lab, folders[lab]), 1):
            step_id = f"{lab}test{k:02d}"
            ids.append(step_id)
            total += points
            command = f"sh scripts/run_test.sh build/sim {shlex.quote(name)}"
            steps.append(f"      - name: {q(name)}\n"
                         f"        id: {step_id}\n"
                         f"        uses: {ACTIONS['grader']}\n"
                         "        with:\n"
                         f"          test-name: {q(name)}\n"
                         f"          command: {q(command)}\n"
                         f"          timeout: {GRADER_TIMEOUT_MINUTES}\n"
                         f"          max-score: {points}\n")
    env = "".join(f"          {i.upper()}_RESULTS: \"${{{{steps.{i}.outputs.result}}}}\"\n" for i in ids)
    steps.append("      - name: Autograding Reporter\n"
                 f"        uses: {ACTIONS['reporter']}\n"
                 "        env:\n" + env +
                 "        with:\n"
                 f"          runners: {','.join(ids)}\n")
    head = ("# GitHub Classroom autograding, generated by the course's scripts/release.sh: one step\n"
            "# per test of the labs' CPU checks and CPU-simulator kernel tests, worth the points of\n"
            f"# the course's grading/points/labNN.toml ({total} in all). Tests that need a GPU or\n"
            "# gigabytes of memory are graded on a GPU machine, not here.\n"
            "name: Autograding Tests\n"
            "'on':\n  - push\n  - workflow_dispatch\n  - repository_dispatch\n"
            "permissions:\n  checks: write\n  actions: read\n  contents: read\n"
            "jobs:\n  run-autograding-tests:\n    runs-on: ubuntu-latest\n"
            "    if: github.actor != 'github-classroom[bot]'\n"
            "    defaults:\n      run:\n        shell: bash\n"
            "    steps:\n")
    return head + "".join(steps), len(ids), total


# ----------------------------------------------------------------------------------------------

def make_slides(out, labs, folders):
    """slides/: the student decks of the released labs, filled from report/. False when the
    course has no reference run to fill them from."""
    if not (ROOT / "report" / "numbers.json").exists():
        return False
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "fill_slides.py"), "--student",
                               "--copy-figures", str(ROOT / "report"), tmp], capture_output=True, text=True)
        if proc.returncode != 0:
            raise SystemExit("release: filling the student slides failed:\n" + proc.stderr)
        dest = out / "slides"
        (dest / "figures").mkdir(parents=True)
        used = set()
        for lab in labs:
            deck = Path(tmp) / f"{folders[lab]}.md"
            if not deck.exists():
                continue
            text = deck.read_text()
            (dest / deck.name).write_text(text)
            used |= set(re.findall(r"!\[\]\(figures/([^)]+)\)", text))
        for name in sorted(used):
            shutil.copyfile(Path(tmp) / "figures" / name, dest / "figures" / name)
        if not used:
            (dest / "figures").rmdir()
    return True


def git(out, *args):
    subprocess.run(["git", "-C", str(out), *args], check=True, capture_output=True,
                   env=dict(os.environ, **RELEASE_IDENTITY))


def release(out, labs, code_hints, keep_provided=()):
    folders = lab_folders()
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"release: {out} is not empty")
    if out == ROOT or ROOT in out.parents and not str(out.relative_to(ROOT)).startswith("build"):
        raise SystemExit(f"release: {out} is inside the course tree (use a folder outside it, or under build/)")
    with tempfile.TemporaryDirectory(prefix="release-", dir=out.parent if out.parent.exists() else None) as tmp:
        stage = Path(tmp) / "repo"
        stage.mkdir()
        for f in released_files(labs, folders):
            dest = stage / f
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, dest)
        for n in withhold_handed_out(stage, labs, keep_provided):
            print(f"note: {n}")
        with_slides = make_slides(stage, labs, folders)
        for lab in labs:
            handout = stage / folders[lab] / "README.md"
            if handout.exists():
                handout.write_text(student_handout(handout.read_text(), code_hints, with_slides))
        if len(labs) == 1:
            notebook = stage / "notebooks" / "colab_gpu.ipynb"
            if notebook.exists():
                notebook.write_text(re.sub(r'LAB = \\"lab\d\d\\"', lambda m: f'LAB = \\"{labs[0]}\\"',
                                           notebook.read_text()))
        strip_course_only(stage)
        presets = student_presets(json.loads((ROOT / "CMakePresets.json").read_text()))
        (stage / "CMakePresets.json").write_text(json.dumps(presets, indent=2) + "\n")
        (stage / "README.md").write_text(student_readme(labs, folders, with_slides))
        (stage / "report").mkdir()
        (stage / "report" / "README.md").write_text(report_readme())
        workflow, steps, total = classroom_workflow(labs, folders)
        (stage / ".github" / "workflows").mkdir(parents=True)
        (stage / ".github" / "workflows" / "classroom.yml").write_text(workflow)

        lacking = check_dependencies(stage)
        if lacking:
            for problem in lacking:
                print(f"MISSING: {problem}", file=sys.stderr)
            raise SystemExit(f"release: {len(lacking)} file(s) that released scripts need are not in "
                             "the release: nothing was written")
        failures, notes = check_solution_lines(stage, answer_lines(), code_hints=code_hints, released=labs)
        for n in notes:
            print(f"note: {n}")
        if failures:
            for f in failures:
                print(f"LEAK: {f}", file=sys.stderr)
            raise SystemExit(f"release: {len(failures)} line(s) of solution code in the release: "
                             "nothing was written")
        git(stage, "init", "-q")
        git(stage, "checkout", "-q", "-b", "main")
        git(stage, "add", "-A")
        git(stage, "commit", "-q", "-m", f"Parallel Histogram Labs: {', '.join(labs)}")
        out.parent.mkdir(parents=True, exist_ok=True)
        if out.exists():
            out.rmdir()
        shutil.move(str(stage), str(out))
    count = subprocess.run(["git", "-C", str(out), "ls-files"], capture_output=True, text=True).stdout.count("\n")
    print(f"{out}: student repository for {', '.join(labs)} ({count} files, one commit); "
          f"no solution line in it (the check passed)")
    print(f"  GitHub Classroom: .github/workflows/classroom.yml grades {steps} tests, {total} points")
    if not with_slides:
        print("  no slides: the course has no reference run in report/ to fill them from")
    if not code_hints:
        print("  near-code hints left out of the handouts (--code-hints keeps them)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                 usage="scripts/release.sh OUT [--labs lab01,...] [--code-hints] | --check DIR")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--labs", action="append",
                    help="comma-separated labs (default: all); may be given more than once")
    ap.add_argument("--code-hints", action="store_true", help="keep the handouts' near-code hints")
    ap.add_argument("--keep-provided", action="append", default=[], metavar="LAB",
                    help="LAB is over (released before, not now): a later lab's skeleton may "
                         "provide LAB's helpers as shipped")
    ap.add_argument("--check", metavar="DIR", help="only scan DIR for solution lines")
    args = ap.parse_args(argv)
    folders = lab_folders()
    if args.check:
        failures, notes = check_solution_lines(args.check, answer_lines(), code_hints=args.code_hints)
        for n in notes:
            print(f"note: {n}")
        for f in failures:
            print(f"LEAK: {f}")
        print(f"{args.check}: {len(failures)} line(s) of solution code")
        return 1 if failures else 0
    if not args.out:
        ap.print_usage(sys.stderr)
        return 2
    if not (ROOT / "solutions").is_dir():
        raise SystemExit("release: no solutions/ here: the release check needs them (is this already a release?)")
    labs = sorted(folders)
    if args.labs:
        labs = [l.strip() for given in args.labs for l in given.split(",") if l.strip()]
        unknown = [l for l in labs if l not in folders]
        if unknown or not labs:
            raise SystemExit(f"release: unknown lab(s) {', '.join(unknown) or '(none given)'}: "
                             f"expected some of {', '.join(folders)}")
        labs = sorted(set(labs))
    keep = sorted({l.strip() for given in args.keep_provided for l in given.split(",") if l.strip()})
    wrong = [l for l in keep if l not in folders or l in labs]
    if wrong:
        raise SystemExit(f"release: --keep-provided {', '.join(wrong)}: name labs that are over, "
                         f"released before and not in this release (this one: {', '.join(labs)})")
    release(args.out, labs, args.code_hints, keep)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
