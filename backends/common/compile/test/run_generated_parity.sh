#!/usr/bin/env bash
# Writes a random checkpoint of the Qwen2.5-0.5B shape (one layer, a 32000
# vocabulary) and runs the generated-checkpoint cases of the piece parity
# test on it.
set -euo pipefail
generator="$1"
test_binary="$2"
checkpoint="${TEST_TMPDIR:-$(mktemp -d)}/qwen2.5-0.5b-1layer"
/usr/bin/python3 "$generator" --shape qwen2.5-0.5b --layers 1 --vocab 32000 \
  --dtype bf16 -o "$checkpoint" >/dev/null
LLMC_PARITY_CHECKPOINT="$checkpoint" exec "$test_binary" \
  --gtest_filter='Bm1684xGenerated/*' \
  ${XML_OUTPUT_FILE:+--gtest_output=xml:$XML_OUTPUT_FILE}
