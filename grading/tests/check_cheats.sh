#!/usr/bin/env bash
# CTest "grading.cheats": grades one sample submission of each cheat (grading/samples, kinds
# include-* ... macro-private) beside an honest correct one, and checks that every cheat scores
# 0 with a status naming its trick (the tricks on what the simulator counts: nothing on the tests
# they aim at), that none of their results.json files holds a line of the
# grader's files (the solution's answers, /etc/passwd), that nothing in the course tree or in any
# result changes after grading ends (the daemons' samples write a few seconds after their run),
# and that the honest one scores every point. Students named as the grader's files (slots,
# grades.csv) are graded as the honest students they are, and the grader's files stay its own;
# two entries for one student are graded as none, saying so. Every build and test runs in
# grading's sandbox.
# usage: check_cheats.sh WORK_DIR   (GRADE_PRESET, GRADE_LABELS, GRADE_CMAKE_ARGS as for grade.py)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: check_cheats.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
export GRADE_GPUS=none GRADE_TEST_TIMEOUT=${GRADE_TEST_TIMEOUT:-60}
# A build's limits, small: an honest one takes seconds and a few MB (build-bomb, disk-fill).
export GRADE_BUILD_CPU=${GRADE_BUILD_CPU:-60} GRADE_BUILD_DISK_MB=${GRADE_BUILD_DISK_MB:-100}
rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
# Every kind (the full tier), or CHEAT_KINDS: one of each class (the quick tier, docs/testing.md).
kinds=${CHEAT_KINDS:-correct,include-relative,include-absolute,include-macro,include-nested,has-include,\
include-other-lab,include-passwd,symlink-file,symlink-folder,symlink-passwd,incbin,\
host-count,host-count-dummy,host-count-byvalue,decoy-memcpy,kernel-calls-reference,\
memcpy-read,memcpy-racy,no-sanitize,incbin-macro,ctor-exit,defines-main,ctor-setenv-maxn,ctor-setenv-hazards,ctor-read-private,\
static-object,getenv,system,fork,thread,dlopen,atexit,signal,libc-redefine,\
course-redefine,inline-asm,section-init,macro-private,daemon-results,daemon-blame,harness-append,\
lookup-table,print-inputs,forged-report,build-bomb,disk-fill,name-slots,name-grades-csv,duplicate,duplicate-case,\
line-asm,incbin-private,correct-constant}
python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds "$kinds" \
  --grading-out "$work/out" "$(tr ',' '\n' <<<"$kinds" | wc -l)" "$work/subs" || exit 1
# What must not change: the course's files (during and after grading), every result once
# grading is over.
course() {
  (cd "$root" && find . -path ./build -prune -o -path ./.git -prune -o -type f -printf '%p %s %T@\n' |
     sort | sha256sum)
}
results() {
  find "$work/out" -maxdepth 3 -type f \( -name results.json -o -name grades.csv \) -printf '%p ' -exec sha256sum {} \; | sort
}
course_before=$(course)
python3 "$root/grading/grade.py" run "$lab" "$work/subs" "$work/out" || { echo "FAIL: grade.py failed"; exit 1; }
before="$course_before
$(results)"
sleep "${CHEATS_SETTLE:-6}"  # longer than the daemons' samples wait before they write
after="$(course)
$(results)"
if [ "$before" = "$after" ]; then echo "ok: nothing changed in the course or the results after grading ended"
else echo "FAIL: files changed after grading ended:"; diff <(echo "$before") <(echo "$after"); changed=1; fi

