#!/usr/bin/env python3
"""The simulator against the H200 for the textbook CUDA programs (sim/tests/cuda), and the
tables scripts/gpu_check.sh --part simval measures.

usage:
  gpu_validation.py collect RAW_DIR TIMES OUT_NCU_CSV OUT_TIMES_CSV
      (on the GPU machine, called by gpu_check.sh) Nsight Compute's CSVs of the
      programs (RAW_DIR/PROGRAM.csv) and their timing lines into two tables.
  gpu_validation.py apply GPU_OUT_DIR [--repo DIR]
      (here) copies the run's files into the tree, to be committed: calibration.json as
      sim/data/h200_calibration.json (the H200 model's constants: the configure step reads them,
      sim/model_data.cmake), benchmark_16M.csv, cuda_programs_ncu.csv (as
      cuda_programs_counters.csv) and cuda_programs_times.csv into report/. One value is derived
      here rather than copied: l2_resident_bytes, from the run's own l2_sweep_gbps
      (l2_resident_bytes() below says how), since calibrate.cu at 86730c0 and before derived 0
      from a sweep that shows L2-speed reads up to 56 MiB.
  gpu_validation.py check SIM_RUN PROGRAMS_DIR [--counters CSV] [--times CSV] [--size BYTES]
      (CTest perfmodel.cuda_programs) runs each program through SIM_RUN (scripts/sim_run.sh
      --gpu h200 --report) at 16 MiB and compares, launch by launch, every counter with Nsight
      Compute's (within 2%, as compare_counters.py judges) and the predicted time with the
      measured one (within 1.5x). A program's timing line names a kernel as its source does
      (histogram_2d<256>, or reduce_shared for every instance); it is compared with that
      kernel's launch of the largest grid (a second, one-block pass of the same kernel is not
      what a program times), and a timed kernel no launch matches fails. A counter
      ("l1tex__...") or a time ("time") of a launch that misses, where sim/tests/known_limits.csv
      lists it (check "cuda_programs", subject PROGRAM:KERNEL), is printed as a known limit with
      its reason, not failed; a listed one that no longer misses is reported, so that the list
      shrinks. A row whose counter ends in "_without_sass" ("time_without_sass", or a counter's
      name so suffixed) is that limit only in a build without nvcc's SASS figures (the report's
      sass column 0); such a build reports only those rows when they no longer miss (the other
      rows are judged in a build with SASS, as CI's). Exit 77 (skipped) while the H200's tables are not
      committed, or where the build cannot see plain loads and stores (no Clang).
"""
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "grading" / "histo_grading"))
from compare_counters import METRICS, compare_metrics, number  # noqa: E402

PROGRAM_SIZE = 16 << 20
MAX_RATIO = 1.5
KNOWN_LIMITS = HERE / "known_limits.csv"


def known_limits(check_name):
    """{(subject, counter): reason} of sim/tests/known_limits.csv's rows for one check."""
    out = {}
    for r in csv.DictReader(open(KNOWN_LIMITS, newline="")):
        if r["check"] == check_name:
            for counter in r["counters"].split():
                out[(r["subject"], counter)] = r["reason"]
    return out


def collect(raw, times, out_ncu, out_times):
    import ncu  # grading/histo_grading/ncu.py: ncu's CSV read into kernels
    rows = []
    for f in sorted(Path(raw).glob("*.csv")):
        for i, k in enumerate(ncu.parse_csv(f.read_text(errors="replace"))):
            rows.append({"program": f.stem, "launch": i, "cuda_kernel": k["name"], "grid": k["grid"],
                         "block": k["block"], "bytes": PROGRAM_SIZE,
                         **{m: f"{v:.15g}" for m, v in k["metrics"].items()}})
    metrics = sorted({m for r in rows for m in r} - {"program", "launch", "cuda_kernel", "grid", "block", "bytes"})
    with open(out_ncu, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["program", "launch", "cuda_kernel", "grid", "block", "bytes", *metrics])
        w.writeheader()
        w.writerows(rows)
    timed = []
    for line in Path(times).read_text().splitlines():
        parts = line.split(maxsplit=3)
        if len(parts) == 4:
            timed.append({"program": parts[0], "bytes": parts[1], "median_us": parts[2], "kernel": parts[3]})
    with open(out_times, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["program", "kernel", "bytes", "median_us"])
        w.writeheader()
        w.writerows(timed)
    print(f"{out_ncu}: {len(rows)} launches; {out_times}: {len(timed)} timings")


