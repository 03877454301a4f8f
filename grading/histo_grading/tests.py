"""Running one submission's tests, and the verdict on each.

The tests to expect come from the course's own build (the skeleton's CTest listing, made at
preparation: `expected_cases`), never from the submission's build. Each expected test case runs
on its own, in the sandbox (sandbox.py): the grader executable built with the submission's
source, the test case's Catch2 spec, and two reporters: the console (the output a student reads)
and Catch2's XML reporter writing to fd 3, a pipe that only the parent reads. The parent decides
(`judge`): a test passes only when that report arrived whole, holds exactly the one expected test
case, says it succeeded with at least one assertion and none failed or skipped, and the process
exited 0. An exit code alone is never a pass; a report that is missing, cut short, empty, or about
another test case is a failure that says so. A test counts as skipped only where the course's own
code skips it here too (the skeleton's run at preparation: `environment_skips`), so a submission
cannot shrink its maximum score by skipping.

Where the build made a split grader (HISTO_SPLIT_GRADERS: the graders of the build slots, the
simulator's and the GPU's), the sandbox runs only its worker (`<grader>_worker`), which links the submission and
answers calls on fds 3 and 4; the grader itself, the tests and the report, runs outside it
(`run_split`) and never loads the submission: nothing the submission does reaches the report.

Functions of one grading run (a batch.Grading, `g`).
"""
import contextlib
import json
import os
import re
import select
import shutil
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from .common import HUGE_OUTPUT, ROOT, env_int, usable_cores
from .sandbox import OUTPUT_KEEP, OUTPUT_KILL, REPORT_LIMIT, Limits
from .submissions import STUDENTS


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


def expected_cases(build, label_args):
    """The test cases of the course's own build `build` that these labels select, as
    [{name, exe (file name), args, timeout, env}] in CTest's order. CTest reads the CTest files;
    nothing of a submission is involved."""
    out = subprocess.run(["ctest", "--test-dir", str(build), "-N", "--show-only=json-v1", *label_args],
                         capture_output=True, text=True)
    cases = []
    for t in json.loads(out.stdout)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        command = t.get("command") or []
        env = dict(e.split("=", 1) for e in props.get("ENVIRONMENT", []) if "=" in e)
        cases.append({"name": t["name"], "exe": Path(command[0]).name, "exe_path": command[0],
                      "args": command[1:], "timeout": float(props.get("TIMEOUT", 300)),
                      "labels": props.get("LABELS", []), "env": env})
    return cases


def catch_spec_case(args):
    """The test case name a Catch2 spec argument selects (its commas and backslashes unescaped)."""
    return re.sub(r"\\(.)", r"\1", args[0]) if args else ""


def test_env(g, gpu, home, extra=None):
    """The whole environment of a test run: what the parent decides, nothing inherited."""
    # bubblewrap gives each run a /tmp of its own; the other modes a folder in its scratch.
    tmp = Path("/tmp") if g.sandbox.mode == "bwrap" else home / "tmp"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(tmp), "LANG": "C.UTF-8",
           # The inputs' seed (--rng-seed) is the grader's secret: no message prints it.
           "HISTO_SECRET_SEED": "1"}
    if gpu is not None:
        env["CUDA_VISIBLE_DEVICES"] = gpu
    if "tsan" in g.preset:
        # As the sim-tsan test preset runs them: stop at the first race, with the course's
        # suppressions (the simulator's own fiber switches).
        env["TSAN_OPTIONS"] = (f"halt_on_error=1 second_deadlock_stack=1 "
                               f"suppressions={g.run_support / 'tsan.supp'}")
    env.update(extra or {})
    return env


def limits_for(g, timeout):
    # CUDA and the sanitizers reserve terabytes of address space: no such limit for them.
    unbounded = g.engine == "gpu" or "san" in g.preset
    # The run as a whole: one core's worth of its time (a GPU run's driver threads get two), and
    # GRADE_TEST_DISK_MB of files in its scratch folder.
    cores = 2 if g.engine == "gpu" else 1
    return Limits(cpu_s=int(timeout * 2) + 10, address_space=None if unbounded else 16 << 30,
                  run_cpu_s=timeout * cores + 5, cores=cores,
                  disk=env_int("GRADE_TEST_DISK_MB", 1024) << 20)


