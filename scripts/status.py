#!/usr/bin/env python3
"""Where each lab stands, honestly: CPU checks, kernels in the CPU simulator, their cost, kernels
on a GPU.

usage: scripts/status.sh [--side student|solution] [--lab labNN] [--no-build] [--rerun] [--large]
                         [BUILD_DIR...]
       scripts/status.sh --junit FILE BUILD_DIR      (summarise a finished ctest run)

Without BUILD_DIR it looks for build/student*, build/sim, build/sim-tsan and build/sim-asan.
It first builds the graders of what it reports on (each lab apart, so one that does not compile
is reported with its first error, and the others still run), then runs the tests of each lab
whose graders, lab folder or test environment changed since its last recorded run in that build
folder (status-record.json there: its own runs, and watch.sh's rounds where every step passed,
each test case run by its grader as CTest runs it): what it prints is about the source as it is
now, never an older build's. A lab unchanged since its recorded run shows that run's results, said so under
its row with the time of the run; the others say "ran now". --rerun runs every lab's tests
again. The inputs of gigabytes ([large], 3 to 45 s each in the simulator) run only with --large
(or in watch.sh's last step, whose passing round shows here); otherwise each is listed as not
run, saying so. (--no-build reports on the graders as they are built, and says they may be
stale.)
A skipped test is never counted as passed, reused or not: GPU tests that did not run are
reported as "not run", with the reason the test gave (no GPU, no driver, ...). The cost tests
([perf], "cost: ...") get their own column: a kernel that passes every other test and fails only
those is correct but slow, not wrong. The kernels' tests in a sim-tsan build (ThreadSanitizer:
races) and a sim-asan build (AddressSanitizer: out-of-bounds accesses) get their own columns; a
failure there that carries no race (or bounds) report is said to be a crash or a failed check,
never a race. Tests named "stretch: ..." (lab06's optional stretch) are counted apart and never
make a lab fail.
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "grading"))
from histo_grading.tests import ctest_verdicts, parse_junit  # noqa: E402  (one reader of ctest's JUnit, skip reasons included)
LABS = ["lab01", "lab02", "lab03", "lab04", "lab05", "lab06"]
KINDS = ["cpu", "sim", "cost", "tsan", "asan", "gpu"]
KIND_TITLE = {"cpu": "CPU checks", "sim": "kernels, simulator", "cost": "cost (simulator)",
              "tsan": "races (sim-tsan)", "asan": "bounds (sim-asan)", "gpu": "kernels, GPU"}
# What a sanitizer prints when it found what it looks for (else a failure there is no race).
SANITIZER_REPORT = {"tsan": "WARNING: ThreadSanitizer: data race",
                    "asan": "ERROR: AddressSanitizer: "}
# A sanitizer build's kernel tests are their own kind; its test preset sets their environment.
SANITIZER_PRESET = {"tsan": "sim-tsan", "asan": "sim-asan"}
STRETCH = "stretch: "
# Each build folder's record of the last run of each lab's tests (record_of, fingerprint).
RECORD = "status-record.json"


def new_entry():
    return {"passed": 0, "failed": [], "skipped": {}, "reported": 0, "crashed": 0,
            "stretch": {"passed": 0, "failed": [], "skipped": 0}}


def lab_folders():
    return {p[:5]: p for p in sorted(os.listdir(ROOT)) if re.match(r"^lab\d\d_", p)
            and os.path.isdir(os.path.join(ROOT, p))}


def grader_targets(build_dir, labs, side):
    """{lab: the lab's graders of `side` that this build has}, from one listing of its targets."""
    out = subprocess.run(["cmake", "--build", build_dir, "--target", "help"], capture_output=True,
                         text=True).stdout
    return {lab: sorted(set(re.findall(r"^(%s_%s(?:_sim)?_grader)\b" % (lab, side), out, re.M)))
            for lab in labs}


# A compiler's error line: Clang's and GCC's "FILE:LINE:COL: error: ..." (or "FILE:LINE: error:"),
# nvcc's "FILE(LINE): error: ..." ("catastrophic error" where it cannot go on; "error #N-D" with
# its numbers shown).
COMPILER_ERROR = re.compile(r"^(?P<file>\S+?)(?::(?P<line>\d+)(?::\d+)?|\((?P<nvcc_line>\d+)\)): "
                            r"(?:fatal |catastrophic )?error(?: #[\w-]+)?: (?P<message>.*)$")


def first_error(log):
    """The first compiler error of a build log (COMPILER_ERROR), as FILE:LINE: MESSAGE, its file
    named from the course's root, with the line after it (the code it points at), or the log's
    last lines."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        m = COMPILER_ERROR.match(line)
        if m:
            where = m.group("file")
            path = os.path.relpath(os.path.normpath(os.path.join(ROOT, "build", "x", where))
                                   if not os.path.isabs(where) else where, ROOT)
            if path.startswith(".."):
                path = where
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return "%s:%s: %s%s" % (path, m.group("line") or m.group("nvcc_line"), m.group("message"),
                                    ("\n      " + code) if code else "")
    tail = [l for l in lines if l.strip()][-3:]
    return " / ".join(tail) or "the build failed (no message)"


def build(build_dir, graders, side, sanitizer=None):
    """Builds each lab's graders ({lab: targets}). Returns {lab: {kind: entry}} for those that do
    not compile: each kind their graders report on, marked with the first error."""
    broken = {}
    print("== building %s graders in %s ..." % (side, os.path.relpath(build_dir, ROOT)), flush=True)
    for lab, targets in graders.items():
        if not targets:
            continue
        proc = subprocess.run(["cmake", "--build", build_dir, "--target", *targets],
                              capture_output=True, text=True, errors="replace")
        if proc.returncode == 0:
            continue
        # Its graders are an older build's: nothing of them is reported.
        if sanitizer:
            kinds = [sanitizer]
        else:
            kinds = ["cpu"] + (["sim", "cost"] if any("_sim_" in t for t in targets) else []) + \
                    (["gpu"] if any("_sim_" not in t for t in targets) else [])
        error = first_error(proc.stdout + proc.stderr)
        broken[lab] = {k: dict(new_entry(), broken=error) for k in kinds}
    return broken


def test_environment(build_dir):
    """The environment the build's tests run in: ours, with its test preset's settings."""
    folder = os.path.basename(os.path.normpath(build_dir))
    preset = SANITIZER_PRESET.get(sanitizer_of(build_dir), folder)
    return dict(os.environ, **preset_environment(preset))


def fingerprint(build_dir, lab, targets, env):
    """What a lab's test results depend on, as one hash: its graders as built and their CTest
    files (the tests and their settings), the files of its folder (the student's source among
    them), of its solution's and of its private tests, the settings the graders read (HISTO_*,
    the sanitizers' options), and the scripts that run and sort them (this one, watch.py, the
    JUnit reader). None when a grader is not built."""
    folder = lab_folders().get(lab)
    if not folder or not targets:
        return None
    digest = hashlib.sha256()

    def add(path, required):
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            if required:
                return False
            data = b"(none)"
        digest.update(b"%s %d\0" % (os.path.relpath(path, ROOT).encode(), len(data)))
        digest.update(data)
        return True

    for target in targets:
        grader = os.path.join(build_dir, folder, target)
        if not (add(grader, True) and add(grader + "_tests.cmake", True)):
            return None
    for top in (os.path.join(ROOT, folder), os.path.join(ROOT, "solutions", folder),
                os.path.join(ROOT, "grading", "private", lab)):
        names = sorted(os.listdir(top)) if os.path.isdir(top) else []
        for name in names:
            if os.path.isfile(os.path.join(top, name)):
                add(os.path.join(top, name), False)
    here = os.path.abspath(__file__)
    for script in (here, os.path.join(os.path.dirname(here), "watch.py"),
                   sys.modules[parse_junit.__module__].__file__):
        add(script, False)
    for key in sorted(env):
        if key.startswith("HISTO_") or key.endswith("SAN_OPTIONS"):
            digest.update(("%s=%s\0" % (key, env[key])).encode())
    return digest.hexdigest()


def record_of(build_dir):
    """The build folder's record: {"SIDE LAB": recorded_run(...)}, "ran_at" in seconds since the
    epoch, "results" {kind: entry}; {} when there is none (or it cannot be read)."""
    try:
        with open(os.path.join(build_dir, RECORD)) as f:
            record = json.load(f)
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def write_record(build_dir, record):
    """Writes the record whole (a reader never sees half of it)."""
    path = os.path.join(build_dir, RECORD)
    with tempfile.NamedTemporaryFile("w", dir=build_dir, prefix=RECORD, delete=False) as f:
        json.dump(record, f, indent=1, sort_keys=True)
    os.replace(f.name, path)


def recorded_run(mark, ran_at, results, by):
    """A lab's entry in the record: what its results depend on, when they ran, by which script."""
    return {"fingerprint": mark, "ran_at": ran_at, "results": results, "by": by}