python3 - "$work/out" "$root" "$lab" <<'PY'
import csv, json, re, sys
from pathlib import Path
out, root, lab = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
sys.path[:0] = [str(root / "grading"), str(root / "grading" / "samples")]
from histo_grading.submissions import STUDENTS, folder_name, submissions_of
from make_samples import NAMED
folder = sorted(p.name for p in root.glob(f"{lab}_*") if p.is_dir())[0]
expect = {  # kind -> what the status of its submission (sNN-KIND) must say
    "include-relative": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "include-absolute": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "include-macro": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "include-nested": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "has-include": f"includes a file it may not: solutions/{folder}/{folder}.cu",
    "include-other-lab": "includes a file it may not: lab0",
    "include-passwd": "includes a file it may not: /etc/passwd",
    "symlink-file": f"{folder}.cu is a symbolic link (to solutions/{folder}/{folder}.cu in the course)",
    "symlink-folder": f"{folder}.cu is in a folder that is a symbolic link (code -> solutions/{folder} in the course)",
    "symlink-passwd": f"{folder}.cu is a symbolic link (to /etc/passwd)",
    "incbin": f"includes a file it may not: solutions/{folder}/{folder}.cu (.incbin in inline assembly)",
    "host-count": "counts on the host, not in its kernel: no kernel launched",
    "host-count-dummy": "counts on the host, not in its kernel: bins copied in from the host",
    "host-count-byvalue": "counts on the host, not in its kernel: device memory copied to the host",
    "decoy-memcpy": "counts on the host, not in its kernel: host code read or wrote device memory",
    # Device code calling a host function does not compile, as with nvcc (the simulator's
    # cuda_runtime.h, Clang's enforce_tcb); without that check the code check names the call.
    "kernel-calls-reference": "does not compile",
    # Device code's memcpy is counted and race-checked as loads and stores (sim/README.md): one
    # thread's reads fail the cost tests, a memcpy increment races.
    "memcpy-read": "fails ",
    "memcpy-racy": "fails ",
    # nvcc's pass of the source sees other code than the simulator runs: a grading build counts
    # every lane the simulator runs (sim/src/trace.cpp), so the cost test of the aggregated kernel
    # fails on degenerate data, as the plain per-lane kernel's does.
    "nvcc-twin": "fails ",
    "incbin-macro": f"includes a file it may not: solutions/{folder}/{folder}.cu (.incbin in inline assembly)",
    "ctor-exit": "runs code outside the tests: a constructor (",
    "defines-main": "defines main (",
    "ctor-setenv-maxn": "runs code outside the tests: a constructor (",
    "ctor-setenv-hazards": "runs code outside the tests: a constructor (",
    "ctor-read-private": "runs code outside the tests: a constructor (",
    "static-object": "runs code outside the tests: a constructor that calls setenv (",
    "getenv": "uses what a submission may not: calls getenv (",
    "system": "uses what a submission may not: calls system (",
    "fork": "uses what a submission may not: calls fork (",
    "thread": "uses what a submission may not: calls std::thread",
    "dlopen": "uses what a submission may not: calls dl",
    "atexit": "uses what a submission may not: calls atexit (",
    "signal": "uses what a submission may not: calls signal (",
    "libc-redefine": "defines a function of the C library: memcmp (",
    "course-redefine": "defines the course's own code: histo::grading_size_limit (",
    "inline-asm": "holds inline assembly (",
    "section-init": "places its code where it may not: the section attribute (",
    "macro-private": "changes the code of a header it includes: the macro private (",
    "daemon-results": "uses what a submission may not: calls ",
    "daemon-blame": "uses what a submission may not: calls ",
    "harness-append": "uses what a submission may not: calls fopen (",
    # Inputs it cannot know: a table of the inputs of the seed of lab and engine, what the
    # launcher prints during a private test (results.json must hold none of it).
    "lookup-table": "fails ",
    "print-inputs": "fails ",
    "forged-report": "fails ",
    # The run's own limits (check_cheats sets them small).
    "build-bomb": "the build used more than ",
    "disk-fill": "the build used more than ",
    "duplicate": "several submissions for one student: ",
    "duplicate-case": "several submissions for one student: ",
    "line-asm": "hides where its lines are: a line directive (",
    "no-sanitize": "hides its accesses from the checks: the no_sanitize attribute (",
    # Its build cannot open the private test (hidden_from_build): Clang's assembler stops there;
    # one that takes the unreadable file as empty builds, and the code check refuses it.
    "incbin-private": ("does not compile", "hides where its lines are: a line directive ("),
}
honest_kinds = {"correct", "correct-constant"}  # kinds that must score every point
# Tricks on what the simulator counts, made on the solution: they keep the points of the CPU
# tests and of what the kernel honestly computes (memcpy-read's one thread counts right), and
# score nothing on the tests (names matched) the trick was for: a plain-load twin's score.
aimed_at = {"memcpy-read": r"\.sim: cost: ", "memcpy-racy": r"\.sim: ",
            "nvcc-twin": r"\.sim: cost: histogram_aggregated sends one atomic per distinct value"}
