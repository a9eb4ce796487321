#!/usr/bin/env bash
# libllmc_runtime.so outside Bazel: it exports the C API alone, under its
# soname, and needs no MLIR; a C program built against it with the system's
# plain `cc` (as an application would) passes c_api_test.sh.
#   c_api_shared_test.sh LLMC LIBRARY DEMO_SOURCE CHECKPOINT_DIR
set -euo pipefail
llmc=$1 library=$2 source=$3 checkpoint=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
exported=$(nm -D --defined-only "$library" | awk '$3 != "LLMC_1" { print $3 }')
if grep -v '^llmc_[a-z_]*@@LLMC_1$' <<<"$exported"; then
  echo "c_api_shared_test: $library exports more than the C API (above)" >&2
  exit 1
fi
soname=$(readelf -d "$library" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [[ "$soname" != libllmc_runtime.so.1 ]]; then
  echo "c_api_shared_test: soname '$soname', expected libllmc_runtime.so.1" >&2
  exit 1
fi
if readelf -d "$library" | grep -q 'NEEDED.*libMLIR'; then
  echo "c_api_shared_test: $library needs libMLIR" >&2
  exit 1
fi
mkdir -p "$tmp/lib"
cp "$library" "$tmp/lib/$soname"
ln -sf "$soname" "$tmp/lib/libllmc_runtime.so"
# The source includes "runtime/c/llmc_c.h": the runfiles root is the prefix.
cc -std=c11 -Wall -Wextra -Werror -I. "$source" -L"$tmp/lib" -lllmc_runtime \
  -Wl,-rpath,"$tmp/lib" -o "$tmp/c_api_demo"
exec "$(dirname "$0")/c_api_test.sh" "$llmc" "$tmp/c_api_demo" "$checkpoint"
