#!/usr/bin/env bash
#===- tools/install/install.sh - llmc's runtime for applications ----------===#
#
# Lays out what an application built outside Bazel needs under a prefix:
#
#   bazel run //:install -- --prefix DIR
#
#   DIR/include/llmc/llmc_c.h      the C API
#   DIR/include/llmc/llmc.hpp      the C++ API over it (standard types only)
#   DIR/lib/libllmc_runtime.so.1   the runtime, exporting the C API alone
#   DIR/lib/libllmc_runtime.so     -> libllmc_runtime.so.1, for -lllmc_runtime
#   DIR/lib/pkgconfig/llmc.pc      pkg-config --cflags --libs llmc
#   DIR/lib/python3/dist-packages/llmc/   the Python package
#   DIR/bin/llmc-run               run, chat, serve, inspect, template
#
# Bazel passes the built files as the leading arguments (tools/install/
# BUILD.bazel); a relative DIR is taken from where `bazel run` was started.
# Files are replaced, not merged into: an existing DIR keeps what else it has.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

if [[ $# -lt 7 ]]; then
  echo "install.sh: run it as: bazel run //:install -- --prefix DIR" >&2
  exit 2
fi
library=$1 c_header=$2 cxx_header=$3 pc_template=$4 python_module=$5
python_init=$6 llmc_run=$7
shift 7
prefix=""
while [[ $# -gt 0 ]]; do
  case "$1" in
  --prefix) prefix=${2:-}; shift 2 || { echo "install: --prefix needs a directory" >&2; exit 2; } ;;
  --prefix=*) prefix=${1#--prefix=}; shift ;;
  -h|--help)
    echo "usage: bazel run //:install -- --prefix DIR"
    exit 0 ;;
  *) echo "install: unknown argument '$1' (usage: --prefix DIR)" >&2; exit 2 ;;
  esac
done
if [[ -z "$prefix" ]]; then
  echo "install: give the directory to install into: --prefix DIR" >&2
  exit 2
fi
if [[ "$prefix" != /* ]]; then
  prefix="${BUILD_WORKING_DIRECTORY:-$PWD}/$prefix"
fi

version=$(sed -n 's/^#define LLMC_C_API_VERSION \([0-9][0-9]*\)$/\1/p' "$c_header")
if [[ -z "$version" ]]; then
  echo "install: $c_header states no LLMC_C_API_VERSION" >&2
  exit 1
fi
soname=libllmc_runtime.so.1
python_dir="$prefix/lib/python3/dist-packages/llmc"
mkdir -p "$prefix/bin" "$prefix/include/llmc" "$prefix/lib/pkgconfig" \
  "$python_dir"
install -m 755 "$llmc_run" "$prefix/bin/llmc-run"
install -m 644 "$c_header" "$prefix/include/llmc/llmc_c.h"
install -m 644 "$cxx_header" "$prefix/include/llmc/llmc.hpp"
install -m 755 "$library" "$prefix/lib/$soname"
ln -sfn "$soname" "$prefix/lib/libllmc_runtime.so"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" "$pc_template" \
  >"$prefix/lib/pkgconfig/llmc.pc"
install -m 755 "$python_module" "$python_dir/_llmc.so"
install -m 644 "$python_init" "$python_dir/__init__.py"
echo "installed llmc's runtime (C API version $version) into $prefix"
echo "  CLI:    $prefix/bin/llmc-run run -m model.llmc -p \"...\""
echo "  C, C++: cc app.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs llmc)"
echo "  Python: PYTHONPATH=$prefix/lib/python3/dist-packages python3 -c 'import llmc'"
