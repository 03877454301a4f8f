#!/usr/bin/env python3
"""CTest "grading.points": one maximum per lab wherever it is graded, read from the graders'
sources and grading/points/ (no build, a second).

For every lab, the test cases of its grader.cpp and of grading/private/labNN/*.cpp are named as
each place that grades them names them (the batch grader's gpu engine, its cost tests counted by
the simulator's twin or by Nsight Compute; its sim engine, which Gradescope runs; the GitHub
Classroom workflow of a release, which has no private test), and their points summed as
results.py and release.py sum them. It checks that:
  - the maximum is the same in all of them: a test that only a GPU grades whatever the code
    (tagged [large], which the sim engine leaves out, or calling require_parallel_gpu) is worth
    0, and private tests are extra credit, never in a maximum;
  - every test that only a GPU grades is worth 0.

usage: check_points.py            (the check)
       check_points.py --print    (each lab's maximum and extra credit, one line each)
"""
import sys
from pathlib import Path

sys.dont_write_bytecode = True
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "grading"))
sys.path.insert(0, str(ROOT / "scripts"))
import release  # noqa: E402  (the test-case reader and the Classroom workflow's tests)
from histo_grading.results import PRIVATE_NAME, load_points, points_for  # noqa: E402


def cases(lab, folder):
    """[(name, tags, body)] of the lab's grader and its private tests."""
    found = release.parse_test_cases(ROOT / folder / "grader.cpp")
    for private in sorted((ROOT / "grading" / "private" / lab).glob("*.cpp")):
        found += release.parse_test_cases(private)
    return found


def gpu_only(tags, body):
    return release.SIM_SKIPS_TAG in tags or release.SIM_SKIPS_CALL in body


def maxima(lab, folder):
    """{place: (maximum, extra credit)}, and the GPU-only tests that are worth points."""
    config = load_points(lab)
    places = {"gpu engine, cost by the simulator": [], "gpu engine, cost by Nsight Compute": [],
              "sim engine (and Gradescope)": []}
    worth_points = []
    for name, tags, body in cases(lab, folder):
        student = f"{lab}.student: {name}"
        sim = f"{lab}.student.sim: {name}"
        if "[cpu]" in tags:
            for tests in places.values():
                tests.append(student)
            continue
        places["gpu engine, cost by Nsight Compute"].append(student)
        places["gpu engine, cost by the simulator"].append(sim if "[perf]" in tags else student)
        if gpu_only(tags, body):
            if points_for(student, config)[0]:
                worth_points.append(student)
        else:
            places["sim engine (and Gradescope)"].append(sim)
    result = {}
    for place, tests in places.items():
        top = sum(points_for(t, config)[0] for t in tests if PRIVATE_NAME not in t)
        extra = sum(points_for(t, config)[0] for t in tests if PRIVATE_NAME in t)
        result[place] = (top, extra)
    classroom = release.classroom_tests(lab, folder)
    result["GitHub Classroom"] = (float(sum(p for _, p in classroom)), 0.0)
    return result, worth_points


def main(argv):
    failures = []
    for lab, folder in release.lab_folders().items():
        result, worth_points = maxima(lab, folder)
        tops = {place: top for place, (top, _) in result.items()}
        extra = max(x for _, x in result.values())
        if "--print" in argv:
            print(f"{lab}: maximum {tops['sim engine (and Gradescope)']:g}, extra credit "
                  f"{extra:g} (private tests)")
            continue
        if len(set(tops.values())) != 1:
            failures.append(f"{lab}: the maximum differs: " +
                            ", ".join(f"{place} {top:g}" for place, top in tops.items()))
        else:
            print(f"ok: {lab}: maximum {next(iter(tops.values())):g} in every place "
                  f"({', '.join(tops)}); private tests: {extra:g} extra credit")
        for name in worth_points:
            failures.append(f"{lab}: '{name}' is graded only on a GPU, whatever the code, and is "
                            f"worth points: give it 0 in grading/points/{lab}.toml")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
