#!/usr/bin/env bash
# llmc's host backend side by side with llama.cpp on this CPU, on the
# Qwen2.5-0.5B shape with the same random weights: F16 against F16, W8F16
# against Q8_0 and W4F16 against pure Q4_0. For each pair it prints the
# prefill of a 512-token prompt (pp512), 128 decode steps (tg128; llmc's
# run after the prompt, llama.cpp's from an empty cache as llama-bench's)
# and the time to the first token of a 16-token follow-up turn after 512
# tokens of history, with the read bandwidth and float32 FMA peak measured
# in the same run. For the quantized pairs llmc also runs the very GGUF
# file llama.cpp runs ("llmc, same GGUF": its groups of 32 compiled as
# stored), beside its own conversion of the safetensors (groups of 64).
#
# Shared machines change speed as other tenants come and go, so the engines
# alternate (llama.cpp, llmc, llama.cpp, llmc, ...) for ROUNDS rounds per
# pair, and the table holds medians and the ratio of medians.
#
#   tools/bench/vs_llamacpp.sh [ROUNDS] [THREADS]     (defaults: 3 rounds, 2)
#
# llama.cpp comes from the npm package @node-llama-cpp/linux-x64 (its
# prebuilt CPU libraries, release v0.5.0; one per x86 level, of which ggml
# loads the best for this CPU) and the source bundled with node-llama-cpp
# (headers, gguf-py), installed under $LLMC_BENCH_DIR/llamacpp by
# tools/bench/llamacpp/build.sh. A benchmark only: no test needs npm.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds="${1:-3}"
threads="${2:-2}"
work="${LLMC_BENCH_DIR:-$HOME/.cache/llmc/bench}"
checkpoint="$work/qwen2.5-0.5b"
llamacpp="$work/llamacpp"
mkdir -p "$work"

bash tools/bench/llamacpp/build.sh "$llamacpp" >&2
bazel build //tools/llmc //tools/bench:host_bench >&2
if [[ ! -f "$checkpoint/model.safetensors" ]]; then
  /usr/bin/python3 tools/checkpoints/make_random_checkpoint.py \
    --shape qwen2.5-0.5b --dtype bf16 -o "$checkpoint" >&2
fi

convert() { # MODE SOURCE BINARY
  if [[ ! -f "$3" || bazel-bin/tools/llmc/llmc -nt "$3" ]]; then
    bazel-bin/tools/llmc/llmc convert -m "$2" -c host -q "$1" \
      -s 1024 --max-input-length 512 -o "$3" --quiet >&2
  fi
}
pairs=("F16 F16" "W8F16 Q8_0" "W4F16 Q4_0")
for pair in "${pairs[@]}"; do
  read -r mode type <<<"$pair"
  gguf="$work/qwen05-${type,,}.gguf"
  if [[ ! -f "$gguf" ]]; then
    PYTHONPATH="$llamacpp/llama.cpp/gguf-py" /usr/bin/python3 \
      tools/bench/llamacpp/make_gguf.py "$checkpoint" "$gguf" "$type" >&2
  fi
  convert "$mode" "$checkpoint" "$work/qwen05-host-${mode,,}.llmc"
  if [[ "$type" != F16 ]]; then
    convert "$mode" "$gguf" "$work/qwen05-host-gguf-${type,,}.llmc"
  fi
done

# One engine's run of a pair, as a JSON row tagged with the pair (and the
# engine's name when given).
tag() { # PAIR [ENGINE]
  local rename=""
  [[ -z "${2:-}" ]] || rename="s|\"engine\":\"[^\"]*\"|\"engine\":\"$2\"|;"
  grep '^{' | sed "${rename}s|^{|{\"pair\":\"$1\",|"
}
llmc_bench() { # BINARY
  bazel-bin/tools/bench/host_bench "$1" --host-threads "$threads" \
    --prompt-tokens 512 --decode 128 --turn 16 --json
}

results="$(mktemp)"
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
  for pair in "${pairs[@]}"; do
    read -r mode type <<<"$pair"
    echo "round $round/$rounds: $type on llama.cpp, $mode on llmc" >&2
    "$llamacpp/llamacpp_bench" "$work/qwen05-${type,,}.gguf" \
      --threads "$threads" --prompt 512 --gen 128 --turn 16 |
      tag "$mode/$type" >>"$results"
    llmc_bench "$work/qwen05-host-${mode,,}.llmc" |
      tag "$mode/$type" >>"$results"
    if [[ "$type" != F16 ]]; then
      llmc_bench "$work/qwen05-host-gguf-${type,,}.llmc" |
        tag "$mode/$type" "llmc, same GGUF" >>"$results"
    fi
  done
done

/usr/bin/python3 - "$results" "$rounds" "$threads" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print(f"\n{sys.argv[2]} rounds, {sys.argv[3]} threads; medians "
      "(llmc / llama.cpp: above 1 is llmc faster)\n")
engines = list(dict.fromkeys(r["engine"] for r in rows))
llmc = [r for r in rows if r["engine"].startswith("llmc")]
for engine in engines:
    paths = sorted({r.get("isa", r.get("backend", "unknown")) for r in rows
                    if r["engine"] == engine})
    cpus = sorted({r["cpu"] for r in rows if r["engine"] == engine and "cpu" in r})
    print(f"{engine}: {', '.join(paths)}" + (f" on {', '.join(cpus)}" if cpus else ""))
print()
if llmc:
    print("read bandwidth %.1f GB/s, float32 FMA peak %.0f GFLOP/s (medians of llmc's runs)\n"
          % (statistics.median(r["bandwidth_gbs"] for r in llmc),
             statistics.median(r["fma_peak_gflops"] for r in llmc)))
header = ("pair", "engine", "pp512 t/s", "tg128 t/s", "16-token turn ms")
print("| %s |" % " | ".join(header))
print("|%s|" % "|".join("---" for _ in header))
for pair in dict.fromkeys(r["pair"] for r in rows):
    medians = {}
    for engine in engines:
        mine = [r for r in rows if r["pair"] == pair and r["engine"] == engine]
        if not mine:
            continue
        medians[engine] = {key: statistics.median(r[key] for r in mine)
                           for key in ("pp_tps", "tg_tps", "turn_ms")}
        m = medians[engine]
        print(f"| {pair} | {engine} | {m['pp_tps']:.1f} | {m['tg_tps']:.1f} | "
              f"{m['turn_ms']:.1f} |")
    b = medians["llama.cpp"]
    for engine, a in medians.items():
        if engine != "llama.cpp":
            print(f"| {pair} | {engine} / llama.cpp | {a['pp_tps'] / b['pp_tps']:.2f}x | "
                  f"{a['tg_tps'] / b['tg_tps']:.2f}x | {b['turn_ms'] / a['turn_ms']:.2f}x |")
PY