def tool_folders(wrap):
    """What a tool the test runs under (Nsight Compute's ncu) needs to see: its installation (the
    toolkit's ncu is a script that looks for nsight-compute beside the toolkit, or in
    /opt/nvidia, often through a symbolic link)."""
    if not wrap:
        return []
    tool = Path(shutil.which(wrap[0]) or wrap[0])
    found = [tool.parent.parent, tool.resolve().parent.parent, Path("/opt/nvidia")]
    found += [p.resolve() for p in tool.parent.parent.glob("nsight-compute*")]
    folders = []
    for f in found:
        # (A symbolic link cannot be a mount point: its target is bound instead.)
        if f.is_dir() and not f.is_symlink() and f not in folders and f != Path("/"):
            folders.append(f)
    return folders


def run_case(g, case, grader_dir, scratch, gpu, uid, extra_env=None, timeout=None, wrap=()):
    """Runs one expected test case of the grader in `grader_dir` in the sandbox. Returns the
    sandbox's Result."""
    exe = grader_dir / case["exe"]
    timeout = timeout or min(case["timeout"], env_int("GRADE_TEST_TIMEOUT", 120))
    # The report is Catch2's XML on fd 3, and nothing else: what the test prints besides stays
    # its own output.
    args, i = [], 0
    while i < len(case["args"]):
        if case["args"][i] in ("--reporter", "-r") and i + 1 < len(case["args"]):
            i += 2  # the CTest file's reporter: here Catch2's XML is the only one
            continue
        args.append(case["args"][i])
        i += 1
    argv = [*wrap, exe, *args, "--reporter", "xml::out=/dev/fd/3", "--rng-seed", str(g.rng_seed)]
    env = test_env(g, gpu, scratch, {**case["env"], **(extra_env or {})})
    ro = [grader_dir] + ([g.run_support] if g.run_support.exists() else []) + tool_folders(wrap)
    worker = grader_dir / (case["exe"] + "_worker")
    if worker.exists() and not wrap:
        return run_split(g, argv, worker, ro, scratch, env, timeout, uid)
    return g.sandbox.run(argv, ro=ro, rw=[scratch], cwd=scratch, env=env, timeout=timeout,
                         limits=limits_for(g, timeout), uid=uid)


def run_split(g, argv, worker, ro, scratch, env, timeout, uid):
    """One test case of a split grader: the grader (argv) here, outside the sandbox, its worker
    in it, joined by two pipes. The grader's report and exit code decide; the worker's run adds
    only how it ended (a limit, the time) and what it printed. Returns a sandbox Result."""
    calls_r, calls_w = os.pipe()
    replies_r, replies_w = os.pipe()
    report_r, report_w = os.pipe()

    def child():
        os.setsid()
        # Above 6 first, then onto 3 (report), 5 (calls) and 6 (replies).
        fds = [os.dup(fd) for fd in (report_w, calls_w, replies_r)]
        for fd, target in zip(fds, (3, 5, 6)):
            os.dup2(fd, target)

    grader = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, pass_fds=(3, 5, 6),
                              cwd=str(ro[0]), env={**env, "HISTO_WORKER_FDS": "5,6"},
                              preexec_fn=child)
    for fd in (report_w, calls_w, replies_r):
        os.close(fd)
    state = {"out": [], "report": [], "ended": None}

    def read_grader():
        # Until the grader is done: its own time limit is the test's, and a little more.
        deadline = time.time() + timeout + 10
        streams = {grader.stdout.fileno(): "out", report_r: "report"}
        sizes = {"out": 0, "report": 0}
        while streams and time.time() < deadline:
            ready, _, _ = select.select(list(streams), [], [], 0.5)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if not data:
                    del streams[fd]
                    continue
                kind = streams[fd]
                if sizes[kind] < (OUTPUT_KEEP if kind == "out" else REPORT_LIMIT):
                    state[kind].append(data)
                sizes[kind] += len(data)
        if streams:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(grader.pid, 9)
        grader.wait()
        os.close(report_r)
        grader.stdout.close()
        state["ended"] = time.time()

    reader = threading.Thread(target=read_grader)
    reader.start()

    def pin(cores):
        if cores:
            with contextlib.suppress(ProcessLookupError):  # (a grader already done)
                os.sched_setaffinity(grader.pid, cores)  # each call hands over the one core

    result = g.sandbox.run([worker], ro=ro, rw=[scratch], cwd=scratch, env=env, timeout=timeout,
                           limits=limits_for(g, timeout), uid=uid, channel=(calls_r, replies_w),
                           stop=lambda: state["ended"], on_start=pin)
    reader.join()
    worker_output = result.output
    result.output = b"".join(state["out"]) + (b"\n" + worker_output if worker_output else b"")
    result.report = b"".join(state["report"])
    killed = result.timed_out or bool(result.limit) or result.output_bytes > OUTPUT_KILL
    # A worker that died of a signal of its own (not ended here after the grader was done)
    # crashed: the grader's report then says only that it stopped answering.
    crashed = result.returncode is not None and not result.stopped and killed_by(result.returncode)
    result.returncode = None if killed else result.returncode if crashed else grader.returncode
    return result


