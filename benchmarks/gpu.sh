#!/usr/bin/env bash
# The GPU check in one command, on a CUDA machine (benchmarks/gpu.py says what it runs and prints):
#
#     bash benchmarks/gpu.sh [--wheels DIR] [--class 64] [-j 16] [--no-tests] [--json PATH]
#
# It needs torch (the machine's own CUDA build) and runs the grader from this checkout. What else the grader
# and its tests import (click, jinja2, nbformat, pytest) it takes from the machine where it is installed, else
# from the wheels in DIR, without network, into a folder of its own that goes when it ends. Fetch them on
# a machine with network, for the device's Python and platform:
#
#     pip download -d DIR --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#         click jinja2 nbformat pytest
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
python=${PYTHON:-python3}
wheels=""
passed=()
while [ $# -gt 0 ]; do
    case "$1" in
        --wheels) wheels=${2:?--wheels needs a folder}; shift 2 ;;
        *) passed+=("$1"); shift ;;
    esac
done
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
missing=$("$python" -c 'import importlib.util as u; print(*(m for m in ("click", "jinja2", "nbformat", "pytest") if u.find_spec(m) is None))') || exit 2
if [ -n "$missing" ]; then
    if [ -z "$wheels" ]; then
        echo "gpu.sh: $missing not installed: pass --wheels DIR with their wheels (see the top of this script)" >&2
        exit 2
    fi
    # shellcheck disable=SC2086  # one name a word
    "$python" -m pip install -q --no-index --no-compile --find-links "$wheels" --target "$site" $missing || exit 2
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
exec "$python" benchmarks/gpu.py "${passed[@]}"
