#!/usr/bin/env bash
# CTest "grading.slurm": grades sample submissions through a real single-node Slurm cluster.
#
# Starts munged, slurmctld and slurmd on this machine (configuration, state and logs in a
# private temporary folder, ports chosen free), submits the grading job array through
# `scripts/grade_submissions.sh --slurm` (one task per submission, no GPU: the tasks run the CPU
# or simulator tests), waits for the dependent gather job, checks grades.csv, and stops every
# daemon it started.
# Exits 77 (reported as skipped) when Slurm or munge is not installed, or this user cannot run
# the daemons.
# usage: slurm_test.sh WORK_DIR   (GRADE_PRESET, GRADE_LABELS, GRADE_CMAKE_ARGS as for grade.py)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/grading/tests/require_counters.sh"
work=${1:?usage: slurm_test.sh WORK_DIR}
lab=${GRADE_LAB:-lab01}
deadline=${SLURM_TEST_DEADLINE:-600}
skip() { echo "SKIPPED: $*"; exit 77; }

for tool in slurmctld slurmd sbatch squeue munged; do
  path=$(command -v "$tool" || ls /usr/sbin/"$tool" 2>/dev/null) || skip "$tool is not installed (Debian: slurm-wlm, munge)"
  eval "${tool}_bin=$path"
done
[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start jobs; run this test as root (CI does)"

rm -rf "$work" && mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd)
# Sockets need short paths: the daemons' files live in /tmp, the grading output in WORK_DIR.
run=$(mktemp -d /tmp/histo-slurm.XXXXXX) || exit 1
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  cp "$run"/*.log "$work"/ 2>/dev/null
  rm -rf "$run"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$run"/*.log; do echo "--- $f"; tail -n 20 "$f"; done; exit 1; }

# munge: a fresh key and a private socket.
mkdir -p "$run/munge" && chmod 700 "$run/munge"
head -c 1024 /dev/urandom > "$run/munge/munge.key" && chmod 400 "$run/munge/munge.key"
"$munged_bin" --force --key-file="$run/munge/munge.key" --socket="$run/munge/socket" \
  --pid-file="$run/munge/munged.pid" --log-file="$run/munged.log" --seed-file="$run/munge/seed" ||
  fail "munged did not start"
for _ in $(seq 50); do [ -s "$run/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$run/munge/munged.pid")")

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
host=$(hostname -s)
user=$(id -un)
export SLURM_CONF=$run/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=histo-grading-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$run/munge/socket
StateSaveLocation=$run/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$run/slurmctld.log
SlurmdLogFile=$run/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=grading Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
mkdir -p "$run/state" "$run/spool"
"$slurmctld_bin" -D -i -f "$SLURM_CONF" > "$run/slurmctld.out.log" 2>&1 & pids+=($!)
"$slurmd_bin" -D -f "$SLURM_CONF" > "$run/slurmd.out.log" 2>&1 & pids+=($!)
for _ in $(seq 60); do
  state=$(sinfo -h -o %t 2>/dev/null | head -n 1)
  [ "$state" = idle ] && break
  sleep 1
done
[ "$state" = idle ] || fail "the node did not come up (state '${state:-none}')"
echo "ok: single-node Slurm up (node $host, $(nproc) CPUs)"

python3 "$root/grading/samples/make_samples.py" --lab "$lab" --kinds correct,wrong,no-compile 3 "$work/subs" || exit 1
"$root/scripts/grade_submissions.sh" "$lab" "$work/subs" "$work/out" --slurm --per-task 1 \
  --gres none --gpus none --sbatch-args "--cpus-per-task=1 --time=10" || fail "submitting the job array failed"
read -r _ array_id < <(grep '^array' "$work/out/slurm/jobs")
read -r _ gather_id < <(grep '^gather' "$work/out/slurm/jobs")
echo "ok: array job $array_id and gather job $gather_id submitted"
grep -q "afterany:${array_id}" < <(scontrol show job "$gather_id") ||
  fail "the gather job does not depend on the array"

start=$SECONDS
while squeue -h -j "$array_id,$gather_id" 2>/dev/null | grep -q .; do
  (( SECONDS - start < deadline )) || { squeue; scancel "$array_id" "$gather_id"; fail "jobs still queued after ${deadline} s"; }
  sleep 2
done
echo "ok: all jobs finished in $((SECONDS - start)) s"
state=$(scontrol show job "$gather_id" | grep -o 'JobState=[A-Z]*')
[ "$state" = JobState=COMPLETED ] || fail "gather job: $state"

csv=$work/out/grades.csv
[ -f "$csv" ] || fail "no grades.csv"
cat "$csv"
status=0
check() {
  grep -q "^$1,.*$2" "$csv" && echo "ok: $1 -> $2" || { echo "FAIL: $1 should be '$2'"; status=1; }
}
check s01-correct ",ok"
check s02-wrong "fails"
check s03-no-compile "does not compile"
[ "$(wc -l < "$csv")" -eq 4 ] || { echo "FAIL: grades.csv should have 3 rows"; status=1; }
for t in 0 1 2; do
  [ -f "$work/out/slurm/task-$t.log" ] || { echo "FAIL: no log of array task $t"; status=1; }
done
python3 "$root/grading/tests/validate_results.py" "$work/out"
case $? in
  0) ;;
  77) echo "note: results.json not validated here (grading.results_schema says why)" ;;
  *) status=1 ;;
esac
exit $status
