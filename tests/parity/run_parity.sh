#!/usr/bin/env bash
# Runs parity.py with Debian's Python, which has numpy.
exec /usr/bin/python3 tests/parity/parity.py "$@"
