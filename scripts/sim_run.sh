#!/usr/bin/env bash
# Builds one CUDA program (its main included) for the CPU simulator and runs it: no GPU and no
# CUDA Toolkit needed (sim/README.md, "Your own CUDA file").
#
# usage: scripts/sim_run.sh [-I DIR]... [--gpu NAME] [--report FILE.csv] [--build-dir DIR]
#                           SOURCE [SOURCE]... [-- ARGS...]
#   SOURCE          the program's sources: its .cu files and its .cpp files (main may be in either),
#                   or a folder: the .cu and .cpp files in it (not below), and an include
#                   directory; the program is named after the first (file or folder)
#   -I DIR          an include directory of the program (as nvcc -I)
#   --gpu NAME      the GPU the simulator stands in for: h200 (default), a100, t4, rtx4090, or
#                   small (2 SMs: quickest); its shape sizes the device the program sees
#   --report FILE   also write one row per kernel launch: kernel, grid, block, every counter
#                   under its Nsight Compute metric name, and the time the GPU's cost model
#                   PREDICTS (predicted_us) with the binding resource
#   --build-dir DIR where the build goes (default build/sim-run/<program>-<hash> in this repo);
#                   programs may share one (the simulator's library is then built once);
#                   HISTO_SIM_RUN_DIR in the environment names a shared one too
#   ARGS            the program's own arguments
# The counters need Clang (found by the build where installed); with GCC the program still runs
# and the report says the counters are incomplete. The program's exit status is this script's.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '5,19p' "$0" >&2; exit 2; }
includes=()
sources=()
gpu=h200
report=""
build=""
while [ $# -gt 0 ]; do
  case "$1" in
    -I) [ $# -ge 2 ] || usage; includes+=("$(cd "$2" && pwd)"); shift 2 ;;
    -I*) includes+=("$(cd "${1#-I}" && pwd)"); shift ;;
    --gpu) [ $# -ge 2 ] || usage; gpu=$2; shift 2 ;;
    --report) [ $# -ge 2 ] || usage; report=$2; shift 2 ;;
    --build-dir) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "sim_run.sh: unknown option $1" >&2; usage ;;
    *) sources+=("$1"); shift ;;
  esac
done
[ ${#sources[@]} -gt 0 ] || usage
name=""
if [ -d "${sources[0]}" ]; then  # a target's name: letters, digits, _ . -
  name=$(basename "$(cd "${sources[0]}" && pwd)" | tr -c 'A-Za-z0-9_.\n-' '_')
fi
files=()
for f in "${sources[@]}"; do
  if [ -d "$f" ]; then
    dir=$(cd "$f" && pwd)
    found=$(find "$dir" -maxdepth 1 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.cc' -o -name '*.cxx' \) | LC_ALL=C sort)
    [ -n "$found" ] || { echo "sim_run.sh: the folder $f holds no .cu or .cpp file" >&2; exit 2; }
    while IFS= read -r x; do files+=("$x"); done <<< "$found"
    includes+=("$dir")
  else
    files+=("$f")
  fi
done
sources=("${files[@]}")
for i in "${!sources[@]}"; do
  f=${sources[$i]}
  [ -f "$f" ] || { echo "sim_run.sh: no such file: $f" >&2; exit 2; }
  case "$f" in *.cu|*.cpp|*.cc|*.cxx) ;; *)
    echo "sim_run.sh: $f: a program's sources are .cu and .cpp (.cc, .cxx) files" >&2; exit 2 ;;
  esac
  sources[$i]=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
done
source=${sources[0]}
case "$gpu" in h200|a100|t4|rtx4090|small) ;; *)
  echo "sim_run.sh: unknown GPU '$gpu'; known: h200, a100, t4, rtx4090, small" >&2; exit 2 ;;
esac

[ -n "$name" ] || name=$(basename "${source%.*}")
if [ -z "$build" ] && [ -n "${HISTO_SIM_RUN_DIR:-}" ]; then
  build=$HISTO_SIM_RUN_DIR
elif [ -z "$build" ]; then
  tag=$(printf '%s' "${sources[*]} ${includes[*]:-}" | cksum | cut -d' ' -f1)
  build=$repo/build/sim-run/$name-$tag
fi
mkdir -p "$build"
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
include_list=$(IFS=';'; echo "${includes[*]:-}")
source_list=$(IFS=';'; echo "${sources[*]}")
if ! cmake -S "$repo/sim/run" -B "$build" "${generator[@]}" -DHISTO_SIM_RUN_SOURCE="$source_list" \
     -DHISTO_SIM_RUN_INCLUDES="$include_list" -DHISTO_SIM_RUN_NAME="$name" > "$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "sim_run.sh: configuring the simulator build failed ($build)" >&2
  exit 1
fi
if ! cmake --build "$build" --target "$name" -j "$(nproc 2> /dev/null || echo 2)" > "$build/build.log" 2>&1; then
  # The compiler's messages about the program, not the build tool's chatter.
  grep -v '^\[[0-9]*/[0-9]*\]\|^ninja: \|^FAILED: \|^ccache \|clang++ \|c++ \|g++ ' "$build/build.log" >&2 || true
  echo "sim_run.sh: $name (${sources[*]##*/}) does not build for the CPU simulator (full log: $build/build.log)" >&2
  exit 1
fi
counters=$(grep -o 'CPU simulator: counters o[nf]*' "$build/configure.log" | head -n 1 || true)
[ "$counters" = "CPU simulator: counters off" ] &&
  echo "sim_run.sh: no Clang found: the program runs, but only atomics and __ldg loads are counted" >&2

env_args=(HISTO_SIM_GPU="$gpu")
if [ -n "$report" ]; then
  mkdir -p "$(dirname "$report")"
  report=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
  rm -f "$report"
  env_args+=(HISTO_SIM_REPORT="$report")
fi
status=0
env "${env_args[@]}" "$build/$name" "$@" || status=$?
if [ -n "$report" ]; then
  if [ -f "$report" ]; then
    echo "sim_run.sh: one row per kernel launch in $report: counters from the CPU simulator, times PREDICTED by the $gpu cost model (not measured)" >&2
  else
    echo "sim_run.sh: the program wrote no report (it launched no kernel, or did not exit normally)" >&2
  fi
fi
exit $status
