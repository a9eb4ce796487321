#!/usr/bin/env bash
# The host benchmark on the Qwen2.5-0.5B shape (random weights): converts it
# for the host in F16, W8F16 and W4F16 (S = 1024, L = 512) and runs
# host_bench on the three binaries, which measures this machine's read
# bandwidth first and prints decode against that roofline and the prefill
# of a 512-token prompt.
#
#   tools/bench/host_qwen05.sh [host_bench options]
set -euo pipefail
cd "$(dirname "$0")/../.."
work="${LLMC_BENCH_DIR:-$HOME/.cache/llmc/bench}"
checkpoint="$work/qwen2.5-0.5b"
mkdir -p "$work"
bazel build //tools/llmc //tools/bench:host_bench
if [[ ! -f "$checkpoint/model.safetensors" ]]; then
  /usr/bin/python3 tools/checkpoints/make_random_checkpoint.py \
    --shape qwen2.5-0.5b --dtype bf16 -o "$checkpoint"
fi
binaries=()
for mode in F16 W8F16 W4F16; do
  out="$work/qwen05-host-${mode,,}.llmc"
  if [[ ! -f "$out" || bazel-bin/tools/llmc/llmc -nt "$out" ]]; then
    bazel-bin/tools/llmc/llmc convert -m "$checkpoint" -c host -q "$mode" \
      -s 1024 --max-input-length 512 -o "$out" --quiet
  fi
  binaries+=("$out")
done
bazel-bin/tools/bench/host_bench "${binaries[@]}" "$@"
