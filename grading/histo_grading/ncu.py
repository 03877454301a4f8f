"""Nsight Compute's counters: the metrics asked for, ncu's CSV read into kernels, the [perf]
tests' counts grouped per count_cost call, and the simulator's values compared with the GPU's.

One place for what scripts/gpu_check.sh --part ncu (the table report/counters.csv) and the GRADE_NCU=1
mode of grade.py (grading/README.md) share. Standard library only, so it also runs as a script:

  ncu.py metrics                      the metric names, one a line (those this ncu knows)
  ncu.py table RAW_DIR OUT_CSV SIZE METRIC...   gpu_check.sh's counters.csv: one row per kernel file
  ncu.py group NCU_CSV CALLS OUT      pass 1's CSV and calls file -> pass 2's counts (perf.hpp)
  ncu.py passes GRADER OUT_DIR [SIM_GRADER]  both passes over GRADER's [perf] tests, and the
                                      simulator's where SIM_GRADER is given; prints the comparison
  ncu.py compare SIM_OUTPUT GPU_OUTPUT  compares the "[perf] ..." lines of two saved outputs

The [perf] tests (histo/perf.hpp) count in two passes on a GPU. Pass 1 runs them under
`ncu --csv --print-units base --metrics M` with HISTO_PERF_NCU=collect:CALLS: each count_cost
call launches its variant between the marker kernels histo_cost_begin and histo_cost_end (grid:
the call's index + 1) and appends "call INDEX VARIANT DATASET N" to CALLS. group() finds each
call's kernels between its markers and sums their metrics; pass 2 (HISTO_PERF_NCU=COUNTS) checks
the same bounds on those sums.
"""
import csv
import io
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Nsight Compute's metrics, named as it names them: the launch, global loads, stores and atomics
# (ATOM and RED apart), shared memory, DRAM, time. The simulator's counters bear the same names
# (sim/include/histo_sim/counters.hpp, metrics()).
METRICS = [
    "launch__grid_size", "launch__block_size", "launch__registers_per_thread",
    "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
    "launch__occupancy_limit_blocks", "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
    "dram__bytes_read.sum",
    "lts__t_requests_op_red.sum", "lts__t_requests_op_atom.sum",
    "smsp__inst_executed.sum", "gpu__time_duration.sum",
]

# What count_cost reads in pass 2 (common/src/perf.cpp; a test checks that every metric it
# reads is here): a metric this ncu does not know fails those [perf] tests, saying which.
PERF_METRICS = [
    "launch__grid_size",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__sass_inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    # The least and most load requests of any one SM: whether every SM read (lab01).
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.min",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.max",
]

BEGIN, END = "histo_cost_begin", "histo_cost_end"


class NcuError(RuntimeError):
    """Something the Nsight Compute mode cannot go on from, in a sentence."""


def ncu_command():
    """The ncu on PATH, or NcuError saying it is missing."""
    path = shutil.which("ncu")
    if not path:
        raise NcuError("ncu (Nsight Compute) is not on PATH: install the CUDA Toolkit's Nsight "
                       "Compute, or put its folder on PATH")
    return path


def known_metrics(metrics=METRICS, query=None):
    """The metrics of `metrics` that this ncu knows on this GPU (a name it does not know would
    fail every run); launch__ metrics are always known. `query` is the text of
    `ncu --query-metrics --csv` (asked of ncu when None); where it gives nothing, all are kept."""
    if query is None:
        try:
            query = subprocess.run([ncu_command(), "--query-metrics", "--csv"], capture_output=True,
                                   text=True, timeout=120).stdout
        except (OSError, subprocess.TimeoutExpired, NcuError):
            query = ""
    known = {line.split(",")[0].strip('"') for line in query.splitlines() if line.strip()}
    if not known:
        return list(metrics)
    return [m for m in metrics if m.startswith("launch__") or m in known
            or m.rsplit(".", 1)[0] in known]


