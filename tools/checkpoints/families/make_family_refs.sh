#!/usr/bin/env bash
#===- tools/checkpoints/families/make_family_refs.sh - tests/families ----===#
#
# (Re)makes everything in tests/families (its README.md describes the files):
# the tiny-llama31, tiny-mistral, tiny-phi3, tiny-internlm2, tiny-qwen2-swa,
# tiny-gemma2 and tiny-gemma3 checkpoints (HF files and F32 GGUF), and their
# reference logits from two implementations llmc did not write:
#   tiny-llama31.f32.*       llama.cpp on model-f32.gguf;
#   tiny-mistral-gguf.f32.*  llama.cpp on tiny-mistral's GGUF, which carries
#                            no sliding window (full causal attention);
#   tiny-mistral.f32.*       reference_forward.py (the float64 port of HF's
#                            modeling) with the window of 32;
#   tiny-phi3-gguf.f32.*     llama.cpp on tiny-phi3's GGUF: LongRoPE as HF
#                            applies it here, but llama.cpp disables Phi-3's
#                            sliding window (full causal attention);
#   tiny-phi3.f32.*          reference_forward.py with the window of 48 and
#                            LongRoPE;
#   tiny-internlm2.f32.*     llama.cpp on model-f32.gguf;
#   tiny-qwen2-swa-gguf.f32.* llama.cpp on tiny-qwen2-swa's GGUF, which
#                            carries no sliding window (llama.cpp's qwen2 has
#                            none: full causal attention in both layers);
#   tiny-qwen2-swa.f32.*     reference_forward.py with Qwen2's per-layer
#                            window: layer 0 full, layer 1 the window of 32;
#   tiny-gemma2.f32.*,       reference_forward.py: llama.cpp runs these GGUFs
#   tiny-gemma3.f32.*        as HF runs the models, except that ggml's CPU
#                            GELU is a float16 table lookup, up to about
#                            6e-4 off in the logits.
# The cases and their prompt ids are those of ../shared/refdata's tiny-llama
# references (short, long, turns). Then it checks the float64 port against
# llama.cpp (tiny-llama31; tiny-mistral, tiny-phi3 and tiny-qwen2-swa
# without their window; tiny-phi3 with the long LongRoPE factors, which
# llama.cpp takes with a context of 512; tiny-internlm2; tiny-gemma2 and
# tiny-gemma3 with llamacpp_logits --exact-gelu, ggml's float32 GELU in
# place of the table; the shared tiny-llama and its references) to max
# |dlogit| <= 1e-5 with the same greedy ids (and prints how far llama.cpp's
# own GELU puts the Gemmas, with the same greedy ids); that the windows
# change the long case (and that windowing tiny-qwen2-swa's layer 1 only,
# and the Gemmas' layer 0 only, differs from windowing both layers), the
# rope scaling the logits, tiny-gemma2's softcaps and tiny-gemma3's local
# rope base and its unscaled sliding layer the long case; and that in every
# reference the greedy top two logits are more than 3e-3 apart and no
# special token is generated.
#
#   tools/checkpoints/families/make_family_refs.sh
#
# Environment: REFDATA (../shared/refdata beside the repository), OUT
# (tests/families), CACHE (~/.cache/llmc/families: llamacpp_logits and the
# checks' outputs), LLAMACPP_CACHE (~/.cache/llmc/bench/llamacpp, where
# tools/bench/llamacpp/build.sh installs llama.cpp's prebuilt libraries and
# clones its source; needs npm and the network the first time), PYTHON
# (/usr/bin/python3, with numpy). Same bytes on every run on one machine; the
# llama.cpp logits may differ in their last bits on a CPU for which ggml
# picks another backend variant.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
refdata=$(cd "${REFDATA:-$root/../shared/refdata}" && pwd)
out=${OUT:-$root/tests/families}
cache=${CACHE:-$HOME/.cache/llmc/families}
llamacpp_cache=${LLAMACPP_CACHE:-$HOME/.cache/llmc/bench/llamacpp}
python=${PYTHON:-/usr/bin/python3}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

tolerance=1e-5
cases=(short long turns)
for case in "${cases[@]}"; do
  [[ -f "$refdata/refs/tiny-llama.f32.$case.json" ]] ||
    { echo "make_family_refs.sh: no $refdata/refs/tiny-llama.f32.$case.json" >&2; exit 1; }
done

# (a) llama.cpp: the libraries and source, and llamacpp_logits compiled
# against them (build.sh skips what is there).
gguf_py="$llamacpp_cache/llama.cpp/gguf-py"
logits="$cache/llamacpp_logits"
mkdir -p "$cache"
"$root/tools/bench/llamacpp/build.sh" "$llamacpp_cache" "$here/LlamaCppLogits.cpp" \
  "$logits" >/dev/null

# llamacpp_logits's --turn and --gen options for a reference's turns.
turn_options() {
  "$python" - "$1" <<'EOF'
import json, sys
turns = json.load(open(sys.argv[1]))["turns"]
counts = {len(turn["generated"]) for turn in turns}
assert len(counts) == 1, "turns generate different numbers of tokens"
print(" ".join("--turn " + ",".join(map(str, turn["input_ids"])) for turn in turns),
      "--gen", counts.pop())
EOF
}

