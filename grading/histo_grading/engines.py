"""Engines: what runs a submission's kernels, and the preset, labels and GPUs that follow.

  gpu  the kernels run on GPUs, one per submission's test run (preset student-gpu, labels
       "cpu|gpu"); the default where a GPU is visible
  sim  the kernels run in the CPU simulator (preset sim, labels "cpu|sim"); the default without
       a GPU, and Gradescope's
  cpu  CPU checks only: no kernel runs (preset sim, labels "cpu")

--engine (or GRADE_ENGINE) picks one; --preset and --labels override what it implies. A preset
given alone implies its engine: sim, sim-tsan, sim-asan the simulator; any other the GPU where
one is visible, else CPU checks only.

GRADE_NCU=1 (or --ncu), with the gpu engine only: the [perf] tests are graded on Nsight
Compute's counters of the submission's kernels on the GPU (histo_grading/ncu.py), and compared
with the simulator's. Without a visible GPU or without ncu it stops with one error, never
grading some other way instead.
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


class Settings:
    def __init__(self, engine, preset, labels, gpus, build_slots, ncu=False, sandbox="auto"):
        self.engine = engine
        self.sandbox = sandbox  # sandbox.py: auto, bwrap, user, or none (--no-sandbox)
        self.ncu = ncu  # the [perf] tests graded on Nsight Compute's counters (GRADE_NCU=1)
        self.engine_name = ENGINES[engine][2]
        self.preset = preset
        self.labels = labels  # all required; "a|b": either
        self.gpus = gpus  # the GPUs test runs hold (none unless the engine is gpu)
        self.build_slots = build_slots

    def describe(self):
        """"the simulator (preset sim, labels cpu|sim)", for the summary line."""
        what = {"gpu": "GPUs", "sim": "the CPU simulator", "cpu": "CPU checks only"}[self.engine]
        ncu = ", [perf] tests on Nsight Compute's counters" if self.ncu else ""
        return (f"{what} (engine {self.engine}, preset {self.preset}, labels "
                f"{' '.join(self.labels)}{ncu})")


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
    ncu = bool(getattr(args, "ncu", False)) or os.environ.get("GRADE_NCU", "") not in ("", "0")
    if ncu:
        problem = ncu_problem(engine, gpus)
        if problem:
            sys.exit(f"GRADE_NCU=1: {problem}")
    if engine == "gpu" and not gpus:
        sys.exit("the GPU engine needs a GPU, and none is visible (nvidia-smi lists none, or "
                 "--gpus none): grade with --engine sim (the CPU simulator) or --engine cpu")
    preset = preset or ENGINES[engine][0]
    labels = args.labels if args.labels is not None else os.environ.get("GRADE_LABELS")
    if labels is None:
        labels = ENGINES[engine][1]
    labels = [l for l in re.split(r"[;, ]+", labels) if l]
    slots = args.build_slots or env_int("GRADE_BUILD_SLOTS", min(8, max(1, usable_cores() // 2)))
    box = "none" if getattr(args, "no_sandbox", False) else (
        getattr(args, "sandbox", None) or os.environ.get("GRADE_SANDBOX") or "auto")
    if box not in ("auto", "bwrap", "user", "none"):
        sys.exit(f"unknown sandbox mode '{box}': expected auto, bwrap or user (or --no-sandbox)")
    return Settings(engine, preset, labels, gpus if engine == "gpu" else [], slots, ncu, box)


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
