#!/usr/bin/env bash
# Rebuilds a lab on every save of its source, runs its quick checks first and stops at the first
# failure: its message and your next TODO. See scripts/watch.py --help.
#   scripts/watch.sh [labNN] [--once]
exec python3 "$(dirname "$0")/watch.py" "$@"
