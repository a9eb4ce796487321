#!/usr/bin/env bash
# Runs llama_cpp_vocab_parity.py with Debian's Python.
exec /usr/bin/python3 tests/tokenizer/llama_cpp_vocab_parity.py "$@"
