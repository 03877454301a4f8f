#!/usr/bin/env python3
"""Rebuilds one lab on every save of its source and says what is wrong first, and what to do next.

usage: scripts/watch.sh [labNN] [--build BUILD_DIR] [--once]

Without labNN it watches the lab whose source (labNN_*/labNN_*.cu) was saved last. On every save
it rebuilds that lab's grader in the CPU simulator (build/sim, configured with the sim preset
whenever it is not there: first use, or deleted since; a long build shows its progress) and runs its tests in four steps, stopping after the first step that fails:
  1. the quick checks: the [cpu] tests (your helpers, on the CPU: seconds at most);
  2. your kernels in the simulator: the kernel tests but the long ones;
  3. the long kernel tests ([long]: those that take many seconds in the simulator, e.g. lab03's
     contention sweep) and the cost tests ([perf], "cost: ..."): what your kernels cost, as
     Nsight Compute counts it;
  4. inputs of gigabytes ([large]: past 2^31 and 2^32 bytes, where an int or unsigned index or
     a 32-bit counter wraps): up to 45 s each.
Each step runs its test cases side by side, one per core, so the first to fail is on screen
without waiting for slower ones; the slowest of the last round start first, so that the cores
finish together (each case's time is kept in the build folder, watch-durations.json). It
prints the first failure's message (where its check failed, the case, the likely cause), one
line for each other test of the step that fails, and the next TODO of your source, or what
passed. A source that does not compile shows the compiler's first error. A round where every step passed is recorded in the build folder, so
that scripts/status.sh shows its results, said so, while the lab stays as it is. --once runs
one round on the source as it is, and exits 1 where something failed (0 when every step
passed).
Ctrl-C stops it.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import status  # noqa: E402
from status import first_error, lab_folders  # noqa: E402

STEPS = [("quick checks", "[cpu]"),
         ("your kernels in the simulator", "[gpu]~[perf]~[long]~[large]"),
         ("long kernel tests and cost tests", "[long]~[large],[perf]~[large]"),
         ("inputs of gigabytes", "[large]")]
POLL_SECONDS = 0.1


def source_of(lab, folders):
    return os.path.join(ROOT, folders[lab], folders[lab] + ".cu")


def latest_lab(folders):
    """The lab whose source was saved last."""
    return max(folders, key=lambda lab: os.path.getmtime(source_of(lab, folders)))


def next_todo(source, lab):
    """'lab04_shared_privatized.cu:112: TODO(lab04) begin: the merge (about 3 lines)' for the
    first TODO region of the source, or ''."""
    with open(source, errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = re.search(r"TODO\(%s\) begin:?\s*(.*)" % lab, line)
            if m:
                return "%s:%d: %s" % (os.path.basename(source), number, m.group(1).strip())
    return ""


def first_failure(output):
    """The first failing test's report in the graders' reporter's output (--reporter histo)."""
    lines = output.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith("FAILED (")), None)
    if start is None:
        return "\n".join(lines[-15:])
    end = next((i for i in range(start + 1, len(lines))
                if lines[i].startswith(("failed: ", "FAILED (", "passed ("))), len(lines))
    return "\n".join(lines[start:end]).rstrip()


def durations_file(build):
    """Each grader's test cases' durations in seconds, from their latest run in this build folder."""
    return os.path.join(build, "watch-durations.json")


def read_durations(build):
    try:
        with open(durations_file(build)) as f:
            durations = json.load(f)
        return durations if isinstance(durations, dict) else {}
    except (OSError, ValueError):
        return {}


def longest_first(cases, seconds):
    """The cases in the order they should start so that the cores finish together: those never
    timed first (in the grader's order), then the slowest first (longest processing time)."""
    return sorted(cases, key=lambda case: -seconds.get(case, float("inf")))


