#!/usr/bin/env python3
"""CTest's checks of the student repository that scripts/release.sh writes.

usage: check_release.py tree WORK_DIR
       check_release.py repository WORK_DIR
       check_release.py classroom WORK_DIR
       check_release.py commands WORK_DIR
       check_release.py first-hour WORK_DIR
  RELEASE_CMAKE_ARGS   extra configure arguments for the released trees (where to find Catch2)
  RELEASE_JOBS         parallel build jobs (default 2)
  RELEASE_CLASSROOM_LABS  the labs of the classroom release (default lab02,lab06)
  RELEASE_COMMANDS_LAB    the lab of the one-lab release whose commands run (default lab04)
  RELEASE_COST_STEPS      all: the full release runs every handout's cost step too (each takes
                          minutes and gigabytes at its --predict-size 1G); by default only the
                          one-lab release's runs, and the full release lists the others as not run

tree: releases the first three labs (a course's first release) and checks what it holds, as
  every release below is checked; builds nothing (seconds: the quick tier's).
repository: releases every lab, proves the solution-line check can fail (a solution and an
  instructor slide planted in a copy are caught), then in a fresh clone of the release:
  `cmake --preset sim` configures and builds; every lab has failing tests as shipped and none
  that was not built; scripts/status.sh summarises the run; every command of every handout and
  of the README runs as written (those that need a GPU or the CUDA Toolkit, or hold a
  placeholder, are listed as not run; a test command may fail only by failing tests, the
  skeletons being unsolved); a configure without presets says it builds the student side only;
  with each lab's solution copied in, every test passes.
commands: releases one lab (RELEASE_COMMANDS_LAB) from a copy of the course tree that is not a
  git checkout of its own (unpacked inside another repository), then in a fresh clone: no
  Markdown file names a file the release lacks, the README's commands name only the released
  lab, and every command of the README and of the lab's handout runs as written, in order, with
  the lab's solution copied in after the first (a student's edit): each exits 0, the handout's
  per-change build rebuilds what its cost step runs (the cost step shows the edited kernels, right).
first-hour: the first hour as a student walks it: the course's first release (lab01-lab03), a
  fresh clone; the README's commands with nothing solved, then each lab's handout in order, with
  that lab's solution copied in after its first command and the later labs untouched: every
  command runs as written, exits 0 once its lab is solved or fails only by the later labs' tests
  (before, a test command may fail only by failing tests), within FIRST_HOUR_SECONDS (default 600) and FIRST_HOUR_MEMORY_MB of memory
  resident in all its processes at once (default 4096; a command past it is stopped and fails);
  each command's time and peak memory are printed. Then `scripts/watch.sh --once` on the solved
  release passes, and a compile error put into lab03's source reaches watch.sh --once and
  scripts/status.sh with its file, line and message, in the build with nvcc's pass (where the
  CUDA Toolkit is installed) and in one configured without it (HISTO_SIM_NVCC empty).
Every release: documents name no file the release lacks; a later lab's skeleton hands out no
  earlier lab's answer (lab06's asks for the student's own lab05 helpers).
classroom: releases the labs RELEASE_CLASSROOM_LABS, checks that .github/workflows/classroom.yml
  is the workflow GitHub Actions and Classroom expect (one command-grader step per gradable
  test, points from grading/points/, one reporter step), then runs the workflow's own commands
  in order in a fresh clone (the `run:` steps with bash as Actions does, each grader command
  with /bin/sh and the command grader's environment): as shipped some tests fail; with the
  solutions copied in and the build step run again, every grader passes and the score is full;
  a source that does not compile shows the compiler's error in its tests' output.
  Exits 77 (skipped) without PyYAML, or without a Catch2 3 installed for the system (the
  workflow builds with the system's Catch2, no download); also, after checking the rest, when
  this machine cannot check part of it: the workflow's apt step without network, the cost
  tests without clang++.
"""
import contextlib
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JOBS = os.environ.get("RELEASE_JOBS", "2")
CMAKE_ARGS = shlex.split(os.environ.get("RELEASE_CMAKE_ARGS", ""))
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
failures = []
not_checked = []  # what this machine cannot check (no network, no clang++): the run is then skipped
started = time.time()
# apt's words for a repository it cannot reach.
OFFLINE = re.compile(r"Temporary failure resolving|Could not resolve|Failed to fetch|Unable to connect|"
                     r"Network is unreachable|Cannot initiate the connection|Connection failed|"
                     r"cannot be reached")
# A command of a document that this test does not run here, and why.
NOT_HERE = [
    (re.compile(r"<[^>]*>|\blabNN\b|build/<|\.\.\.|--preset P\b"), "holds a placeholder"),
    (re.compile(r"student-gpu|compute-sanitizer|colab"), "needs an NVIDIA GPU"),
    (re.compile(r"--preset student(?!-)|build/student/|--preset student-cpu|build/student-cpu"),
     "builds with nvcc (the CUDA Toolkit) for GPU architectures"),
]
# The programs a document's command line starts with.
COMMAND = re.compile(r"^(cmake|ctest|build/|scripts/|python3 |bash |sh |git )")