def number(text):
    """A metric value as ncu prints it ("1,124", "4.5", "n/a"): a float, or None."""
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def parse_csv(text):
    """ncu's --csv output (other lines, such as ==PROF== ones, left out) as one dict per kernel
    launch, in launch order: id, name (without its parameters), grid and block (threads and
    blocks in all dimensions) and metrics {name: value}."""
    rows = "".join(l for l in text.splitlines(True) if l.startswith('"'))
    kernels = {}
    for r in csv.DictReader(io.StringIO(rows)):
        k = kernels.get(r["ID"])
        if k is None:
            dims = lambda s: math.prod(int(x) for x in re.findall(r"\d+", s or "1"))  # noqa: E731
            k = kernels[r["ID"]] = {
                "id": int(r["ID"]), "name": r["Kernel Name"].split("(")[0].strip(),
                "grid": dims(r.get("Grid Size")), "block": dims(r.get("Block Size")), "metrics": {}}
        value = number(r["Metric Value"])
        if value is not None:
            k["metrics"][r["Metric Name"]] = value
    return sorted(kernels.values(), key=lambda k: k["id"])


def parse_calls(text):
    """Pass 1's calls file: [(index, "VARIANT DATASET N")] in order."""
    calls = []
    for line in text.splitlines():
        words = line.split()
        if len(words) == 5 and words[0] == "call":
            calls.append((int(words[1]), " ".join(words[2:])))
    return calls


def group(kernels, calls):
    """Each call's kernels (between its markers) with their metrics summed:
    [{"key", "kernels": [names], "metrics": {name: sum}}], in the calls' order. Raises NcuError
    when a call has no markers (the run stopped, or ncu profiled only some kernels) or when
    markers and calls do not match."""
    groups, current = {}, None
    for k in kernels:
        base = k["name"].split("::")[-1].split()[-1] if k["name"] else ""
        if base == BEGIN:
            current = groups.setdefault(k["grid"] - 1, {"kernels": [], "metrics": {}, "ended": False})
        elif base == END:
            if current is None or k["grid"] - 1 not in groups or groups[k["grid"] - 1] is not current:
                raise NcuError(f"Nsight Compute's CSV has an end marker for call {k['grid'] - 1} "
                               "without its begin marker")
            current["ended"] = True
            current = None
        elif current is not None:
            current["kernels"].append(k["name"])
            for name, value in k["metrics"].items():
                current["metrics"][name] = current["metrics"].get(name, 0.0) + value
    out = []
    for index, key in calls:
        g = groups.get(index)
        if g is None or not g["ended"]:
            raise NcuError(f"Nsight Compute's CSV has no complete group of kernels for call {index} "
                           f"({key}): the run stopped early, or ncu did not profile every kernel")
        out.append({"key": key, "kernels": g["kernels"], "metrics": g["metrics"]})
    # A begin marker with no end is a call that threw (the test failed in pass 1, and fails in
    # pass 2 alike); a complete group that no call lists is another run's.
    extra = sorted(i for i, g in groups.items() if g["ended"] and i not in {j for j, _ in calls})
    if extra:
        raise NcuError(f"Nsight Compute's CSV has markers for calls {extra} that the calls file "
                       "does not list: pass 1's CSV and calls file are from different runs")
    return out


def format_counts(groups):
    """Pass 2's file (read by common/src/perf.cpp)."""
    lines = ["# Nsight Compute's counts per count_cost call (histo/perf.hpp), grouped by "
             "grading/histo_grading/ncu.py", "# call VARIANT DATASET N KERNELS, then METRIC VALUE"]
    for g in groups:
        lines.append(f"call {g['key']} {len(g['kernels'])}")
        lines += [f"  {name} {value:.17g}" for name, value in sorted(g["metrics"].items())]
    return "\n".join(lines) + "\n"


def write_counts(ncu_csv, calls_file, out):
    groups = group(parse_csv(Path(ncu_csv).read_text(errors="replace")),
                   parse_calls(Path(calls_file).read_text()))
    Path(out).write_text(format_counts(groups))
    return groups


# The line check_cost prints for every bound (common/src/catch_support.cpp).
PERF_LINE = re.compile(r"^\[perf\] (?P<counter>.+?) = (?P<value>\S+) \(bound: (?P<kind>at most|"
                       r"at least) (?P<bound>\S+), (?P<verdict>met|missed)\) on (?P<data>.+?); "
                       r"counted (?P<where>.+?)\s*$", re.M)


def perf_lines(output, test=""):
    """The [perf] lines of a test's output: [{test, counter, value, kind, bound, verdict, data,
    where}]."""
    found = []
    for m in PERF_LINE.finditer(output):
        d = m.groupdict()
        d["value"], d["bound"] = number(d["value"]), number(d["bound"])
        d["test"] = test
        found.append(d)
    return found


def case_name(test):
    """A CTest name's test case: "lab05.student.sim: cost: X" and "lab05.student: cost: X" both
    give "cost: X"."""
    return test.split(": ", 1)[1] if ": " in test else test