def run_step(grader, spec, build, on_failure=None, ran=None):
    """Runs the grader's test cases of `spec`, each in its own process, as many at once as there
    are cores, the slowest of the latest run first so that the cores finish together; returns
    the outputs of those that failed (each stops at its first failed check), in the order they
    failed. on_failure(output, first, case) is called as each fails; `ran`, a list, gets
    (case, exit code, output) for each case that ended. Each case's duration is kept in the
    build folder for the next run's order."""
    listed = subprocess.run([grader, spec, "--list-tests", "--verbosity", "quiet"],
                            capture_output=True, text=True, cwd=build).stdout
    cases = [c.strip() for c in listed.splitlines() if c.strip()]
    durations = read_durations(build)
    seconds = durations.setdefault(os.path.basename(grader), {})
    if not isinstance(seconds, dict):
        seconds = durations[os.path.basename(grader)] = {}
    waiting, running, failed = longest_first(cases, seconds), [], []
    try:
        while waiting or running:
            while waiting and len(running) < (os.cpu_count() or 2):
                case = waiting.pop(0)
                spec_of_case = case.replace("\\", "\\\\").replace(",", "\\,")
                running.append((case, time.time(), subprocess.Popen(
                    [grader, spec_of_case, "--reporter", "histo", "--abort", "--warn", "NoAssertions"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                    cwd=build)))
            time.sleep(0.01)
            for case, started, proc in [r for r in running if r[2].poll() is not None]:
                running.remove((case, started, proc))
                seconds[case] = round(time.time() - started, 2)
                out = proc.stdout.read()
                if ran is not None:
                    ran.append((case, proc.returncode, out))
                if proc.returncode not in (0, 4):  # 4: skipped
                    failed.append(out)
                    if on_failure:
                        on_failure(out, len(failed) == 1, case)
        return failed
    finally:
        for _, _, proc in running:
            proc.kill()
            proc.wait()
        try:
            with open(durations_file(build), "w") as f:
                json.dump(durations, f, indent=1, sort_keys=True)
        except OSError:
            pass  # the order is only an optimisation


def failure_line(case, output):
    """One line for a failure after the first: its test case and its message's first line."""
    report = first_failure(output).splitlines()
    detail = next((l.strip() for l in report[1:] if l.strip()), "")
    return "also failing: %s%s" % (case, (" -- " + detail[:160]) if detail else "")


def configure(build):
    """Configures `build` with the sim preset where it is not configured (first use, or the
    folder deleted since): says so; False when the configure failed."""
    if os.path.exists(os.path.join(build, "CMakeCache.txt")):
        return True
    print("== %s is not configured: configuring it (cmake --preset sim) ..."
          % os.path.relpath(build, ROOT), flush=True)
    proc = subprocess.run(["cmake", "--preset", "sim", "-B", build], cwd=ROOT, capture_output=True,
                          text=True, errors="replace")
    if proc.returncode != 0:
        print(proc.stdout[-2000:] + proc.stderr[-2000:])
    return proc.returncode == 0


def build_target(build, target):
    """Builds `target`, printing ninja's progress every few seconds while a long build (the
    first) runs; returns (returncode, output)."""
    proc = subprocess.Popen(["cmake", "--build", build, "--target", target], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    lines, shown, started = [], time.time(), time.time()
    for line in proc.stdout:
        lines.append(line)
        step = re.match(r"\[(\d+)/(\d+)\]", line)
        if step and time.time() - shown > 3:
            shown = time.time()
            print("   building: step %s of %s, %.0f s" % (step.group(1), step.group(2),
                                                          shown - started), flush=True)
    return proc.wait(), "".join(lines)


def one_round(lab, folders, build):
    """Builds and tests once; returns True when every step passed."""
    started = time.time()
    target = "%s_student_sim_grader" % lab
    if not configure(build):
        return False
    returncode, output = build_target(build, target)
    built = time.time()
    stamp = time.strftime("%H:%M:%S")
    if returncode != 0:
        print("== %s %s: DOES NOT COMPILE (%.1f s)\n%s" % (stamp, lab, built - started,
                                                           first_error(output)))
        return False
    grader = os.path.join(build, folders[lab], target)
    # What status.sh's record needs to show this round's results, unchanged since, as its own.
    mark = status.fingerprint(build, lab, [target], status.test_environment(build))
    ran_at, ran = time.time(), []
    for number, (what, spec) in enumerate(STEPS, 1):
        def show(output, first, case, number=number, what=what):
            # The first failure in full as soon as it is known, each later one in a line.
            if first:
                print("== %s %s, step %d of %d (%s) FAILED, %.1f s after the build started:\n%s"
                      % (stamp, lab, number, len(STEPS), what, time.time() - started,
                         first_failure(output)), flush=True)
            else:
                print(failure_line(case, output), flush=True)
        failures = run_step(grader, spec, build, show, ran)
        if failures:
            # Said on a failure only: a solved source keeps its TODO markers.
            todo = next_todo(source_of(lab, folders), lab)
            if todo:
                print("next TODO: " + todo)
            print("(%d test(s) of this step failed; all of them: ctest --preset sim -L %s "
                  "--output-on-failure)" % (len(failures), lab), flush=True)
            return False
        print("== %s %s, step %d of %d (%s): passed (%.1f s)" % (
            stamp, lab, number, len(STEPS), what, time.time() - started), flush=True)
    print("== %s %s: every step passed" % (stamp, lab), flush=True)
    # Every test ran: status.sh shows these results while the lab stays as it is.
    status.record_cases(build, lab, "student", mark, ran_at, ran, "watch.sh")
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lab", nargs="?")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "sim"))
    ap.add_argument("--once", action="store_true", help="one round, then exit (1: something failed)")
    args = ap.parse_args()
    folders = lab_folders()
    if not folders:
        sys.exit("watch: no lab folder here")
    lab = args.lab or latest_lab(folders)
    if lab not in folders:
        sys.exit("watch: unknown lab '%s': expected one of %s" % (lab, ", ".join(folders)))
    build = os.path.abspath(args.build)
    source = source_of(lab, folders)
    if args.once:
        return 0 if one_round(lab, folders, build) else 1
    print("watching %s (Ctrl-C stops)" % os.path.relpath(source, ROOT), flush=True)
    seen = None
    try:
        while True:
            mtime = os.stat(source).st_mtime_ns
            if mtime != seen:
                seen = mtime
                if sys.stdout.isatty():
                    print("\033[2J\033[H", end="")
                one_round(lab, folders, build)
                print("watching %s ..." % os.path.basename(source), flush=True)
            time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
