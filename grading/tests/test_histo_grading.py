#!/usr/bin/env python3
"""CTest "grading.unit": the pieces of grading/histo_grading that decide a status by themselves,
on made-up inputs: what is taken from a submission, how an embedded file is found however it is
spelled, how a dependency file is read, how a ThreadSanitizer report becomes "races (...)", and
what of a compiler's messages a student sees."""
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from histo_grading import reads, submissions, tests  # noqa: E402

LAB = "lab04_shared_privatized.cu"

# A ThreadSanitizer report as the sim-tsan preset prints it (frames shortened).
TSAN_REPORT = """==================
WARNING: ThreadSanitizer: data race (pid=2106)
  Read of size 4 at 0x7f7351dfe5f8 by thread T15:
    #0 lab04::histogram_shared_kernel(unsigned char const*, unsigned long, unsigned int*) lab04_shared_privatized/lab04_shared_privatized.cu:3 (lab04_student_sim_grader+0x2b8be)
    #1 histo::launch<...>::{lambda(void*)#1}::_FUN(void*) common/include/histo/kernel_launch.cuh:40 (lab04_student_sim_grader+0x2cc70)

  Previous write of size 4 at 0x7f7351dfe5f8 by thread T2:
    #0 lab04::histogram_shared_kernel(unsigned char const*, unsigned long, unsigned int*) lab04_shared_privatized/lab04_shared_privatized.cu:3 (lab04_student_sim_grader+0x2b8d0)

SUMMARY: ThreadSanitizer: data race lab04_shared_privatized/lab04_shared_privatized.cu:3 in lab04::histogram_shared_kernel
==================
"""


class TakingTheSource(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def sub(self, name):
        d = self.dir / name
        d.mkdir()
        return d

    def test_a_plain_file_is_taken(self):
        d = self.sub("alice")
        (d / "src").mkdir()
        (d / "src" / LAB).write_text("int x;\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertEqual(problem, "")
        self.assertEqual(source.name, f"src/{LAB}")

    def test_a_link_is_refused_wherever_it_points(self):
        d = self.sub("link")
        (d / LAB).symlink_to("/etc/passwd")
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("is a symbolic link (to /etc/passwd)", problem)

    def test_a_file_in_a_linked_folder_is_refused(self):
        real = self.sub("real")
        (real / LAB).write_text("int x;\n")
        d = self.sub("linked")
        (d / "code").symlink_to(real)
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("in a folder that is a symbolic link (code ->", problem)

    def test_a_named_pipe_is_refused_unread(self):
        d = self.sub("fifo")
        os.mkfifo(d / LAB)
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("is a named pipe", problem)

    def test_too_large_or_binary_is_refused(self):
        d = self.sub("big")
        (d / LAB).write_bytes(b"x" * (submissions.SOURCE_LIMIT + 1))
        self.assertIn("more than the 1 MiB", submissions.take_source(d, LAB)[1])
        d = self.sub("binary")
        (d / LAB).write_bytes(b"\x7fELF\0\0\0")
        self.assertIn("is not text", submissions.take_source(d, LAB)[1])

    def test_one_renamed_copy_is_taken_two_are_not(self):
        d = self.sub("renamed")
        (d / "lab04_shared_privatized (1).cu").write_text("int x;\n")
        (d / "notes.txt").write_text("hi\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertEqual(source.name, "lab04_shared_privatized (1).cu")
        (d / "lab04_shared_privatized (2).cu").write_text("int y;\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("several candidates: lab04_shared_privatized (1).cu, lab04_shared_privatized (2).cu", problem)

    def test_missing_lists_what_was_received(self):
        d = self.sub("wrong")
        (d / "main.cu").write_text("int x;\n")
        (d / "README.md").write_text("hi\n")
        self.assertEqual(submissions.take_source(d, LAB)[1],
                         f"missing {LAB}; received: README.md, main.cu")


class EmbeddedFiles(unittest.TestCase):
    def test_incbin_however_spelled(self):
        for text in ['asm(".incbin \\"/etc/passwd\\"");',
                     'asm(".inc" "bin \\"/etc/passwd\\"");',            # joined literals
                     "char q = '\"'; asm(\"\\x2eincbin \\\"/etc/passwd\\\"\");",  # escapes, a quote char
                     'asm("\\151ncbin \\"/etc/passwd\\"");']:            # an octal escape
            self.assertEqual(reads.embedding(text), ("/etc/passwd", ".incbin in inline assembly"), text)

    def test_embed_and_include_directives(self):
        self.assertEqual(reads.embedding('#embed "/etc/passwd"\n'), ("/etc/passwd", "#embed"))
        self.assertEqual(reads.embedding('asm(".section .rodata\\n.include \\"/a.s\\"\\n");'),
                         ("/a.s", ".include in inline assembly"))

    def test_honest_code_embeds_nothing(self):
        for text in ['printf("include the tail: %d\\n", n);', "int x = 1; // \"a comment",
                     'asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));']:
            self.assertIsNone(reads.embedding(text), text)


class DependencyFiles(unittest.TestCase):
    def test_continuations_and_escaped_spaces(self):
        deps = reads.parse_depfile("a.o: a.cpp /usr/x.h \\\n  /p/with\\ space.h b.h\n")
        self.assertEqual(deps, ["a.cpp", "/usr/x.h", "/p/with space.h", "b.h"])


class Races(unittest.TestCase):
    def test_a_report_becomes_a_status_with_both_lines(self):
        code = b"__global__ void k() {\n  __shared__ unsigned s_bins[256];\n  s_bins[v]++;\n}\n"
        source = submissions.Source(LAB, code)
        status, summary = tests.thread_sanitizer_race("some output\n" + TSAN_REPORT, LAB, source)
        self.assertEqual(status, f"races (read at {LAB}:3 vs previous write at {LAB}:3)")
        self.assertIn(f"read of 4 bytes at {LAB}:3:   s_bins[v]++;", summary)
        self.assertIn(f"previous write of 4 bytes at {LAB}:3:   s_bins[v]++;", summary)
        self.assertLess(len(summary.splitlines()), 6)

    def test_no_report_no_race(self):
        self.assertIsNone(tests.thread_sanitizer_race("All tests passed\n", LAB, None))


class CompilerMessages(unittest.TestCase):
    def test_only_the_submissions_lines_are_shown(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        tree = Path(tmp.name)
        (tree / "lab04_shared_privatized").mkdir()
        mine = tree / "lab04_shared_privatized" / LAB
        mine.write_text("x\n")
        secret = tree / "secret.txt"
        secret.write_text("root:x:0:0\n")
        log = (f"In file included from {mine}:1:\n"
               f"{secret}:1:5: error: found ':' in nested-name-specifier\n"
               f"    1 | root:x:0:0\n"
               f"{mine}:2:3: error: expected ';'\n"
               f"    2 |   int y = 0\n")
        policy = reads.ReadPolicy(tree, "lab04_shared_privatized", tree / "out",
                                  submissions.Source("my copy.cu", b""))
        shown = reads.student_messages(log, policy, tree)
        self.assertNotIn("root:x", shown)
        self.assertIn("my copy.cu:2:3: error: expected ';'", shown)
        self.assertNotIn(str(tree), shown)


if __name__ == "__main__":
    unittest.main(verbosity=2)