def compare(simulator, gpu, simulator_missing=""):
    """The simulator's [perf] lines against the GPU's (Nsight Compute's), matched by test case,
    counter and input: one row per bound checked on either side, with "agree" (the same verdict)
    and a note saying how they differ. `simulator_missing` says why there are no simulator
    values (no simulator build, no counters there)."""
    def keyed(lines):
        return {(case_name(l["test"]), l["counter"], l["data"]): l for l in lines}
    sim, dev = keyed(simulator), keyed(gpu)
    rows = []
    for key in sorted(set(sim) | set(dev)):
        s, d = sim.get(key), dev.get(key)
        row = {"test": key[0], "counter": key[1], "data": key[2],
               "bound": f"{(s or d)['kind']} {(s or d)['bound']:g}",
               "simulator": {"value": s["value"], "verdict": s["verdict"]} if s else None,
               "gpu": {"value": d["value"], "verdict": d["verdict"]} if d else None}
        if s and d:
            row["agree"] = s["verdict"] == d["verdict"]
            diff = d["value"] - s["value"]
            scale = max(abs(s["value"]), abs(d["value"]), 1e-12)
            row["note"] = ("the same verdict" if row["agree"] else
                           f"the simulator {s['verdict']} the bound, the GPU {d['verdict']} it")
            if abs(diff) > 0.01 * scale:
                row["note"] += f"; values differ by {diff:+.4g} ({100 * diff / scale:+.0f}%)"
        else:
            row["agree"] = None
            row["note"] = ("not counted by the simulator" + (f": {simulator_missing}"
                                                             if simulator_missing else "")
                           if d else "not counted on the GPU (see the test's output)")
        rows.append(row)
    return rows


def disagreements(rows):
    return [r for r in rows if r["agree"] is False]


def describe(rows):
    """The comparison as a table a person reads."""
    def cell(side):
        return f"{side['value']:.4g} {side['verdict']}" if side else "-"
    table = [["test", "counter", "input", "bound", "simulator", "GPU (ncu)", "agree"]]
    for r in rows:
        table.append([r["test"], r["counter"], r["data"], r["bound"], cell(r["simulator"]),
                      cell(r["gpu"]), {True: "yes", False: "NO", None: "-"}[r["agree"]]])
    width = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, width)).rstrip() for row in table]
    for r in disagreements(rows):
        lines.append(f"disagree: {r['test']} ({r['data']}): {r['note']}")
    return "\n".join(lines)


