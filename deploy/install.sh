#!/bin/sh
# Install Flavorsmith into a new virtual environment, with the project's pinned dependencies.
#
#   deploy/install.sh PREFIX [SOURCE]
#
# PREFIX  the virtual environment to create (e.g. /opt/flavorsmith); PREFIX/bin/flavorsmith
#         is the command afterwards.
# SOURCE  what to install: this checkout (the default) or a built wheel.
#
# Needs python3 (3.11 or newer, with venv) and the package index, nothing else: pip reads its
# usual settings from the environment (PIP_INDEX_URL for a mirror, PIP_NO_INDEX with
# PIP_FIND_LINKS for a wheelhouse). The container build (deploy/Containerfile) runs this script;
# so does a test, into a fresh environment it then starts.
set -eu

if [ "$#" -lt 1 ] || [ "$#" -gt 2 ]; then
    echo "usage: $0 PREFIX [SOURCE]" >&2
    exit 2
fi
prefix=$1
project=$(cd "$(dirname "$0")/.." && pwd)
source=${2:-$project}
python=${PYTHON:-python3}

"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "error: $python is older than Python 3.11" >&2
    exit 1
}
"$python" -m venv "$prefix"
"$prefix/bin/python" -m pip install --disable-pip-version-check --quiet \
    --constraint "$project/constraints.txt" "$source"
"$prefix/bin/flavorsmith" --version
