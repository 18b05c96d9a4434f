#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder image
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/). It installs
# Python, pip and bubblewrap with apt, then the grader from the wheel beside this
# script into a virtual environment at /autograder/venv, which run_autograder uses.
# Written by `grade gradescope-bundle`.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WHEEL="$HERE/@@WHEEL@@"

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends python3 python3-pip python3-venv bubblewrap

if ! python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    echo "setup.sh: the grader needs Python >= 3.10 but this image has $(python3 --version 2>&1);" \
         "choose an Ubuntu 22.04 (or newer) base image in the assignment's autograder settings" >&2
    exit 1
fi

python3 -m venv "$ROOT/venv"
"$ROOT/venv/bin/python" -m pip install --upgrade pip
"$ROOT/venv/bin/python" -m pip install "$WHEEL"
"$ROOT/venv/bin/grade" list > /dev/null     # the grader and its course load
