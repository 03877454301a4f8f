#!/usr/bin/env bash
# Where each lab stands: CPU checks, kernels in the CPU simulator, kernels on a GPU (passed,
# failed, or NOT RUN with the reason), and what to do next. See scripts/status.py --help.
exec python3 "$(dirname "$0")/status.py" "$@"
