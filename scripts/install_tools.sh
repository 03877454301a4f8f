#!/usr/bin/env bash
# Installs what building and running the CPU-simulator graders needs, from the system's apt
# (Debian, Ubuntu 24.04 or newer): CMake, Ninja, a C++ compiler, Clang (the simulator's counters),
# Catch2 3 and Python 3, non-interactively. Does nothing when they are all installed. GitHub
# Classroom's autograding (.github/workflows/classroom.yml) and the Gradescope autograder
# (setup.sh) run it.
set -euo pipefail

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

# Catch2 3 is libcatch2-dev on Debian (13, or 12's backports) and catch2 on Ubuntu 24.04.
catch2_installed() {
  local p
  for p in libcatch2-dev catch2; do
    [ "$(dpkg-query -W -f='${Status} ${Version}\n' "$p" 2>/dev/null |
         awk '$3 == "installed" { sub(/^[0-9]+:/, "", $4); print substr($4, 1, 2) }')" = "3." ] && return 0
  done
  return 1
}

need=()
command -v cmake > /dev/null || need+=(cmake)
command -v ninja > /dev/null || need+=(ninja-build)
command -v g++ > /dev/null || need+=(g++)
command -v python3 > /dev/null || need+=(python3)
# Clang: the simulator's counters, which the [perf] ("cost: ...") tests grade on.
command -v clang++ > /dev/null || need+=(clang)
# bubblewrap: the sandbox submissions' builds and tests run in (grading/README.md).
command -v bwrap > /dev/null || need+=(bubblewrap)
catch2_installed || catch2_missing="Catch2 3 (libcatch2-dev)"
if [ ${#need[@]} -eq 0 ] && catch2_installed; then
  echo "install_tools: cmake, ninja, g++, clang, bubblewrap, python3 and Catch2 3 are installed"
  exit 0
fi

if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q; then
  echo "install_tools: apt-get update failed (the package repositories cannot be reached: no" \
       "network?); these are missing: ${need[*]:-} ${catch2_missing:-}" >&2
  exit 1
fi
if ! catch2_installed; then
  pkg=""
  for p in libcatch2-dev catch2; do
    case "$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')" in
      3.*|[0-9]:3.*) pkg=$p; break ;;
    esac
  done
  if [ -n "$pkg" ]; then
    need+=("$pkg")
  else
    # The configure then needs git to fetch Catch2 (HISTO_FETCH_CATCH2), where that is allowed.
    echo "install_tools: this system's apt has no Catch2 3 package" >&2
    need+=(git ca-certificates)
  fi
fi
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
cmake --version | head -n 1