def say(text):
    print(f"[{time.time() - started:6.1f} s] {text}", flush=True)


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(cmd, cwd=None, env=None, expect=0, quiet=False):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace")
    if expect is not None and proc.returncode != expect:
        tail = (proc.stdout + proc.stderr)[-4000:]
        raise SystemExit(f"FAIL: {' '.join(map(str, cmd))} exited {proc.returncode} (expected {expect}):\n{tail}")
    if not quiet and expect is not None:
        say(f"ran {' '.join(map(str, cmd))[:120]}")
    return proc


def lab_folders():
    return {p.name[:5]: p.name for p in sorted(ROOT.glob("lab[0-9][0-9]_*")) if (p / "CMakeLists.txt").exists()}


def junit_results(path):
    """{test name: "passed" | "failed" | "skipped"} from ctest's JUnit file."""
    results = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status")
        results[case.get("name")] = ("skipped" if status in ("notrun", "disabled") or case.find("skipped") is not None
                                     else "failed" if status == "fail" or case.find("failure") is not None
                                     else "passed")
    return results


def by_lab(results):
    labs = {}
    for name, result in results.items():
        m = re.match(r"^(lab\d\d)\.student(\.sim)?: ", name)
        if m:
            labs.setdefault(m.group(1), {}).setdefault(result, []).append(name)
    return labs


def make_release(out, *args):
    if out.exists():
        shutil.rmtree(out)
    proc = run([str(ROOT / "scripts" / "release.sh"), str(out), *args])
    print(proc.stdout.strip())
    return proc


def clone(repo, dest):
    if dest.exists():
        shutil.rmtree(dest)
    run(["git", "clone", "-q", str(repo), str(dest)])
    return dest


def put_solutions(tree, labs, folders):
    for lab in labs:
        for sol in (ROOT / "solutions" / folders[lab]).glob("*.cu"):
            shutil.copyfile(sol, tree / folders[lab] / sol.name)


# ----------------------------------------------------------------------------------------------

def check_contents(repo, labs, folders):
    files = set(run(["git", "-C", str(repo), "ls-files"], quiet=True).stdout.split("\n")) - {""}
    tops = {f.split("/", 1)[0] for f in files}
    expected_tops = {folders[l] for l in labs} | {"common", "sim", "bench", "cmake", "notebooks", "scripts",
                                                 "grading", "report", "slides", ".github", "README.md",
                                                 "CMakeLists.txt", "CMakePresets.json", ".gitignore"}
    check(tops == expected_tops, f"the release holds exactly {sorted(expected_tops)} (has {sorted(tops)})")
    check(not any(f.startswith(("solutions/", "grading/points", "grading/private", "grading/gradescope"))
                  for f in files), "no solutions/, grading/points, grading/private, grading/gradescope")
    check([f for f in files if f.startswith("report/")] == ["report/README.md"],
          "of report/ (the benchmark of the solutions) only a README")
    for lab in labs:
        for name in ("README.md", "CMakeLists.txt", "grader.cpp", "variants.cpp", f"{lab}.h",
                     f"{folders[lab]}.cu"):
            check(f"{folders[lab]}/{name}" in files, f"{folders[lab]}/{name} is released")
        handout = (repo / folders[lab] / "README.md").read_text()
        check("near code" not in handout, f"{lab}'s handout has no near-code hint")
        check("Instructors:" not in handout, f"{lab}'s handout has no line for instructors")
        skeleton = (repo / folders[lab] / f"{folders[lab]}.cu").read_text()
        course = (ROOT / folders[lab] / f"{folders[lab]}.cu").read_text()
        own = re.findall(rf"TODO\({lab}\) begin: (\w+), your own from (lab\d\d)", skeleton)
        if own:
            # An earlier lab's helpers withheld: the student brings their own (release.py).
            check(all(f" {name}(" in course for name, _ in own),
                  f"{lab}'s skeleton asks for the student's own {', '.join(sorted({o for _, o in own}))} "
                  f"helpers ({', '.join(n for n, _ in own)}) instead of handing them out")
            check(f"does not provide" in handout, f"{lab}'s handout says which helpers to bring")
        else:
            check(skeleton == course, f"{lab}'s skeleton is the course's, byte for byte")
        # The handout agrees with the skeleton: each TODO in its table, none called provided.
        # The TODOs named after a function of the skeleton (others are named in words).
        todos = {t for t in re.findall(rf"TODO\({lab}\) begin: (\w+)", skeleton)
                 if re.search(rf"\b{t}\(", skeleton)}
        table = set(re.findall(r"^\| `(\w+)` \|", handout, re.M))
        provided = set(re.findall(r"`(\w+)`", " ".join(re.findall(r"^Provided:.*?(?:\n\n|$)", handout,
                                                                  re.M | re.S))))
        check(todos <= table and not todos & provided,
              f"{lab}'s handout lists every TODO of its skeleton and calls none provided "
              f"(missing {sorted(todos - table)}, called provided {sorted(todos & provided)})")
    decks = sorted(f for f in files if re.match(r"slides/lab\d\d_.*\.md$", f))
    check(decks == sorted(f"slides/{folders[l]}.md" for l in labs), f"one student deck per released lab ({decks})")
    for deck in decks:
        text = (repo / deck).read_text()
        check("(for instructors)" not in text and "{{" not in text,
              f"{deck}: no slide for instructors, every placeholder filled")
        for fig in re.findall(r"!\[\]\(([^)]+)\)", text):
            check(f"slides/{fig}" in files, f"{deck}: its figure {fig} is released")
    readme = (repo / "README.md").read_text()
    check("nstructor" not in readme and "solutions/" not in readme, "the README has no instructor part")
    for lab in folders:
        check((f"[{folders[lab]}]" in readme) == (lab in labs), f"the README lists {lab} only if released")
    presets = json.loads((repo / "CMakePresets.json").read_text())
    names = {p["name"] for p in presets["configurePresets"]}
    check({"student", "sim"} <= names and not names & {"instructor", "gpu", "ci"},
          f"presets: student ones only ({sorted(names)})")
    md = "\n".join((repo / f).read_text() for f in files if f.endswith(".md"))
    check("solutions/" not in md, "no Markdown file mentions solutions/")
    absent = absent_files(repo, files)
    check(not absent, f"no Markdown file names a file the release lacks ({absent[:6]})")
    # Every released script that takes --help (argparse's) starts: what it runs or imports was
    # released with it (watch.sh runs watch.py, which imports status.py).
    for script in sorted(f for f in files if re.match(r"scripts/\w+\.(sh|py)$", f)):
        text = (repo / script).read_text(errors="replace")
        python = re.search(r'"\$\(dirname "\$0"\)/(\w+\.py)"', text)
        if "argparse" in (text if script.endswith(".py") else
                          (repo / "scripts" / python.group(1)).read_text() if python else ""):
            proc = run(["bash" if script.endswith(".sh") else sys.executable, script, "--help"],
                       cwd=repo, expect=None)
            ran = proc.returncode == 0 and "Traceback" not in proc.stderr
            check(ran, f"{script} --help runs in the release" + ("" if ran else f": {proc.stderr.strip()[-300:]}"))
    return files


