#!/usr/bin/env python3
"""CTest "status.unit": what scripts/status.sh and scripts/watch.sh say, on made-up ctest results and
build logs (no build): a cost test failing alone is "correct, but slow", never "wrong"; a
sanitizer failure is a race (or a bad access) only where the sanitizer reported one, else a crash
or a failed check; a lab unchanged since its recorded run is reported from it, said so, and one
whose source or grader changed is run again; a lab that does not compile shows its first error,
named from the course's root, in Clang's form and in nvcc's; watch names a TODO only when a step
failed and runs a [long] kernel test after the others, with the cost tests; a release holds what
its scripts run or import (scripts/release.py), and refuses to go without it."""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import release  # noqa: E402
import status  # noqa: E402
import watch  # noqa: E402

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite tests="{n}">
{cases}
</testsuite>
"""


def case(name, result, output=""):
    inner = {"failed": '<failure message="Failed"/>', "skipped": '<skipped message="Skipped"/>'}.get(result, "")
    status_attr = {"failed": "fail", "skipped": "notrun"}.get(result, "run")
    return (f'<testcase name="{name}" classname="x" time="0.1" status="{status_attr}">{inner}'
            f"<system-out>{output}</system-out></testcase>")


class Status(unittest.TestCase):
    def table(self, cases, labels, sanitizer=None):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "junit.xml"
            path.write_text(JUNIT.format(n=len(cases), cases="\n".join(cases)))
            return status.results_of(str(path), labels, "student", sanitizer)

    def test_a_kernel_failing_only_its_cost_tests_is_correct_but_slow(self):
        names = {"lab04.student: a helper": {"cpu"}, "lab04.student.sim: a kernel": {"sim"},
                 "lab04.student.sim: cost: loads": {"sim", "perf"}}
        table = self.table([case("lab04.student: a helper", "passed"),
                            case("lab04.student.sim: a kernel", "passed"),
                            case("lab04.student.sim: cost: loads", "failed")], names)
        kinds = table["lab04"]
        self.assertEqual(status.describe(kinds["sim"]), "1/1 passed")
        self.assertEqual(status.describe(kinds["cost"]), "FAILED 1 of 1")
        step = status.next_step("lab04", kinds, {"sim": "sim", "cost": "sim"}, "student")
        self.assertIn("correct, but slow", step)
        self.assertNotIn("wrong", step)

    def test_inputs_of_gigabytes_left_out_are_listed_as_not_run(self):
        labels = {"lab01.student.sim: counts n = 2^32 - 1 bytes": {"lab01", "sim", "large"},
                  "lab01.student.sim: every dataset": {"lab01", "sim"},
                  "lab01.solution.sim: counts n = 2^32 - 1 bytes": {"lab01", "sim", "large"},
                  "lab02.student.sim: counts n = 2^32 - 1 bytes": {"lab02", "sim", "large"}}
        table = {}
        status.large_not_run(table, labels, ["lab01"], "student")
        self.assertEqual(table["lab01"]["sim"]["skipped"], {status.LARGE_NOT_RUN: 1})
        self.assertEqual(table["lab01"]["sim"]["passed"], 0)
        self.assertNotIn("lab02", table)

    def test_a_crash_under_thread_sanitizer_is_no_race(self):
        names = {"lab04.student.sim: a": {"sim"}, "lab04.student.sim: b": {"sim"}}
        crash = "ThreadSanitizer: SEGV on unknown address"
        race = "WARNING: ThreadSanitizer: data race (pid=1)"
        table = self.table([case("lab04.student.sim: a", "failed", crash)], names, "tsan")
        kinds = table["lab04"]
        self.assertIn("1 crashed", status.describe(kinds["tsan"], "tsan"))
        step = status.next_step("lab04", kinds, {}, "student")
        self.assertIn("no race report", step)
        self.assertNotIn("your kernels race", step)
        table = self.table([case("lab04.student.sim: a", "failed", race),
                            case("lab04.student.sim: b", "failed", "wrong bins")], names, "tsan")
        self.assertIn("1 race, 1 wrong", status.describe(table["lab04"]["tsan"], "tsan"))
        self.assertIn("your kernels race", status.next_step("lab04", table["lab04"], {}, "student"))

    def test_a_lab_that_does_not_compile_shows_its_first_error(self):
        log = ("[1/4] Building CXX object x.o\nFAILED: lab04_shared_privatized/x.o\nclang++ -c ...\n"
               "../../lab04_shared_privatized/lab04_shared_privatized.cu:121:16: error: expected expression\n"
               "  int broken = ;\n               ^\n1 error generated.\n")
        error = status.first_error(log)
        self.assertTrue(error.startswith("lab04_shared_privatized/lab04_shared_privatized.cu:121: "
                                         "expected expression"), error)
        kinds = {"cpu": dict(status.new_entry(), broken=error)}
        self.assertEqual(status.describe(kinds["cpu"]), "DOES NOT COMPILE")
        self.assertIn("does not compile", status.next_step("lab04", kinds, {}, "student"))

    def test_nvccs_errors_name_their_file_and_line(self):
        log = ("[1/4] Building CUDA object x.o\nFAILED: lab01_naive/x.o\n/usr/local/cuda/bin/nvcc ...\n"
               "../../lab01_naive/lab01_naive.cu(42): error: identifier \"undefined_thing\" is undefined\n"
               "    undefined_thing(p);\n    ^\n\n"
               "1 error detected in the compilation of \"../../lab01_naive/lab01_naive.cu\".\n")
        self.assertEqual(status.first_error(log),
                         "lab01_naive/lab01_naive.cu:42: identifier \"undefined_thing\" is undefined"
                         "\n      undefined_thing(p);")
        absolute = "/src/lab02_interleaved/lab02_interleaved.cu(7): catastrophic error: cannot open source file \"x.h\"\n"
        self.assertEqual(status.first_error(absolute),
                         "/src/lab02_interleaved/lab02_interleaved.cu:7: cannot open source file \"x.h\"")
        numbered = "lab03.cu(9): error #20-D: identifier \"y\" is undefined\n"
        self.assertTrue(status.first_error(numbered).endswith(':9: identifier "y" is undefined'))
        # GCC without a column, and a fatal error.
        self.assertTrue(status.first_error("a.cpp:3: error: expected ';'\n").endswith("a.cpp:3: expected ';'"))
        self.assertIn(":1: nope.h: No such file or directory",
                      status.first_error("b.cu:1:10: fatal error: nope.h: No such file or directory\n"))
        # A warning before it is no error.
        self.assertTrue(status.first_error("c.cu(4): warning #177-D: unused\nc.cu(9): error: bad\n")
                        .endswith("c.cu:9: bad"))


class Record(unittest.TestCase):
    """status.main on a made-up course and build: a lab unchanged since its recorded run is
    reported from that run, and said so; one whose source or grader changed is run again."""

    CASES = [("lab01.student: a helper", {"cpu"}, "passed"),
             ("lab01.student.sim: a kernel", {"sim"}, "passed"),
             ("lab01.student.sim: a huge input", {"sim"}, "skipped")]

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        self.source = self.root / "lab01_naive" / "lab01_naive.cu"
        self.source.parent.mkdir()
        self.source.write_text("// the student's kernel\n")
        self.build = self.root / "build" / "sim"
        (self.build / "lab01_naive").mkdir(parents=True)
        (self.build / "CTestTestfile.cmake").write_text("")
        self.grader = self.build / "lab01_naive" / "lab01_student_sim_grader"
        self.grader.write_bytes(b"grader 1")
        Path(str(self.grader) + "_tests.cmake").write_text("add_test(...)\n")
        self.runs = []

    def run_tests(self, build_dir, labs, side, env, large=False):
        self.runs.append(list(labs))
        path = self.root / ("junit%d.xml" % len(self.runs))
        path.write_text(JUNIT.format(n=len(self.CASES), cases="\n".join(
            case(name, result) for name, _, result in self.CASES)))
        return str(path), None

    def status(self, *args):
        out = io.StringIO()
        with mock.patch.object(status, "ROOT", str(self.root)), \
                mock.patch.object(status, "grader_targets",
                                  return_value={"lab01": ["lab01_student_sim_grader"]}), \
                mock.patch.object(status, "build", return_value={}), \
                mock.patch.object(status, "run_tests", side_effect=self.run_tests), \
                mock.patch.object(status, "labels_of",
                                  return_value={name: labels for name, labels, _ in self.CASES}), \
                mock.patch.object(sys, "argv", ["status.py", str(self.build), *args]), \
                contextlib.redirect_stdout(out):
            code = status.main()
        return code, out.getvalue()

    def test_an_unchanged_lab_is_reported_from_its_recorded_run_and_said_so(self):
        code, first = self.status()
        self.assertEqual((code, self.runs), (0, [["lab01"]]))
        self.assertIn("from: build/sim: ran now", first)
        code, second = self.status()
        self.assertEqual((code, self.runs), (0, [["lab01"]]))
        self.assertIn("from: build/sim: results of status.sh's run at ", second)
        self.assertIn("(source and graders unchanged since)", second)
        self.assertNotIn("ran now", second)
        # The recorded run's skip stays a skip: never a pass.
        self.assertIn("1/1 passed, 1 not run", second)
        self.assertIn("did NOT run (never counted as passed):\n    1 simulator tests", second)
        row = lambda out: [l for l in out.splitlines() if l.startswith("lab01 ")]
        self.assertEqual(row(first), row(second))

    def test_a_changed_source_grader_or_setting_runs_the_tests_again(self):
        self.status()
        self.source.write_text("// the student's kernel, edited\n")
        self.assertIn("ran now", self.status()[1])
        self.grader.write_bytes(b"grader 2")
        self.assertIn("ran now", self.status()[1])
        with mock.patch.dict(os.environ, {"HISTO_GRADER_MAX_N": "4096"}):
            self.assertIn("ran now", self.status()[1])
        self.assertIn("ran now", self.status("--rerun")[1])
        self.assertEqual(len(self.runs), 5)
        self.assertIn("results of status.sh's run at", self.status()[1])
        self.assertEqual(len(self.runs), 5)

    def test_a_watch_round_that_ran_every_test_is_shown_as_its_run(self):
        cases = [("a helper", 0, ""), ("a kernel", 0, ""),
                 ("a huge input", 4, "x.cpp:1: SKIPPED:\nexplicitly with message:\n  too big here\n")]
        labels = {name: tags for name, tags, _ in self.CASES}
        with mock.patch.object(status, "ROOT", str(self.root)), \
                mock.patch.object(status, "labels_of", return_value=labels):
            mark = status.fingerprint(str(self.build), "lab01", ["lab01_student_sim_grader"],
                                      status.test_environment(str(self.build)))
            # A round that left a test out is not recorded.
            self.assertFalse(status.record_cases(str(self.build), "lab01", "student", mark, 0,
                                                 cases[:2], "watch.sh"))
            self.assertTrue(status.record_cases(str(self.build), "lab01", "student", mark, 0,
                                                cases, "watch.sh"))
        code, out = self.status()
        self.assertEqual((code, self.runs), (0, []))
        self.assertIn("from: build/sim: results of watch.sh's run at ", out)
        self.assertIn("1/1 passed, 1 not run", out)
        self.assertIn("1 simulator tests: too big here", out)
        self.source.write_text("// edited after the round\n")
        self.assertIn("from: build/sim: ran now", self.status()[1])

    def test_a_grader_that_is_not_built_is_never_reused(self):
        self.status()
        self.grader.unlink()
        self.assertIn("ran now", self.status()[1])
        self.assertIn("ran now", self.status()[1])


class Watch(unittest.TestCase):
    """watch.one_round on a lab with its build and test runs made up."""

    def round(self, failure, configured=True):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "lab01_naive"
            folder.mkdir()
            (folder / "lab01_naive.cu").write_text(
                "int f() {\n  // TODO(lab01) begin: segment_bounds (about 4 lines)\n  return 1;\n"
                "  // TODO(lab01) end\n}\n")
            build = Path(tmp) / "build" / "sim"
            if configured:
                build.mkdir(parents=True)
                (build / "CMakeCache.txt").write_text("")
            ran = subprocess.CompletedProcess([], 0, "", "")
            out = io.StringIO()
            with mock.patch.object(watch, "ROOT", tmp), \
                    mock.patch.object(watch.subprocess, "run", return_value=ran) as run, \
                    mock.patch.object(watch, "build_target", return_value=(0, "")), \
                    mock.patch.object(watch, "run_step", side_effect=self.steps(failure)), \
                    contextlib.redirect_stdout(out):
                passed = watch.one_round("lab01", {"lab01": "lab01_naive"}, str(build))
            self.configured = [c.args[0] for c in run.call_args_list if c.args[0][:2] == ["cmake", "--preset"]]
            return passed, out.getvalue()

    @staticmethod
    def steps(failures):
        """run_step made up: each step's failed cases' outputs, shown as they fail."""
        rounds = iter(failures)

        def run_step(grader, spec, build, on_failure=None, ran=None):
            outputs = next(rounds) or []
            outputs = [outputs] if isinstance(outputs, str) else outputs
            for i, out in enumerate(outputs):
                on_failure(out, i == 0, "case %d" % (i + 1))
            return outputs
        return run_step

    def test_every_failing_case_of_the_step_is_named(self):
        passed, out = self.round([["FAILED (grader.cpp:5):\n  REQUIRE( x ) is false\n",
                                   "FAILED (grader.cpp:9):\n  bins differ at 3\n"]])
        self.assertFalse(passed)
        self.assertIn("REQUIRE( x ) is false", out)
        self.assertIn("also failing: case 2 -- bins differ at 3", out)
        self.assertIn("2 test(s) of this step failed", out)

    def test_a_deleted_build_folder_is_configured_again_and_said(self):
        passed, out = self.round([None] * len(watch.STEPS), configured=False)
        self.assertTrue(passed)
        self.assertIn("is not configured: configuring it (cmake --preset sim)", out)
        self.assertEqual(len(self.configured), 1)
        self.assertEqual(self.configured[0][-2:][0], "-B")

    def test_a_round_where_every_step_passed_names_no_todo(self):
        passed, out = self.round([None] * len(watch.STEPS))
        self.assertTrue(passed)
        self.assertIn("every step passed", out)
        self.assertNotIn("TODO", out)

    def test_every_test_runs_in_one_step_long_and_large_ones_after_the_others(self):
        def matches(spec, tags):
            # Catch2's test specs as the steps write them: alternatives apart by commas, each
            # a run of [tag] (required) and ~[tag] (excluded).
            return any(all((tag in tags) != (negated == "~")
                           for negated, tag in re.findall(r"(~?)\[(\w+)\]", alternative))
                       for alternative in spec.split(","))
        steps = lambda *tags: [n for n, (_, spec) in enumerate(watch.STEPS, 1) if matches(spec, set(tags))]
        self.assertEqual(steps("cpu"), [1])
        self.assertEqual(steps("gpu"), [2])
        self.assertEqual(steps("gpu", "large"), [4])
        self.assertEqual(steps("gpu", "large", "long"), [4])
        self.assertEqual(steps("gpu", "long"), [3])
        self.assertEqual(steps("gpu", "perf"), [3])
        self.assertEqual(steps("gpu", "private"), [2])

    def test_a_failed_step_names_the_next_todo(self):
        passed, out = self.round(["FAILED (grader.cpp:5):\n  REQUIRE( x ) is false\n"])
        self.assertFalse(passed)
        self.assertIn("next TODO: lab01_naive.cu:2: segment_bounds (about 4 lines)", out)


class ReleasedScripts(unittest.TestCase):
    COURSE = {
        "scripts/watch.sh": 'exec python3 "$(dirname "$0")/watch.py" "$@"\n',
        "scripts/watch.py": 'sys.path.insert(0, os.path.join(ROOT, "scripts"))\nfrom status import first_error\n',
        "scripts/status.py": 'import json\nsys.path.insert(0, os.path.join(ROOT, "grading"))\n'
                             'from histo_grading.tests import parse_junit\n',
        "grading/histo_grading/__init__.py": "",
        "grading/histo_grading/tests.py": "from .common import say\nimport re\n",
        "grading/histo_grading/common.py": "import os\n",
        "scripts/sim_run.sh": 'repo=$(cd "$(dirname "$0")/.." && pwd)\ncmake -S "$repo/sim/run" -B "$repo/build/sim-run/x"\n',
        "sim/run/CMakeLists.txt": "",
        "scripts/gpu_check.sh": "",
    }

    def test_a_released_script_brings_what_it_runs_and_imports(self):
        chosen = release.with_dependencies(["scripts/watch.sh", "scripts/sim_run.sh"], self.COURSE,
                                           read=self.COURSE.get)
        self.assertEqual(chosen, sorted(set(self.COURSE) - {"scripts/gpu_check.sh"}))

    def test_a_release_lacking_what_a_script_runs_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("scripts/watch.sh", "scripts/status.py"):
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).write_text(self.COURSE[name])
            problems = release.check_dependencies(tmp, course=self.COURSE)
        self.assertIn("scripts/watch.sh runs or imports scripts/watch.py, which the release lacks", problems)
        self.assertIn("scripts/status.py runs or imports grading/histo_grading/tests.py, which the "
                      "release lacks", problems)


if __name__ == "__main__":
    unittest.main(verbosity=2)
