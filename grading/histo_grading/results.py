"""Results: points per test (grading/points/LAB.toml), each submission's results.json
(Gradescope's format, the grading status in extra_data), and grades.csv over all of them.

Functions of one grading run (a batch.Grading, `g`).
"""
import csv
import fnmatch
import io
import json
import time
from pathlib import Path

from .common import GRADING, OUTPUT_LIMIT, say, truncate, write_private
from .submissions import STUDENTS

# What a student reads about the engine that graded the submission.
ENGINE_NOTES = {
    "gpu": "Graded on a GPU: the CPU checks, and your kernels on the GPU.",
    "sim": "Graded by the CPU simulator: the CPU checks, and your kernels run on the CPU one CUDA "
           "thread at a time (tests it cannot run, such as inputs larger than its 1 GiB device, "
           "are graded separately on a GPU).",
    "cpu": "CPU checks only: no kernel ran here; your kernels are graded separately.",
}


def first_line(text):
    return next((l.strip() for l in text.splitlines() if l.strip()), "no reason given")


def reasons(not_graded, limit=3):
    """The distinct reasons of not-graded tests, most common first, with their counts."""
    counted = {}
    for n in not_graded:
        why = n["why"].replace("skipped here (not graded): ", "").split("; ")[0]
        why = why if len(why) <= 110 else why[:107] + "..."
        counted[why] = counted.get(why, 0) + 1
    ranked = sorted(counted.items(), key=lambda kv: -kv[1])
    text = "; ".join(f"{why} ({k})" for why, k in ranked[:limit])
    return text + (f"; and {len(ranked) - limit} other reason(s)" if len(ranked) > limit else "")


def read_toml(path):
    try:
        import tomllib  # Python 3.11 and newer
        with open(path, "rb") as f:
            return tomllib.load(f)
    except ImportError:
        pass
    # Older Pythons (cluster nodes): the subset the points files use, `key = value` lines and
    # [[test]] tables, with strings and numbers as values.
    data, table = {}, None
    for raw in Path(path).read_text().splitlines():
        line = raw.split(" #")[0].strip() if not raw.strip().startswith("#") else ""
        if not line:
            continue
        if line == "[[test]]":
            table = {}
            data.setdefault("test", []).append(table)
            continue
        key, _, value = (part.strip() for part in line.partition("="))
        value = value[1:-1] if value.startswith('"') else float(value)
        (table if table is not None else data)[key] = value
    return data


def load_points(lab):
    path = GRADING / "points" / f"{lab}.toml"
    config = {"default": 1.0, "visibility": "visible", "tests": []}
    if path.exists():
        data = read_toml(path)
        config["default"] = float(data.get("default", 1.0))
        config["visibility"] = data.get("visibility", "visible")
        config["tests"] = data.get("test", [])
    return config


def points_for(name, config):
    for rule in config["tests"]:
        if fnmatch.fnmatchcase(name, rule["pattern"]):
            return float(rule.get("points", config["default"])), rule.get("visibility", config["visibility"])
    return config["default"], config["visibility"]


# What the graders say when a launcher's bins were not counted by a kernel (compare_bins with a
# work problem, common/src/grading.cpp), as a status.
NOT_COUNTED = "the bins were not counted by a kernel"


def counted_elsewhere(tests):
    said = " ".join(" ".join(t["output"].split()) for t in tests if t["result"] == "failed"
                    and NOT_COUNTED in t["output"])
    if not said:
        return ""
    how = []
    if "no kernel was launched" in said:
        how.append("no kernel launched")
    if "the host wrote into the output" in said:
        how.append("bins copied in from the host (cudaMemcpy into d_bins)")
    if "of device memory to the host during the graded call" in said:
        how.append("device memory copied to the host during the call (cudaMemcpy from d_in)")
    if "host code touched device memory" in said:
        how.append("host code read or wrote device memory directly (d_in, d_bins)")
    return "counts on the host, not in its kernel: " + ", ".join(how or ["see the kernel tests"])



def finish(g, sub, record, source, start):
    tests = {t["name"]: t for t in record["tests"]}
    if record.get("not_run"):
        note = f"not run: {record['not_run']}"
    elif not record["built"]:
        note = "not run: the submission does not compile"
    else:
        note = "not run: the test run was stopped (time limit)"
    for name in g.expected:
        if name in tests:
            continue
        if name in g.skipped_here:
            tests[name] = {"name": name, "result": "skipped", "output": g.skipped_here[name]}
        else:
            tests[name] = {"name": name, "result": "failed", "output": note}
    # The submission's own time: its build and its tests, not its waits behind other submissions.
    elapsed = time.time() - start - record.get("queued_s", 0)
    results = results_json(g, record, list(tests.values()), source, elapsed)
    write_private(sub / "results.json", json.dumps(results, indent=1) + "\n")
    extra = results["extra_data"]
    say(f"{record['submission']}: {results['score']:g}/{extra['max_score']:g} {extra['status']}")
    return results


