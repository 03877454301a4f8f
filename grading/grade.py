#!/usr/bin/env python3
"""Grades students' versions of one lab: many at once, on Gradescope, or as Slurm array tasks.

usage:
  grade.py run    LAB SUBMISSIONS OUT [--engine gpu|sim|cpu] [--force] [--gpus LIST|none] ...
  grade.py one    LAB SUBMISSION_DIR OUT [--results FILE]      (Gradescope: one submission)
  grade.py slurm  LAB SUBMISSIONS OUT [--per-task B] [--sbatch-args "..."]
  grade.py gather OUT                                          (grades.csv from every result)

SUBMISSIONS holds one entry per student: a folder with the lab's source file somewhere inside
(e.g. alice/lab03_global_atomics.cu) or a file <student>.cu. Only that one source is taken from
a submission: its other files (headers, graders, CMake files) are never used.

How it works. A build slot is a private copy of the course tree, configured once and built once
with the shipped skeleton (that builds common/ and tells which tests exist). To grade a
submission, a slot is restored to the course's files, the student source is copied in, and only
the lab's student grader targets are rebuilt. The graders and their CTest files are then copied
into a folder of the submission's own (staged where the sandbox's runs can reach it), the slot is
freed for the next build, and the lab's tests run there, holding one GPU (CUDA_VISIBLE_DEVICES) so that two submissions never
share a GPU. Builds run in parallel on the CPU cores while other submissions hold the GPUs.
Without a GPU the kernels run in the CPU simulator. The code is in grading/histo_grading/:
submissions (what is taken from a submission), reads (what its build may read), slots, tests
(running them), results (points, results.json, grades.csv), engines, batch (one run), slurm.

Per submission OUT/students/<student>/ gets results.json (Gradescope's format, with the grading
status in extra_data) and build.log; OUT/grades.csv sums them up. The grader's own files
(grades.csv, submissions.txt, timing.json, slots/, slurm/) are beside students/, out of any
student name's reach; a name that is no safe folder name is escaped (%XX), and several entries
for one student (alice/ and alice.cu, Alice/ and alice/) are graded as none, with a status
saying so. A submission
that does not compile, crashes, runs past its time, prints megabytes, or writes files outside
its folder is recorded as such, and so is one that is not the student's own work (a link, an
include of a file it may not read, bins counted on the host: grading/README.md); nothing a
submission does stops the batch. A submission already graded (the same source, with the same
engine, labels, points file and graders) is skipped unless --force.

Settings (options, or the environment):
  --engine / GRADE_ENGINE        what runs the kernels: gpu (the GPUs; the default with a GPU),
                                 sim (the CPU simulator; the default without one), cpu (CPU
                                 checks only). It sets the preset and labels below unless given.
  --preset / GRADE_PRESET        CMake configure preset (gpu: student-gpu; sim and cpu: sim; e.g.
                                 sim-tsan reports races as "races (...)"); alone it implies its
                                 engine (sim* the simulator)
  --labels / GRADE_LABELS        CTest labels a test must carry besides LAB, all required; "a|b"
                                 takes either (gpu: "cpu|gpu"; sim: "cpu|sim"; cpu: "cpu")
  --gpus / GRADE_GPUS            GPU ids to use, comma-separated, or "none" (default: every GPU
                                 nvidia-smi lists, else none)
  --build-slots / GRADE_BUILD_SLOTS  parallel builds (default: half the CPU cores, 1 to 8)
  --perf / GRADE_PERF            what counts the cost tests ([perf], "cost: ..."), graded by
                                 every engine that runs kernels: sim (the CPU simulator's
                                 counters of the same source; needs Clang; the sim engine's, and
                                 the gpu engine's where clang++ is found), ncu (Nsight Compute on
                                 the GPU: the gpu engine's without clang++), none (not graded;
                                 sim-tsan's and sim-asan's, whose builds have no counters)
  --ncu / GRADE_NCU=1            --perf ncu: the [perf] tests graded on Nsight Compute's
                                 counters of the kernels on the GPU, and compared with the
                                 simulator's where Clang builds it (extra_data.ncu); needs ncu
                                 on PATH and a GPU
  GRADE_TEST_TIMEOUT             seconds per test before it counts as hanging (default 120)
  GRADE_TIMEOUT                  seconds for one submission's whole test run (default 600)
  GRADE_BUILD_TIMEOUT            seconds for one build (default 600)
  GRADE_CMAKE_ARGS               extra configure arguments, e.g. -DCMAKE_CUDA_ARCHITECTURES=90-real
  --slots-dir / GRADE_SLOTS_DIR  the build slots' folder (default OUT/slots), shared by gradings
                                 of the same settings (one at a time); a root grader's sandboxed
                                 runs must reach it (else the grading stops before it starts;
                                 the default OUT/slots then moves to the stage below instead)
  GRADE_STAGE_DIR                where each grading stages its runs' folders (default: the
                                 system's temporary folder), removed at its end
  --sandbox / GRADE_SANDBOX      how submissions' code (its build and tests) runs: auto (the
                                 default: bubblewrap, else an unprivileged user when the grader is
                                 root, else grading refuses to start), bwrap, user
  --no-sandbox                   runs it unprotected, as the grader's own user: only for code
                                 you trust; every result then says "not sandboxed"
  GRADE_SANDBOX_UID              first uid a root grader runs submissions as (default 61000)
  RACECHECK=1                    also run compute-sanitizer racecheck (GPU) on small inputs
Points per test: grading/points/LAB.toml (see grading/points/README.md).
"""
import argparse
import os
import shutil
import sys
from pathlib import Path