def record_cases(build_dir, lab, side, mark, ran_at, cases, by):
    """Records a run of a lab's tests made without CTest (watch.sh's round, each test case run by
    its grader): cases as [(test case, exit code, output)], exit code 4 a skip as CTest counts
    it. They are read as CTest's own run is (its JUnit, results_of), and recorded only when they
    are every test CTest has for the lab in this build and nothing else; returns whether they
    were."""
    if not mark:
        return False
    labels = labels_of(build_dir)
    names = {name.split(": ", 1)[1]: name for name in labels
             if re.match(tests_regex([lab], side), name)}
    if sorted(names) != sorted(case for case, _, _ in cases):
        return False
    suite = ET.Element("testsuite", tests=str(len(cases)))
    for case, code, output in cases:
        result = "run" if code == 0 else "notrun" if code == 4 else "fail"
        element = ET.SubElement(suite, "testcase", name=names[case], status=result)
        if result != "run":
            ET.SubElement(element, "skipped" if result == "notrun" else "failure")
        ET.SubElement(element, "system-out").text = output
    with tempfile.TemporaryDirectory(prefix="histo-watch-") as folder:
        junit = os.path.join(folder, "junit.xml")
        ET.ElementTree(suite).write(junit, encoding="unicode")
        table = results_of(junit, labels, side, sanitizer_of(build_dir))
    if not table.get(lab):
        return False
    record = record_of(build_dir)
    record["%s %s" % (side, lab)] = recorded_run(mark, ran_at, table[lab], by)
    write_record(build_dir, record)
    return True