# A path a document names: a Markdown link's target, or a relative path with a file extension.
LINK = re.compile(r"\]\(([^)#\s]+)")
PATH = re.compile(r"(?<![\w/.<*$-])((?:\.\./)?(?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.(?:md|json|py|sh|csv|"
                  r"cu|cpp|h|hpp|cuh|toml|ipynb|yml|cmake|txt|supp|svg|png))(?![\w*<])")


def absent_files(repo, files):
    """["FILE: PATH"] for every path a released Markdown file (or notebook) names that the
    release does not hold (build outputs and URLs aside), read from the file's folder, the
    repository's root, or the include folders."""
    have = set(files)
    for f in files:
        parent = Path(f).parent
        while str(parent) != ".":
            have.add(str(parent))
            parent = parent.parent
    missing = []
    for f in files:
        if not f.endswith((".md", ".ipynb")):
            continue
        text = (repo / f).read_text(errors="replace")
        for m in list(LINK.finditer(text)) + list(PATH.finditer(text)):
            ref = m.group(1).rstrip("/")
            if "://" in ref or "build/" in ref or ref.startswith(("build", "/", "mailto:")) or "NN" in ref:
                continue
            bases = [Path(f).parent, Path("."), Path("common/include"), Path("sim/include")]
            if not any(os.path.normpath(b / ref) in have for b in bases):
                missing.append(f"{f}: {ref}")
    return sorted(set(missing))


def check_leak_check(repo, tmp, folders):
    """The check must find what it is there to find."""
    lab = sorted(folders)[-1]
    for what, plant in (
            ("a solution file", lambda t: shutil.copyfile(ROOT / "solutions" / folders[lab] / f"{folders[lab]}.cu",
                                                          t / folders[lab] / "backup.cu")),
            ("an instructor slide", lambda t: shutil.copyfile(ROOT / "slides" / f"{folders[lab]}.md",
                                                              t / "slides" / "all.md"))):
        copy = tmp / "planted"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(repo, copy, ignore=shutil.ignore_patterns(".git"))
        plant(copy)
        proc = run([str(ROOT / "scripts" / "release.sh"), "--check", str(copy)], expect=None)
        check(proc.returncode == 1 and "LEAK:" in proc.stdout, f"the solution-line check catches {what} "
              f"({proc.stdout.count('LEAK:')} lines)")
        shutil.rmtree(copy)


# ----------------------------------------------------------------------------------------------
# Every command of the documents, as written.

