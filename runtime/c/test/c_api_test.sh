#!/usr/bin/env bash
# The C or C++ API against the CLI: the demo checkpoint compiled for the
# host, its greedy ids from `llmc run` and from a demo program through
# llmc_c.h (c_api_demo) or llmc.hpp (cxx_api_demo).
#   c_api_test.sh LLMC DEMO CHECKPOINT_DIR
set -euo pipefail
llmc=$1 demo=$2 checkpoint=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
prompt="Once upon a time"
"$llmc" convert -m "$checkpoint" -c host -q F32 -s 128 --max-input-length 32 \
  -o "$tmp/demo.llmc" --quiet
"$llmc" run --model "$tmp/demo.llmc" -p "$prompt" --max-new-tokens 12 \
  --threads 1 --ids-out "$tmp/ids.json" >/dev/null
want=$(/usr/bin/python3 -c 'import json, sys
print(",".join(map(str, json.load(open(sys.argv[1]))["generated"])))' "$tmp/ids.json")
got=$("$demo" "$tmp/demo.llmc" "$prompt" 12 | sed -n 's/^ids: //p')
if [[ "$got" != "$want" ]]; then
  echo "c_api_test: $(basename "$demo") generated $got, llmc run $want" >&2
  exit 1
fi
echo "ok   $(basename "$demo")'s greedy ids equal llmc run's: $got"
