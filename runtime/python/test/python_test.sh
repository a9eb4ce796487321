#!/usr/bin/env bash
# The llmc Python package with the system Python: the demo checkpoint
# compiled for the host, `llmc run`'s greedy ids, then llmc_test.py.
#   python_test.sh LLMC EXTENSION INIT_PY TEST_PY CHECKPOINT_DIR
set -euo pipefail
llmc=$1 extension=$2 init=$3 test=$4 checkpoint=$5
tmp=${TEST_TMPDIR:-$(mktemp -d)}
"$llmc" convert -m "$checkpoint" -c host -q F32 -s 128 --max-input-length 32 \
  -o "$tmp/demo.llmc" --quiet
"$llmc" run --model "$tmp/demo.llmc" -p "Once upon a time" --max-new-tokens 12 \
  --threads 1 --ids-out "$tmp/ids.json" >/dev/null 2>&1
mkdir -p "$tmp/site/llmc"
cp "$init" "$extension" "$tmp/site/llmc/"
PYTHONPATH="$tmp/site" /usr/bin/python3 "$test" "$tmp/demo.llmc" "$tmp/ids.json"