def document_commands(markdown):
    """The command lines of a Markdown text, in order: each line of a fenced block, and each
    `inline code`, that starts with a program (COMMAND), its trailing "# comment" cut."""
    found = []
    for m in re.finditer(r"^```[^\n]*\n(.*?)^```|`([^`\n]+)`", markdown, re.S | re.M):
        lines = m.group(1).splitlines() if m.group(1) is not None else [m.group(2)]
        for line in lines:
            command = re.sub(r"\s+#(?=\s).*$", "", line).strip()
            if is_command(command):
                found.append(command)
    return found


def is_command(text):
    """A command line, not a path or a program's name in prose: a program (COMMAND) with
    arguments; a script, for sh and bash."""
    words = text.split()
    if not COMMAND.match(text) or not words:
        return False
    if len(words) == 1:
        return bool(re.fullmatch(r"scripts/\w+\.sh", words[0]))
    if words[0].endswith("/") or re.search(r"\.(csv|json|md|txt|png|svg|log)$", words[0]):
        return False
    return words[0] not in ("sh", "bash") or words[1].endswith(".sh")


def why_not_here(command, cost_steps=True):
    """Why this machine does not run the command ("" when it does)."""
    for pattern, why in NOT_HERE:
        if pattern.search(command):
            return why
    if not cost_steps and "--predict-size" in command:
        return ("a cost step of the full release: minutes and gigabytes each (release.commands runs "
                "one as written; RELEASE_COST_STEPS=all runs them all)")
    if not cost_steps and "figures.py --sim" in command:
        return "draws from its cost step's CSV, which was not written here"
    if "figures.py" in command and subprocess.run([sys.executable, "-c", "import matplotlib"],
                                                  capture_output=True).returncode != 0:
        return "needs matplotlib (optional), which is not installed here"
    return ""


