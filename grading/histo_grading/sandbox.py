"""The sandbox every run of a submission's code goes through: its build, and each of its tests.

A submission's code is linked into the grader, so it runs wherever the grader runs. Each run
therefore gets, in the mode the machine allows (`probe()` picks it once per grading run):

  bwrap  bubblewrap (Debian/Ubuntu `bubblewrap`): new user, PID, mount, network, IPC, UTS and
         cgroup namespaces; a root file system that holds only the system's read-only folders,
         the folders the run needs (read-only: the built graders; read-write: one scratch
         folder) and a private /tmp; no network; as an unprivileged user (a uid of its own per
         concurrent run when the grader is root, else the grader's own uid mapped in a user
         namespace). Its PID namespace ends with the run: every process it started, a daemon
         that called setsid included, is killed by the kernel before the parent reads a result.
  user   root where namespaces are refused (a container such as Gradescope's): the run is
         switched to an unprivileged uid of its own, with no new privileges, and every process
         of that uid is killed after the run. It sees what that uid may see of the machine
         (world-readable files), writes only its scratch folder and /tmp.
  none   no sandbox, only when the instructor asks for it (--no-sandbox): every result says
         "not sandboxed".

In every mode: resource limits (CPU seconds, address space where the engine allows it, file
size, processes, open files, no core files), a clean environment with only what the parent
sets, a wall-clock limit after which everything is killed, output read through a pipe and cut,
and the verdict's report (Catch2's XML) read through a second pipe, fd 3, that only the grader's
own reporter writes to. The parent writes every result; nothing of the sandbox is trusted but
those two streams, read by the parent while the run lasts.
"""
import contextlib
import os
import pwd
import queue
import resource
import selectors
import shutil
import signal
import stat
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from .common import FILE_SIZE_LIMIT, env_int

MODES = ("bwrap", "user", "none")
# What a student reads about the mode that ran their code.
MODE_NOTES = {
    "bwrap": "sandboxed (bubblewrap: its own namespaces, a read-only view, no network, limits)",
    "user": "sandboxed as an unprivileged user (no namespaces here), with limits",
    "none": "not sandboxed (the instructor ran the grader with --no-sandbox)",
}
# System folders every run sees, read-only (those that exist).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What a test run needs of /etc: the dynamic loader's cache (the GPU driver's libraries).
TEST_ETC = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives")
# The first uid of the unprivileged users a root grader runs submissions as (one per
# concurrent run); GRADE_SANDBOX_UID overrides it.
DEFAULT_UID = 61000
OUTPUT_KEEP = 2_000_000     # bytes of a run's output kept
OUTPUT_KILL = 64_000_000    # a run that prints more is stopped
REPORT_LIMIT = 16_000_000   # bytes of a report read
GPU_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")


@dataclass
class Limits:
    cpu_s: int = 600                    # CPU seconds per process (the wall limit is the parent's)
    address_space: int | None = 16 << 30  # None: no limit (CUDA, sanitizers reserve terabytes)
    file_size: int = FILE_SIZE_LIMIT
    processes: int = 256                # tasks (threads count) besides what the user has running
    open_files: int = 1024
    # Per run, all its processes together (RunWatch): CPU seconds, bytes it adds to its
    # writable folders (and, in the user mode, to the shared temporary folders), and its private
    # /tmp's size (bubblewrap's tmpfs, which is memory). None: no such limit.
    run_cpu_s: float | None = None
    disk: int | None = 1 << 30
    tmpfs: int = 512 << 20
    cores: int | None = 1               # the cores it may run on (None: all the grader's)


# What a student reads when a run is stopped at one of its limits (RunWatch.over).
LIMIT_NAMES = {
    "cpu": "more than {run_cpu_s:g} s of CPU (all its processes together)",
    "disk": "more than {disk_mb} MB of files",
}


@dataclass
class Result:
    returncode: int | None = None  # None: killed by the parent (time limit, output limit)
    timed_out: bool = False
    output: bytes = b""            # stdout and stderr, cut at OUTPUT_KEEP
    output_bytes: int = 0          # how much it printed in all
    report: bytes = b""            # what arrived on fd 3
    seconds: float = 0.0
    problem: str = ""              # the sandbox could not run it: why
    limit: str = ""                # stopped at a limit of the run (LIMIT_NAMES): which, in words
    cpu_s: float = 0.0             # CPU seconds its processes used, as last seen
    stopped: bool = False          # ended because its counterpart was done (run's `stop`)


