#!/usr/bin/env bash
# Fails when the runtime's libraries depend on the compiler (the targets
# the genquery in BUILD.bazel lists).
#   no_compiler_test.sh QUERY_OUTPUT
set -euo pipefail
if [[ -s "$1" ]]; then
  echo "no_compiler_test: the runtime depends on compiler targets:" >&2
  cat "$1" >&2
  exit 1
fi
echo "ok   the runtime reaches no frontend, dialect, lowering, codegen, compiler plugin, MLIR or LLVM"