llamacpp() {  # MODEL.gguf CASE OUT_PREFIX [--ctx N] [--exact-gelu]
  # shellcheck disable=SC2046
  "$logits" "$1" -o "$3" --threads 1 \
    $(turn_options "$refdata/refs/tiny-llama.f32.$2.json") "${@:4}" 2>>"$cache/llamacpp.log"
}

float64() {  # MODEL_DIR CASE OUT_PREFIX [reference_forward.py run options]
  "$python" "$here/reference_forward.py" run "$1" \
    --ids "$refdata/refs/tiny-llama.f32.$2.json" -o "$3" "${@:4}"
}

compare() {
  "$python" "$here/reference_forward.py" compare "$@"
}

# (b) The checkpoints.
for family in tiny-llama31 tiny-mistral tiny-phi3 tiny-internlm2 tiny-qwen2-swa \
  tiny-gemma2 tiny-gemma3; do
  "$python" "$here/make_family_checkpoint.py" --family "$family" \
    -o "$out/models/$family" --tokenizer-from "$refdata/models/tiny-llama" \
    --gguf-py "$gguf_py" --check-tokenizer "$refdata/models/tiny-llama/model-f32.gguf"
done

# (c) The references.
: >"$cache/llamacpp.log"
mkdir -p "$out/refs"
for case in "${cases[@]}"; do
  llamacpp "$out/models/tiny-llama31/model-f32.gguf" "$case" "$out/refs/tiny-llama31.f32.$case"
  llamacpp "$out/models/tiny-mistral/model-f32.gguf" "$case" "$out/refs/tiny-mistral-gguf.f32.$case"
  float64 "$out/models/tiny-mistral" "$case" "$out/refs/tiny-mistral.f32.$case"
  llamacpp "$out/models/tiny-phi3/model-f32.gguf" "$case" "$out/refs/tiny-phi3-gguf.f32.$case"
  float64 "$out/models/tiny-phi3" "$case" "$out/refs/tiny-phi3.f32.$case"
  llamacpp "$out/models/tiny-internlm2/model-f32.gguf" "$case" "$out/refs/tiny-internlm2.f32.$case"
  llamacpp "$out/models/tiny-qwen2-swa/model-f32.gguf" "$case" \
    "$out/refs/tiny-qwen2-swa-gguf.f32.$case"
  float64 "$out/models/tiny-qwen2-swa" "$case" "$out/refs/tiny-qwen2-swa.f32.$case"
  float64 "$out/models/tiny-gemma2" "$case" "$out/refs/tiny-gemma2.f32.$case"
  float64 "$out/models/tiny-gemma3" "$case" "$out/refs/tiny-gemma3.f32.$case"
done
grep -m1 "CPU backend" "$cache/llamacpp.log" >&2

# (d) The checks: the float64 port against llama.cpp, then the effects of
# the windows and rope scalings, then the references' greedy margins.
check="$cache/check"
rm -rf "$check"
mkdir -p "$check"
failed=0
for case in "${cases[@]}"; do
  float64 "$out/models/tiny-llama31" "$case" "$check/tiny-llama31.f64.$case"
  compare "$check/tiny-llama31.f64.$case" "$out/refs/tiny-llama31.f32.$case" \
    --tolerance "$tolerance" || failed=1
  float64 "$out/models/tiny-mistral" "$case" "$check/tiny-mistral-nowindow.f64.$case" --no-window
  compare "$check/tiny-mistral-nowindow.f64.$case" "$out/refs/tiny-mistral-gguf.f32.$case" \
    --tolerance "$tolerance" || failed=1
  float64 "$out/models/tiny-phi3" "$case" "$check/tiny-phi3-nowindow.f64.$case" --no-window
  compare "$check/tiny-phi3-nowindow.f64.$case" "$out/refs/tiny-phi3-gguf.f32.$case" \
    --tolerance "$tolerance" || failed=1
  # llama.cpp takes the long factors when its context exceeds the original
  # 256 (HF: when the sequence does).
  llamacpp "$out/models/tiny-phi3/model-f32.gguf" "$case" "$check/tiny-phi3-ctx512.llamacpp.$case" \
    --ctx 512
  float64 "$out/models/tiny-phi3" "$case" "$check/tiny-phi3-nowindow-long.f64.$case" \
    --no-window --longrope-factors long
  compare "$check/tiny-phi3-nowindow-long.f64.$case" "$check/tiny-phi3-ctx512.llamacpp.$case" \
    --tolerance "$tolerance" || failed=1
  float64 "$out/models/tiny-internlm2" "$case" "$check/tiny-internlm2.f64.$case"
  compare "$check/tiny-internlm2.f64.$case" "$out/refs/tiny-internlm2.f32.$case" \
    --tolerance "$tolerance" || failed=1
  float64 "$out/models/tiny-qwen2-swa" "$case" "$check/tiny-qwen2-swa-nowindow.f64.$case" \
    --no-window
  compare "$check/tiny-qwen2-swa-nowindow.f64.$case" "$out/refs/tiny-qwen2-swa-gguf.f32.$case" \
    --tolerance "$tolerance" || failed=1
  # The Gemmas: llama.cpp with ggml's float32 GELU computes what the port
  # does; with its own float16 table it is up to about 6e-4 off.
  for family in tiny-gemma2 tiny-gemma3; do
    llamacpp "$out/models/$family/model-f32.gguf" "$case" \
      "$check/$family-exactgelu.llamacpp.$case" --exact-gelu
    compare "$out/refs/$family.f32.$case" "$check/$family-exactgelu.llamacpp.$case" \
      --tolerance "$tolerance" || failed=1
    llamacpp "$out/models/$family/model-f32.gguf" "$case" "$check/$family.llamacpp.$case"
    compare "$out/refs/$family.f32.$case" "$check/$family.llamacpp.$case" || failed=1
  done
  float64 "$refdata/models/tiny-llama" "$case" "$check/tiny-llama.f64.$case"
  compare "$check/tiny-llama.f64.$case" "$refdata/refs/tiny-llama.f32.$case" \
    --tolerance "$tolerance" || failed=1
  # llamacpp_logits reproduces the shared references themselves.
  llamacpp "$refdata/models/tiny-llama/model-f32.gguf" "$case" "$check/tiny-llama.llamacpp.$case"
  compare "$check/tiny-llama.llamacpp.$case" "$refdata/refs/tiny-llama.f32.$case" \
    --tolerance "$tolerance" || failed=1