# What the parent concludes from a run: passed, failed or skipped, and why.

def parse_report(data):
    """Catch2's XML report: {"complete": bool, "cases": [{name, success, skips, element}],
    "successes", "failures", "skips"}; complete is False for a report cut short or not XML."""
    report = {"complete": False, "cases": [], "successes": 0, "failures": 0, "skips": 0}
    text = data.decode("utf-8", errors="replace")
    if "</Catch2TestRun>" not in text:
        return report
    try:
        root = ET.fromstring(text[:text.rindex("</Catch2TestRun>") + len("</Catch2TestRun>")])
    except ET.ParseError:
        return report
    if root.tag != "Catch2TestRun":
        return report
    for case in root.findall("TestCase"):
        result = case.find("OverallResult")
        report["cases"].append({
            "name": case.get("name", ""),
            "success": result is not None and result.get("success") == "true",
            "skips": int(result.get("skips", "0")) if result is not None else 0,
            "element": case})
    totals = root.find("OverallResults")
    if totals is None:
        return report
    for key in ("successes", "failures", "skips"):
        report[key] = int(totals.get(key, "0"))
    report["complete"] = True
    return report


def render_case(element, name_file):
    """What a student reads of a test case's report: each failed check and message with its file
    and line (named by name_file), the context lines before it, the sections it was in."""
    lines = []

    def where(el):
        f, n = el.get("filename"), el.get("line")
        return f"{name_file(f)}:{n}: " if f and n else ""

    def text_of(el):
        return "\n".join(l.strip() for l in (el.text or "").strip().splitlines())

    def walk(el):
        for ch in el:
            if ch.tag == "Section":
                walk(ch)
            elif ch.tag in ("Info", "Warning"):
                lines.append(text_of(ch))
            elif ch.tag == "Expression" and ch.get("success") == "false":
                original = text_of(ch.find("Original")) if ch.find("Original") is not None else ""
                expanded = text_of(ch.find("Expanded")) if ch.find("Expanded") is not None else ""
                line = f"{where(ch)}{ch.get('type', 'CHECK')}( {original} ) failed"
                if expanded and expanded != original:
                    line += f": {expanded}"
                lines.append(line)
                for sub in ch:
                    if sub.tag in ("Exception", "FatalErrorCondition"):
                        lines.append(f"  {sub.tag}: {text_of(sub)}")
            elif ch.tag in ("Failure", "Exception", "FatalErrorCondition"):
                label = {"Failure": "", "Exception": "unexpected exception: ",
                         "FatalErrorCondition": "fatal error: "}[ch.tag]
                lines.append(f"{where(ch)}{label}{text_of(ch)}")
            elif ch.tag == "Skip":
                lines.append(f"skipped: {text_of(ch)}")
    walk(element)
    return "\n".join(l for l in lines if l)