def pass1(grader, out_dir, env=None, timeout=600, test_spec="[perf]", cwd=None):
    """Pass 1: GRADER's [perf] tests under ncu. Returns the counts file for pass 2."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    raw, calls, counts = out_dir / "ncu.csv", out_dir / "ncu_calls.txt", out_dir / "ncu_counts.txt"
    for f in (raw, calls, counts):
        f.unlink(missing_ok=True)
    calls.touch()  # no call completed: pass 2 then fails each test, saying so
    env = dict(env or os.environ, HISTO_PERF_NCU=f"collect:{calls}")
    cmd = [ncu_command(), "--csv", "--print-units", "base", "--metrics", ",".join(known_metrics(PERF_METRICS)),
           "--target-processes", "all", "--log-file", str(raw), str(grader), test_spec,
           "--order", "decl"]
    with open(out_dir / "ncu_pass1.log", "w") as log:
        try:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=cwd,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            raise NcuError(f"pass 1 (the [perf] tests under ncu) ran past {timeout} s")
    # Catch2 exits 4 when every test it ran skipped, as pass 1's do; 1 when a test failed (its
    # launcher threw, say), which pass 2 reports for that test alone.
    if rc not in (0, 1, 4) or not raw.exists():
        tail = (out_dir / "ncu_pass1.log").read_text(errors="replace").splitlines()[-5:]
        raise NcuError(f"pass 1 (the [perf] tests under ncu) failed (exit {rc}): " + " / ".join(tail))
    write_counts(raw, calls, counts)
    return counts


def run_perf(grader, env=None, timeout=600, log=None):
    """Runs GRADER's [perf] tests, one process each (the names of their CTest tests), and
    returns their [perf] lines; with `log`, their whole output is written to that file."""
    listed = subprocess.run([str(grader), "[perf]", "--list-tests", "--verbosity", "quiet"],
                            capture_output=True, text=True, env=env).stdout
    lines = []
    for case in [l.strip() for l in listed.splitlines() if l.strip()]:
        spec = case.replace("\\", "\\\\").replace(",", "\\,")
        out = subprocess.run([str(grader), spec, "--warn", "NoAssertions"], capture_output=True,
                             text=True, env=env, timeout=timeout, errors="replace")
        lines += perf_lines(out.stdout, case)
        if log:
            with open(log, "a") as f:
                f.write(f"== {case} (exit {out.returncode})\n{out.stdout}{out.stderr}\n")
    return lines


def grade_perf(g, sub, record, gpu):
    """GRADE_NCU=1, after a submission's GPU tests (batch.Grading.grade): its [perf] tests again,
    on Nsight Compute's counters (pass 1 under ncu, pass 2 as the graded run), their results in
    place of the skipped ones; the simulator's [perf] tests of the same source, where its grader
    was built, for the comparison in record["ncu"]. Every run is in the grading's sandbox, as the
    other tests are, and judged the same way (tests.judge)."""
    from .common import env_int
    from .tests import judge, run_case

    run, work = sub / "run", sub / "ncu"
    scratch = work / "scratch"
    timeout = env_int("GRADE_TIMEOUT", 600)
    info = {"counted_by": "Nsight Compute on the GPU", "error": "", "simulator": "",
            "compared": [], "disagree": []}
    record["ncu"] = info
    uid = g.sandbox.acquire_uid()
    try:
        (scratch / "tmp").mkdir(parents=True, exist_ok=True)  # its TMPDIR outside bubblewrap
        g.sandbox.prepare_folder(scratch, uid)

        def perf_cases(side):
            return [c for c in g.perf_cases if side in c["labels"]]

        def graded(side, extra_env):
            out = []
            for case in perf_cases(side):
                result = run_case(g, case, run, scratch, gpu, uid, extra_env=extra_env)
                out.append(judge(case, result, g.skipped_here, g.name_file))
            return out

        grader = run / f"{g.lab}_student_grader"
        try:
            if not grader.exists():
                raise NcuError(f"no GPU grader ({grader.name}) was built")
            # Pass 1: ncu around the grader, both in the sandbox (a split grader starts its worker
            # there, which ncu profiles); the calls file and ncu's CSV are written in its scratch
            # folder. Pass 1 decides no verdict: the counts it yields are the kernels' own.
            calls, raw = scratch / "ncu_calls.txt", scratch / "ncu.csv"
            calls.touch()
            g.sandbox.prepare_folder(scratch, uid)
            case = {"name": "ncu pass 1", "exe": grader.name, "args": ["[perf]", "--order", "decl"],
                    "timeout": timeout, "env": {"HISTO_PERF_NCU": f"collect:{calls}"}}
            wrap = (ncu_command(), "--csv", "--print-units", "base", "--metrics",
                    ",".join(known_metrics(PERF_METRICS)), "--target-processes", "all",
                    "--log-file", str(raw))
            result = run_case(g, case, run, scratch, gpu, uid, timeout=timeout, wrap=wrap)
            (work / "ncu_pass1.log").write_bytes(result.output)
            if b"ERR_NVGPUCTRPERM" in result.output:
                raise NcuError("Nsight Compute may not read the GPU's performance counters as the "
                               "sandbox's unprivileged user (ERR_NVGPUCTRPERM): allow them to every "
                               "user with the NVIDIA driver's option NVreg_RestrictProfilingToAdminUsers=0, "
                               "or grade the cost on the simulator's counters (install clang), or "
                               "--perf none")
            if result.timed_out:
                raise NcuError(f"pass 1 (the [perf] tests under ncu) ran past {timeout} s")
            if result.returncode not in (0, 1, 4) or not raw.is_file():
                tail = result.output.decode("utf-8", errors="replace").splitlines()[-5:]
                raise NcuError(f"pass 1 (the [perf] tests under ncu) failed (exit {result.returncode}): "
                               + " / ".join(tail))
            counts = work / "ncu_counts.txt"
            write_counts(raw, calls, counts)
            # A split grader reads the counts outside the sandbox, from a folder its worker cannot
            # write; a whole one reads them in the sandbox, from its scratch folder.
            if not (run / f"{grader.name}_worker").exists():
                shutil.copyfile(counts, scratch / "ncu_counts.txt")
                counts = scratch / "ncu_counts.txt"
        except NcuError as e:
            info["error"] = str(e)
            record["status"].append(f"[perf] not counted by Nsight Compute: {e}")
            return
        gpu_tests = graded("gpu", {"HISTO_PERF_NCU": str(counts)})
        by_name = {t["name"]: t for t in gpu_tests}
        record["tests"] = [by_name.pop(t["name"], t) for t in record["tests"]] + list(by_name.values())
        gpu_lines = [l for t in gpu_tests for l in perf_lines(t.pop("printed"), t["name"])]

        sim_lines, missing = [], "no simulator build of this submission"
        if list(run.glob(f"{g.lab}_student*_sim_grader")):
            simulated = graded("sim", {})
            sim_lines = [l for t in simulated for l in perf_lines(t.pop("printed"), t["name"])]
            skipped = [t.get("skip_reason", "") for t in simulated if t["result"] == "skipped"]
            missing = skipped[0] if skipped else "its [perf] tests printed no value"
        info["simulator"] = "counted" if sim_lines else missing
        rows = compare(sim_lines, gpu_lines, missing)
        info["compared"], info["disagree"] = rows, disagreements(rows)
        # Each [perf] test says where the simulator's verdict differs.
        for t in gpu_tests:
            notes = [f"  {r['counter']} on {r['data']}: simulator {r['simulator']['value']:.4g} "
                     f"({r['simulator']['verdict']}), GPU {r['gpu']['value']:.4g} ({r['gpu']['verdict']})"
                     for r in info["disagree"] if r["test"] == case_name(t["name"])]
            if notes:
                t["output"] += ("\nThe CPU simulator's verdict differs from the GPU's (Nsight Compute) "
                                "here; the GPU's grades:\n" + "\n".join(notes) + "\n")
    finally:
        g.sandbox.release_uid(uid)
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    what, args = argv[0], argv[1:]
    try:
        if what == "metrics":
            known = known_metrics()
            for m in METRICS:
                if m not in known:
                    print(f"   ncu does not know {m} here: left out", file=sys.stderr)
            print("\n".join(known))
        elif what == "table":
            table(Path(args[0]), args[1], args[2], args[3:])
        elif what == "group":
            groups = write_counts(*args[:3])
            print(f"{args[2]}: {len(groups)} call(s)")
        elif what == "passes":
            grader, out_dir = Path(args[0]).resolve(), Path(args[1])
            counts = pass1(grader, out_dir)
            pass2 = out_dir / "pass2.log"
            pass2.unlink(missing_ok=True)
            gpu = run_perf(grader, dict(os.environ, HISTO_PERF_NCU=str(counts.resolve())), log=pass2)
            sim, missing = [], "no simulator grader given"
            if len(args) > 2:
                sim = run_perf(Path(args[2]).resolve())
                missing = "its [perf] tests printed no value (see their output)"
            print(describe(compare(sim, gpu, missing)))
        elif what == "compare":
            sim = perf_lines(Path(args[0]).read_text(errors="replace"))
            gpu = perf_lines(Path(args[1]).read_text(errors="replace"))
            print(describe(compare(sim, gpu)))
        else:
            print(__doc__)
            return 2
    except NcuError as e:
        print(f"ncu.py {what}: {e}", file=sys.stderr)
        return 1
    return 0


def table(raw, out, size, metrics):
    """scripts/gpu_check.sh --part ncu's counters.csv: one row per kernel and dataset (one ncu CSV each, named
    LAB_KERNEL_DATASET.csv, of one profiled kernel), one column per metric."""
    rows = []
    for f in sorted(raw.glob("*.csv")):
        kernel_file, dataset = f.stem.rsplit("_", 1)
        lab, _, name = kernel_file.partition("_")
        kernels = parse_csv(f.read_text(errors="replace"))
        k = kernels[-1] if kernels else {"name": "", "grid": "", "block": "", "metrics": {}}
        values = {m: f"{v:.15g}" for m, v in k["metrics"].items()}
        rows.append({"kernel": f"{lab}/{name}", "dataset": dataset, "size": size,
                     "cuda_kernel": k["name"], "grid": k["grid"], "block": k["block"],
                     **{m: values.get(m, "") for m in metrics}})
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["kernel", "dataset", "size", "cuda_kernel", "grid",
                                          "block", *metrics])
        w.writeheader()
        w.writerows(rows)
    print(f"{out}: {len(rows)} kernel x dataset rows, {len(metrics)} metrics")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