sys.dont_write_bytecode = True  # the course tree stays as it is while submissions' tests run
sys.path.insert(0, str(Path(__file__).resolve().parent))
from histo_grading import batch, results, slurm  # noqa: E402
from histo_grading.common import say  # noqa: E402
from histo_grading.submissions import list_submissions, student_dir, submissions_of  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)

    def common(q):
        q.add_argument("--engine", choices=["gpu", "sim", "cpu"],
                       help="what runs the kernels (default: gpu with a GPU, else sim)")
        q.add_argument("--preset")
        q.add_argument("--labels")
        q.add_argument("--gpus")
        q.add_argument("--build-slots", type=int)
        q.add_argument("--force", action="store_true", help="grade again what was graded")
        q.add_argument("--perf", choices=["sim", "ncu", "none"],
                       help="what counts the cost tests (default: sim, or ncu on a GPU machine "
                            "without clang++)")
        q.add_argument("--ncu", action="store_true",
                       help="GRADE_NCU=1: the [perf] tests on Nsight Compute's counters (gpu engine)")
        q.add_argument("--sandbox", choices=["auto", "bwrap", "user"],
                       help="how submissions' code runs (default auto: bubblewrap, else an "
                            "unprivileged user when root, else refuse)")
        q.add_argument("--no-sandbox", action="store_true",
                       help="run submissions' code unprotected; every result says \"not sandboxed\"")

    r = sub.add_parser("run", help="grade every submission in a folder")
    r.add_argument("lab"), r.add_argument("submissions"), r.add_argument("out")
    r.add_argument("--task", type=int, help="Slurm array task: grade only batch TASK")
    r.add_argument("--per-task", type=int, default=1)
    r.add_argument("--slots-dir", default=os.environ.get("GRADE_SLOTS_DIR"))
    r.add_argument("--no-gather", action="store_true")
    common(r)
    o = sub.add_parser("one", help="grade one submission folder (Gradescope)")
    o.add_argument("lab"), o.add_argument("submission"), o.add_argument("out")
    o.add_argument("--results", help="also copy results.json here")
    o.add_argument("--name", default="submission")
    common(o)
    s = sub.add_parser("slurm", help="submit a Slurm job array and a dependent gather job")
    s.add_argument("lab"), s.add_argument("submissions"), s.add_argument("out")
    s.add_argument("--per-task", type=int, default=int(os.environ.get("GRADE_PER_TASK", "4")))
    s.add_argument("--sbatch-args", default=os.environ.get("GRADE_SBATCH_ARGS", ""))
    s.add_argument("--gres", default=os.environ.get("GRADE_GRES", "gpu:1"),
                   help='per task; "none" for CPU-only grading')
    common(s)
    ga = sub.add_parser("gather", help="write OUT/grades.csv from every OUT/students/*/results.json")
    ga.add_argument("out")
    args = p.parse_args()

    if args.command == "gather":
        rows = results.gather(args.out)
        print(f"{len(rows)} submission(s): {Path(args.out) / 'grades.csv'}")
        return 0
    if args.command == "one":
        args.force = True
        g = batch.run(args, [(args.name, Path(args.submission))])
        if args.results:
            shutil.copyfile(student_dir(args.out, args.name) / "results.json", args.results)
        return 0
    if args.command == "slurm":
        return slurm.submit_slurm(args, submissions_of(args.submissions))
    entries = submissions_of(args.submissions)
    if args.task is None:
        list_submissions(args.out, entries)
    else:
        entries = entries[args.task * args.per_task:(args.task + 1) * args.per_task]
    g = batch.run(args, entries, args.slots_dir)
    if not args.no_gather:
        rows = results.gather(args.out)
        table = [["submission", "built", "passed", "failed", "skipped", "score", "max", "engine"]]
        table += [r[:8] for r in rows]
        width = [max(len(str(r[i])) for r in table) for i in range(8)]
        for r, full in zip(table, [["status"] * 10] + rows):
            say("  ".join(str(c).ljust(w) for c, w in zip(r, width)) + "  " + full[9])
        say(g.summary())
        say(f"grades: {Path(args.out).resolve() / 'grades.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