def judge(case, result, environment_skips, name_file):
    """The parent's verdict on one run of an expected test case: a test dict {name, result
    ("passed", "failed", "skipped"), output, and flags: timed out, crashed, prints megabytes,
    report_problem}. environment_skips: the tests that may skip here (None: any, for the course's
    own code)."""
    name = case["name"]
    expected = catch_spec_case(case["args"])
    printed = result.output.decode("utf-8", errors="replace")
    t = {"name": name, "time": round(result.seconds, 2), "result": "failed", "printed": printed}
    if result.output_bytes >= HUGE_OUTPUT:
        t["prints megabytes"] = True
    report = parse_report(result.report)
    cases = report["cases"]
    mine = cases[0] if len(cases) == 1 and cases[0]["name"] == expected else None
    told = render_case(mine["element"], name_file) if mine else ""
    if mine:
        # What Catch2 caught of std::cout and std::cerr during the test.
        caught = [el.text or "" for el in mine["element"].iter() if el.tag in ("StdOut", "StdErr")]
        printed = "".join(c.strip("\n") + "\n" for c in caught if c.strip()) + printed
    t["printed"] = printed
    if result.problem:
        t["output"] = f"NOT RUN: {result.problem}"
        t["report_problem"] = result.problem
        return t
    if result.limit:
        t["limit"] = result.limit
        t["output"] = f"STOPPED: the test used {result.limit}, past its limit"
    elif result.timed_out:
        t["timed out"] = True
        t["output"] = ("TIMED OUT: the test ran past its time limit (an endless loop, or a kernel "
                       "that never finishes?)")
    elif result.returncode is None:
        t["output"] = "STOPPED: the test printed far too much and was stopped"
    elif killed_by(result.returncode):
        t["crashed"] = True
        t["output"] = (f"CRASHED (signal {killed_by(result.returncode)}): the program stopped "
                       f"before the test ended")
    elif not report["complete"]:
        t["report_problem"] = "no complete report"
        t["output"] = (f"FAILED: the test ended (exit code {result.returncode}) without the "
                       f"grader's report of it: the program exited or was cut short before the "
                       f"test finished")
    elif mine is None:
        names = [c["name"] for c in cases] or ["none"]
        t["report_problem"] = "other test cases"
        t["output"] = (f"FAILED: the grader's report names test case(s) {names}, not the one "
                       f"expected ({expected!r})")
    elif mine["skips"] and result.returncode == 4:
        why = skip_reason(mine["element"])
        if environment_skips is None or name in environment_skips:
            t["result"] = "skipped"
            t["skip_reason"] = why
            t["output"] = f"skipped here (not graded): {why}"
        else:
            t["output"] = (f"FAILED: the test skipped itself ({why}), but it runs for the course's "
                           f"own code here: a skipped test is not a pass")
    elif mine["success"] and report["failures"] == 0 and report["successes"] >= 1 and \
            result.returncode == 0:
        t["result"] = "passed"
        t["output"] = f"passed ({report['successes']} checks)"
    elif mine["success"] and report["successes"] == 0:
        t["output"] = "FAILED: the test ran no check at all"
    else:
        t["output"] = "FAILED" + (f" (exit code {result.returncode})" if result.returncode not in (0, 1) else "")
    if t["result"] == "skipped":
        return t
    if "private" in case.get("labels", []):
        # A private test's cases (sizes, alignments, data) stay the grader's: neither its
        # messages nor what the program printed during it reach the student.
        if t["result"] != "passed":
            t["output"] += "\n(a private test: its cases and the program's output are not shown)"
        return t
    if told and t["result"] != "passed":
        t["output"] += "\n" + told
    extra = printed.strip()
    if extra:
        t["output"] += "\n\nThe test's other output:\n" + extra
    return t


def killed_by(returncode):
    """The signal that ended a run (a shell's or bubblewrap's 128 + N included), or 0."""
    if returncode < 0:
        return -returncode
    return returncode - 128 if 128 < returncode <= 128 + 64 else 0


def skip_reason(element):
    skip = element.find(".//Skip")
    text = " ".join((skip.text or "").split()) if skip is not None else ""
    return text or "no reason given"