def reusable(record, side, fingerprints):
    """{lab: its recorded run} for each lab whose fingerprint is the recorded run's."""
    reuse = {}
    for lab, mark in fingerprints.items():
        recorded = record.get("%s %s" % (side, lab))
        if mark and isinstance(recorded, dict) and recorded.get("fingerprint") == mark:
            reuse[lab] = recorded
    return reuse


def when(seconds, now=None):
    """A run's time: "10:41" today, "2026-12-03 10:41" another day."""
    then, today = time.localtime(seconds), time.localtime(now)
    same_day = then[:3] == today[:3]
    return time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", then)


def provenance(sources, now=None):
    """The line under a lab's row that says where its results come from: [(build folder, its
    recorded run reused, or None: ran now)]."""
    parts = []
    for folder, recorded in sources:
        if recorded is None:
            parts.append("%s: ran now" % folder)
        else:
            parts.append("%s: results of %s's run at %s (source and graders unchanged since)"
                         % (folder, recorded["by"], when(recorded["ran_at"], now)))
    return "; ".join(parts)


def labels_of(build_dir):
    """Test name -> set of labels, from ctest's own listing."""
    out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                         capture_output=True, text=True, check=True).stdout
    labels = {}
    for test in json.loads(out).get("tests", []):
        props = {p["name"]: p["value"] for p in test.get("properties", [])}
        labels[test["name"]] = set(props.get("LABELS", []))
    return labels