def session_rss(sid):
    """Bytes of memory every process of session `sid` holds now: each one's proportional set
    size (a page mapped by several is shared among them, and a page mapped many times, as the
    simulator's memset runs of gigabytes are, counts once), else its resident set."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[3]) != sid:  # field 6, the session, after pid and (comm)
                continue
            try:
                rollup = (stat.parent / "smaps_rollup").read_text()
                total += int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1)) << 10
            except (OSError, AttributeError):
                total += int(fields[21]) * os.sysconf("SC_PAGE_SIZE")  # field 24, rss in pages
        except (OSError, IndexError, ValueError):
            continue  # a process that ended meanwhile
    return total


def run_limited(command, cwd, seconds, memory):
    """Runs `command` (bash) in a session of its own; stops every process of it once they hold
    more than `memory` bytes resident together, or after `seconds`. Returns (exit code, output,
    peak bytes, why stopped or "")."""
    with open(os.devnull) as devnull:
        proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, stdin=devnull, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    chunks = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()), daemon=True)
    reader.start()
    peak, why, end = 0, "", time.time() + seconds
    while proc.poll() is None:
        peak = max(peak, session_rss(proc.pid))
        if peak > memory or time.time() > end:
            why = (f"stopped: more than {memory >> 20} MB resident" if peak > memory
                   else f"stopped: still running after {seconds} s")
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            break
        time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)  # what it left running
    reader.join()
    return proc.returncode, b"".join(chunks).decode(errors="replace"), peak, why


def run_commands(tree, docs, label, solved, edit=None, cost_steps=True, limits=None, later=()):
    """Runs every command of the documents `docs` (paths in `tree`) as written, in order, each
    once; `edit()` runs after the first (a student's edit, which solves the labs when `solved`:
    from then on every command must exit 0, or fail only by tests of the labs `later`). `limits`, (seconds, bytes): each command within
    them (run_limited), its time and peak memory printed. Returns {command: output}."""
    outputs, seen, edited = {}, set(), False
    solved_now = solved and not edit
    for doc in docs:
        for command in document_commands((tree / doc).read_text()):
            if command in seen:
                continue
            seen.add(command)
            why = why_not_here(command, cost_steps)
            if why:
                print(f"not run: {doc}: {command}  ({why})")
                continue
            start = time.time()
            seconds, memory = limits or (1800, 1 << 60)
            returncode, out, peak, stopped = run_limited(command, tree, seconds, memory)
            outputs[command] = out
            if limits:
                print(f"ran: {time.time() - start:.0f} s, {peak >> 20} MB resident at most: {command}")
                check(not stopped, f"{label}: {doc}: `{command}` within {seconds} s and "
                      f"{memory >> 20} MB ({stopped or 'yes'})")
            # Unsolved, a test command fails by failing tests, and only so; solved, only by
            # failing tests of the labs not started yet (`later`).
            failing = set(re.findall(r"^\s*\d+ - (lab\d\d)\.\w+.*\((?:Failed|Timeout|Exception)\)$", out, re.M)
                          + re.findall(r"^(lab\d\d)\s+.*FAILED", out, re.M))
            tests_failed = (re.match(r"(ctest|cmake --workflow|scripts/status\.sh)", command)
                            and re.search(r"tests? failed out of|FAILED", out)
                            and not re.search(r"CMake Error|No tests were found|Error: could not", out)
                            and (not solved_now or (failing and failing <= set(later))))
            check(returncode == 0 or bool(tests_failed),
                  f"{label}: {doc}: `{command}` runs as written (exit {returncode}, "
                  f"{time.time() - start:.0f} s){'' if returncode == 0 else ': ' + out[-1500:]}")
            if edit and not edited:
                edit()
                edited, solved_now = True, solved
    return outputs


def tree(work):
    folders = lab_folders()
    labs = sorted(folders)[:3]
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "repo"
    make_release(repo, "--labs", ",".join(labs))
    check_contents(repo, labs, folders)


def repository(work):
    folders = lab_folders()
    labs = sorted(folders)
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "repo"
    make_release(repo)
    check_contents(repo, labs, folders)
    check_leak_check(repo, work, folders)
    say("leak check verified")

    tree = clone(repo, work / "clone")
    plain = run(["cmake", "-S", str(tree), "-B", str(tree / "build" / "plain"), "-DHISTO_GPU=OFF", *CMAKE_ARGS])
    check("No solutions/ in this tree: building the student side only" in plain.stdout,
          "a configure without presets says it builds the student side only")
    run(["cmake", "--preset", "sim", *CMAKE_ARGS], cwd=tree)
    run(["cmake", "--build", "--preset", "sim", "-j", JOBS], cwd=tree)
    say("fresh clone configured and built (preset sim)")

    junit = work / "skeleton.xml"
    run(["ctest", "--test-dir", "build/sim", "-j", JOBS, "--output-junit", str(junit)], cwd=tree, expect=8)
    shipped = junit_results(junit)
    check(not [n for n in shipped if n.endswith("_NOT_BUILT")], "every grader was built")
    per_lab = by_lab(shipped)
    for lab in labs:
        r = per_lab.get(lab, {})
        check(len(r.get("failed", [])) > 0, f"{lab} as shipped: {len(r.get('failed', []))} tests of student "
              f"code fail, {len(r.get('passed', []))} of provided code pass, {len(r.get('skipped', []))} skipped")
    others = [n for n, res in shipped.items() if not n.startswith("lab") and res == "failed"]
    check(not others, f"every test outside the labs passes ({others})")
    status = run(["bash", "scripts/status.sh", "--junit", str(junit), "build/sim"], cwd=tree, expect=1)
    check(all(re.search(rf"^{lab}\s+FAILED", status.stdout, re.M) for lab in labs),
          "scripts/status.sh shows every lab failing as shipped")
    print(status.stdout)
    run_commands(tree, [f"{folders[lab]}/README.md" for lab in labs] + ["README.md"],
                 "as shipped", solved=False, cost_steps=os.environ.get("RELEASE_COST_STEPS") == "all")
    say("every handout's and the README's commands ran")

    put_solutions(tree, labs, folders)
    run(["cmake", "--build", "--preset", "sim", "-j", JOBS], cwd=tree)
    junit = work / "solved.xml"
    run(["ctest", "--test-dir", "build/sim", "-j", JOBS, "--output-junit", str(junit)], cwd=tree, expect=None)
    solved = junit_results(junit)
    wrong = sorted(n for n, res in solved.items() if res == "failed")
    check(not wrong, f"with the solutions copied in, every test passes (failing: {wrong[:5]})")
    check(set(solved) == set(shipped), "the same tests as shipped")
    passed_as_shipped = {n for n, res in shipped.items() if res == "passed"}
    check(all(solved[n] == "passed" for n in passed_as_shipped), "tests passing as shipped still pass")


# ----------------------------------------------------------------------------------------------

def points_for(name, lab):
    path = ROOT / "grading" / "points" / f"{lab}.toml"
    data = tomllib.loads(path.read_text()) if path.exists() else {}
    for rule in data.get("test", []):
        if fnmatch.fnmatchcase(name, rule["pattern"]):
            return rule.get("points", data.get("default", 1))
    return data.get("default", 1)


def check_workflow(workflow):
    """Structure GitHub Actions and Classroom expect. Returns the grader steps."""
    check(workflow.get("name") == "Autograding Tests", "the workflow is named")
    check(set(workflow.get("on", [])) >= {"push"}, "it runs on push")
    check(workflow.get("permissions", {}).get("checks") == "write", "it may write checks (the reporter)")
    jobs = workflow.get("jobs", {})
    check(len(jobs) == 1, "one job")
    job = next(iter(jobs.values()))
    check(job.get("runs-on") == "ubuntu-latest", "on ubuntu-latest")
    steps = job.get("steps", [])
    check(isinstance(steps, list) and len(steps) > 4, "a list of steps")
    check(steps[0].get("uses", "").startswith("actions/checkout@"), "the first step checks out the code")
    for s in steps:
        check(("uses" in s) != ("run" in s), f"step '{s.get('name')}' has exactly one of uses and run")
    graders = [s for s in steps if s.get("uses") == GRADER]
    ids = [s.get("id", "") for s in graders]
    check(len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z][A-Za-z0-9]*", i) for i in ids),
          "grader step ids are unique and plain")
    for s in graders:
        w = s.get("with", {})
        check({"test-name", "command", "timeout", "max-score"} <= set(w) and isinstance(w["max-score"], int)
              and w["max-score"] >= 0 and isinstance(w["timeout"], int) and 0 < w["timeout"] <= 360,
              f"grader '{w.get('test-name')}' has a command, a timeout in minutes and whole points")
        lab = w["test-name"][:5]
        check(w["max-score"] == points_for(w["test-name"], lab),
              f"its points ({w['max-score']}) are grading/points/{lab}.toml's")
    reporter = steps[-1]
    check(reporter.get("uses") == REPORTER, "the last step is the reporter")
    check(reporter.get("with", {}).get("runners") == ",".join(ids), "the reporter reads every grader, in order")
    env = reporter.get("env", {})
    check(all(env.get(f"{i.upper()}_RESULTS") == f"${{{{steps.{i}.outputs.result}}}}" for i in ids)
          and len(env) == len(ids), "the reporter gets each grader's result in <ID>_RESULTS")
    return [s for s in steps if "run" in s], graders


def run_steps(tree, run_steps_list, graders, label):
    """The workflow's commands, as Actions runs them. Returns (score, max, {name: passed})."""
    for s in run_steps_list:
        script = tree.parent / "step.sh"
        script.write_text(s["run"])
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=tree,
                              capture_output=True, text=True)
        out = proc.stdout + proc.stderr
        if proc.returncode != 0 and OFFLINE.search(out):
            # Actions runners reach the package repositories; this machine does not.
            print(f"note: {label}: step '{s['name']}' could not reach the package repositories "
                  f"here:\n{out[-1500:]}")
            not_checked.append(f"step '{s['name']}' (no network)")
            continue
        check(proc.returncode == 0, f"{label}: step '{s['name']}' succeeds")
        if proc.returncode != 0:
            print(out[-3000:])
    say(f"{label}: run steps done")
    # The command grader runs each command with /bin/sh and only these variables.
    env = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), "FORCE_COLOR": "true"}
    score, outcome = 0, {}
    for s in graders:
        w = s["with"]
        proc = subprocess.run(["/bin/sh", "-c", w["command"]], cwd=tree, env=env, capture_output=True,
                              text=True, timeout=w["timeout"] * 60)
        outcome[w["test-name"]] = proc.returncode == 0
        score += w["max-score"] if proc.returncode == 0 else 0
    total = sum(s["with"]["max-score"] for s in graders)
    say(f"{label}: Points {score}/{total} ({sum(outcome.values())} of {len(graders)} tests pass)")
    return score, total, outcome


