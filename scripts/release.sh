#!/usr/bin/env bash
# Writes the student repository (a fresh git repository: the labs, no solution) and checks that
# no line of solution code is in it. See scripts/release.py --help.
#   scripts/release.sh OUT [--labs lab01,...] [--code-hints]
#   scripts/release.sh --check DIR
exec python3 "$(dirname "$0")/release.py" "$@"