@dataclass
class Sandbox:
    mode: str
    gpu: bool = False              # give the run the GPU's device files
    uids: list = field(default_factory=list)  # pool of uids for concurrent runs (root only)

    @property
    def note(self):
        return MODE_NOTES[self.mode]

    def __post_init__(self):
        self.free = queue.Queue()
        for uid in self.uids:
            self.free.put(uid)

    def acquire_uid(self):
        """A uid no other run uses now (waits for one); None where the grader is not root (its
        runs keep its own uid, in a user namespace) or the mode runs no one else."""
        if not self.uids:
            return None
        return self.free.get()

    def release_uid(self, uid):
        if uid is not None:
            self.free.put(uid)

    def prepare_folder(self, path, uid):
        """A folder the sandboxed run writes: owned by its user."""
        path.mkdir(parents=True, exist_ok=True)
        if uid is not None:
            for dirpath, dirnames, filenames in os.walk(path):
                for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
                    os.lchown(name, uid, uid)

    def run(self, argv, *, ro=(), rw=(), cwd, env, timeout, limits, etc="tests", uid=None,
            hide=(), channel=None, stop=None, on_start=None):
        """Runs argv in the sandbox. ro / rw: host folders or files that appear at the same path,
        read-only / writable; cwd: the working folder (one of them); env: the whole environment;
        hide: files under ro that the run may not read, their names kept (what CMake globs):
        bwrap puts a device there that its mount cannot open, user makes each unreadable to the
        run's uid for the run, none cannot hide anything.
        channel: two fds (read, write) that become the run's 3 and 4 in place of the report pipe
        (a split grader's worker, whose caller reads what it answers; this call closes them);
        stop: a function that returns the time the run's counterpart ended (None while it
        runs): the run is ended 2 s after it; on_start: called with the cores the run is pinned
        to (None: all) before it starts.
        Returns a Result; the run and everything it started are gone when this returns."""
        with hidden(self.mode, hide):
            return self._run(argv, ro, rw, cwd, env, timeout, limits, etc, uid, hide, channel,
                             stop, on_start)

    def _run(self, argv, ro, rw, cwd, env, timeout, limits, etc, uid, hide, channel=None,
             stop=None, on_start=None):
        read_fd, write_fd = pipe_above(10)
        # Catch2 opens the report by its path (/dev/fd/3), which opens the pipe anew: the run's
        # unprivileged user must be allowed to (only the fds handed out reach this pipe).
        os.fchmod(write_fd, 0o666)
        try:
            cmd, bind_fds = self.command(argv, ro, rw, cwd, env, etc, uid, limits, hide)
        except OSError as e:
            for fd in [read_fd, write_fd, *(channel or [])]:
                os.close(fd)
            return Result(problem=f"the sandbox could not be set up: {e}")
        base_tasks = 0 if uid is not None else user_tasks(os.getuid())

        cores = pick_cores(limits.cores)
        if on_start:
            on_start(cores)

        def child():
            os.setsid()
            if channel:
                # Above 4 first, so that neither lands on the other's place.
                low = [os.dup(fd) if fd <= 4 else fd for fd in channel]
                os.dup2(low[0], 3)
                os.dup2(low[1], 4)
            else:
                os.dup2(write_fd, 3)  # the report pipe is fd 3 in the run
            set_limits(limits, base_tasks)
            if cores:
                os.sched_setaffinity(0, cores)

        start = time.time()
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT,
                                    pass_fds=[3, *([4] if channel else []), *bind_fds],
                                    cwd="/" if self.mode == "bwrap" else str(cwd),
                                    env=minimal_env() if self.mode == "bwrap" else env,
                                    preexec_fn=child)
        except OSError as e:
            return Result(problem=f"the sandbox could not start the run: {e}")
        finally:
            os.close(write_fd)
            for fd in [*bind_fds, *(channel or [])]:
                os.close(fd)
        result, kept, report = Result(), [], []
        streams = {proc.stdout.fileno(): "out", read_fd: "report"}
        sel = selectors.DefaultSelector()
        for fd in streams:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        deadline, ended = start + timeout, None
        watch = RunWatch(proc.pid, uid if self.mode == "user" else None, limits, rw)
        while sel.get_map():
            now = time.time()
            if ended is None:
                result.limit = watch.over(now)
                if result.limit:
                    break
            if ended is None and proc.poll() is not None:
                # The run's own process is done: end whatever it left behind, then read what is
                # still in the pipes (briefly: a process that escaped would hold them open).
                self.end(proc, uid)
                ended = now
            if ended is None and now >= deadline:
                result.timed_out = True
                break
            counterpart = stop() if stop else None
            if ended is None and counterpart is not None and now > counterpart + 2:
                self.end(proc, uid)  # its counterpart is done: nothing it does counts now
                result.stopped = True
                ended = now
            if ended is not None and now > ended + 2:
                break
            if result.output_bytes > OUTPUT_KILL:
                break
            for key, _ in sel.select(0.2):
                try:
                    data = os.read(key.fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not data:
                    sel.unregister(key.fd)
                elif streams[key.fd] == "out":
                    result.output_bytes += len(data)
                    room = OUTPUT_KEEP - sum(map(len, kept))
                    if room > 0:
                        kept.append(data[:room])
                elif sum(map(len, report)) < REPORT_LIMIT:
                    report.append(data)
        sel.close()
        self.end(proc, uid)
        if not result.limit and not result.timed_out:
            result.limit = watch.over(time.time(), last=True)
        os.close(read_fd)
        proc.stdout.close()
        result.cpu_s = watch.cpu_s
        killed = result.timed_out or result.output_bytes > OUTPUT_KILL or bool(result.limit)
        result.returncode = None if killed else proc.returncode
        result.output = b"".join(kept)
        result.report = b"".join(report)[:REPORT_LIMIT]
        result.seconds = time.time() - start
        return result

    def end(self, proc, uid):
        """Kills the run and whatever it started, and waits for it."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
        if uid is not None:
            kill_user(uid)
            if self.mode == "user":
                remove_user_files(uid)

    def command(self, argv, ro, rw, cwd, env, etc, uid, limits, hide=()):
        """The command line that runs argv in this mode, and the folders' fds it must inherit."""
        drop = []
        if uid is not None:
            drop = [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}",
                    "--clear-groups", "--no-new-privs"]
        if self.mode != "bwrap":
            return drop + [str(a) for a in argv], []
        fds = []
        cmd = drop + [bwrap_path(), "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
                      "--disable-userns", "--cap-drop", "ALL", "--clearenv"]
        for d in SYSTEM_DIRS:
            if os.path.islink(d):
                cmd += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                cmd += ["--ro-bind", d, d]
        if etc == "all":
            cmd += ["--ro-bind", "/etc", "/etc"]
        else:
            for f in TEST_ETC:
                cmd += ["--ro-bind-try", f, f]
        # /tmp is memory: its size is bounded (bubblewrap's --size, 0.6 and later).
        cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmpfs), "--tmpfs", "/tmp"]
        if self.gpu:
            devices = set(GPU_DEVICES) | {str(p) for p in Path("/dev").glob("nvidia[0-9]*")}
            for dev in sorted(devices) + ["/dev/nvidia-caps"]:
                if os.path.exists(dev):
                    cmd += ["--dev-bind", dev, dev]
            cmd += ["--ro-bind", "/sys", "/sys"]
        # The run's own folders, at the paths they have here. A root grader opens them itself and
        # hands bubblewrap (running as the unprivileged user) the open folders, so that no folder
        # above them needs to be open to that user.
        for flag, paths in (("--ro-bind", ro), ("--bind", rw)):
            for p in paths:
                if uid is not None:
                    fd = fd_above(os.open(p, os.O_PATH), 10)
                    fds.append(fd)
                    cmd += [flag + "-fd", str(fd), str(p)]
                else:
                    cmd += [flag, str(p), str(p)]
        for p in hide:
            cmd += ["--ro-bind", "/dev/null", str(p)]
        for k, v in env.items():
            cmd += ["--setenv", k, v]
        cmd += ["--chdir", str(cwd), "--", *map(str, argv)]
        return cmd, fds