def load_yaml(text):
    """The YAML document as Python data: PyYAML of this Python, else of the system's Python 3."""
    try:
        import yaml
        return yaml.safe_load(text)
    except ImportError:
        pass
    proc = subprocess.run(["/usr/bin/python3", "-c", "import json, sys, yaml; "
                           "print(json.dumps(yaml.safe_load(sys.stdin)))"], input=text, capture_output=True,
                          text=True) if Path("/usr/bin/python3").exists() else None
    if proc is None or proc.returncode != 0:
        return None
    return json.loads(proc.stdout)


def classroom(work):
    if load_yaml("a: 1") is None:
        print("SKIPPED: PyYAML is not installed (Debian: apt-get install python3-yaml)")
        return 77
    if os.environ.get("RELEASE_SYSTEM_CATCH2") == "OFF":
        print("SKIPPED: no Catch2 3 installed for the system: the workflow builds with the system's "
              "Catch2, with no download (Debian: libcatch2-dev 3)")
        return 77
    folders = lab_folders()
    labs = sorted(l.strip() for l in os.environ.get("RELEASE_CLASSROOM_LABS", "lab02,lab06").split(","))
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "repo"
    make_release(repo, "--labs", ",".join(labs))
    check_contents(repo, labs, folders)
    text = (repo / ".github" / "workflows" / "classroom.yml").read_text()
    workflow = load_yaml(text)
    check(isinstance(workflow, dict), "classroom.yml is valid YAML")
    plain_steps, graders = check_workflow(workflow)
    names = [g["with"]["test-name"] for g in graders]
    check(all(n.split(".")[0] in labs for n in names), "it grades only the released labs")

    tree = clone(repo, work / "clone")
    score, total, shipped = run_steps(tree, plain_steps, graders, "as shipped")
    # Every gradable test of the released labs is graded; the rest skip in the simulator.
    listing = json.loads(run(["ctest", "--test-dir", "build/sim", "-N", "--show-only=json-v1"], cwd=tree,
                             quiet=True).stdout)
    registered = set()
    for t in listing["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = set(props.get("LABELS", []))
        if labels & set(labs) and labels & {"cpu", "sim"}:
            registered.add(t["name"])
    check(set(names) <= registered, "every graded test is a test of the build")
    left_out = sorted(registered - set(names))
    for name in left_out:
        regex = "^" + re.sub(r"([][\\.^$*+?(){}|])", r"\\\1", name) + "$"
        out = run(["ctest", "--test-dir", "build/sim", "-R", regex], cwd=tree, quiet=True, expect=None).stdout
        check("tests did not run" in out, f"left out of the workflow, and skipped in the simulator: {name}")
    per_lab = {}
    for name, ok in shipped.items():
        per_lab.setdefault(name[:5], []).append(ok)
    for lab in labs:
        check(not all(per_lab.get(lab, [True])), f"{lab} as shipped fails some graded tests "
              f"({per_lab.get(lab, []).count(False)} of {len(per_lab.get(lab, []))})")
    check(score < total, f"as shipped the score is not full ({score}/{total})")

    # A source that does not compile: its tests' output shows the compiler's error.
    lab = labs[0]
    source = tree / folders[lab] / f"{folders[lab]}.cu"
    source.write_text(source.read_text() + "\nint this_does_not_compile = ;\n")
    build = [s for s in plain_steps if "cmake" in s["run"]]
    for s in build:
        subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s["run"]], cwd=tree,
                       capture_output=True, text=True)
    step = next(g for g in graders if g["with"]["test-name"].startswith(lab))
    proc = subprocess.run(["/bin/sh", "-c", step["with"]["command"]], cwd=tree, capture_output=True,
                          text=True, env={"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")})
    out = proc.stdout + proc.stderr
    # The compiler's "file:line:" (GCC, Clang) or "file(line):" (nvcc, which the simulator's build
    # also runs where it is installed).
    check(proc.returncode != 0 and "NOT BUILT" in out and re.search(re.escape(source.name) + r"[:(]", out)
          and "error" in out,
          f"a {lab} source that does not compile: its test's output shows the compiler's error "
          f"({out.strip().splitlines()[:4]})")
    run(["git", "checkout", "-q", "--", str(source.relative_to(tree))], cwd=tree)

    put_solutions(tree, labs, folders)
    score, total, solved = run_steps(tree, [s for s in plain_steps if "cmake" in s["run"]], graders, "solved")
    if not shutil.which("clang++"):
        # The simulator counts only with Clang (the workflow's apt step installs it): without
        # it the cost tests cannot pass here, and the rest are checked alone.
        print("note: no clang++ on this machine: the cost tests are left out of the checks below")
        not_checked.append("the cost tests and the full score (no clang++)")
        solved = {n: ok for n, ok in solved.items() if ": cost: " not in n}
        check(all(solved.values()), f"with the solutions every grader but the cost tests passes "
              f"({[n for n, ok in solved.items() if not ok][:5]})")
        return 0
    check(all(solved.values()), f"with the solutions every grader passes "
          f"({[n for n, ok in solved.items() if not ok][:5]})")
    check(score == total, f"with the solutions the score is full ({score}/{total})")
    return 0