def l2_resident_bytes(calibration):
    """The largest buffer of the sweep (l2_sweep_gbps: MiB -> GB/s of 8 passes in one launch) that
    an input up to its size stays in the L2 across launches: from the sweep's fastest size on,
    the sizes whose reads reach halfway from dram_read_gbps to that fastest rate, up to the first
    that does not. The sweep's own peak, not l2_read_gbps, is the yardstick: l2_read_gbps makes 64
    passes in a launch, the sweep 8, so the sweep's small sizes pay a launch's fixed cost 8 times
    as large a share (8 MiB: 6205 GB/s on the H200, against 16024) and never reach halfway to
    l2_read_gbps, which is why a rule requiring every size from 8 MiB on to do so gave 0."""
    sweep = {int(mib): float(gbps) for mib, gbps in calibration["l2_sweep_gbps"].items()}
    peak = max(sweep, key=sweep.get)
    halfway = (float(calibration["dram_read_gbps"]) + sweep[peak]) / 2
    resident = 0
    for mib in sorted(m for m in sweep if m >= peak):
        if sweep[mib] < halfway:
            break
        resident = mib << 20
    return resident


def apply(gpu_out, repo):
    gpu_out, repo = Path(gpu_out), Path(repo)
    text = (gpu_out / "calibration.json").read_text()
    measured = json.loads(text)
    if "l2_sweep_gbps" in measured and "dram_read_gbps" in measured:
        derived = l2_resident_bytes(measured)
        if measured.get("l2_resident_bytes") != derived:
            print(f"l2_resident_bytes: {derived} from the sweep (the run said {measured.get('l2_resident_bytes')})")
            text, n = re.subn(r'("l2_resident_bytes":\s*)[0-9]+', rf"\g<1>{derived}", text)
            if n != 1:
                sys.exit(f"{gpu_out / 'calibration.json'}: no \"l2_resident_bytes\": NUMBER to replace")
    calibration = repo / "sim" / "data" / "h200_calibration.json"
    calibration.write_text(text)
    for src, dst in (("benchmark_16M.csv", "benchmark_16M.csv"),
                     ("cuda_programs_ncu.csv", "cuda_programs_counters.csv"),
                     ("cuda_programs_times.csv", "cuda_programs_times.csv")):
        (repo / "report" / dst).write_text((gpu_out / src).read_text())
    print(f"wrote {calibration.relative_to(repo)}, report/benchmark_16M.csv, report/cuda_programs_counters.csv, "
          "report/cuda_programs_times.csv; configure again (a build folder does so by itself) to rebuild "
          "the model from them")


