"""Running one submission's tests: CTest over its copied graders, with time, output and file-size
limits; reading CTest's JUnit report; finding files written outside the submission's folder.

Functions of one grading run (a batch.Grading, `g`).
"""
import contextlib
import os
import re
import shutil
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from .common import FILE_SIZE_LIMIT, HUGE_OUTPUT, ROOT, env_int

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


# Runs the submission's tests; returns the files written outside its folder meanwhile.
# again=True: a second run only to see what it writes (its results are not kept).
def run_tests(g, sub, record, gpu, source, again=False):
    run = sub / "run"
    work = run / ("work-again" if again else "work")
    (work / "tmp").mkdir(parents=True)
    stamp = time.time()
    env = dict(os.environ, HOME=str(work), TMPDIR=str(work / "tmp"))
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    if "tsan" in g.preset:
        # As the sim-tsan test preset runs them: stop at the first race, with the course's
        # suppressions (the simulator's own fiber switches).
        env.setdefault("TSAN_OPTIONS", f"halt_on_error=1 second_deadlock_stack=1 "
                                       f"suppressions={ROOT / 'sim' / 'tsan.supp'}")
    junit = sub / ("junit-again.xml" if again else "junit.xml")
    cmd = ["ctest", "--test-dir", str(run), *g.label_args(), "--output-junit", str(junit),
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
    for t in record["tests"]:
        race = thread_sanitizer_race(t["output"], g.source_name, source)
        if race:
            status, summary = race
            t.pop("crashed", None)
            t["race"] = status
            t["output"] = summary
    if not record["tests"] and "timed out" not in record["status"]:
        record["status"].append("no test report (see test.log)")
    # CTest keeps a full copy of every output here: megabytes for a chatty submission.
    shutil.rmtree(run / "Testing", ignore_errors=True)
    if os.environ.get("RACECHECK") == "1" and gpu is not None and not again:
        racecheck(g, sub, record, env)
    return writes_outside(g, sub, stamp)


# RACECHECK=1: compute-sanitizer racecheck over each grader on small inputs.
def racecheck(g, sub, record, env):
    env = dict(env, HISTO_GRADER_MAX_N="1048576")
    for exe in sorted((sub / "run").glob(f"{g.lab}_student*_grader")):
        log = sub / f"{exe.name}.racecheck.log"
        with open(log, "w") as f:
            rc = subprocess.run(["compute-sanitizer", "--tool", "racecheck", "--error-exitcode", "99",
                                 str(exe), "~[large]"], stdout=f, stderr=subprocess.STDOUT,
                                cwd=sub / "run", env=env).returncode
        if rc == 99:
            record["status"].append(f"races (see {log.name})")


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



def thread_sanitizer_race(output, source_name, source):
    """(status, a few lines for the student) for a test stopped by ThreadSanitizer's report of a
    data race (sim-tsan), naming both accesses by their line of the submission; else None."""
    m = re.search(r"WARNING: ThreadSanitizer: data race.*?(?=\n={6,}|\nSUMMARY:|\Z)", output, re.S)
    if not m:
        return None
    report = m.group(0)
    lines = source.data.decode("utf-8", errors="replace").splitlines() if source else []
    accesses = []
    for access in re.finditer(r"^ {2}((?:Previous )?(?:[Aa]tomic )?(?:write|read|Write|Read)) of size (\d+)"
                              r".*?:\n((?:    #\d+ .*\n?)+)", report, re.M):
        frames = re.findall(r"(\S+?):(\d+)(?::\d+)? \(", access.group(3))
        mine = [(f, int(n)) for f, n in frames if Path(f).name == source_name]
        where = mine[0] if mine else (frames[0][0], int(frames[0][1])) if frames else ("?", 0)
        accesses.append((access.group(1).lower(), int(access.group(2)), where))
    if not accesses:
        return "races (see test.log)", "DATA RACE (ThreadSanitizer):\n" + report[:2000]
    shown = []
    for kind, size, (f, n) in accesses[:2]:
        code = lines[n - 1].strip() if Path(f).name == source_name and 0 < n <= len(lines) else ""
        name = source.name if source and Path(f).name == source_name else f
        shown.append((kind, f"{name}:{n}", code, size))
    status = "races (" + " vs ".join(f"{kind} at {where}" for kind, where, _, _ in shown) + ")"
    summary = ["DATA RACE found by ThreadSanitizer (sim-tsan): two CUDA threads accessed the same "
               "memory, at least one writing, with nothing ordering them (a missing __syncthreads, "
               "or a plain read-modify-write where an atomic is needed):"]
    for kind, where, code, size in shown:
        summary.append(f"  {kind} of {size} bytes at {where}" + (f":   {code}" if code else ""))
    summary.append("(the full report is in the grader's test log)")
    return status, "\n".join(summary) + "\n"


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
