#!/usr/bin/env bash
# Runs sentencepiece_parity.py with Debian's Python.
exec /usr/bin/python3 tests/tokenizer/sentencepiece_parity.py "$@"