def check(sim_run, programs_dir, counters, times, size):
    counters, times = Path(counters), Path(times)
    if not counters.exists() or not times.exists():
        print(f"SKIPPED: no Nsight Compute table of the programs yet ({counters.name}, "
              f"{times.name}): run scripts/gpu_check.sh --part simval on an H200, then "
              "sim/tests/gpu_validation.py apply")
        return 77
    ncu_rows = list(csv.DictReader(open(counters)))
    measured = {}
    for r in csv.DictReader(open(times)):
        if int(r["bytes"]) == size:
            measured[(r["program"], r["kernel"])] = float(r["median_us"])
    failures, worst, notes, checked, compared = [], {}, set(), 0, []
    timed = {}  # (program, timed name) -> (grid, label, predicted us, binding) of the largest launch
    limits, known, used = known_limits("cuda_programs"), [], set()
    for program in sorted({r["program"] for r in ncu_rows}):
        report = Path(tempfile.mkdtemp()) / f"{program}.csv"
        run = subprocess.run([sim_run, "--gpu", "h200", "--report", str(report),
                              str(Path(programs_dir) / f"{program}.cu"), "--", str(size)],
                             capture_output=True, text=True)
        if run.returncode != 0 and program != "racy":
            failures.append(f"{program}: sim_run.sh failed ({run.returncode}): {run.stderr[-1500:]}")
            continue
        if not report.exists():
            failures.append(f"{program}: no report written")
            continue
        sim = list(csv.DictReader(open(report)))
        if any(r["counters"] != "complete" for r in sim):
            print("SKIPPED: this build cannot see plain loads and stores (it needs Clang)")
            return 77
        gpu = [r for r in ncu_rows if r["program"] == program]
        if len(sim) != len(gpu):
            failures.append(f"{program}: {len(sim)} launches in the simulator, {len(gpu)} under Nsight Compute")
            continue
        for s, g in zip(sim, gpu):
            label = f"{program}:{s['kernel']}"
            s = dict(s, grid=str(blocks(s["grid"])), bytes=str(size))
            sass = s["sass"] == "1"
            # A limit of the model without nvcc's figures is none here; without them, the other
            # rows need not miss (the counters and times they excuse may come out otherwise).
            used.update(k for k in limits if k[0] == label and k[1].endswith("_without_sass") == sass)
            missed = []
            checked += compare_metrics(label, "", s, g, size, 0.02, False, missed, worst, notes)
            for line in missed:
                metric = next((m for m in METRICS if f" {m} " in line), "?")
                keys = [(label, metric)] + ([] if sass else [(label, metric + "_without_sass")])
                key = next((k for k in keys if k in limits), None)
                if key:
                    used.add(key)
                    known.append(f"{line.replace('  FAIL', '')}\n    known limit: {limits[key]}")
                else:
                    failures.append(line)
            for name in timing_names(s["kernel"]):
                key = (program, name)
                if key in measured and s["predicted_us"] and int(s["grid"]) > timed.get(key, (-1,))[0]:
                    timed[key] = (int(s["grid"]), label, float(s["predicted_us"]), s["binding"], s["sass"] == "1")
    for key in sorted(measured):
        if key not in timed:
            failures.append(f"{key[0]}: kernel {key[1]} timed on the GPU, but no launch of it in the simulator's report")
            continue
        _, label, predicted, binding, sass = timed[key]
        time_limit = "time" if (label, "time") in limits or sass else "time_without_sass"
        compared.append((label, predicted, measured[key], measured[key] / predicted, binding, time_limit))
    print(f"{checked} counters of the programs' launches compared with Nsight Compute on the H200")
    for kernel, e in sorted(worst.items()):
        print(f"  worst counter error {kernel:48} {e * 100:6.2f}%")
    for note in sorted(notes):
        print("  note: " + note)
    print(f"\n{'kernel':48} {'predicted us':>12} {'measured us':>12} {'ratio':>6}  binding ({size >> 20} MiB)")
    for label, p, m, ratio, binding, time_limit in compared:
        print(f"{label:48} {p:12.1f} {m:12.1f} {ratio:6.2f}  {binding}")
        if max(ratio, 1 / ratio) > MAX_RATIO:
            line = f"{label}: predicted {p:.1f} us, measured {m:.1f} us: off by more than {MAX_RATIO}x"
            if (label, time_limit) in limits:
                used.add((label, time_limit))
                known.append(f"{line}\n    known limit: {limits[(label, time_limit)]}")
            else:
                failures.append(line)
    if known:
        print(f"\n{len(known)} known limits ({KNOWN_LIMITS.name}):")
        for k in known:
            print("  " + k)
    for subject, counter in sorted(set(limits) - used):
        failures.append(f"{subject} {counter}: listed in {KNOWN_LIMITS.name} but within its tolerance now: "
                        "remove the row")
    for f in failures:
        print(f)
    return 1 if failures else 0


def timing_names(kernel):
    """The names a program's timing line may give a kernel of the report: 'void
    reduce_shared<256u>' -> 'reduce_shared<256>' and 'reduce_shared'."""
    name = re.sub(r"\b(\d+)u\b", r"\1", re.sub(r"^void ", "", kernel))
    return {name, name.split("<")[0]}


def blocks(grid):
    """'16x16' -> 256: the report's grid as Nsight Compute's launch__grid_size counts it."""
    total = 1
    for part in grid.split("x"):
        total *= int(part)
    return total


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    what, args = argv[0], argv[1:]
    if what == "collect" and len(args) == 4:
        collect(*args)
        return 0
    if what == "apply" and args:
        repo = args[args.index("--repo") + 1] if "--repo" in args else str(HERE.parent.parent)
        apply(args[0], repo)
        return 0
    if what == "check" and len(args) >= 2:
        opt = lambda name, default: args[args.index(name) + 1] if name in args else default  # noqa: E731
        report = HERE.parent.parent / "report"
        return check(args[0], args[1], opt("--counters", report / "cuda_programs_counters.csv"),
                     opt("--times", report / "cuda_programs_times.csv"), int(opt("--size", PROGRAM_SIZE)))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
