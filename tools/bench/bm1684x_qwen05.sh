#!/usr/bin/env bash
# The bm1684x benchmark on the Qwen2.5-0.5B shape (random weights, W4BF16):
# compile wall time and peak RSS with and without relocating layer 0's
# pieces, the modelled decode step against the DDR roofline, the modelled
# 512-token prompt, and the binary's size against its unique weights.
#
#   tools/bench/bm1684x_qwen05.sh [mode]      # default W4BF16
set -euo pipefail
cd "$(dirname "$0")/../.."
mode="${1:-W4BF16}"
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
    "$llmc" convert -m "$checkpoint" -c bm1684x -q "$mode" -s 512 \
    --max-input-length 128 -o "$out" --quiet "$@" >/dev/null
  read -r seconds kilobytes <"$work/time.txt"
  echo "$seconds $kilobytes"
}
read -r relocated relocatedKb < <(convert "$work/qwen05.llmc")
read -r everyLayer everyLayerKb < <(convert "$work/qwen05-every-layer.llmc" --compile-every-layer)
echo "compile: ${relocated} s (peak RSS $((relocatedKb / 1024)) MiB) relocating equal layers' pieces;" \
  "${everyLayer} s (peak RSS $((everyLayerKb / 1024)) MiB) compiling every layer"
if cmp -s "$work/qwen05.llmc" "$work/qwen05-every-layer.llmc"; then
  echo "both binaries are byte-identical"
else
  echo "error: relocation changed the binary" >&2
  exit 1
fi
bazel-bin/tools/bench/piece_timing "$work/qwen05.llmc" --prompt-tokens 512
