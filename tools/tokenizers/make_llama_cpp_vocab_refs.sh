#!/usr/bin/env bash
#===- tools/tokenizers/make_llama_cpp_vocab_refs.sh - llama.cpp's ids ----===#
#
# (Re)makes the llama.cpp ids of tests/tokenizer/data/llama_cpp_vocab (its
# README.md describes the files): for each NAME,
# ggml-vocab-NAME.llama_cpp.out from ggml-vocab-NAME.llama_cpp.inp, the ids
# llama.cpp's own tokenizer gives those texts with the vocabulary
# ggml-vocab-NAME.gguf.gz. First it checks that llama.cpp gives every text
# of ggml-vocab-NAME.gguf.inp the ids transformers gave (.gguf.out), and
# stops if one differs: the texts are only worth llama.cpp's ids where
# llama.cpp tokenizes that vocabulary as transformers does.
#
#   tools/tokenizers/make_llama_cpp_vocab_refs.sh NAME...
#
# Environment: DATA (tests/tokenizer/data/llama_cpp_vocab), CACHE
# (~/.cache/llmc/tokenizers: llamacpp_tokenize), LLAMACPP_CACHE
# (~/.cache/llmc/bench/llamacpp, where tools/bench/llamacpp/build.sh
# installs llama.cpp's prebuilt libraries and clones its source; needs npm
# and the network the first time).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 NAME..." >&2
  exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
data=${DATA:-$root/tests/tokenizer/data/llama_cpp_vocab}
cache=${CACHE:-$HOME/.cache/llmc/tokenizers}
llamacpp_cache=${LLAMACPP_CACHE:-$HOME/.cache/llmc/bench/llamacpp}

tokenize="$cache/llamacpp_tokenize"
mkdir -p "$cache"
"$root/tools/bench/llamacpp/build.sh" "$llamacpp_cache" \
  "$here/LlamaCppTokenize.cpp" "$tokenize" >/dev/null

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for name in "$@"; do
  base="$data/ggml-vocab-$name"
  if [[ ! -f "$base.llama_cpp.inp" ]]; then
    echo "make_llama_cpp_vocab_refs.sh: no $base.llama_cpp.inp" >&2
    exit 1
  fi
  gunzip -c "$base.gguf.gz" >"$scratch/$name.gguf"
  # llama.cpp's .out lines start with a space.
  if ! diff <(sed 's/^ //' "$base.gguf.out") \
      <("$tokenize" "$scratch/$name.gguf" "$base.gguf.inp") >/dev/null; then
    echo "make_llama_cpp_vocab_refs.sh: llama.cpp does not give $name's" \
      "texts the ids transformers gave" >&2
    exit 1
  fi
  "$tokenize" "$scratch/$name.gguf" "$base.llama_cpp.inp" \
    >"$scratch/$name.out"
  mv "$scratch/$name.out" "$base.llama_cpp.out"
  echo "$base.llama_cpp.out: $(wc -l <"$base.llama_cpp.out") texts"
done