def commands(work):
    """One lab released from a course tree that is not a git checkout of its own; its README's
    and handout's commands run as written, in order, the lab solved after the first."""
    if os.environ.get("RELEASE_SYSTEM_CATCH2") == "OFF":
        print("SKIPPED: no Catch2 3 installed for the system: the handouts' commands, as written, "
              "find it there (Debian: libcatch2-dev 3)")
        return 77
    folders = lab_folders()
    lab = os.environ.get("RELEASE_COMMANDS_LAB", "lab04")
    work.mkdir(parents=True, exist_ok=True)
    # The course unpacked inside another repository, which ignores it.
    outer = work / "outer"
    course = outer / "downloads" / "course"
    course.mkdir(parents=True)
    run(["git", "init", "-q", str(outer)])
    (outer / ".gitignore").write_text("downloads/\n")
    archive = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
    for f in (f for f in archive.decode().split("\0") if f and (ROOT / f).is_file()):
        (course / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, course / f)
    repo = work / "repo"
    proc = run([str(course / "scripts" / "release.sh"), str(repo), "--labs", lab])
    print(proc.stdout.strip())
    files = check_contents(repo, [lab], folders)
    check(len([f for f in files if f.startswith(folders[lab] + "/")]) >= 5,
          f"released from a tree inside another git repository, it holds the lab's files ({len(files)} files)")
    readme = (repo / "README.md").read_text()
    named = sorted({l for c in document_commands(readme) for l in re.findall(r"\blab\d\d\b", c)})
    check(named in ([lab], []), f"the README's commands name only {lab} ({named})")

    tree = clone(repo, work / "clone")

    def solve():
        put_solutions(tree, [lab], folders)
        say(f"{lab}'s solution copied in (the student's edit)")
    # The handout first: its first command builds what the README's commands use.
    docs = [f"{folders[lab]}/README.md", "README.md"]
    outputs = run_commands(tree, docs, f"{lab} release", solved=True, edit=solve)
    cost = {c: out for c, out in outputs.items() if "--model" in c and f"{lab}/" in c}
    check(bool(cost), f"{lab}'s handout has a cost step that ran")
    for command, out in cost.items():
        rows = [l for l in out.splitlines() if l.startswith(f"{lab}/")]
        check(bool(rows) and not any(re.search(r"WRONG|error|empty grid", r) for r in rows),
              f"the cost step shows the edited {lab} kernels, right ({len(rows)} rows)")
        others = sorted({k for k in re.findall(r"lab\d\d/\w+", command) if k[:5] != lab})
        if others:
            check("note: not in this build, left out: " + ", ".join(others) in out,
                  f"the cost step says in one line which kernels the release lacks ({others})")
    return 0


