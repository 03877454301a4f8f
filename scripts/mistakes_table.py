#!/usr/bin/env python3
"""The table of the wrong kernels made on purpose on the solutions (common/tests/mistakes/):
which lab, what the plain CPU simulator says first, and whether the GPU grader catches it.

usage: scripts/mistakes_table.py [--sim-build DIR] [--gpu-build DIR] [--gpu-results FILE]
                                 [--write-gpu-results FILE] [--output FILE] [--readme]

--sim-build DIR   a simulator build with solutions (default build/sim-instructor): runs its
                  mistake.* tests, each through mistake.cmake, which keeps the grader's report.
--gpu-build DIR   a GPU build with HISTO_MISTAKES_GPU (the gpu preset, build/gpu): runs its
                  mistake_gpu.* tests the same way.
--write-gpu-results FILE   writes what --gpu-build found as JSON (on the GPU machine), to
                  merge elsewhere with --gpu-results FILE.
--seed N          the graders' Catch2 seed (default 1), so that a table is reproducible.
--output FILE     the markdown table (default: standard output); --readme replaces the table
                  in common/tests/mistakes/README.md, between its two marker lines.
The correct-but-slow kernels (labNN_slow_*) are left out: they are not wrong.
A mistake is "caught" when its grader fails the tests its file names and, in the simulator,
says what its EXPECT regexes say and nothing its FORBID regexes name (mistake.cmake).
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MISTAKES = os.path.join(ROOT, "common", "tests", "mistakes")
README = os.path.join(MISTAKES, "README.md")
BEGIN = "<!-- mistakes table: begin (scripts/mistakes_table.py --readme) -->"
END = "<!-- mistakes table: end -->"
MAX_MESSAGE = 230  # characters of a failure message in one cell


def mistake_files():
    """{name: (lab, one-line description)} of every wrong kernel's file, in name order."""
    found = {}
    for file in sorted(os.listdir(MISTAKES)):
        if not re.match(r"lab\d\d_.*\.cmake$", file) or "_slow_" in file:
            continue
        name = file[: -len(".cmake")]
        with open(os.path.join(MISTAKES, file)) as f:
            text = f.read()
        lab = re.search(r"set\(LAB (lab\d\d)\)", text)
        header = []
        for line in text.splitlines():
            if not line.startswith("#"):
                break
            header.append(line.lstrip("# ").rstrip())
        # What the mistake is: its header up to the first ": " (what follows says why it fails).
        what = re.split(r":\s", " ".join(header), maxsplit=1)[0]
        found[name] = (lab.group(1) if lab else name[:5], first_sentence(what, 150))
    return found


def first_sentence(text, limit=MAX_MESSAGE):
    """Text up to the end of its first sentence (". " then a capital or a parenthesis, or the
    end), cut to `limit` characters."""
    text = re.sub(r"\s+", " ", text).strip()
    end = re.search(r"[.?]\s(?=[A-Z(])|[.?]$", text)
    if end:
        text = text[: end.start() + 1]
    if len(text) > limit:
        text = text[: limit - 3].rstrip() + "..."
    return text


def without_paths(text):
    """Absolute paths shortened to their last component (no machine's paths in the table)."""
    return re.sub(r"(?<![\w.])/(?:[\w.+-]+/)+([\w.+-]+)", r"\1", text)


def first_failure(xml_file):
    """The first failure of a Catch2 XML report, shortened: the simulator's own sentence (a
    hazard, a fault) where there is one, otherwise the likely cause the grader names, otherwise
    the failed expression with its messages. None when nothing failed."""
    try:
        tree = ET.parse(xml_file)
    except (OSError, ET.ParseError):
        return None
    for case in tree.getroot().iter("TestCase"):
        infos = []
        for node in case.iter():
            if node.tag == "Info":
                infos.append((node.text or "").strip())
            elif node.tag == "Expression" and node.get("success") == "false":
                expr = (node.findtext("Original") or "").strip()
                expanded = (node.findtext("Expanded") or "").strip()
                message = infos[-1] if infos else ""
                text = f"{node.get('type', 'CHECK')}( {expr} ) gave {expanded}"
                return shorten(f"{text}: {message}" if message else text, prefer_cause=False)
            elif node.tag in ("Failure", "Exception", "FatalErrorCondition"):
                return shorten(node.text or "")
    return None


def shorten(text, prefer_cause=True):
    text = without_paths(re.sub(r"\s+", " ", text).strip())
    text = text.split(" re-run with:")[0]  # the first case's report only
    at = text.find("CPU simulator:")
    if at >= 0:
        return first_sentence(text[at:])
    if prefer_cause:
        cause = re.search(r"likely cause: (.*)", text, re.IGNORECASE)
        headline = re.split(r" case: | first wrong bins", text)[0]
        if cause:
            return first_sentence(f"{headline}; likely cause: {cause.group(1)}")
    return first_sentence(text)


