#!/usr/bin/env bash
#===- tools/demo.sh - the main job on the built-in default ---------------===#
#
# The README's main command. Installs the pinned packages (a no-op when they
# are present), builds the tools and the generated documentation, and shows
# the plugins linked into llmc.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash third_party/setup.sh
bazel build //tools/llmc //tools/llmc-opt //docs
echo
bazel-bin/tools/llmc/llmc --list-plugins
echo
echo "Dialect and pass reference: $(ls bazel-bin/docs/*.md | tr '\n' ' ')"
