"""Slurm: one array task per batch of submissions (each a `grade.py run --task`), then a job that
gathers grades.csv after all of them."""
import os
import shlex
import subprocess
import sys
from pathlib import Path

from .batch import grading_seed
from .common import GRADING
from .submissions import list_submissions

def submit_slurm(args, entries):
    """One array task per batch of --per-task submissions, then a gather job after all of them."""
    out = Path(args.out).resolve()
    jobs = out / "slurm"
    jobs.mkdir(parents=True, exist_ok=True)
    if not entries:
        sys.exit(f"no submission in {args.submissions}")
    tasks = (len(entries) + args.per_task - 1) // args.per_task
    list_submissions(out, entries)
    me = shlex.quote(str(GRADING / "grade.py"))
    passed = []
    for opt in ("engine", "preset", "labels", "gpus", "perf"):
        if getattr(args, opt, None) is not None:
            passed += [f"--{opt}", shlex.quote(getattr(args, opt))]
    for flag in ("force", "ncu"):
        if getattr(args, flag, False):
            passed.append(f"--{flag}")
    if getattr(args, "sandbox", None):
        passed += ["--sandbox", args.sandbox]
    if getattr(args, "no_sandbox", False):
        passed.append("--no-sandbox")
    subs = shlex.quote(str(Path(args.submissions).resolve()))
    # One secret seed for the whole array: every task grades on the same inputs.
    seed = grading_seed()
    (jobs / "task.sbatch").write_text(f"""#!/bin/bash
#SBATCH --job-name=grade-{args.lab}
#SBATCH --output={jobs}/task-%a.log
# One array task grades submissions [task * {args.per_task}, (task + 1) * {args.per_task}) in a
# build slot of its own, on node-local scratch where the cluster gives one.
export GRADE_SEED={seed}
slots="${{TMPDIR:-/tmp}}/histo-grading-${{SLURM_ARRAY_JOB_ID}}-${{SLURM_ARRAY_TASK_ID}}"
python3 {me} run {args.lab} {subs} {shlex.quote(str(out))} --task "$SLURM_ARRAY_TASK_ID" \\
  --per-task {args.per_task} --slots-dir "$slots" --build-slots 1 --no-gather {' '.join(passed)}
rc=$?
rm -rf "$slots"
exit $rc
""")
    os.chmod(jobs / "task.sbatch", 0o600)  # it holds the secret seed
    (jobs / "gather.sbatch").write_text(f"""#!/bin/bash
#SBATCH --job-name=gather-{args.lab}
#SBATCH --output={jobs}/gather.log
python3 {me} gather {shlex.quote(str(out))}
""")
    extra = shlex.split(args.sbatch_args)
    gres = [] if args.gres in ("", "none") else [f"--gres={args.gres}"]
    array = subprocess.run(["sbatch", "--parsable", f"--array=0-{tasks - 1}", *gres, *extra,
                            str(jobs / "task.sbatch")], capture_output=True, text=True)
    if array.returncode != 0:
        sys.exit(f"sbatch failed: {array.stderr.strip()}")
    array_id = array.stdout.strip().split(";")[0]
    # afterany: the grades are gathered whatever happened to single tasks.
    gather_job = subprocess.run(["sbatch", "--parsable", f"--dependency=afterany:{array_id}",
                                 *extra, str(jobs / "gather.sbatch")], capture_output=True, text=True)
    if gather_job.returncode != 0:
        sys.exit(f"sbatch (gather) failed: {gather_job.stderr.strip()}")
    gather_id = gather_job.stdout.strip().split(";")[0]
    (jobs / "jobs").write_text(f"array {array_id}\ngather {gather_id}\n")
    print(f"submitted {len(entries)} submission(s) as array job {array_id} ({tasks} task(s)); "
          f"gather job {gather_id} writes {out / 'grades.csv'}")
    return 0
