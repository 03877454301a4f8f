#!/usr/bin/env python3
"""CTest "grading.sandbox": what a run in grading's sandbox (histo_grading/sandbox.py) cannot do,
whatever the submission's code tries, checked with a shell standing in for that code: outlive
the run (a setsid daemon, a process left behind), write outside its scratch folder, see the
course's files, reach the network (a listener of this test on the loopback), keep the grader's
environment, pass its limits (file size, processes), or reach the parent other than through its
output and the report pipe (fd 3), or, for a split grader's worker, its channel (fds 3 and 4).
Each mode this machine can set up is checked: bubblewrap, and
the unprivileged-user mode where this runs as root. Exit 77 (skipped) where no mode can be set up.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from histo_grading import sandbox  # noqa: E402
from histo_grading.tests import killed_by  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def available_modes():
    modes = []
    box, _ = sandbox.probe("bwrap", False, 1)
    if box:
        modes.append("bwrap")
    if os.getuid() == 0:
        modes.append("user")
    return modes


class SandboxRuns:
    mode = None

    def setUp(self):
        tmp = tempfile.mkdtemp(prefix="histo-sandbox-test-")
        self.addCleanup(shutil.rmtree, tmp, True)
        self.tmp = Path(tmp)
        os.chmod(self.tmp, 0o755)
        self.scratch = self.tmp / "scratch"
        self.outside = self.tmp / "outside"  # where the parent keeps its results
        self.outside.mkdir()
        uids = sandbox.free_uids(1) if os.getuid() == 0 else []
        self.box = sandbox.Sandbox(self.mode, False, list(uids))
        self.uid = self.box.acquire_uid()
        self.box.prepare_folder(self.scratch, self.uid)

    def sh(self, script, timeout=30, limits=None, env=None):
        return self.box.run(["/bin/sh", "-c", script], rw=[self.scratch], cwd=self.scratch,
                            env=env or {"PATH": "/usr/bin:/bin", "HOME": str(self.scratch)},
                            timeout=timeout, limits=limits or sandbox.Limits(), uid=self.uid)

    def text(self, result):
        return result.output.decode(errors="replace")

    def test_a_daemon_is_gone_when_the_run_ends(self):
        late = self.scratch / "late"
        r = self.sh(f"(setsid sh -c 'sleep 2; echo late > {late}' > /dev/null 2>&1 &); "
                    f"(sh -c 'sleep 2; echo late2 > {late}2' > /dev/null 2>&1 &); echo started")
        self.assertEqual(self.text(r).strip(), "started")
        time.sleep(3)
        self.assertFalse(late.exists(), "a setsid daemon outlived its run")
        self.assertFalse(Path(f"{late}2").exists(), "a background process outlived its run")

    def test_it_writes_only_its_scratch_folder(self):
        target = self.outside / "results.json"
        r = self.sh(f"echo forged > {target}; echo forged > {ROOT}/forged.txt; "
                    f"echo mine > {self.scratch}/mine && echo wrote-scratch")
        self.assertIn("wrote-scratch", self.text(r))
        self.assertFalse(target.exists())
        self.assertFalse((ROOT / "forged.txt").exists())
        self.assertTrue((self.scratch / "mine").exists())

    def test_the_course_is_out_of_sight(self):
        if self.mode != "bwrap":
            self.skipTest("the unprivileged-user mode sees what that user may read")
        r = self.sh(f"ls {ROOT}/grading/private {ROOT}/solutions 2>&1 || echo hidden; "
                    f"cat /etc/passwd 2>&1 | head -n 1")
        self.assertIn("hidden", self.text(r))
        self.assertNotIn("root:", self.text(r))

    def test_hidden_files_give_nothing(self):
        # A build sees its slot read-only, but not the private tests in it: their names stay
        # (what CMake globs), their bytes do not, by any route (cat, the assembler's .incbin).
        tree = self.tmp / "tree"
        (tree / "private").mkdir(parents=True)
        secret, public = tree / "private" / "tests.cpp", tree / "public.h"
        secret.write_text("the private test's text\n")
        public.write_text("the public header\n")
        for p in (tree, tree / "private"):
            os.chmod(p, 0o755)
        for p in (secret, public):
            os.chmod(p, 0o644)
        r = self.box.run(["/bin/sh", "-c", f"ls {tree}/private; cat {secret} {public}"], ro=[tree],
                         rw=[self.scratch], cwd=self.scratch, env={"PATH": "/usr/bin:/bin"},
                         timeout=30, limits=sandbox.Limits(), uid=self.uid, hide=[secret])
        self.assertIn("tests.cpp", self.text(r))
        self.assertIn("the public header", self.text(r))
        self.assertNotIn("the private test's text", self.text(r))
        self.assertEqual(secret.stat().st_mode & 0o777, 0o644, "the file's mode is restored")

    def test_no_network(self):
        if self.mode != "bwrap":
            self.skipTest("only bubblewrap has a network namespace of its own")
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        self.addCleanup(listener.close)
        port = listener.getsockname()[1]
        bash = shutil.which("bash")
        if not bash:
            self.skipTest("needs bash (/dev/tcp) to try a connection")
        script = f"exec 5<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"
        # The same connection, unsandboxed, succeeds: the test can tell.
        self.assertIn("connected", subprocess.run([bash, "-c", script], capture_output=True,
                                                  text=True).stdout)
        r = self.box.run([bash, "-c", script], rw=[self.scratch], cwd=self.scratch,
                         env={"PATH": "/usr/bin:/bin"}, timeout=30, limits=sandbox.Limits(),
                         uid=self.uid)
        self.assertNotIn("connected", self.text(r))

    def test_only_the_parents_environment(self):
        os.environ["HISTO_SANDBOX_TEST_SECRET"] = "leaked"
        r = self.sh("env")
        del os.environ["HISTO_SANDBOX_TEST_SECRET"]
        self.assertNotIn("leaked", self.text(r))
        self.assertIn(f"HOME={self.scratch}", self.text(r))

    def test_the_report_comes_only_through_fd_3(self):
        r = self.sh("echo out; echo report >&3; echo err >&2")
        self.assertEqual(r.report, b"report\n")
        self.assertEqual(sorted(self.text(r).split()), ["err", "out"])

    def test_a_channel_is_fds_3_and_4_and_the_run_ends_after_its_counterpart(self):
        # A split grader's worker: it reads calls on fd 3 and answers on fd 4, nothing reaches a
        # report; when its counterpart is done, the run is ended (2 s later) even if it lingers.
        calls_r, calls_w = os.pipe()
        replies_r, replies_w = os.pipe()
        os.write(calls_w, b"ping\n")
        os.close(calls_w)
        done = time.time()
        start = time.time()
        r = self.box.run(["/bin/sh", "-c", "read line <&3; echo \"$line-pong\" >&4; sleep 60"],
                         rw=[self.scratch], cwd=self.scratch, env={"PATH": "/usr/bin:/bin"},
                         timeout=30, limits=sandbox.Limits(), uid=self.uid,
                         channel=(calls_r, replies_w), stop=lambda: done)
        answer = os.read(replies_r, 100)
        os.close(replies_r)
        self.assertEqual(answer, b"ping-pong\n")
        self.assertEqual(r.report, b"")
        self.assertTrue(r.stopped and not r.timed_out, r)
        self.assertLess(time.time() - start, 10)

    def test_limits_hold(self):
        r = self.sh("dd if=/dev/zero of=big bs=1M count=64 2>&1; ls -l big | cut -d' ' -f5",
                    limits=sandbox.Limits(file_size=1 << 20))
        self.assertLessEqual((self.scratch / "big").stat().st_size, 1 << 20)
        r = self.sh("for i in $(seq 40); do (sleep 3 &) ; done 2>&1 | grep -c -i 'fork\\|resource' ; "
                    "echo done", limits=sandbox.Limits(processes=8))
        self.assertIn("done", self.text(r))
        self.assertNotEqual(self.text(r).split()[0], "0", "40 processes started under a limit of 8")

    def test_a_cpu_hog_is_stopped_at_the_runs_cpu_time(self):
        # Processes spinning side by side, one a daemon: their CPU time counts together.
        start = time.time()
        r = self.sh("for i in 1 2 3 4; do (while :; do :; done &) ; done; "
                    "(setsid sh -c 'while :; do :; done' &); sleep 60", timeout=60,
                    limits=sandbox.Limits(run_cpu_s=2, cores=None))
        self.assertIn("s of CPU", r.limit)
        self.assertIsNone(r.returncode)
        self.assertLess(time.time() - start, 15)
        self.assertGreater(r.cpu_s, 2)

    def test_a_run_is_pinned_to_its_cores(self):
        r = self.sh("grep Cpus_allowed_list /proc/self/status", limits=sandbox.Limits(cores=1))
        if len(os.sched_getaffinity(0)) > 1:
            self.assertRegex(self.text(r), r"Cpus_allowed_list:\s*\d+\s*$")

    def test_a_disk_fill_is_stopped_at_the_runs_files(self):
        # Many files, each under the file size limit: their sum counts.
        r = self.sh("i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=f$i bs=1M count=2 2>/dev/null; "
                    "i=$((i+1)); done; sleep 30", timeout=30, limits=sandbox.Limits(disk=16 << 20))
        self.assertIn("MB of files", r.limit)
        self.assertLess(r.seconds, 15)

    def test_its_tmp_is_bounded(self):
        if self.mode != "bwrap":
            self.skipTest("only bubblewrap gives a run a /tmp of its own")
        r = self.sh("dd if=/dev/zero of=/tmp/fill bs=1M count=64 2>/dev/null; stat -c %s /tmp/fill",
                    limits=sandbox.Limits(tmpfs=8 << 20))
        self.assertLessEqual(int(self.text(r).split()[-1]), 8 << 20)

    def test_a_time_limit_ends_everything(self):
        start = time.time()
        r = self.sh("(setsid sleep 30 &); sleep 30", timeout=2)
        self.assertTrue(r.timed_out)
        self.assertLess(time.time() - start, 10)
        self.assertIsNone(r.returncode)

    def test_a_crash_ends_the_run_at_once(self):
        # A process left behind holds the output and report pipes open: the verdict still comes
        # when the crashed process is gone, with its signal, not at the time limit.
        start = time.time()
        r = self.sh("(sleep 30 &); echo report >&3; kill -SEGV $$", timeout=30)
        self.assertLess(time.time() - start, 10)
        self.assertFalse(r.timed_out)
        self.assertEqual(killed_by(r.returncode), 11)
        self.assertEqual(r.report, b"report\n")

    def tearDown(self):
        self.box.release_uid(self.uid)


class Reach(unittest.TestCase):
    """What a root grader's runs may enter, asked of the system as their uid (batch.stage_runs)."""

    def test_a_closed_folder_above_is_named(self):
        with tempfile.TemporaryDirectory() as tmp:
            closed, inner = Path(tmp) / "closed", Path(tmp) / "closed" / "a" / "b"
            inner.mkdir(parents=True)
            os.chmod(tmp, 0o755)
            os.chmod(closed, 0o700)
            uid = sandbox.free_uids(1)[0]
            self.assertEqual(sandbox.unreachable(inner, uid), closed)
            os.chmod(closed, 0o711)
            self.assertIsNone(sandbox.unreachable(inner, uid))


def main():
    modes = available_modes()
    if not modes:
        print("no sandbox mode can be set up here (no usable bubblewrap, not root): skipped")
        return 77
    suite = unittest.TestSuite()
    for mode in modes:
        case = type(f"In_{mode}", (SandboxRuns, unittest.TestCase), {"mode": mode})
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    if os.getuid() == 0:
        suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(Reach))
    print(f"sandbox modes checked: {', '.join(modes)}")
    ok = unittest.TextTestRunner(verbosity=2).run(suite).wasSuccessful()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
