#!/usr/bin/env bash
# Nsight Compute's memory counters for every registered kernel: the table the CPU simulator's
# counters are validated against (sim/README.md, CTest label perfmodel).
#
# usage: scripts/ncu_counters.sh [BUILD_DIR] [OUT_CSV]
#   BUILD_DIR  a GPU build with the solutions (default build/gpu; built if missing)
#   OUT_CSV    default BUILD_DIR/report/counters.csv; the committed copy is report/counters.csv
#   DATASETS   default uniform,degenerate,text;  SIZE  default 16M
#
# One ncu run per kernel and dataset profiles the first launch of `histo_bench --kernels K`
# (its correctness check, on the same input the timing uses) with caches flushed first, so
# DRAM bytes are those of a cold input. Output: one row per kernel and dataset, one column per
# metric, named exactly as Nsight Compute names it.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
out=${2:-$build/report/counters.csv}
datasets=${DATASETS:-uniform,degenerate,text}
size=${SIZE:-16M}
metrics=(
  launch__grid_size launch__block_size launch__registers_per_thread
  launch__shared_mem_per_block_static launch__shared_mem_per_block_dynamic
  launch__occupancy_limit_blocks launch__occupancy_limit_registers
  launch__occupancy_limit_shared_mem launch__occupancy_limit_warps
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
  smsp__sass_inst_executed_op_shared_ld.sum
  smsp__sass_inst_executed_op_shared_st.sum
  smsp__sass_inst_executed_op_shared_atom.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum
  dram__bytes_read.sum
  lts__t_requests_op_red.sum lts__t_requests_op_atom.sum
  smsp__inst_executed.sum gpu__time_duration.sum
)
command -v ncu > /dev/null || { echo "ncu (Nsight Compute) is not on PATH" >&2; exit 2; }
if [ ! -x "$build/bench/histo_bench" ]; then
  cmake --preset gpu > /dev/null
  cmake --build --preset gpu --target histo_bench
fi
bench=$build/bench/histo_bench
mkdir -p "$(dirname "$out")"
raw=$(dirname "$out")/ncu_counters  # one Nsight Compute CSV per kernel and dataset
rm -rf "$raw"
mkdir -p "$raw"

# Metrics this ncu knows on this GPU (a name it does not know would fail every run).
known=$(ncu --query-metrics --csv 2> /dev/null | cut -d, -f1 | tr -d '"' || true)
wanted=()
for m in "${metrics[@]}"; do
  base=${m%.sum}
  if [ "${m#launch__}" != "$m" ] || [ -z "$known" ] || grep -qx "$base" <<< "$known" || grep -qx "$m" <<< "$known"; then
    wanted+=("$m")
  else
    echo "   ncu does not know $m here: left out" >&2
  fi
done
list=$(IFS=,; echo "${wanted[*]}")

kernels=$("$bench" --list | awk '$1 ~ /^lab0[1-6]\// {print $1}')
for k in $kernels; do
  for d in ${datasets//,/ }; do
    f=$raw/${k//\//_}_$d.csv
    if ! ncu --csv --print-units base --metrics "$list" \
        -k regex:'histogram|probe_(segmented|interleaved)' -c 1 --log-file "$f" \
        "$bench" --kernels "$k" --datasets "$d" --size "$size" --reps 3 > "$raw/ncu.log" 2>&1; then
      echo "   ncu failed on $k ($d):" >&2
      tail -n 5 "$raw/ncu.log" >&2
      continue
    fi
    echo "   $k $d" >&2
  done
done

python3 - "$raw" "$out" "$size" "${wanted[@]}" <<'PY'
import csv, io, sys
from pathlib import Path
raw, out, size, metrics = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
rows = []
for f in sorted(raw.glob("*.csv")):
    kernel_file, dataset = f.stem.rsplit("_", 1)
    lab, _, name = kernel_file.partition("_")
    text = "".join(l for l in f.read_text().splitlines(True) if l.startswith('"'))
    values, launch = {}, {}
    for r in csv.DictReader(io.StringIO(text)):
        launch = {"cuda_kernel": r["Kernel Name"].split("(")[0],
                  "grid": r["Grid Size"].strip("()").split(",")[0],
                  "block": r["Block Size"].strip("()").split(",")[0]}
        values[r["Metric Name"]] = r["Metric Value"].replace(",", "")
    rows.append({"kernel": f"{lab}/{name}", "dataset": dataset, "size": size, **launch,
                 **{m: values.get(m, "") for m in metrics}})
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=["kernel", "dataset", "size", "cuda_kernel", "grid", "block",
                                      *metrics])
    w.writeheader()
    w.writerows(rows)
print(f"{out}: {len(rows)} kernel x dataset rows, {len(metrics)} metrics")
PY