def run_tests(g, sub, record, gpu, source, environment=False):
    """Runs the submission's tests (every expected case), each in the sandbox; record["tests"]
    gets the parent's verdicts. Returns the files written outside the submission's folder meanwhile
    (only where the sandbox mode cannot prevent such writes). environment=True: the course's own
    skeleton, whose skips say what cannot run here; its tests run side by side on the CPU cores
    (without a GPU), each with a uid of its own."""
    grader_dir = sub / "run"
    stamp = time.time()
    deadline = time.time() + env_int("GRADE_TIMEOUT", 600) * (4 if environment else 1)
    workers = max(1, min(usable_cores(), g.sandbox.free.qsize() or usable_cores())) \
        if environment and gpu is None else 1
    cases = list(g.expected_cases)
    verdicts = {}

    def worker(index):
        scratch = sub / f"scratch{index}"
        uid = g.sandbox.acquire_uid()
        try:
            (scratch / "tmp").mkdir(parents=True, exist_ok=True)
            g.sandbox.prepare_folder(scratch, uid)
            while True:
                with lock:
                    if not cases:
                        return
                    case = cases.pop(0)
                left = deadline - time.time()
                if left <= 1:
                    with lock:
                        if "timed out" not in record["status"]:
                            record["status"].append("timed out")  # the whole run's limit
                    return
                timeout = min(case["timeout"], env_int("GRADE_TEST_TIMEOUT", 120), left)
                result = run_case(g, case, grader_dir, scratch, gpu, uid, timeout=timeout)
                t = judge(case, result, None if environment else g.skipped_here, g.name_file)
                race = thread_sanitizer_race(t.get("printed", ""), g.source_name, source)
                if race:
                    t.pop("crashed", None)
                    t["race"], t["output"] = race
                t.pop("printed", None)
                verdicts[case["name"]] = t
                if t.get("limit"):
                    with lock:
                        status = f"stopped at a limit: {t['limit']}"
                        if status not in record["status"]:
                            record["status"].append(status)
        finally:
            g.sandbox.release_uid(uid)
            shutil.rmtree(scratch, ignore_errors=True)

    lock = threading.Lock()
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(workers)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    record["tests"] += [verdicts[c["name"]] for c in g.expected_cases if c["name"] in verdicts]
    if os.environ.get("RACECHECK") == "1" and gpu is not None and not environment:
        uid = g.sandbox.acquire_uid()
        scratch = sub / "scratch-racecheck"
        try:
            g.sandbox.prepare_folder(scratch, uid)
            racecheck(g, sub, record, gpu, scratch, uid)
        finally:
            g.sandbox.release_uid(uid)
            shutil.rmtree(scratch, ignore_errors=True)
    if g.sandbox.mode == "bwrap":
        return []  # nothing outside its scratch folder and /tmp is writable in there
    return writes_outside(g, sub, stamp)


def racecheck(g, sub, record, gpu, scratch, uid):
    """RACECHECK=1: compute-sanitizer racecheck over each GPU grader on small inputs."""
    tool = shutil.which("compute-sanitizer")
    if not tool:
        record["status"].append("racecheck not run: compute-sanitizer is not on PATH")
        return
    for exe in sorted((sub / "run").glob(f"{g.lab}_student*_grader")):
        if "_sim_" in exe.name:
            continue
        case = {"name": exe.name, "exe": exe.name, "args": ["[gpu]~[large]"], "timeout": 1800,
                "env": {"HISTO_GRADER_MAX_N": "1048576"}}
        result = run_case(g, case, sub / "run", scratch, gpu, uid, timeout=env_int("GRADE_TIMEOUT", 600),
                          wrap=(tool, "--tool", "racecheck", "--error-exitcode", "99",
                                # a split grader's kernels run in the worker it starts
                                "--target-processes", "all"))
        (sub / f"{exe.name}.racecheck.log").write_bytes(result.output)
        if result.returncode == 99:
            record["status"].append(f"races (see {exe.name}.racecheck.log)")


# The reading of CTest's own results, for scripts/status.py (a student's ctest run, not a
# graded one: grading never trusts a test's exit code or CTest's verdict).
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


# Files changed during the test run where a submission has no business writing: the course
# tree, the build slots' sources, the submissions, and the output folder outside the
# per-submission folders. Only the modes that cannot forbid such writes look (sandbox "user":
# what its uid may write; "none").
def writes_outside(grading, sub, stamp):
    roots = [ROOT, grading.slots_dir, grading.out]
    if grading.submissions:
        roots.append(grading.submissions)
    # Written by the grading itself: the students' folders, the Slurm jobs' logs, build outputs,
    # the slots' copies of the student source, and the summary files.
    skip_dirs = {grading.out / STUDENTS, grading.out / "slurm", sub}
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
