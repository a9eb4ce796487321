#!/usr/bin/env bash
# Runs tokenize_parity.py with Debian's Python.
exec /usr/bin/python3 tests/tokenizer/tokenize_parity.py "$@"
