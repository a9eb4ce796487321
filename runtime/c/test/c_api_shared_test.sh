#!/usr/bin/env bash
# libllmc_runtime.so outside Bazel: it exports the C API alone, under its
# soname, and needs neither LLVM nor MLIR. (tools/install:install_test builds programs
# against it with the system's plain cc and c++.)
#   c_api_shared_test.sh LIBRARY
set -euo pipefail
library=$1
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
if readelf -d "$library" | grep -E 'NEEDED.*lib(MLIR|LLVM)'; then
  echo "c_api_shared_test: $library needs LLVM or MLIR (above)" >&2
  exit 1
fi
echo "ok   $library exports the C API alone under $soname and needs no LLVM or MLIR"
