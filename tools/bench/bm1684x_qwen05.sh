#!/usr/bin/env bash
# The chip benchmark on the Qwen2.5-0.5B shape (random weights): compile wall
# time and peak RSS with and without relocating equal layers' pieces, the
# modelled decode step against the DDR roofline (S = 512, L = 128), the
# binary's size against its unique weights, and a 512-token prompt compiled
# as one prefill (S = 1024, L = 512) against the compute roofline.
#
#   tools/bench/bm1684x_qwen05.sh [mode] [chip]   # default W4BF16 bm1684x
set -euo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-W4BF16}"
chip="${2:-bm1684x}"
work="${LLMC_BENCH_DIR:-$HOME/.cache/llmc/bench}"
checkpoint="$work/qwen2.5-0.5b"
mkdir -p "$work"
bazel build //tools/llmc //tools/bench:piece_timing
if [[ ! -f "$checkpoint/model.safetensors" ]]; then
  /usr/bin/python3 tools/checkpoints/make_random_checkpoint.py \
    --shape qwen2.5-0.5b --dtype bf16 -o "$checkpoint"
fi
llmc=bazel-bin/tools/llmc/llmc
convert() {
  local out="$1"
  shift
  /usr/bin/time -f "%e %M" -o "$work/time.txt" \
    "$llmc" convert -m "$checkpoint" -c "$chip" -q "$mode" -o "$out" --quiet \
    "$@" >/dev/null
  read -r seconds kilobytes <"$work/time.txt"
  echo "$seconds $kilobytes"
}
binary="$work/qwen05-$chip-$mode.llmc"
read -r relocated relocatedKb < <(convert "$binary" -s 512 --max-input-length 128)
read -r everyLayer everyLayerKb < <(convert "$work/every-layer.llmc" -s 512 \
  --max-input-length 128 --compile-every-layer)
echo "compile: ${relocated} s (peak RSS $((relocatedKb / 1024)) MiB) relocating equal layers' pieces;" \
  "${everyLayer} s (peak RSS $((everyLayerKb / 1024)) MiB) compiling every layer"
if cmp -s "$binary" "$work/every-layer.llmc"; then
  echo "both binaries are byte-identical"
else
  echo "error: relocation changed the binary" >&2
  exit 1
fi
bazel-bin/tools/bench/piece_timing "$binary"
convert "$work/prefill512.llmc" -s 1024 --max-input-length 512 >/dev/null
bazel-bin/tools/bench/piece_timing "$work/prefill512.llmc" --prompt-tokens 512 |
  grep '^prompt'
