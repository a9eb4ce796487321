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
bazel test //... --build_event_json_file="$events" "$@"
status=$?

/usr/bin/python3 tools/count_tests.py "$events" "$status" || status=1
exit $status
