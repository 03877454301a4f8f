"""One grading run: a batch of submissions of one lab, graded in parallel. Builds run in the build
slots on the CPU cores while other submissions' tests hold the GPUs (or, without the GPU engine,
run beside each other).
"""
import concurrent.futures
import hashlib
import json
import os
import queue
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from . import codecheck, engines, ncu, results, sandbox, slots, tests
from .common import (BUILD_LOG_LIMIT, GRADING, OUTPUT_LIMIT, ROOT, env_int, lab_folder,
                     private_folder, say, truncate, usable_cores, within, write_private)
from .reads import ReadPolicy, compile_read_problem, hidden_from_build, student_messages
from .submissions import STUDENTS, folder_name, student_dir, take_source


class Grading:
    """The settings and shared state of one run: its lab, engine, build slots and the tests every
    submission is scored on."""

    def __init__(self, lab, out, settings, slots_dir=None):
        self.lab = lab
        self.folder = lab_folder(lab)
        self.source_name = self.folder + ".cu"
        self.out = Path(out).resolve()
        self.settings = settings
        self.engine = settings.engine
        self.preset = settings.preset
        self.labels = settings.labels
        self.gpus = settings.gpus
        self.build_slots = settings.build_slots
        # The build slots: where asked (--slots-dir, GRADE_SLOTS_DIR), else OUT/slots.
        self.slots_asked = slots_dir is not None
        self.use_slots(Path(slots_dir).resolve() if slots_dir else self.out / "slots")
        self.stage = None  # set by prepare(): where sandboxed runs work (stage_runs)
        self.points = results.load_points(lab)
        # Every submission of the run gets the same inputs, from a seed no student can know
        # (grading_seed); it reaches the tests only when they run, as Catch2's --rng-seed.
        self.rng_seed = grading_seed()
        self.sandbox = None  # set by prepare(): how submissions' code runs (sandbox.py)
        self.key = self.grading_key()
        self.submissions = None
        self.expected = []
        self.expected_cases = []  # what runs for each expected test (tests.expected_cases)
        self.perf_cases = []  # GRADE_NCU=1: the [perf] tests of the GPU and simulator graders
        self.slot_uids = {}  # build slot -> the uid its builds run as (a root grader)
        self.build_tools = []  # folders outside the system's that hold the build's tools
        self.skipped_here = {}
        self.not_selected = {}  # tests of the lab this engine's labels leave out -> why
        self.test_runs = tests.TestRuns()
        self.parallel_tests = 1  # how many submissions' tests may run at once (set by run())

    def use_slots(self, folder):
        self.slots_dir = folder
        self.pristine = folder / "course.tar"
        self.run_support = folder / "support"  # read-only files tests need (tsan.supp)

    # What a grade depends on besides the source: the engine, preset, labels and configure
    # arguments, the points file and the graders (the lab's files but the student's source, and
    # common/, sim/, cmake/, the top CMake files). A submission is graded again when any changes.
    def grading_key(self):
        h = hashlib.sha256()
        h.update(f"{self.engine}|{self.preset}|{'|'.join(self.labels)}|"
                 f"{os.environ.get('GRADE_CMAKE_ARGS', '')}|{'ncu' if self.settings.ncu else ''}|"
                 f"sandbox {self.settings.sandbox}\n".encode())
        files = [GRADING / "points" / f"{self.lab}.toml", ROOT / "CMakeLists.txt", ROOT / "CMakePresets.json"]
        for folder in (ROOT / self.folder, ROOT / "common", ROOT / "sim", ROOT / "cmake",
                       GRADING / "histo_grading"):
            files += sorted(p for p in folder.rglob("*") if p.is_file() and p.name != self.source_name
                            and "__pycache__" not in p.parts)
        for f in files:
            if f.exists():
                h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
        return h.hexdigest()

    def prepare(self):
        # One uid per build slot and per test run that may go on at once (a root grader).
        runs = self.build_slots + max(len(self.gpus), self.build_slots, usable_cores())
        self.sandbox, why = sandbox.probe(self.settings.sandbox, bool(self.gpus), runs)
        if self.sandbox is None:
            raise RuntimeError(why)
        say(f"submissions' code runs {self.sandbox.note}")
        self.stage_runs()
        slots.snapshot_course(self)
        count = self.build_slots
        jobs = max(1, usable_cores() // count)
        say(f"preparing {count} build slot(s) for {self.lab} (preset {self.preset})")
        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            trees = list(pool.map(lambda i: slots.prepare_slot(self, i, jobs), range(count)))
        self.build_tools = tool_folders(trees[0] / "build" / "grading")
        self.check_reach(self.build_tools, "the build's tools")
        for tree in trees:
            uid = self.sandbox.acquire_uid()
            self.slot_uids[tree] = uid
            # Only the grader and the slot's own builds enter the slot (it holds the source being
            # built): its uid by group where the grader is root.
            if uid is not None:
                os.chown(tree, -1, uid)
            tree.chmod(0o750 if uid is not None else 0o700)
            (tree / "build" / "grading" / "intake").mkdir(exist_ok=True)
            self.sandbox.prepare_folder(tree / "build", uid)
        self.run_support.mkdir(parents=True, exist_ok=True)
        self.run_support.chmod(0o755)
        shutil.copy2(ROOT / "sim" / "tsan.supp", self.run_support / "tsan.supp")
        # The tests the skeleton registers are the tests every submission is scored on.
        build = trees[0] / "build" / "grading"
        self.expected_cases = tests.expected_cases(build, self.label_args())
        # GRADE_NCU=1: the [perf] tests of both builds run again under Nsight Compute (ncu.py).
        self.perf_cases = (tests.expected_cases(build, ["-L", f"^{self.lab}$", "-L", "^perf$"])
                           if self.settings.ncu else [])
        for case in self.expected_cases + self.perf_cases:
            case["exe_rel"] = str(Path(case["exe_path"]).relative_to(build))
        self.expected = [c["name"] for c in self.expected_cases]
        # The lab's other tests are not graded by this engine: say which, and why.
        for c in tests.expected_cases(build, ["-L", f"^{self.lab}$"]):
            if c["name"] not in self.expected:
                why = self.settings.why_not_graded(c["name"], c["labels"], self.expected)
                if why:
                    self.not_selected[c["name"]] = why
        if not self.expected:
            raise RuntimeError(f"no test of {self.lab} matches labels {self.labels}")
        # Some tests skip here whatever the code (too large for the simulator, no GPU, ...): the
        # skeleton's own run, in the same sandbox, finds them. Only those may skip for a
        # submission; and a submission that does not compile is not charged for them either.
        # Remembered per grading key (Gradescope grades one submission per run).
        known = self.slots_dir / f"environment-{self.key[:16]}.json"
        if known.exists():
            self.skipped_here = json.loads(known.read_text())
        else:
            probe = self.slots_dir / "expected"
            shutil.rmtree(probe, ignore_errors=True)
            slots.copy_graders(self, trees[0], probe / "run")
            record = {"status": [], "tests": []}
            gpu = self.gpus[0] if self.gpus else None
            tests.run_tests(self, probe, record, gpu, None, environment=True)
            self.skipped_here = {t["name"]: t["skip_reason"] for t in record["tests"]
                                 if t["result"] == "skipped"}
            shutil.rmtree(probe, ignore_errors=True)
            write_private(known, json.dumps(self.skipped_here, indent=1) + "\n")
        self.slot_queue = queue.Queue()
        for tree in trees:
            self.slot_queue.put(tree)

    def stage_runs(self):
        """Where sandboxed runs work, in folders their user can reach. A root grader runs them as
        uids of their own, which bubblewrap (binding their folders) and the unprivileged-user mode
        (running in them) need to pass every folder above: OUT under a 0700 folder (mktemp -d,
        /root) is out of their reach. So each submission's graders and scratch folders are staged
        in a folder of this grading's own, 0711, in GRADE_STAGE_DIR or the system's temporary
        folder, removed at the end; the build slots stay where they are (OUT/slots, GRADE_SLOTS_DIR)
        where the runs reach them, else, unless asked for there, move into the stage (built again
        each grading: GRADE_SLOTS_DIR keeps them). What cannot be reached stops the grading before
        anything is graded."""
        base = Path(os.environ.get("GRADE_STAGE_DIR") or tempfile.gettempdir()).resolve()
        try:
            self.stage = Path(tempfile.mkdtemp(prefix="histo-grading-", dir=base))
        except OSError as e:
            raise RuntimeError(f"no folder for the runs in {base} (GRADE_STAGE_DIR): {e}")
        self.stage.chmod(0o711)
        self.check_reach([self.stage], "the folder the runs work in (GRADE_STAGE_DIR)")
        self.slots_dir.mkdir(parents=True, exist_ok=True)
        if self.reach_problem(self.slots_dir):
            if self.slots_asked:
                self.check_reach([self.slots_dir], "the build slots' folder (--slots-dir, GRADE_SLOTS_DIR)")
            say(f"build slots in {self.stage / 'slots'}, for this grading only: "
                f"{self.reach_problem(self.slots_dir)} (GRADE_SLOTS_DIR names a folder they reach, "
                f"where slots are kept between gradings)")
            self.use_slots(self.stage / "slots")

    def reach_problem(self, folder):
        """Why the sandbox's runs cannot enter `folder` ("" where they can, or where they are the
        grader's own uid)."""
        uid = self.sandbox.uids[0] if self.sandbox and self.sandbox.uids else None
        blocked = sandbox.unreachable(folder, uid) if uid is not None else None
        if blocked is None:
            return ""
        mode = stat.S_IMODE(blocked.stat().st_mode)
        return (f"the sandbox's run users (such as uid {uid}) may not enter {blocked} (mode "
                f"{mode:04o}, owner uid {blocked.stat().st_uid})")

    def check_reach(self, folders, what):
        for folder in folders:
            why = self.reach_problem(folder)
            if why:
                raise RuntimeError(f"{what}, {folder}: {why}; give them a folder they can reach "
                                   f"(or chmod o+x the folders above it)")

    def name_file(self, path):
        """A file named in a test's report, as a student knows it (never a grader's path)."""
        return self.course_paths(path or "")

    # Test output names the grader's files by where a build slot had them: named from the
    # course's root instead (and the submission's folder from itself).
    def course_paths(self, text):
        text = re.sub(re.escape(str(self.slots_dir)) + r"/slot\d+/", "", text)
        if self.stage:
            text = re.sub(re.escape(str(self.stage)) + r"/[^/]+/", "", text)
        return text.replace(str(self.out) + "/", "").replace(str(ROOT) + "/", "")

    # A file written outside a submission's folder, named without the grader's own paths.
    def place(self, path):
        p = Path(path)
        for base, what in ((self.slots_dir, "a build slot"), (self.out, "the grading output"),
                           (self.submissions, "the submissions"), (ROOT, "the course")):
            if base and within(p, base):
                rel = p.relative_to(base)
                if base == self.slots_dir and len(rel.parts) > 1 and rel.parts[0].startswith("slot"):
                    rel = Path(*rel.parts[1:])
                return f"{rel} (in {what})"
        return str(p)

    def label_args(self):
        args = ["-L", f"^{self.lab}$"]
        for label in self.labels:  # "cpu|sim": either label
            args += ["-L", f"^({label})$"]
        return args + self.settings.exclude_args()

    # The run's last line: which engine graded, and what it did not grade and why.
    def summary(self):
        line = f"graded with {self.settings.describe()}"
        # The [perf] tests skip in the plain run wherever nothing there counts them; with Nsight
        # Compute (perf_cases) each submission's are graded again on its counters: not skipped.
        recounted = {c["name"] for c in self.perf_cases}
        skipped = [{"test": n, "why": why} for n, why in self.skipped_here.items() if n not in recounted]
        skipped += [{"test": n, "why": why} for n, why in self.not_selected.items()]
        if skipped:
            line += f"; not graded, per submission: {len(skipped)} test(s): {results.reasons(skipped)}"
        return line

    # Already graded: the same source, graded with the same engine, labels, points and graders.
    def already_graded(self, name, source):
        path = student_dir(self.out, name) / "results.json"
        if not path.exists() or source is None:
            return False
        try:
            extra = json.loads(path.read_text()).get("extra_data", {})
        except (json.JSONDecodeError, OSError):
            return False
        return extra.get("source_sha256") == source.sha256 and extra.get("grading_sha256") == self.key

    def build(self, tree, source, record):
        """Builds the submission in the build slot `tree`, in the sandbox: the slot's sources
        read-only, its build folder writable. First what its build reads is checked (reads.py),
        then its own library is compiled and checked (codecheck.py), and only then are the graders
        linked. Returns (built, refused status or "", the build's log)."""
        slots.restore(self, tree)
        (tree / self.folder / self.source_name).write_bytes(source.data)
        (tree / self.folder / self.source_name).chmod(0o644)  # for the slot's build (its uid)
        build = tree / "build" / "grading"
        uid = self.slot_uids.get(tree)
        timeout = env_int("GRADE_BUILD_TIMEOUT", 600)
        # A build's own limits, all its processes together (sandbox.RunWatch): CPU seconds, its
        # share of the grader's cores (the build slots side by side split them), and what it may
        # add to the build folder.
        cpu = env_int("GRADE_BUILD_CPU", 300)
        disk = env_int("GRADE_BUILD_DISK_MB", 512) << 20
        cores = max(1, len(os.sched_getaffinity(0)) // max(1, self.build_slots))

        # What compiles the submission sees only what its library's build needs (reads.py,
        # hidden_from_build): nothing of grading/ (its private tests) or the other labs.
        hide = hidden_from_build(tree, self.folder, build)

        def sandboxed(args, cwd, limit=timeout, memory=None, hide=hide):
            return self.sandbox.run(args, ro=[tree, *self.build_tools], rw=[tree / "build"], cwd=cwd,
                                    env=build_env(), timeout=limit, etc="all", uid=uid, hide=hide,
                                    limits=sandbox.Limits(cpu_s=limit * 2, address_space=memory,
                                                          run_cpu_s=cpu, disk=disk, cores=cores))

        policy = ReadPolicy(tree, self.folder, self.out, source)
        # Before the build: a file it may not read is refused unread by any compiler message.
        refused, failed = compile_read_problem(policy, build, build / "intake", sandboxed)
        if refused:
            return False, refused, refused + "\n"
        if failed is not None:
            # The preprocessor already failed: so would the build; its messages are the same.
            record["build_output"] = truncate(student_messages(failed, policy, build), OUTPUT_LIMIT)
            return False, "", failed
        graders = (tree / "ready").read_text().splitlines()[0].split()
        log = ""
        # The student's own library first (the grader target's name without "_grader"), so that
        # its objects are checked before anything runs them; then the graders. With the library,
        # nvcc's build of the submission where the simulator's build has one (sim/CMakeLists.txt,
        # histo_sim_sources: <library>_nvcc, which only the graders' links wait for), so that it
        # too sees only what the library's build does.
        libraries = [t[:-len("_grader")] for t in graders]
        manifest = (build / "build.ninja").read_text(errors="replace")
        libraries += [f"{t}_nvcc" for t in libraries if f"\nbuild {t}_nvcc: phony " in manifest]
        for targets in (libraries, graders):
            # The graders (the course's tests, private ones included, linked with the library
            # already built and checked) see the whole slot.
            r = sandboxed(["cmake", "--build", str(build), "-j", "1", "--target", *targets], build,
                          hide=() if targets is graders else hide)
            log += r.output.decode("utf-8", errors="replace")
            if r.limit or r.timed_out:
                # Stopped at a limit: a status of its own, not a compiler's error.
                stopped = f"the build used {r.limit}" if r.limit else f"the build took more than {timeout} s"
                stopped += ": stopped (a compile-time loop, or files the size of a disk?)"
                return False, stopped, log + stopped + "\n"
            if r.problem or r.returncode != 0:
                log += r.problem
                record["build_output"] = truncate(student_messages(log, policy, build), OUTPUT_LIMIT)
                return False, "", log
            if targets is not graders:
                problem = codecheck.check_build(build, tree / self.folder / self.source_name, source)
                if problem:
                    return False, problem, log + problem + "\n"
        return True, "", log

    def grade(self, name, entry, gpu_queue):
        source, problem = take_source(entry, self.source_name)
        # The student's results in OUT/students/<folder>/, only the grader's (0700).
        sub = student_dir(self.out, name)
        start = time.time()
        shutil.rmtree(sub, ignore_errors=True)
        private_folder(sub.parent)
        private_folder(sub)
        record = {"submission": folder_name(name), "built": False, "status": [], "tests": []}
        if source is None:
            record["status"].append(problem)
            record["not_run"] = problem
            return results.finish(self, sub, record, None, start)
        # Its graders and scratch folders, where its runs can reach them (stage_runs); what
        # else is written there (Nsight Compute's files, racecheck's logs) joins its results.
        work = Path(tempfile.mkdtemp(dir=self.stage))
        work.chmod(0o711)
        try:
            return self.grade_staged(sub, work, source, record, start, gpu_queue)
        finally:
            for entry in sorted(work.iterdir()):
                if entry.name != "run" and not entry.name.startswith("scratch"):
                    shutil.move(entry, sub / entry.name)
            shutil.rmtree(work, ignore_errors=True)

    def grade_staged(self, sub, work, source, record, start, gpu_queue):
        # What this submission waits for (a build slot, then a turn to run its tests behind other
        # submissions': a hanging one's time limits) is not its own time: execution_time leaves
        # it out, and extra_data's queued_s says how long it was.
        waited = time.time()
        tree = self.slot_queue.get()
        record["queued_s"] = time.time() - waited
        try:
            built, refused, log = self.build(tree, source, record)
            write_private(sub / "build.log", truncate(log, BUILD_LOG_LIMIT))
            if built:
                slots.copy_graders(self, tree, work / "run")
        finally:
            self.slot_queue.put(tree)
        record["built"] = built
        if refused:
            record["status"].append(refused)
            record["not_run"] = refused
            return results.finish(self, sub, record, source, start)
        if not built:
            record["status"].append("does not compile")
            return results.finish(self, sub, record, source, start)

        waited = time.time()
        gpu = gpu_queue.get()
        record["test_window"] = [time.time()]
        record["queued_s"] += record["test_window"][0] - waited
        try:
            with self.test_runs.shared():
                outside = tests.run_tests(self, work, record, gpu, source)
            if outside and self.parallel_tests > 1:
                # Another submission's tests, running at the same time, may have written these:
                # this one runs its tests again with nobody else's running. Only what it writes
                # then is its own.
                with self.test_runs.alone():
                    outside = tests.run_tests(self, work, {"status": [], "tests": []}, gpu, source)
            if outside:
                record["status"].append("writes outside its folder: " +
                                        ", ".join(self.place(p) for p in outside[:3]))
            elif self.settings.ncu:
                # GRADE_NCU=1: the [perf] tests again, on Nsight Compute's counters, on the GPU
                # this submission holds.
                with self.test_runs.shared():
                    ncu.grade_perf(self, work, record, gpu)
        finally:
            record["test_window"].append(time.time())
            record["gpu"] = gpu
            gpu_queue.put(gpu)
        return results.finish(self, sub, record, source, start)


def grading_seed():
    """The run's secret seed (Catch2's --rng-seed, every graded input's): GRADE_SEED, else the
    number in the file GRADE_SEED_FILE names, else one drawn now. It is the grader's alone: the
    log and timing.json record it (GRADE_SEED=N grades again with the same inputs), never a
    results.json, a build or a message a student reads."""
    import secrets
    text = os.environ.get("GRADE_SEED", "").strip()
    if not text and os.environ.get("GRADE_SEED_FILE"):
        try:
            text = Path(os.environ["GRADE_SEED_FILE"]).read_text().strip()
        except OSError as e:
            sys.exit(f"GRADE_SEED_FILE: {e}")
    if not text:
        return secrets.randbelow(2 ** 32 - 1) + 1
    if not text.isdigit() or not 0 < int(text) < 2 ** 32:
        sys.exit(f"GRADE_SEED must be a number from 1 to {2 ** 32 - 1} (Catch2's --rng-seed), not {text!r}")
    return int(text)


def build_env():
    """The environment of a sandboxed build: the tools' PATH, nothing else of the grader's."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "TMPDIR": "/tmp",
            "LANG": "C.UTF-8"}


def tool_folders(build):
    """The install folders of the build's tools (CMake, Ninja, the compilers, the Python that
    generates the split graders' stubs) that lie outside the
    system folders every sandboxed run sees: the build sees them read-only."""
    tools = [shutil.which("cmake"), shutil.which("ninja"), shutil.which("ctest")]
    try:
        cache = (build / "CMakeCache.txt").read_text(errors="replace")
        tools += re.findall(r"^(?:CMAKE_(?:CXX|C|CUDA)_COMPILER|HISTO_SEAMS_PYTHON):\w+=(.+)$",
                            cache, re.M)
    except OSError:
        pass
    folders = set()
    for tool in filter(None, tools):
        real = Path(tool).resolve()
        if not any(within(real, d) for d in sandbox.SYSTEM_DIRS) and real.exists():
            folders.add(real.parent.parent if real.parent.name == "bin" else real.parent)
    if Path("/opt").is_dir():
        folders.add(Path("/opt"))
    # Only the outermost of nested folders.
    return sorted(f for f in folders if not any(f != o and within(f, o) for o in folders))


def run(args, names_and_entries, slots_dir=None):
    settings = engines.settings(args)
    gpus, count = settings.gpus, settings.build_slots
    g = Grading(args.lab, args.out, settings, slots_dir)
    if getattr(args, "submissions", None):
        g.submissions = Path(args.submissions).resolve()
    todo = []
    for name, entry in names_and_entries:
        source, _ = take_source(entry, g.source_name)
        if not args.force and g.already_graded(name, source):
            say(f"{folder_name(name)}: already graded (use --force to grade again)")
            continue
        todo.append((name, entry))
    if todo:
        started = time.time()
        try:
            g.prepare()
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            if g.stage:
                shutil.rmtree(g.stage, ignore_errors=True)
            sys.exit(f"grading could not start: {e}")
        # One token per GPU: a submission's tests hold one GPU, and no other's run there at once.
        # Without the GPU engine, as many test runs at once as there are build slots.
        prepared = time.time()
        tokens = queue.Queue()
        for t in (gpus or [None] * count):
            tokens.put(t)
        g.parallel_tests = tokens.qsize()
        workers = count + max(1, len(gpus))
        say(f"grading {len(todo)} submission(s) with {settings.describe()}: {count} build slot(s)"
            f"{', GPUs ' + ','.join(gpus) if gpus else ''}; inputs of seed {g.rng_seed} (secret: "
            f"GRADE_SEED={g.rng_seed} grades again with the same inputs)")
        try:
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                futures = {pool.submit(g.grade, name, entry, tokens): name for name, entry in todo}
                for future in concurrent.futures.as_completed(futures):
                    try:
                        future.result()
                    except Exception as e:  # a grading bug must not stop the batch either
                        say(f"{folder_name(futures[future])}: grading error: {e}")
        finally:
            shutil.rmtree(g.stage, ignore_errors=True)
        done = time.time()
        write_private(g.out / "timing.json", json.dumps({
            "submissions": len(todo), "gpus": gpus, "build_slots": count, "engine": settings.engine,
            "preset": settings.preset, "labels": settings.labels,
            # The secret seed of this run's inputs, and whom it graded (GRADE_SEED regrades).
            "seed": g.rng_seed, "graded": sorted(name for name, _ in todo),
            "prepare_s": round(prepared - started, 1), "grade_s": round(done - prepared, 1)}) + "\n")
    return g