# The run's secret seed (the grader's own timing.json) is in no results.json.
seed = str(json.loads((out / "timing.json").read_text())["seed"])
# Lines of the grader's files that a cheat must never get to see: the solution's answers (its
# lines that the skeleton lacks) and the password file.
solution = (root / "solutions" / folder / f"{folder}.cu").read_text().splitlines()
skeleton = set((root / folder / f"{folder}.cu").read_text().splitlines())
secret = [l.strip() for l in solution if l not in skeleton and len(l.strip()) > 24
          and not l.strip().startswith("//")]
try:
    secret += [l for l in Path("/etc/passwd").read_text().splitlines() if len(l) > 12]
except OSError:
    pass
# The lab's private tests' code, for the kinds that go after it (a failing test's own report
# may quote its lines).
private_secret = []
for private in sorted((root / "grading" / "private" / lab).glob("*.cpp")):
    private_secret += [l.strip() for l in private.read_text().splitlines() if len(l.strip()) > 24
               and not l.strip().startswith(("//", "TEST_CASE", "SECTION"))]
fail = 0
# The grader's files are its own: OUT holds nothing a student's name made, and grades.csv is the
# grades file, with every student in it.
mine = {STUDENTS, "grades.csv", "submissions.txt", "timing.json", "slots"}
strays = sorted(p.name for p in out.iterdir() if p.name not in mine)
if strays or not (out / "grades.csv").is_file():
    fail = 1
    print(f"FAIL: the grading output holds {strays} beside the grader's own files, grades.csv "
          f"{'is' if (out / 'grades.csv').is_file() else 'is not'} a file")
else:
    print(f"ok: the grading output holds only the grader's files and {STUDENTS}/")
rows = {r["submission"]: r for r in csv.DictReader(open(out / "grades.csv"))}
named = {name: kind for kind, name in NAMED.items()}  # honest students named as grader files
subs = sorted(folder_name(n) for n, _ in submissions_of(out.parent / "subs"))
honest = [n for n in subs if n in named or n.split("-", 1)[1].lower() in honest_kinds]
made = [n for n in subs if n not in honest]
for name in made:
    status = expect[name.split("-", 1)[1].lower()]
    row = rows.get(name)
    results = out / STUDENTS / name / "results.json"
    text = results.read_text() if results.exists() else ""
    leaked = [l for l in secret + (private_secret if "private" in name else [])
              if l in text or json.dumps(l)[1:-1] in text]
    problems = []
    if not row:
        problems.append("not in grades.csv")
    else:
        said = [s for s in ((status,) if isinstance(status, str) else status) if s in row["status"]]
        if not said:
            problems.append(f"status '{row['status']}' does not say '{status}'")
        status = said[0] if said else status
        aim = aimed_at.get(name.split("-", 1)[1].lower())
        if aim:
            scored = [t["name"] for t in (json.loads(text).get("tests", []) if text else [])
                      if re.search(aim, t["name"]) and float(t.get("score", 0)) != 0]
            if scored or not text:
                problems.append(f"scores on the tests its trick is for: {scored or 'no results.json'}")
        elif float(row["score"]) != 0:
            problems.append(f"scores {row['score']} (must be 0)")
    if leaked:
        problems.append(f"results.json holds {len(leaked)} line(s) of the grader's files, e.g. {leaked[0]!r}")
    if re.search(rf"\b{seed}\b", text):
        problems.append(f"results.json holds the run's secret seed {seed}")
    if text and any("INPUT-SEEN" in t.get("output", "") for t in json.loads(text).get("tests", [])
                    if "private" in t.get("name", "")):
        problems.append("a private test's results show what the launcher printed of its inputs")
    if problems:
        fail = 1
        print(f"FAIL: {name}: " + "; ".join(problems))
    else:
        print(f"ok: {name}: {row['score']} points, '{status}'")
# Every point, and the private tests' extra credit on top: the honest submissions, and the
# honest students named as the grader's files.
for name in honest:
    good = rows.get(name)
    if good and good["status"].startswith("ok") and float(good["score"]) >= float(good["max_score"]) > 0:
        print(f"ok: {name} scores {good['score']} of {good['max_score']} ({good['status']})")
    else:
        fail = 1
        print(f"FAIL: the honest submission {name}: {good}")
sys.exit(fail)
PY
[ $? -eq 0 ] && [ -z "${changed:-}" ]
