"""What every part of the grading shares: where the course is, output limits, small helpers."""
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GRADING = ROOT / "grading"
# What a student sees of one test's output, and of a compiler's complaints.
OUTPUT_LIMIT = 8000
BUILD_LOG_LIMIT = 200_000
# A test whose captured output passes this is recorded as printing too much.
HUGE_OUTPUT = 1_000_000
# Largest file a test run may write (bytes): stops a runaway writer filling the disk.
FILE_SIZE_LIMIT = 256 * 1024 * 1024

print_lock = threading.Lock()


def say(*args):
    with print_lock:
        print(*args, flush=True)


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


def lab_folder(lab):
    found = sorted(p.name for p in ROOT.glob(f"{lab}_*") if p.is_dir())
    if not re.fullmatch(r"lab\d\d", lab) or not found:
        sys.exit(f"unknown lab '{lab}': expected lab01 ... lab06")
    return found[0]


def detect_gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    if out.returncode != 0:
        return []
    gpus = [line for line in out.stdout.splitlines() if line.startswith("GPU ")]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [v for v in visible.split(",") if v.strip()]
    return [str(i) for i in range(len(gpus))]


# The cores this process may use (a Slurm task or a container may have fewer than the machine).
def usable_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def truncate(text, limit):
    if len(text) <= limit:
        return text
    half = limit // 2
    return (text[:half] + f"\n[... {len(text) - limit} characters cut ...]\n" + text[-half:])


def within(path, folder):
    try:
        Path(path).relative_to(folder)
        return True
    except ValueError:
        return False


def write_private(path, data):
    """Writes a grader's file that only the grader reads (mode 0600, whatever the umask)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(data.encode() if isinstance(data, str) else data)


def private_folder(path):
    """A grader's folder that only the grader enters (mode 0700), its parents made as usual."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir(mode=0o700, exist_ok=True)
    path.chmod(0o700)
    return path
