#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image (Ubuntu). The zip the
# instructor uploads is unpacked in /autograder/source; it holds this script, run_autograder and the
# grader, as a wheel (llm_from_scratch_grader-*.whl) or as its source tree (pyproject.toml at the
# top). See README.md.
set -euo pipefail

root="${AUTOGRADER_ROOT:-/autograder}"
source_dir="$root/source"
venv="$root/venv"

# A venv, not the system pip: recent Ubuntu images refuse `pip install` outside one (PEP 668).
if ! command -v python3 >/dev/null || ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-venv python3-pip
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --no-cache-dir --upgrade pip

# The CPU build of torch, first: a bare `torch` requirement resolves to the default wheel, a
# multi-GB CUDA build the image neither needs (Gradescope gives no GPU) nor has room to spare for.
"$venv/bin/pip" install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu

shopt -s nullglob
wheels=("$source_dir"/llm_from_scratch_grader-*.whl)
if ((${#wheels[@]})); then
    "$venv/bin/pip" install --no-cache-dir "${wheels[-1]}"
elif [[ -f $source_dir/pyproject.toml ]]; then
    "$venv/bin/pip" install --no-cache-dir "$source_dir"
else
    echo "setup.sh: no llm_from_scratch_grader-*.whl and no pyproject.toml in $source_dir: add the grader to the zip" >&2
    exit 1
fi
"$venv/bin/grade" --version