def first_hour(work):
    """The course's first release walked lab by lab, later labs untouched (the module's help)."""
    if os.environ.get("RELEASE_SYSTEM_CATCH2") == "OFF":
        print("SKIPPED: no Catch2 3 installed for the system: the handouts' commands, as written, "
              "find it there (Debian: libcatch2-dev 3)")
        return 77
    folders = lab_folders()
    labs = sorted(folders)[:3]
    limits = (int(os.environ.get("FIRST_HOUR_SECONDS", "600")),
              int(os.environ.get("FIRST_HOUR_MEMORY_MB", "4096")) << 20)
    work.mkdir(parents=True, exist_ok=True)
    repo = work / "repo"
    make_release(repo, "--labs", ",".join(labs))
    tree = clone(repo, work / "clone")
    run_commands(tree, ["README.md"], "nothing solved", solved=False, limits=limits)
    for i, lab in enumerate(labs):
        run_commands(tree, [f"{folders[lab]}/README.md"], f"{lab} (later labs untouched)", solved=True,
                     edit=lambda lab=lab: put_solutions(tree, [lab], folders), limits=limits,
                     later=labs[i + 1:])
        say(f"{lab}'s handout walked")
    watch = run(["bash", "scripts/watch.sh", labs[-1], "--once"], cwd=tree, expect=None)
    check(watch.returncode == 0, f"watch.sh {labs[-1]} --once passes on the solved lab "
          f"(exit {watch.returncode}): {(watch.stdout + watch.stderr)[-800:]}")

    # A compile error, where the student made it, in watch.sh and status.sh.
    source = tree / folders[labs[-1]] / f"{folders[labs[-1]]}.cu"
    good = source.read_text()
    line = good.count("\n") + 2
    source.write_text(good + "\nint this_line_does_not_compile = ;\n")
    nvcc = run(["cmake", "-N", "-L", "build/sim"], cwd=tree, expect=None).stdout
    with_nvcc = bool(re.search(r"^HISTO_SIM_NVCC:FILEPATH=\S", nvcc, re.M))
    builds = [("build/sim", "with nvcc's pass" if with_nvcc else "without nvcc (none found)")]
    if with_nvcc:
        run(["cmake", "--preset", "sim", "-B", "build/sim-no-nvcc", "-DHISTO_SIM_NVCC=", *CMAKE_ARGS], cwd=tree)
        builds.append(("build/sim-no-nvcc", "without nvcc (HISTO_SIM_NVCC empty)"))
    else:
        not_checked.append("a compile error as nvcc reports it: no nvcc here")
    where = f"{source.name}:{line}"
    for build, how in builds:
        for command in (["bash", "scripts/watch.sh", labs[-1], "--once", "--build", build],
                        ["bash", "scripts/status.sh", build]):
            proc = run(command, cwd=tree, expect=None)
            out = proc.stdout + proc.stderr
            check(proc.returncode != 0 and where in out and "this_line_does_not_compile" in out,
                  f"{how}: `{' '.join(command[1:])}` shows the compile error at {where} "
                  f"(exit {proc.returncode}): {out[-800:]}")
    source.write_text(good)
    return 0


def main(argv):
    modes = {"tree": tree, "repository": repository, "classroom": classroom, "commands": commands,
             "first-hour": first_hour}
    if len(argv) != 2 or argv[0] not in modes:
        print(__doc__, file=sys.stderr)
        return 2
    work = Path(argv[1]).resolve()
    if work.exists():
        shutil.rmtree(work)
    rc = modes[argv[0]](work)
    if rc == 77:
        return 77
    say(f"{argv[0]}: {len(failures)} failure(s)")
    for f in failures:
        print(f"FAIL: {f}")
    if failures:
        return 1
    if not_checked:
        # Everything else passed, but not all of it was checked: skipped, never passed.
        print("SKIPPED: not checked on this machine: " + "; ".join(not_checked))
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
