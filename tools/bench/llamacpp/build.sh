#!/usr/bin/env bash
#===- tools/bench/llamacpp/build.sh - llama.cpp's side of vs_llamacpp.sh -===#
#
# Builds CACHE_DIR/llamacpp_bench (LlamaCppBench.cpp) against llama.cpp's
# prebuilt CPU libraries from node-llama-cpp's npm package, whose ggml CPU
# backends come in one library per instruction set (libggml-cpu-zen4.so,
# ...-haswell.so, ...) so the bench runs the variant a release build of
# llama.cpp picks for this machine, without compiling llama.cpp here.
#
#   tools/bench/llamacpp/build.sh CACHE_DIR [PROGRAM.cpp OUTPUT]
#
# Leaves in CACHE_DIR:
#   npm/        node-llama-cpp and @node-llama-cpp/linux-x64, pinned;
#   llama.cpp/  the source of that very build, cloned from the git bundle the
#               package ships (its headers; its gguf-py for make_gguf.py);
#   llamacpp_bench.
# With PROGRAM.cpp and OUTPUT it compiles that program into OUTPUT instead
# of the bench, in the same way (tools/checkpoints/families/
# make_family_refs.sh builds llamacpp_logits with it). The program may
# include this directory's LlamaCppSupport.h. Prints the path of the program.
# Each step is skipped when its result is already there. Needs npm and the
# network on the first run only; benchmarks and the scripts that make test
# data use it, never a test.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
if [[ $# -ne 1 && $# -ne 3 ]]; then
  echo "usage: $0 CACHE_DIR [PROGRAM.cpp OUTPUT]" >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$1"
cache=$(cd "$1" && pwd)

version=3.22.1
# The llama.cpp release node-llama-cpp $version builds, in its libraries'
# names.
release=v0.5.0
modules="$cache/npm/node_modules"
bins="$modules/@node-llama-cpp/linux-x64/bins/linux-x64"
bundle="$modules/node-llama-cpp/llama/gitRelease.bundle"
source="$cache/llama.cpp"
program=${2:-$here/LlamaCppBench.cpp}
output=${3:-$cache/llamacpp_bench}

installed_version() {
  node -p "require('$modules/$1/package.json').version" 2>/dev/null || true
}

# (a) The packages. Scripts are not run: node-llama-cpp's postinstall would
# fetch or build binaries for Node, which the bench does not use; optional
# dependencies (its GPU builds, hundreds of MB) are left out.
if [[ "$(installed_version node-llama-cpp)" != "$version" ||
      "$(installed_version @node-llama-cpp/linux-x64)" != "$version" ||
      ! -f "$bins/libllama.$release.so" ]]; then
  echo "build.sh: installing node-llama-cpp $version into $cache/npm" >&2
  npm install --prefix "$cache/npm" --ignore-scripts --omit=optional \
    --no-audit --no-fund --prefer-offline --loglevel=error \
    "node-llama-cpp@$version" "@node-llama-cpp/linux-x64@$version" >&2
fi

# (b) The source the libraries were built from, for headers matching their
# ABI. Recloned when the package (so the bundle's commit) changed.
bundle_commit=$(git bundle list-heads "$bundle" HEAD | cut -d' ' -f1)
if [[ "$(git -C "$source" rev-parse HEAD 2>/dev/null)" != "$bundle_commit" ]]; then
  echo "build.sh: cloning llama.cpp $bundle_commit into $source" >&2
  rm -rf "$source" "$source.partial"
  git -c advice.detachedHead=false clone --quiet "$bundle" "$source.partial"
  mv "$source.partial" "$source"
fi

# (c) The bench (or PROGRAM.cpp). The rpath finds the libraries without
# LD_LIBRARY_PATH; the program asks ggml to load its CPU backends from the
# same directory (LlamaCppSupport.h's loadCpuBackend).
if [[ ! -x "$output" || "$program" -nt "$output" ||
      "$here/LlamaCppSupport.h" -nt "$output" ||
      "$bins/libllama.$release.so" -nt "$output" ]]; then
  echo "build.sh: compiling $output" >&2
  mkdir -p "$(dirname "$output")"
  g++ -O2 -std=c++17 -Wall -I"$here" -I"$source/include" \
    -I"$source/ggml/include" "$program" -o "$output.partial" \
    -L"$bins" -l:"libllama.$release.so" -l:"libggml.$release.so" \
    -l:libggml-base.so -ldl -Wl,-rpath,"$bins"
  mv "$output.partial" "$output"
fi
echo "$output"
