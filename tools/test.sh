#!/usr/bin/env bash
#===- tools/test.sh - install what is missing, then run every test -------===#
#
# The README's test command. Installs the pinned packages (a no-op when they
# are present), runs `bazel test //...`, and prints a per-test-case count
# (`N passed, N failed`) from that run's build events and JUnit XML. Exits
# non-zero when any test fails or the build breaks.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! bash third_party/setup.sh; then
  echo "0 passed, 1 failed"
  exit 1
fi

events=$(mktemp)
trap 'rm -f "$events"' EXIT
# Tests read the reference data beside the repository (../shared/refdata).
# A clone made elsewhere (a temporary directory) finds it beside the checkout
# it was cloned from, and passes it to the tests as LLMC_REFDATA.
if [[ -z "${LLMC_REFDATA:-}" && ! -d ../shared/refdata ]]; then
  origin=$(git config --get remote.origin.url || true)
  if [[ -n "$origin" && -d "$origin/../shared/refdata" ]]; then
    LLMC_REFDATA=$(cd "$origin/../shared/refdata" && pwd)
    export LLMC_REFDATA
  fi
fi
refdata_env=()
if [[ -n "${LLMC_REFDATA:-}" ]]; then
  refdata_env=(--test_env=LLMC_REFDATA="$LLMC_REFDATA")
fi
bazel test //... --build_event_json_file="$events" "${refdata_env[@]}" "$@"
status=$?

/usr/bin/python3 tools/count_tests.py "$events" "$status" || status=1
exit $status
