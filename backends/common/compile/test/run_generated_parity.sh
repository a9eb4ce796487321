#!/usr/bin/env bash
# Writes a checkpoint with a generator and runs the generated-checkpoint
# cases of the piece parity test on it:
#   run_generated_parity.sh <test binary> <file name> <generator command...>
# The checkpoint's path (in the test's scratch directory) is appended to the
# generator command.
set -euo pipefail
test_binary="$1"
checkpoint="${TEST_TMPDIR:-$(mktemp -d)}/$2"
shift 2
"$@" "$checkpoint" >/dev/null
LLMC_PARITY_CHECKPOINT="$checkpoint" exec "$test_binary" \
  --gtest_filter='Bm1684xGenerated/*' \
  ${XML_OUTPUT_FILE:+--gtest_output=xml:$XML_OUTPUT_FILE}
