#!/usr/bin/env python3
"""The simulator against the H200 for the textbook CUDA programs (sim/tests/cuda), and the
tables scripts/gpu_check.sh --part simval measures.

usage:
  gpu_validation.py collect RAW_DIR TIMES OUT_NCU_CSV OUT_TIMES_CSV
      (on the GPU machine, called by gpu_check.sh) Nsight Compute's CSVs of the
      programs (RAW_DIR/PROGRAM.csv) and their timing lines into two tables.
  gpu_validation.py apply GPU_OUT_DIR [--repo DIR]
      (here) commits-to-be: report/calibration.json gets the run's constants (the L2's among
      them), sim/src/gpus.cpp the L2 constants, report/benchmark_16M.csv,
      report/cuda_programs_counters.csv and report/cuda_programs_times.csv the run's tables.
  gpu_validation.py check SIM_RUN PROGRAMS_DIR [--counters CSV] [--times CSV] [--size BYTES]
      (CTest perfmodel.cuda_programs) runs each program through SIM_RUN (scripts/sim_run.sh
      --gpu h200 --report) at 16 MiB and compares, launch by launch, every counter with Nsight
      Compute's (within 2%, as compare_counters.py judges) and the predicted time with the
      measured one (within 1.5x). Exit 77 (skipped) while the H200's tables are not committed,
      or where the build cannot see plain loads and stores (no Clang).
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


def apply(gpu_out, repo):
    gpu_out, repo = Path(gpu_out), Path(repo)
    measured = json.loads((gpu_out / "calibration.json").read_text())
    calibration = repo / "report" / "calibration.json"
    merged = json.loads(calibration.read_text()) if calibration.exists() else {}
    merged.update(measured)
    calibration.write_text(json.dumps(merged, indent=2) + "\n")
    gpus = repo / "sim" / "src" / "gpus.cpp"
    text = gpus.read_text()
    for key in ("l2_read_gbps", "l2_load_request_ns", "l2_resident_bytes"):
        if key not in measured:
            sys.exit(f"{gpu_out / 'calibration.json'} has no {key}: was it measured by this tree's "
                     "bench/calibrate.cu?")
        text, n = re.subn(rf"(h200\.{key} = )[^;]*(;\s*// calibration: {key})",
                          rf"\g<1>{measured[key]:.10g}\g<2>", text)
        if n != 1:
            sys.exit(f"{gpus}: no line 'h200.{key} = ...;  // calibration: {key}'")
    gpus.write_text(text)
    for src, dst in (("benchmark_16M.csv", "benchmark_16M.csv"),
                     ("cuda_programs_ncu.csv", "cuda_programs_counters.csv"),
                     ("cuda_programs_times.csv", "cuda_programs_times.csv")):
        (repo / "report" / dst).write_text((gpu_out / src).read_text())
    print(f"wrote {calibration}, {gpus} (L2 constants), report/benchmark_16M.csv, "
          "report/cuda_programs_counters.csv, report/cuda_programs_times.csv")


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
            checked += compare_metrics(label, "", s, g, size, 0.02, False, failures, worst, notes)
            key = (program, s["kernel"])
            if key in measured and s["predicted_us"]:
                ratio = measured[key] / float(s["predicted_us"])  # > 1: the model is optimistic
                compared.append((label, float(s["predicted_us"]), measured[key], ratio, s["binding"]))
    print(f"{checked} counters of the programs' launches compared with Nsight Compute on the H200")
    for kernel, e in sorted(worst.items()):
        print(f"  worst counter error {kernel:48} {e * 100:6.2f}%")
    for note in sorted(notes):
        print("  note: " + note)
    print(f"\n{'kernel':48} {'predicted us':>12} {'measured us':>12} {'ratio':>6}  binding ({size >> 20} MiB)")
    for label, p, m, ratio, binding in compared:
        print(f"{label:48} {p:12.1f} {m:12.1f} {ratio:6.2f}  {binding}")
        if max(ratio, 1 / ratio) > MAX_RATIO:
            failures.append(f"{label}: predicted {p:.1f} us, measured {m:.1f} us: off by more than {MAX_RATIO}x")
    for f in failures:
        print(f)
    return 1 if failures else 0


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
