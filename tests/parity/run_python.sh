#!/usr/bin/env bash
# Runs a test script with Debian's Python, which has numpy.
script="$1"
shift
exec /usr/bin/python3 "$script" "$@"