class RunWatch:
    """The limits of a run as a whole, checked by the parent while it lasts (every process of the
    run counted, however many it starts): CPU seconds, from the kernel's own accounting of each
    process (utime and stime, with what its waited-for children used); bytes added to its
    writable folders. The run's processes are those below its first (bubblewrap's PID namespace
    keeps a daemon there), and in the user mode every process of its uid and its files in the
    shared temporary folders. Checked every half second (CPU) and two seconds (disk): a run can
    pass a limit by that much before it is stopped."""

    def __init__(self, pid, uid, limits, folders):
        self.pid, self.uid, self.limits = pid, uid, limits
        self.folders = [Path(f) for f in folders]
        self.cpu_s, self.next_cpu, self.next_disk = 0.0, 0.0, 0.0
        self.base = folder_bytes(self.folders, uid) if limits.disk is not None else 0

    def over(self, now, last=False):
        """Which limit the run has passed (its words, LIMIT_NAMES), or "". last: the run has
        ended; its files are looked at once more (its processes are gone, their time is in
        cpu_s as last seen)."""
        lim = self.limits
        if last:
            self.next_disk = 0
        if lim.run_cpu_s is not None and now >= self.next_cpu and not last:
            self.next_cpu = now + 0.5
            self.cpu_s = max(self.cpu_s, run_cpu_seconds(self.pid, self.uid))
            if self.cpu_s > lim.run_cpu_s:
                return LIMIT_NAMES["cpu"].format(run_cpu_s=lim.run_cpu_s)
        if lim.disk is not None and now >= self.next_disk:
            self.next_disk = now + 2
            if folder_bytes(self.folders, self.uid) - self.base > lim.disk:
                return LIMIT_NAMES["disk"].format(disk_mb=lim.disk >> 20)
        return ""


_TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid):
    """(ppid, uid, CPU seconds of it and its waited-for children) of a process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        uid = os.stat(f"/proc/{pid}").st_uid
    except (OSError, IndexError):
        return None
    return int(fields[1]), uid, sum(int(x) for x in fields[11:15]) / _TICK


def run_cpu_seconds(pid, uid=None):
    """CPU seconds used by process `pid` and everything below it (and, given a uid, by every
    process of that uid)."""
    procs = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            s = _stat(entry)
            if s:
                procs[int(entry)] = s
    children = {}
    for p, (ppid, _, _) in procs.items():
        children.setdefault(ppid, []).append(p)
    seen, todo = set(), [pid] + [p for p, (_, u, _) in procs.items() if uid is not None and u == uid]
    while todo:
        p = todo.pop()
        if p in seen or p not in procs:
            continue
        seen.add(p)
        todo += children.get(p, [])
    return sum(procs[p][2] for p in seen)


def folder_bytes(folders, uid=None):
    """Bytes of disk the files under `folders` take (and, given a uid, its files in the shared
    temporary folders)."""
    roots = [Path(f) for f in folders]
    if uid is not None:
        for shared in ("/tmp", "/var/tmp", "/dev/shm"):
            try:
                roots += [Path(e.path) for e in os.scandir(shared)
                          if e.stat(follow_symlinks=False).st_uid == uid]
            except OSError:
                pass
    total = 0
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames + dirnames:
                try:
                    total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
                except OSError:
                    pass
        try:
            if not root.is_dir():
                total += root.lstat().st_blocks * 512
        except OSError:
            pass
    return total


_next_core = [0]


def pick_cores(count):
    """`count` of the grader's cores for one run, taken in turn (so that runs side by side get
    different ones); None: no pinning."""
    if not count:
        return None
    mine = sorted(os.sched_getaffinity(0))
    if count >= len(mine):
        return None
    first = _next_core[0]
    _next_core[0] = (first + count) % len(mine)
    return {mine[(first + i) % len(mine)] for i in range(count)}


@contextlib.contextmanager
def hidden(mode, files):
    """In the user mode, `files` unreadable to other users (the runs' uids) while the block runs;
    their modes restored after it. The grader (root) owns the slot's files."""
    changed = []
    try:
        if mode == "user":
            for f in files:
                st = os.lstat(f)
                if stat.S_ISREG(st.st_mode) and st.st_mode & 0o077:
                    os.chmod(f, stat.S_IMODE(st.st_mode) & 0o700)
                    changed.append((f, stat.S_IMODE(st.st_mode)))
        yield
    finally:
        for f, mode_bits in changed:
            os.chmod(f, mode_bits)


def fd_above(fd, low):
    """fd moved to a number >= low (so that it never lands on 0-3 in the child)."""
    import fcntl
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, low)
    os.close(fd)
    return moved


def pipe_above(low):
    r, w = os.pipe()
    return fd_above(r, low), fd_above(w, low)


def minimal_env():
    """The environment bubblewrap and setpriv themselves start with (the run's own comes from
    --setenv, or from the pass-through in the modes without bubblewrap)."""
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def bwrap_path():
    return os.environ.get("GRADE_BWRAP") or shutil.which("bwrap") or "bwrap"


def set_limits(limits, base_tasks):
    """In the child, before it becomes the sandbox: the run's resource limits."""
    def cap(which, value):
        resource.setrlimit(which, (value, value))
    cap(resource.RLIMIT_CPU, limits.cpu_s)
    cap(resource.RLIMIT_FSIZE, limits.file_size)
    cap(resource.RLIMIT_NOFILE, limits.open_files)
    cap(resource.RLIMIT_CORE, 0)
    if limits.address_space is not None:
        cap(resource.RLIMIT_AS, limits.address_space)
    # Counted per real uid: a uid of the run's own starts at 0; the grader's own uid has its
    # other processes counted too.
    cap(resource.RLIMIT_NPROC, base_tasks + limits.processes)


