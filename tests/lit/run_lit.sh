#!/usr/bin/env bash
# Runs one lit test file from a Bazel sh_test.
#   run_lit.sh <test file> <tool>...
# lit looks for its config beside the test, so the test is linked into a
# scratch suite that holds tests/lit/lit.cfg.py; the tools' folders go first
# on PATH so RUN lines name them plainly (llmc-opt, FileCheck, not).
set -euo pipefail
test_link=$1
test_file=$(readlink -f "$1")
shift
suite="${TEST_TMPDIR:-$(mktemp -d)}/lit-suite"
mkdir -p "$suite"
cp tests/lit/lit.cfg.py "$suite/lit.cfg.py"
ln -sf "$test_file" "$suite/$(basename "$test_file")"
# Data files the test declares sit beside it in the runfiles; link them into
# the suite too, so RUN lines find them at %S.
for data in "$(dirname "$test_link")"/*; do
  if [[ -f "$data" && "$data" != *.mlir ]]; then
    ln -sf "$(readlink -f "$data")" "$suite/"
  fi
done
tool_path=$(dirname "$(readlink -f external/llvm/FileCheck)")
for tool in "$@"; do
  tool_path="$(cd "$(dirname "$tool")" && pwd):$tool_path"
done
# The test file links into the source tree; the reference data sits beside
# the repository (../shared/refdata), as in CI, unless LLMC_REFDATA names it.
repo=$(dirname "$test_file")
while [[ "$repo" != / && ! -f "$repo/WORKSPACE" ]]; do repo=$(dirname "$repo"); done
exec /usr/bin/python3 external/llvm/lit -v --param tool_path="$tool_path" \
  --param runfiles="$(pwd)" \
  --param refdata="${LLMC_REFDATA:-$repo/../shared/refdata}" "$suite/$(basename "$test_file")"
