"""Engines: what runs a submission's kernels, what counts their cost, and the preset, labels and
GPUs that follow.

  gpu  the kernels run on GPUs, one per submission's test run (preset student-gpu, labels
       "cpu|gpu"); the default where a GPU is visible
  sim  the kernels run in the CPU simulator (preset sim, labels "cpu|sim"); the default without
       a GPU, and Gradescope's
  cpu  CPU checks only: no kernel runs (preset sim, labels "cpu")

--engine (or GRADE_ENGINE) picks one; --preset and --labels override what it implies. A preset
given alone implies its engine: sim, sim-tsan, sim-asan the simulator; any other the GPU where
one is visible, else CPU checks only.

The cost tests ([perf], named "cost: ...") are graded by every engine that runs kernels, so that
a lab's maximum is the same wherever it is graded. --perf (or GRADE_PERF) says what counts:
  sim   the CPU simulator's counters of the same source (they equal Nsight Compute's on the
        H200: report/perf_bounds.md). The sim engine's own; in the gpu engine the build slots
        also build the simulator's grader of the source (-DHISTO_SIM=ON) and its "cost: ..."
        tests are graded in place of the GPU grader's. Needs Clang (the counters): the gpu
        engine's default where clang++ is found.
  ncu   Nsight Compute's counters of the kernels on the GPU (histo_grading/ncu.py; GRADE_NCU=1
        or --ncu say the same): gpu engine only, its default where no clang++ is found. Without
        a visible GPU or without ncu it stops with one error, never grading some other way.
  none  the cost is not graded (the results say so, and the maximum is smaller): the default
        only of the sanitizer presets (sim-tsan, sim-asan), whose builds have no counters.
Where what counts the cost is missing (no Clang, no ncu), grading stops before it starts with
one sentence saying what to install, or to pass --perf none.
"""
import os
import re
import shutil
import sys

from .common import detect_gpus, env_int, usable_cores

# engine -> (preset, labels, how results name it)
ENGINES = {
    "gpu": ("student-gpu", "cpu|gpu", "GPU"),
    "sim": ("sim", "cpu|sim", "simulator"),
    "cpu": ("sim", "cpu", "CPU checks only"),
}
PERF_MODES = ("sim", "ncu", "none")
# The compilers the top CMakeLists.txt takes for the simulator when nobody chose one.
CLANG_NAMES = ("clang++",) + tuple(f"clang++-{v}" for v in range(21, 13, -1))
# A GPU grader's cost tests ("lab04.student: cost: ..."; the simulator's are "lab04.student.sim:
# cost: ..."), as a CTest regular expression: left out where the simulator's twins grade.
GPU_COST_TESTS = r"^lab[0-9][0-9]\.[a-z]+: cost: "
# Every cost test, either build's: left out with --perf none.
COST_TESTS = r"^lab[0-9][0-9]\.[a-z.]+: cost: "
# What a student reads about what counted the cost.
COUNTED_BY = {
    "sim": "the CPU simulator's counters of your source (as Nsight Compute counts on an NVIDIA "
           "H200)",
    "ncu": "Nsight Compute on the GPU",
    "none": "",
}


class Settings:
    def __init__(self, engine, preset, labels, gpus, build_slots, ncu=False, perf=None,
                 exclude="", sandbox="auto"):
        self.engine = engine
        self.sandbox = sandbox  # sandbox.py: auto, bwrap, user, or none (--no-sandbox)
        # What counts the cost tests: "sim", "ncu" or "none" ("" for the cpu engine, which runs
        # no kernel).
        self.perf = perf if perf is not None else ("ncu" if ncu else "")
        self.ncu = self.perf == "ncu"  # the [perf] tests graded on Nsight Compute's counters
        self.engine_name = ENGINES[engine][2]
        self.preset = preset
        self.labels = labels  # all required; "a|b": either
        self.exclude = exclude  # CTest name regex of tests left out ("" none)
        self.gpus = gpus  # the GPUs test runs hold (none unless the engine is gpu)
        self.build_slots = build_slots
        # The gpu engine's build slots also build the simulator's grader of the same source: its
        # cost tests grade (perf sim), or are compared with Nsight Compute's (perf ncu, where
        # Clang makes the simulator count).
        self.simulator_twin = engine == "gpu" and (self.perf == "sim" or
                                                   (self.ncu and bool(find_clang())))

    @property
    def cost_counted_by(self):
        """What counted the cost tests, as results.json says it ("" where nothing did)."""
        return COUNTED_BY.get(self.perf, "")

    def exclude_args(self):
        """CTest arguments leaving out what this engine does not grade: the simulator leaves out
        the inputs of gigabytes (label large), worth 0 points (points/README.md) and up to half a
        minute of CPU each there."""
        return (["-E", self.exclude] if self.exclude else []) + (
            ["-LE", "^large$"] if self.engine != "gpu" else [])

    def why_not_graded(self, name, labels, expected):
        """Why the lab's test `name` (CTest labels `labels`) is not among those graded, or ""
        where a twin of it is graded instead (the same test case in the other build)."""
        case = name.split(": ", 1)[1] if ": " in name else name
        twins = {n for n in expected if n.split(": ", 1)[-1] == case}
        if twins:
            return ""
        if self.perf == "none" and case.startswith("cost: "):
            return "a cost test: not graded here (--perf none)"
        if "large" in labels and self.engine != "gpu":
            return ("an input of gigabytes: worth 0 points, and not graded in the CPU simulator "
                    "(up to 45 s each there; students' own runs check it)")
        kind = "a GPU test" if "gpu" in labels else "a simulator test" if "sim" in labels else "a test"
        return (f"{kind}: not run by engine {self.engine} ({self.engine_name}, labels "
                f"{' '.join(self.labels)})")

    def describe(self):
        """"the simulator (preset sim, labels cpu|sim)", for the summary line."""
        what = {"gpu": "GPUs", "sim": "the CPU simulator", "cpu": "CPU checks only"}[self.engine]
        cost = {"sim": ", cost tests on the CPU simulator's counters",
                "ncu": ", cost tests on Nsight Compute's counters",
                "none": ", cost tests NOT graded (--perf none)"}.get(self.perf, "")
        return (f"{what} (engine {self.engine}, preset {self.preset}, labels "
                f"{' '.join(self.labels)}{cost})")


