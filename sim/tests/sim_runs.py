"""How the validation scripts (compare_counters.py, compare_predictions.py) run the simulator's
benchmark: in as many processes as there are cores, the datasets dealt among them."""
import subprocess


def run_split(bench, args, datasets, out, jobs):
    """Runs `bench args --datasets ... --csv ...` in up to `jobs` processes, the datasets dealt
    among them, and joins their CSVs into `out`. Returns (exit code, stdout of the first)."""
    groups = [datasets[i::jobs] for i in range(min(jobs, len(datasets)))]
    procs = []
    for i, group in enumerate(groups):
        part = f"{out}.{i}"
        procs.append((part, subprocess.Popen([bench, *args, "--datasets", ",".join(group), "--csv", part],
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    first_out, rc = "", 0
    with open(out, "w") as joined:
        for i, (part, proc) in enumerate(procs):
            stdout, stderr = proc.communicate()
            if i == 0:
                first_out = stdout
            if proc.returncode != 0:
                rc = proc.returncode
                first_out += stdout + stderr
                continue
            lines = open(part).read().splitlines(True)
            joined.writelines(lines if i == 0 else lines[1:])
    return rc, first_out