# The [perf] tests (the simulator's counters against a lab's cost bounds) are named "cost: ...":
# their points are shown apart from the correctness points.
PERFORMANCE_NAME = ": cost: "
# Private tests (grading/private/, named "private: ...") are extra credit: their points add to
# the score, never to the maximum, so that a lab's maximum is the same where they run (the batch
# grader, Gradescope) and where they do not (GitHub Classroom, which has no private test).
PRIVATE_NAME = ": private: "


def kind_of(name):
    if PRIVATE_NAME in name:
        return "extra_credit"
    return "performance" if PERFORMANCE_NAME in name else "correctness"


def cost_not_counted(g, record, tests):
    """Where what should count the cost did not (Nsight Compute failed on this submission), its
    cost tests count as failed, saying why: the maximum stays the lab's."""
    error = (record.get("ncu") or {}).get("error")
    if not error:
        return
    for t in tests:
        if PERFORMANCE_NAME in t["name"] and t["result"] == "skipped":
            t["result"] = "failed"
            t["output"] = (f"NOT COUNTED: Nsight Compute counted nothing for this submission "
                           f"({error}); this cost test earns no points\n\n" + t["output"])


def results_json(g, record, tests, source, elapsed):
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    gs_tests, score, max_score = [], 0.0, 0.0
    parts = {kind: {"score": 0.0, "max_score": 0.0, "passed": 0, "failed": 0}
             for kind in ("correctness", "performance", "extra_credit")}
    status = list(record["status"])
    cost_not_counted(g, record, tests)
    # Bins that no kernel counted (the graders' OutputWatch): the lab's work was not done, so
    # no test of this submission scores, not even the CPU checks it passed.
    not_counted = counted_elsewhere(tests)
    if not_counted:
        status.insert(0, not_counted)
        for t in tests:
            if t["result"] == "passed":
                t["result"] = "failed"
                t["output"] = (f"0 points: {not_counted} (see the failing kernel tests); no test "
                               f"of this submission scores\n\n" + t["output"])
    for number, t in enumerate(sorted(tests, key=lambda t: t["name"]), 1):
        points, visibility = points_for(t["name"], g.points)
        counts[t["result"]] += 1
        entry = {"name": t["name"], "number": str(number), "visibility": visibility,
                 "output": truncate(g.course_paths(t["output"]), OUTPUT_LIMIT),
                 "output_format": "text"}
        kind = kind_of(t["name"])
        if t["result"] == "skipped":
            # Skipped is neither passed nor a student's fault: shown, worth nothing here.
            entry.update(score=0.0, max_score=0.0)
        else:
            # Extra credit: Gradescope shows points over a maximum of 0 as such.
            top = 0.0 if kind == "extra_credit" else points
            entry.update(score=points if t["result"] == "passed" else 0.0, max_score=top,
                         status=t["result"])
            score += entry["score"]
            max_score += top
            part = parts[kind]
            part["score"] += entry["score"]
            part["max_score"] += points
            part[t["result"]] += 1
        entry["tags"] = [kind]
        gs_tests.append(entry)
    races = sorted({t["race"] for t in tests if t.get("race")})
    box = g.sandbox.mode if g.sandbox else None
    status += [r for r in races if r not in status]
    for flag in ("timed out", "crashed", "prints megabytes"):
        if any(t.get(flag) for t in tests) and flag not in status:
            status.append(flag)
    if not status:
        status = ["ok"] if counts["failed"] == 0 and counts["passed"] else []
        if counts["failed"]:
            status = [f"fails {counts['failed']} test(s)"]
        if not counts["passed"] and not counts["failed"]:
            status = ["all skipped: no GPU"]
        elif counts["skipped"]:
            status.append(f"{counts['skipped']} skipped (not graded)")
    # Which tests were not graded here, and why: skipped ones (with their reason) and those this
    # engine does not run.
    not_graded = [{"test": t["name"], "why": t.get("skip_reason") or first_line(t["output"])}
                  for t in sorted(tests, key=lambda t: t["name"]) if t["result"] == "skipped"]
    not_graded += [{"test": name, "why": why} for name, why in sorted(g.not_selected.items())]
    if box == "none":
        status.append("not sandboxed")
    summary = [f"{g.lab}: {score:g} of {max_score:g} points ({'; '.join(status)})."]
    counted = g.settings.cost_counted_by
    if parts["performance"]["max_score"]:
        c, p = parts["correctness"], parts["performance"]
        summary.append(f"Correctness {c['score']:g} of {c['max_score']:g}; performance (the cost "
                       f"tests, counted by {counted or 'nothing'}) {p['score']:g} of "
                       f"{p['max_score']:g}.")
    elif g.settings.perf == "none":
        summary.append("The cost tests were not graded here (--perf none): your grade may count "
                       "them elsewhere.")
    if parts["extra_credit"]["max_score"]:
        x = parts["extra_credit"]
        summary.append(f"Extra credit (private tests, on top of the maximum): {x['score']:g} of "
                       f"{x['max_score']:g}.")
    if record.get("ncu", {}).get("disagree"):
        rows = record["ncu"]["disagree"]
        summary.append(f"The CPU simulator and the GPU disagree on {len(rows)} [perf] bound(s): " +
                       "; ".join(f"{r['test']} ({r['data']}): {r['note']}" for r in rows) + ".")
    if "build_output" in record:
        summary.append("Your file did not compile:\n" + record["build_output"])
    summary.append(ENGINE_NOTES[g.engine])
    if not_graded:
        summary.append(f"Not graded here: {len(not_graded)} test(s): {reasons(not_graded)}.")
    return {
        "score": round(score, 4),
        "execution_time": round(elapsed, 1),
        "output": "\n".join(summary),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": gs_tests,
        "extra_data": {
            "submission": record["submission"], "lab": g.lab, "built": record["built"],
            "passed": counts["passed"], "failed": counts["failed"],
            "skipped": counts["skipped"], "max_score": round(max_score, 4),
            "status": "; ".join(status),
            # Correctness and performance ([perf], "cost: ...") points apart.
            "correctness": {k: round(v, 4) if isinstance(v, float) else v
                            for k, v in parts["correctness"].items()},
            "performance": {k: round(v, 4) if isinstance(v, float) else v
                            for k, v in parts["performance"].items()},
            # Private tests: points on top of max_score.
            "extra_credit": {k: round(v, 4) if isinstance(v, float) else v
                             for k, v in parts["extra_credit"].items()},
            # What counted the cost tests ("" where none ran): the simulator's counters of the
            # source, or Nsight Compute on the GPU.
            "cost_counted_by": counted if parts["performance"]["max_score"] else "",
            "source_sha256": source.sha256 if source else "",
            "source": source.name if source else "",
            # What graded it: "already graded" holds only for the same source and key.
            "engine": g.settings.engine_name,
            "preset": g.preset,
            "labels": g.labels,
            "grading_sha256": g.key,
            # How the submission's code ran (grading/histo_grading/sandbox.py): bwrap, user, none.
            "sandbox": box,
            "not_graded": not_graded,
            # Which GPU ran the tests, and when: shows that no two submissions shared one.
            "gpu": record.get("gpu"),
            # GRADE_NCU=1: the [perf] tests' counts by Nsight Compute, compared with the
            # simulator's (histo_grading/ncu.py, compare()).
            **({"ncu": record["ncu"]} if record.get("ncu") else {}),
            "test_window": [round(t, 2) for t in record.get("test_window", [])],
            # Seconds it waited for a build slot and for its turn to run tests (not in
            # execution_time).
            "queued_s": round(record.get("queued_s", 0), 1),
        },
    }


def gather(out):
    out = Path(out)
    rows = []
    for path in sorted((out / STUDENTS).glob("*/results.json")):
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError:
            continue
        e = data["extra_data"]
        not_graded = e.get("not_graded", [])
        rows.append([e["submission"], "yes" if e["built"] else "no", e["passed"], e["failed"],
                     e["skipped"], f"{data['score']:g}", f"{e['max_score']:g}", e.get("engine", ""),
                     f"{len(not_graded)}: {reasons(not_graded, 2)}" if not_graded else "0",
                     e["status"]])
    # A submission listed for grading but without results (a Slurm task that died, say).
    listed = out / "submissions.txt"
    if listed.exists():
        have = {r[0] for r in rows}
        for name in listed.read_text().split("\n"):
            if name and name not in have:
                rows.append([name, "no", 0, 0, 0, "0", "", "", "",
                             "not graded: no results.json (see the logs)"])
        rows.sort()
    table = io.StringIO(newline="")
    w = csv.writer(table)
    w.writerow(["submission", "built", "passed", "failed", "skipped", "score", "max_score",
                "engine", "not_graded", "status"])
    w.writerows(rows)
    write_private(out / "grades.csv", table.getvalue())
    return rows