def user_tasks(uid):
    """Tasks (threads included) of `uid` now, as RLIMIT_NPROC counts them."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    count += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return count


def kill_user(uid):
    """Kills every process of `uid` (a uid that only sandboxed runs use): a process of that uid
    sends SIGKILL to all it may signal, until none is left."""
    for _ in range(50):
        if not any(_owned_by(p, uid) for p in os.listdir("/proc") if p.isdigit()):
            return
        pid = os.fork()
        if pid == 0:
            try:
                os.setgroups([])
                os.setgid(uid)
                os.setuid(uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
        time.sleep(0.02)


def unreachable(path, uid):
    """The first folder on the way to `path` (itself included) that `uid`, with group `uid` and no
    other, may not enter (what bubblewrap, binding it as that uid, and a run of that uid need);
    None where it may enter them all. Asked of the system as that uid, ACLs included."""
    chain = list(reversed(Path(path).resolve().parents)) + [Path(path).resolve()]
    pid = os.fork()
    if pid == 0:
        code = 255
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            code = next((i + 1 for i, p in enumerate(chain) if not os.access(p, os.X_OK)), 0)
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return None if code == 0 else chain[min(code, len(chain)) - 1]


def remove_user_files(uid):
    """What `uid` left in the machine's shared temporary folders (the unprivileged-user mode has no
    /tmp of its own): removed, so that the next run of that uid finds nothing of this one's."""
    for shared in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            entries = list(os.scandir(shared))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    os.unlink(entry.path)
            except OSError:
                pass


def _owned_by(pid, uid):
    """True for a live process of uid (a zombie waits for its parent; it runs nothing)."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != uid:
            return False
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


_held = []  # the locks of the uids this process grades with, held until it exits


def free_uids(count):
    """`count` uids, from GRADE_SANDBOX_UID (default 61000) up, that no account and no process
    uses and no other grading on this machine holds (a lock file per uid in /tmp, held while
    this process lives: two gradings at once, Slurm tasks on one node, never share a uid)."""
    import fcntl
    uid, found = env_int("GRADE_SANDBOX_UID", DEFAULT_UID), []
    busy = {os.stat(f"/proc/{p}").st_uid for p in os.listdir("/proc") if p.isdigit() and _exists(p)}
    while len(found) < count:
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if uid not in busy:
                fd = os.open(f"/tmp/histo-grading-uid-{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                             0o600)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    _held.append(fd)
                    found.append(uid)
                except OSError:
                    os.close(fd)
        uid += 1
    return found


def _exists(pid):
    try:
        os.stat(f"/proc/{pid}")
        return True
    except OSError:
        return False


def probe(requested, gpu, concurrent):
    """The sandbox for one grading run. requested: "auto" (bwrap, else user when root, else
    refuse), or one of MODES. Returns (Sandbox, "") or (None, why it cannot grade)."""
    root = os.getuid() == 0
    uids = free_uids(concurrent) if root and requested != "none" else []
    if requested == "none":
        return Sandbox("none", gpu), ""
    why_not = ""
    if requested in ("auto", "bwrap"):
        box = Sandbox("bwrap", gpu, list(uids))
        uid = box.acquire_uid()
        scratch = Path(f"/tmp/histo-sandbox-probe-{os.getpid()}")
        try:
            box.prepare_folder(scratch, uid)
            r = box.run(["/bin/sh", "-c", "echo ok; echo report >&3"], rw=[scratch], cwd=scratch,
                        env={"PATH": "/usr/bin:/bin"}, timeout=30, limits=Limits(), uid=uid)
        finally:
            box.release_uid(uid)
            shutil.rmtree(scratch, ignore_errors=True)
        if r.returncode == 0 and r.output.strip() == b"ok" and r.report.strip() == b"report":
            return box, ""
        why_not = (f"bubblewrap ({bwrap_path()}) could not start a sandbox here: "
                   + (r.problem or r.output.decode(errors="replace").strip()[-300:] or f"exit {r.returncode}"))
        if requested == "bwrap":
            return None, why_not
    if root:
        return Sandbox("user", gpu, list(uids)), ""
    return None, (why_not or "no sandbox mode was asked for") + (
        "; and the grader is not root, so it cannot run submissions as another user either. "
        "Install bubblewrap (apt install bubblewrap) where unprivileged user namespaces are allowed, "
        "or grade with --no-sandbox to run submissions' code unprotected (every result then says "
        "\"not sandboxed\")")
