#!/usr/bin/env python3
"""CTest "status.unit": what scripts/status.sh says, on made-up ctest results (no build): a cost
test failing alone is "correct, but slow", never "wrong"; a sanitizer failure is a race (or a bad
access) only where the sanitizer reported one, else a crash or a failed check; a lab that does not
compile shows its first error, named from the course's root."""
import os
import sys
import tempfile
import unittest
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import status  # noqa: E402

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


if __name__ == "__main__":
    unittest.main(verbosity=2)