done
compare "$out/refs/tiny-mistral.f32.long" "$check/tiny-mistral-nowindow.f64.long" \
  --expect-change 1e-3 || failed=1
compare "$out/refs/tiny-phi3.f32.long" "$check/tiny-phi3-nowindow.f64.long" \
  --expect-change 1e-3 || failed=1
compare "$out/refs/tiny-qwen2-swa.f32.long" "$check/tiny-qwen2-swa-nowindow.f64.long" \
  --expect-change 1e-3 || failed=1
# tiny-qwen2-swa windows layer 1 only: the window in both layers (as a
# runtime that ignored max_window_layers / layer_types would apply it) gives
# other logits.
float64 "$out/models/tiny-qwen2-swa" long "$check/tiny-qwen2-swa-alllayers.f64.long" \
  --window-all-layers
compare "$out/refs/tiny-qwen2-swa.f32.long" "$check/tiny-qwen2-swa-alllayers.f64.long" \
  --expect-change 1e-3 || failed=1
# The Gemmas: the window (in layer 0 only: in both layers is another
# result), tiny-gemma2's attention and final softcaps, tiny-gemma3's local
# rope base and its sliding layer's lack of rope scaling each change the
# long case.
changes_long() {  # FAMILY NAME OPTION: the port with OPTION differs
  float64 "$out/models/$1" long "$check/$1-$2.f64.long" "$3"
  compare "$out/refs/$1.f32.long" "$check/$1-$2.f64.long" --expect-change 1e-3
}
for family in tiny-gemma2 tiny-gemma3; do
  changes_long "$family" nowindow --no-window || failed=1
  changes_long "$family" alllayers --window-all-layers || failed=1
done
changes_long tiny-gemma2 noattncap --no-attn-softcap || failed=1
changes_long tiny-gemma2 nofinalcap --no-final-softcap || failed=1
changes_long tiny-gemma3 nolocalbase --no-local-rope-base || failed=1
changes_long tiny-gemma3 scaleall --rope-scaling-all-layers || failed=1
for case in short long; do
  float64 "$out/models/tiny-llama31" "$case" "$check/tiny-llama31-norope.f64.$case" --no-rope-scaling
  compare "$out/refs/tiny-llama31.f32.$case" "$check/tiny-llama31-norope.f64.$case" \
    --expect-change 1e-3 || failed=1
  float64 "$out/models/tiny-phi3" "$case" "$check/tiny-phi3-norope.f64.$case" --no-rope-scaling
  compare "$out/refs/tiny-phi3.f32.$case" "$check/tiny-phi3-norope.f64.$case" \
    --expect-change 1e-3 || failed=1
  float64 "$out/models/tiny-gemma3" "$case" "$check/tiny-gemma3-norope.f64.$case" --no-rope-scaling
  compare "$out/refs/tiny-gemma3.f32.$case" "$check/tiny-gemma3-norope.f64.$case" \
    --expect-change 1e-3 || failed=1
done
# shellcheck disable=SC2046
"$python" "$here/reference_forward.py" margins \
  $(for npy in "$out"/refs/*.npy; do echo "${npy%.npy}"; done) || failed=1
if [[ $failed -ne 0 ]]; then
  echo "make_family_refs.sh: a check failed (outputs kept in $check)" >&2
  exit 1
fi
echo "make_family_refs.sh: wrote $out; all checks passed" >&2