def find_clang():
    """The clang++ the simulator's build would take, or None."""
    if os.environ.get("CXX"):
        return os.environ["CXX"] if "clang" in os.path.basename(os.environ["CXX"]) else None
    return next((p for p in map(shutil.which, CLANG_NAMES) if p), None)


def settings(args):
    gpus_setting = args.gpus or os.environ.get("GRADE_GPUS", "")
    if gpus_setting == "none":
        gpus = []
    elif gpus_setting:
        gpus = [g for g in gpus_setting.split(",") if g]
    else:
        gpus = detect_gpus()
    engine = getattr(args, "engine", None) or os.environ.get("GRADE_ENGINE") or None
    preset = args.preset or os.environ.get("GRADE_PRESET") or None
    if engine is None:
        if preset:
            engine = "sim" if preset.startswith("sim") else ("gpu" if gpus else "cpu")
        else:
            engine = "gpu" if gpus else "sim"
    if engine not in ENGINES:
        sys.exit(f"unknown engine '{engine}': expected gpu, sim or cpu")
    preset = preset or ENGINES[engine][0]
    ncu = bool(getattr(args, "ncu", False)) or os.environ.get("GRADE_NCU", "") not in ("", "0")
    perf = getattr(args, "perf", None) or os.environ.get("GRADE_PERF") or None
    if perf is not None and perf not in PERF_MODES:
        sys.exit(f"unknown --perf '{perf}': expected sim, ncu or none")
    if ncu and perf not in (None, "ncu"):
        sys.exit(f"GRADE_NCU=1 and --perf {perf} disagree: the cost tests are counted one way")
    if ncu:
        perf = "ncu"
    if perf == "ncu":
        problem = ncu_problem(engine, gpus)
        if problem:
            sys.exit(f"GRADE_NCU=1: {problem}")
    if engine == "gpu" and not gpus:
        sys.exit("the GPU engine needs a GPU, and none is visible (nvidia-smi lists none, or "
                 "--gpus none): grade with --engine sim (the CPU simulator) or --engine cpu")
    perf = perf or default_perf(engine, preset)
    labels = args.labels if args.labels is not None else os.environ.get("GRADE_LABELS")
    if labels is None:
        labels = ENGINES[engine][1]
    labels = [l for l in re.split(r"[;, ]+", labels) if l]
    exclude = ""
    if engine == "gpu" and perf == "sim":
        # The simulator's cost tests ("labNN.student.sim: cost: ...", labels sim and perf) grade
        # in place of the GPU grader's, which would skip: wherever the GPU's tests are asked for.
        selected = [l + "|perf" if "gpu" in l.split("|") else l for l in labels]
        if selected != labels:
            labels, exclude = selected, GPU_COST_TESTS
    if perf == "none":
        exclude = COST_TESTS
    slots = args.build_slots or env_int("GRADE_BUILD_SLOTS", min(8, max(1, usable_cores() // 2)))
    box = "none" if getattr(args, "no_sandbox", False) else (
        getattr(args, "sandbox", None) or os.environ.get("GRADE_SANDBOX") or "auto")
    if box not in ("auto", "bwrap", "user", "none"):
        sys.exit(f"unknown sandbox mode '{box}': expected auto, bwrap or user (or --no-sandbox)")
    return Settings(engine, preset, labels, gpus if engine == "gpu" else [], slots,
                    perf=perf if engine != "cpu" else "", exclude=exclude, sandbox=box)


def default_perf(engine, preset):
    """What counts the cost where nobody said: the simulator's counters (the gpu engine: where
    Clang makes them), else Nsight Compute; none under a sanitizer preset. Stops with one
    sentence where nothing here can count them."""
    if engine == "cpu":
        return ""
    if engine == "sim":
        return "none" if re.search(r"-(tsan|asan)\b", preset) else "sim"
    if find_clang():
        return "sim"
    if shutil.which("ncu"):
        return "ncu"
    sys.exit("the GPU engine grades the cost tests ([perf], \"cost: ...\") on the CPU simulator's "
             "counters of the same source, which need Clang (clang++ is not on PATH), or with "
             "Nsight Compute (ncu is not on PATH either): install clang (Debian/Ubuntu: apt-get "
             "install clang) or put Nsight Compute's ncu on PATH; --perf none grades without the "
             "cost tests (the results then say so)")


def ncu_problem(engine, gpus):
    """Why the Nsight Compute mode cannot grade here (one sentence), or "" when it can."""
    missing = []
    if not gpus:
        missing.append("no GPU is visible (nvidia-smi lists none, or --gpus none)")
    if not shutil.which("ncu"):
        missing.append("ncu (Nsight Compute) is not on PATH")
    if missing:
        return ("the [perf] tests count with Nsight Compute on a GPU, and " + "; ".join(missing) +
                ". Grade without GRADE_NCU: the simulator's counters grade the [perf] tests")
    if engine != "gpu":
        return (f"Nsight Compute counts the kernels on a GPU: it needs the gpu engine, not "
                f"{engine}")
    return ""