def list_tests(build, prefix):
    """{mistake name: its registered command} of the build's `prefix`.* tests."""
    out = subprocess.run(["ctest", "--test-dir", build, "-L", "mistakes", "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    tests = {}
    for test in json.loads(out).get("tests", []):
        name = test["name"]
        if name.startswith(prefix + "."):
            tests[name[len(prefix) + 1:]] = test.get("command", [])
    return tests


def run_mistakes(build, prefix, names, seed):
    """Runs each mistake test of the build (prefix mistake or mistake_gpu); returns
    {name: {"result": ..., "message": ...}} with result caught / wrong cause / missed /
    skipped / error."""
    tests = list_tests(build, prefix)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            command = tests.get(name)
            if not command:
                results[name] = {"result": "not built", "message": ""}
                continue
            save = os.path.join(tmp, name + ".txt")
            if "-P" in command:
                at = command.index("-P")
                command = command[:at] + ["-D", f"SAVE={save}", "-D", f"SEED={seed}"] + command[at:]
            print(f"{prefix}.{name} ...", file=sys.stderr, flush=True)
            run = subprocess.run(command, capture_output=True, text=True, cwd=build)
            log = run.stdout + run.stderr
            message = first_failure(save + ".xml")
            skipped = re.search(r"skipped: (.*)", log)
            if skipped:
                result, message = "skipped", first_sentence(without_paths(skipped.group(1)))
            elif run.returncode == 0 and "compute-sanitizer racecheck caught it" in log:
                result = "racecheck"
                message = first_sentence(without_paths(log[log.index("racecheck caught it"):]))
            elif run.returncode == 0:
                result = "caught"
            elif "was not caught" in log:
                result = "missed"
            elif "likely cause is wrong" in log:
                result = "wrong cause"
            else:
                result = "error"
                message = message or first_sentence(without_paths(log))
            results[name] = {"result": result, "message": message or ""}
    return results


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def sim_cell(entry):
    if entry is None:
        return "not run"
    r, msg = entry["result"], entry["message"]
    if r == "caught":
        return cell(msg) if msg else "caught"
    if r == "skipped":
        return cell(f"not caught: {msg}")
    if r == "missed":
        return "**passed (missed)**"
    return cell(f"**{r}**: {msg}")


def gpu_cell(entry):
    if entry is None:
        return "not run"
    r = entry["result"]
    return {"caught": "failed",
            "racecheck": "passed (the race lost no count); compute-sanitizer racecheck: "
                         + cell(entry.get("message", "").replace("racecheck caught it: ", "")),
            "missed": "**passed (missed)**",
            "skipped": "not concluded: " + cell(entry.get("message", "")),
            "wrong cause": "failed (other message)"}.get(r, f"**{r}**")


def table(files, sim, gpu, gpu_source):
    lines = ["| mistake | lab | plain simulator: first failure | GPU |",
             "|---|---|---|---|"]
    for name, (lab, description) in files.items():
        lines.append(f"| `{name}`: {cell(description)} | {lab} | {sim_cell(sim.get(name))} | "
                     f"{gpu_cell(gpu.get(name)) if gpu else 'not run'} |")
    caught = sum(1 for e in sim.values() if e["result"] == "caught")
    skipped = sum(1 for e in sim.values() if e["result"] == "skipped")
    lines.append("")
    if sim:
        lines.append(f"Simulator: {caught} of {len(files)} caught with the right likely cause"
                     + (f", {skipped} not run there (the reason is in its row)." if skipped else "."))
    if gpu:
        failed = sum(1 for e in gpu.values() if e["result"] in ("caught", "wrong cause"))
        raced = sum(1 for e in gpu.values() if e["result"] == "racecheck")
        lines.append(f"GPU ({gpu_source}): {failed} of {len(files)} failed the grader"
                     + (f"; {raced} more passed it and compute-sanitizer racecheck reported "
                        "their races." if raced else "."))
    else:
        lines.append("GPU: not run here; the column comes from a GPU run "
                     "(`--write-gpu-results` there, `--gpu-results` here).")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim-build", default=os.path.join(ROOT, "build", "sim-instructor"))
    ap.add_argument("--no-sim", action="store_true", help="run no simulator build (a GPU machine)")
    ap.add_argument("--gpu-build")
    ap.add_argument("--gpu-results", help="JSON written by --write-gpu-results on a GPU machine")
    ap.add_argument("--write-gpu-results")
    ap.add_argument("--seed", type=int, default=1,
                    help="the graders' --rng-seed: the same cases on every run (default 1)")
    ap.add_argument("--output")
    ap.add_argument("--readme", action="store_true")
    args = ap.parse_args()

    files = mistake_files()
    sim = {} if args.no_sim else run_mistakes(args.sim_build, "mistake", files, args.seed)
    gpu, gpu_source = {}, ""
    if args.gpu_results:
        with open(args.gpu_results) as f:
            saved = json.load(f)
        gpu, gpu_source = saved["results"], saved.get("device", "GPU run")
    if args.gpu_build:
        gpu = run_mistakes(args.gpu_build, "mistake_gpu", files, args.seed)
        gpu_source = gpu_name()
    if args.write_gpu_results:
        with open(args.write_gpu_results, "w") as f:
            json.dump({"device": gpu_source, "date": datetime.date.today().isoformat(),
                       "results": gpu}, f, indent=1)
    text = table(files, sim, gpu, gpu_source)
    if args.readme:
        with open(README) as f:
            readme = f.read()
        if BEGIN not in readme or END not in readme:
            sys.exit(f"{README} has no table markers")
        head, rest = readme.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        with open(README, "w") as f:
            f.write(head + BEGIN + "\n" + text + END + tail)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    if not args.readme and not args.output:
        sys.stdout.write(text)
    bad = [n for n, e in sim.items() if e["result"] not in ("caught", "skipped")]
    bad += [n for n, e in gpu.items() if e["result"] == "missed"]
    return 1 if bad else 0


def gpu_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout.strip()
        return out.splitlines()[0] if out else "GPU"
    except (OSError, subprocess.SubprocessError):
        return "GPU"


if __name__ == "__main__":
    sys.exit(main())