def preset_environment(preset):
    """The environment the test preset of that name sets (sim-tsan: TSan's suppressions), with
    the presets it inherits from; {} for a folder that is no preset's."""
    try:
        with open(os.path.join(ROOT, "CMakePresets.json")) as f:
            presets = {p["name"]: p for p in json.load(f).get("testPresets", [])}
    except (OSError, ValueError):
        return {}
    env, name = {}, preset
    while name in presets:
        for key, value in presets[name].get("environment", {}).items():
            env.setdefault(key, value.replace("${sourceDir}", ROOT))
        name = (presets[name].get("inherits") or [None])[0]
    return env


def sanitizer_of(build_dir):
    """"tsan" or "asan" for a build compiled with that sanitizer (its CMakeCache), else None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            flags = " ".join(line for line in f if line.startswith("CMAKE_CXX_FLAGS:"))
    except OSError:
        return None
    if "-fsanitize=thread" in flags:
        return "tsan"
    if "-fsanitize=address" in flags:
        return "asan"
    return None


def tests_regex(labs, side):
    """CTest's names of the side's tests of these labs."""
    return r"^(%s)\.%s(\.sim)?: " % ("|".join(labs), side)


LARGE_NOT_RUN = ("inputs of gigabytes ([large], 3 to 45 s each): not run by status.sh; "
                 "scripts/watch.sh LAB runs them in its last step, status.sh --large here")


def run_tests(build_dir, labs, side, env, large=False):
    """Runs the side's tests of these labs (the [large] ones only when `large`); returns the
    JUnit file's path and CTest's log."""
    folder = tempfile.mkdtemp(prefix="histo-status-")
    junit, log = os.path.join(folder, "junit.xml"), os.path.join(folder, "ctest.log")
    regex = tests_regex(labs, side)
    print("== running %s tests of %s in %s ..." % (side, ", ".join(labs),
                                                    os.path.relpath(build_dir, ROOT)), flush=True)
    with open(log, "w") as f:
        subprocess.run(["ctest", "--test-dir", build_dir, "-R", regex, "-j", str(os.cpu_count() or 2),
                        "--output-junit", junit] + ([] if large else ["-LE", "^large$"]),
                       stdout=f, stderr=subprocess.STDOUT, env=env)
    return junit, log


def large_not_run(table, labels, labs, side):
    """Counts each [large] test of `labs` that run_tests left out as not run, saying why."""
    for name, tags in labels.items():
        m = re.match(r"^(lab0[1-6])\.(\w+)\.sim: ", name)
        if "large" in tags and m and m.group(1) in labs and m.group(2) == side:
            skipped = table.setdefault(m.group(1), {}).setdefault("sim", new_entry())["skipped"]
            skipped[LARGE_NOT_RUN] = skipped.get(LARGE_NOT_RUN, 0) + 1


def results_of(junit, labels, side, sanitizer=None, log=None):
    """{lab: {kind: entry}}, entry as new_entry(). `sanitizer` ("tsan", "asan"): the build is a
    sanitizer build, whose kernel tests are that kind and whose CPU and cost tests are left out
    (a sanitizer's build has no counters). `log`: CTest's output, which says which test
    crashed."""
    table = {}
    for test in parse_junit(junit, ctest_verdicts(Path(log)) if log else {}):
        name = test["name"] or ""
        m = re.match(r"^(lab0[1-6])\.(\w+)(\.sim)?: ", name)
        if not m or m.group(2) != side:
            continue
        lab = m.group(1)
        tags = labels.get(name, set())
        kind = "sim" if "sim" in tags else "gpu" if "gpu" in tags else "cpu"
        if sanitizer:
            if kind != "sim" or "perf" in tags:
                continue
            kind = sanitizer
        elif kind == "sim" and "perf" in tags:
            kind = "cost"
        entry = table.setdefault(lab, {}).setdefault(kind, new_entry())
        if test["result"] == "failed":
            if sanitizer and SANITIZER_REPORT[sanitizer] in test["output"]:
                entry["reported"] += 1
            elif test.get("crashed") or re.search(r"Sanitizer: (SEGV|ABRT|BUS)|Segmentation fault",
                                                  test["output"]):
                entry["crashed"] += 1
        case = name.split(": ", 1)[1]
        if case.startswith(STRETCH):
            part = entry["stretch"]
            if test["result"] == "passed":
                part["passed"] += 1
            elif test["result"] == "failed":
                part["failed"].append(case)
            else:
                part["skipped"] += 1
        elif test["result"] == "passed":
            entry["passed"] += 1
        elif test["result"] == "failed":
            entry["failed"].append(case)
        else:
            reason = re.sub(r"needs \d+ MiB", "needs gigabytes", test.get("skip_reason", "skipped"))
            entry["skipped"][reason] = entry["skipped"].get(reason, 0) + 1
    return table


def merge(into, table):
    for lab, kinds in table.items():
        for kind, entry in kinds.items():
            into.setdefault(lab, {})[kind] = entry


def describe(entry, kind=""):
    if entry is None:
        return "not built here"
    if entry.get("broken"):
        return "DOES NOT COMPILE"
    ran = entry["passed"] + len(entry["failed"])
    skipped = sum(entry["skipped"].values())
    stretch = entry["stretch"]
    stretch_ran = stretch["passed"] + len(stretch["failed"])
    if ran == 0 and skipped:
        text = "NOT RUN (%d tests)" % skipped
    else:
        text = "%d/%d passed" % (entry["passed"], ran)
        if entry["failed"]:
            text = "FAILED %d of %d" % (len(entry["failed"]), ran)
            what = {"tsan": "race", "asan": "out of bounds"}.get(kind)
            if what:
                # Only a sanitizer's own report makes a race (or a bad access) of a failure.
                parts = ["%d %s" % (entry["reported"], what)] if entry["reported"] else []
                if entry["crashed"]:
                    parts.append("%d crashed" % entry["crashed"])
                rest = len(entry["failed"]) - entry["reported"] - entry["crashed"]
                if rest:
                    parts.append("%d wrong" % rest)
                text += " (%s)" % ", ".join(parts)
        if skipped:
            text += ", %d not run" % skipped
    if stretch_ran:
        text += "; stretch %d/%d" % (stretch["passed"], stretch_ran)
    return text


def passed_all(entry):
    """Ran the required tests, and every one passed."""
    return entry is not None and entry["passed"] > 0 and not entry["failed"]


def rerun(preset, lab, *labels):
    return "ctest --preset %s -L %s%s --output-on-failure" % (
        preset, lab, "".join(" -L %s" % l for l in labels))


def next_step(lab, kinds, presets, side):
    cpu, sim, cost, tsan, asan, gpu = (kinds.get(k) for k in KINDS)
    broken = [e["broken"] for e in kinds.values() if e.get("broken")]
    if broken:
        return "your source does not compile; the first error:\n      %s" % broken[0]
    if side == "solution":
        if any(e["failed"] for e in kinds.values()):
            return "a solution fails: ctest --test-dir build/<preset> -L %s --output-on-failure" % lab
        if gpu is None or gpu["passed"] == 0:
            return "on a machine with a GPU: scripts/gpu_check.sh --part all (every grader, sanitizers, benchmark)"
        return "all ran and passed"
    gpu_preset = presets.get("gpu", "student")
    if cpu and cpu["failed"]:
        return "fix the CPU checks first: " + rerun(presets.get("cpu", "student"), lab, "cpu")
    if sim and sim["failed"]:
        return "your kernels are wrong in the CPU simulator: " + rerun(presets.get("sim", "sim"), lab)
    for kind, entry, found, preset in (
            ("tsan", tsan, "your kernels race (ThreadSanitizer names both lines)", "sim-tsan"),
            ("asan", asan, "your kernels read or write out of bounds", "sim-asan")):
        if entry and entry["failed"]:
            if entry["reported"]:
                return "%s: %s" % (found, rerun(preset, lab))
            return ("your kernels fail under %s with no %s report (%s): %s" % (
                preset, "race" if kind == "tsan" else "bounds",
                "a crash" if entry["crashed"] else "a failed check", rerun(preset, lab)))
    if gpu and gpu["failed"]:
        if passed_all(sim) and not passed_all(tsan):
            # Threads take turns in the simulator: a race passes there and fails on a GPU.
            return ("your kernels pass in the simulator but fail on the GPU: the simulator's "
                    "threads take turns, so look for a race (a missing __syncthreads(), a plain "
                    "++ on a shared counter): cmake --workflow --preset sim-tsan, then ctest "
                    "--preset %s -L %s --output-on-failure" % (gpu_preset, lab))
        return "your kernels fail on the GPU: " + rerun(gpu_preset, lab)
    if sim is None:
        return "run your kernels on the CPU: cmake --workflow --preset sim"
    if cost and cost["failed"]:
        return ("your kernels are correct, but slow: %d cost test(s) fail (%s): %s" % (
            len(cost["failed"]), "; ".join(cost["failed"][:2]), rerun(presets.get("cost", "sim"), lab, "perf")))
    stretch = [k for k in ("sim", "gpu") if kinds.get(k) and kinds[k]["stretch"]["failed"]]
    if stretch:
        return ("the required kernels pass; the optional stretch does not yet (it never fails "
                "the lab): ctest --preset %s -L %s -R stretch --output-on-failure"
                % (presets.get(stretch[0], "sim"), lab))
    if gpu is None or gpu["passed"] == 0:
        if tsan is None:
            return ("your kernels pass in the simulator, where threads take turns: check them for "
                    "races with cmake --workflow --preset sim-tsan; then the GPU has the last word")
        return ("the GPU has the last word: run ctest --preset student-gpu -L %s on a machine "
                "with an NVIDIA GPU (or notebooks/colab_gpu.ipynb)" % lab)
    return "done; measure it: histo_bench_student --labs %s (in build/<preset>/bench/)" % lab


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build_dirs", nargs="*")
    ap.add_argument("--side", default="student", choices=["student", "solution"])
    ap.add_argument("--lab", choices=LABS)
    ap.add_argument("--junit", help="summarise this finished ctest run instead of running tests")
    ap.add_argument("--no-build", action="store_true",
                    help="report on the graders as they are built (they may be stale)")
    ap.add_argument("--rerun", action="store_true",
                    help="run every lab's tests, even those unchanged since their recorded run")
    ap.add_argument("--large", action="store_true",
                    help="also run the inputs of gigabytes ([large], 3 to 45 s each; implies "
                         "--rerun)")
    args = ap.parse_args()

    dirs = args.build_dirs
    if not dirs:
        top = os.path.join(ROOT, "build")
        names = sorted(os.listdir(top)) if os.path.isdir(top) else []
        dirs = [os.path.join(top, n) for n in names
                if re.match(r"^(student(-gpu|-cpu)?|sim(-tsan|-asan)?)$", n)
                and os.path.exists(os.path.join(top, n, "CTestTestfile.cmake"))]
    if not dirs:
        print("Nothing is built yet. Build and test your labs first:\n"
              "  cmake --workflow --preset sim           # kernels in the CPU simulator (no GPU,\n"
              "                                          # no CUDA Toolkit needed)\n"
              "  cmake --workflow --preset student-gpu   # with an NVIDIA GPU and the CUDA Toolkit")
        return 1

    labs = [args.lab] if args.lab else [l for l in LABS if l in lab_folders()] or LABS
    results, presets = {}, {}
    stale = args.no_build and not args.junit
    sources = {}  # lab -> [(build folder, its recorded run reused, or None: ran now)]
    for d in dirs:
        preset = os.path.basename(os.path.normpath(d))
        sanitizer = sanitizer_of(d)
        if args.junit:
            table = results_of(args.junit, labels_of(d), args.side, sanitizer)
            merge(results, table)
            for kinds in table.values():
                for kind in kinds:
                    presets.setdefault(kind, preset)
            continue
        graders = grader_targets(d, labs, args.side)
        broken = {} if args.no_build else build(d, graders, args.side, sanitizer)
        built = [lab for lab in labs if lab not in broken]
        env = test_environment(d)
        marks = {lab: fingerprint(d, lab, graders[lab], env) for lab in built}
        record = record_of(d)
        reused = {} if args.rerun or args.large else reusable(record, args.side, marks)
        to_run = [lab for lab in built if lab not in reused]
        table = {}
        if reused:
            print("== %s: %s unchanged since their tests' recorded run: reporting its results" % (
                os.path.relpath(d, ROOT), ", ".join(reused)), flush=True)
        if to_run:
            ran_at = time.time()
            junit, log = run_tests(d, to_run, args.side, env, args.large)
            labels = labels_of(d)
            table = results_of(junit, labels, args.side, sanitizer, log)
            if not args.large and not sanitizer:
                large_not_run(table, labels, to_run, args.side)
            for lab in to_run:
                key = "%s %s" % (args.side, lab)
                # Only what ran and gave results is recorded (an interrupted run is not).
                if marks[lab] and table.get(lab):
                    record[key] = recorded_run(marks[lab], ran_at, table[lab], "status.sh")
                else:
                    record.pop(key, None)
            write_record(d, record)
        for lab, recorded in reused.items():
            table[lab] = recorded["results"]
        for lab in table:
            sources.setdefault(lab, []).append((os.path.relpath(d, ROOT), reused.get(lab)))
        table.update(broken)
        merge(results, table)
        for kinds in table.values():
            for kind in kinds:
                presets.setdefault(kind, preset)

    # Columns: those that ran somewhere, each as wide as its widest cell, two spaces apart.
    shown = [k for k in KINDS if k in ("cpu", "sim", "gpu") or any(k in results.get(lab, {})
                                                                    for lab in labs)]
    rows = [["lab"] + [KIND_TITLE[k] for k in shown]]
    for lab in labs:
        rows.append([lab] + [describe(results.get(lab, {}).get(k), k) for k in shown])
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    line = lambda row: "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
    print("\n" + line(rows[0]))
    not_run = {}
    for lab, row in zip(labs, rows[1:]):
        kinds = results.get(lab, {})
        print(line(row))
        if sources.get(lab):
            print("%s from: %s" % (" " * len(lab), provenance(sources[lab])))
        print("%s next: %s" % (" " * len(lab), next_step(lab, kinds, presets, args.side)))
        for kind in ("gpu", "sim", "cost", "tsan", "asan"):
            for reason, count in kinds.get(kind, {}).get("skipped", {}).items():
                not_run[(kind, reason)] = not_run.get((kind, reason), 0) + count
    if not_run:
        print("\nTests that did NOT run (never counted as passed):")
        where = {"gpu": "GPU", "sim": "simulator", "cost": "cost", "tsan": "sim-tsan",
                 "asan": "sim-asan"}
        for (kind, reason), count in sorted(not_run.items()):
            print("  %3d %s tests: %s" % (count, where[kind], reason))
    if any(recorded for folder in sources.values() for _, recorded in folder):
        print("\n(Results of a recorded run are those of graders and sources as they are now; "
              "--rerun runs their tests again.)")
    if stale:
        print("\n(--no-build: these are the graders as they were last built; a source edited "
              "since is not in them)")
    # The optional stretch never fails a lab.
    failed = any(e["failed"] or e.get("broken") for kinds in results.values() for e in kinds.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
