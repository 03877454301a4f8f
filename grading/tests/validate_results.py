#!/usr/bin/env python3
"""Validates results.json files against grading/results.schema.json (Gradescope's documented
fields) and checks that their numbers add up: the score is the sum of the tests' scores, no test
scores more than its max_score, and the extra_data counts match the tests.

usage: validate_results.py FILE_OR_DIR...   (a folder: every */results.json in it; a grading's
       output folder: every students/*/results.json)
Before the files, it proves that the schema rejects documents Gradescope would reject.
"""
import copy
import json
import sys
from pathlib import Path

try:
    import jsonschema
except ImportError:
    print("SKIP: results.json not validated: the Python package jsonschema is missing "
          "(Debian: apt install python3-jsonschema; or: python3 -m pip install jsonschema)")
    sys.exit(77)

SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "results.schema.json").read_text())
validator = jsonschema.Draft202012Validator(SCHEMA)
validator.check_schema(SCHEMA)


def problems(doc):
    found = [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in validator.iter_errors(doc)]
    if found:
        return found
    tests = doc["tests"]
    total = sum(t["score"] for t in tests)
    if abs(total - doc["score"]) > 1e-6:
        found.append(f"score {doc['score']} is not the sum of the tests' scores {total}")
    for t in tests:
        # Extra credit (private tests): points over a maximum of 0, as Gradescope shows them.
        if "extra_credit" in t.get("tags", []):
            if t["max_score"] != 0:
                found.append(f"extra-credit test '{t['name']}' adds {t['max_score']} to the maximum")
            continue
        if t["score"] > t["max_score"] + 1e-9:
            found.append(f"test '{t['name']}' scores {t['score']} of {t['max_score']}")
        if t.get("status") == "passed" and t["score"] != t["max_score"]:
            found.append(f"test '{t['name']}' passed with {t['score']} of {t['max_score']}")
    extra = doc.get("extra_data")
    if extra is None:
        return found
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for t in tests:
        counts[t.get("status", "skipped")] += 1
    for key, value in counts.items():
        if extra[key] != value:
            found.append(f"extra_data.{key} is {extra[key]}, the tests say {value}")
    return found


def self_check():
    good = {"score": 1.0, "tests": [{"name": "a", "score": 1.0, "max_score": 1.0, "status": "passed"}],
            "extra_data": {"submission": "s", "lab": "lab01", "built": True, "passed": 1, "failed": 0,
                           "skipped": 0, "max_score": 1.0, "status": "ok", "source_sha256": ""}}
    assert not problems(good), problems(good)
    bad = []
    for path, value in [(("tests", 0, "status"), "ok"), (("visibility",), "students"),
                        (("tests", 0, "score"), "1"), (("score",), 2.0)]:
        doc = copy.deepcopy(good)
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        if not problems(doc):
            bad.append(f"{path} = {value!r} was accepted")
    del good["tests"][0]["max_score"]
    if not problems(good):
        bad.append("a test without max_score was accepted")
    return bad


def main():
    bad = self_check()
    if bad:
        print("the schema check accepts wrong documents:\n  " + "\n  ".join(bad))
        return 1
    files = []
    for arg in sys.argv[1:]:
        p = Path(arg)
        files += sorted(list(p.glob("*/results.json")) or p.glob("students/*/results.json")) if p.is_dir() else [p]
    if not files:
        # grading.samples, which writes them, was skipped here (no Clang) or graded nothing.
        print("skipped: no results.json given or found")
        return 77
    failed = 0
    for f in files:
        found = problems(json.loads(f.read_text()))
        if found:
            failed += 1
            print(f"INVALID {f}:\n  " + "\n  ".join(found))
    print(f"{len(files) - failed} of {len(files)} results.json valid against {Path('grading/results.schema.json')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
