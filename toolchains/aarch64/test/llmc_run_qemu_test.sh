#!/usr/bin/env bash
# llmc-run cross-built for aarch64 and run under qemu against the x86
# llmc-run: an ARM ELF linking no LLVM or MLIR, which generates the x86
# greedy ids from the demo checkpoint compiled for the host and for
# bm1684x (on its cmodel).
#   llmc_run_qemu_test.sh LLMC LLMC_RUN LLMC_RUN_AARCH64 CHECKPOINT_DIR
set -euo pipefail
llmc=$1 x86_run=$2 arm_run=$3 checkpoint=$4
tmp=${TEST_TMPDIR:-$(mktemp -d)}
qemu=/usr/bin/qemu-aarch64-static
prompt="Once upon a time"
if [[ ! -x $qemu ]]; then
  echo "llmc_run_qemu_test: $qemu is missing; run third_party/setup.sh" >&2
  exit 1
fi

machine=$(readelf -h "$arm_run" | sed -n 's/^ *Machine: *//p')
if [[ "$machine" != "AArch64" ]]; then
  echo "llmc_run_qemu_test: $arm_run is built for $machine" >&2
  exit 1
fi
if readelf -d "$arm_run" | grep -E 'NEEDED.*lib(LLVM|MLIR)'; then
  echo "llmc_run_qemu_test: the aarch64 llmc-run links LLVM or MLIR" >&2
  exit 1
fi

# The greedy ids of `llmc-run run` ($@, then its options) as a line.
greedy_ids() {
  local model=$1 ids=$2
  shift 2
  "$@" run --model "$model" -p "$prompt" --max-new-tokens 12 --threads 1 \
    --ids-out "$ids" >/dev/null
  /usr/bin/python3 -c 'import json, sys
print(",".join(map(str, json.load(open(sys.argv[1]))["generated"])))' "$ids"
}

for target in "host F32" "bm1684x W8F16"; do
  read -r chip mode <<<"$target"
  model="$tmp/$chip.llmc"
  "$llmc" convert -m "$checkpoint" -c "$chip" -q "$mode" -s 128 \
    --max-input-length 32 -o "$model" --quiet >/dev/null
  want=$(greedy_ids "$model" "$tmp/$chip.x86.json" "$x86_run")
  got=$(greedy_ids "$model" "$tmp/$chip.arm64.json" "$qemu" "$arm_run")
  if [[ "$got" != "$want" ]]; then
    echo "llmc_run_qemu_test: $chip $mode: aarch64 $got, x86 $want" >&2
    exit 1
  fi
  echo "ok   $chip $mode: aarch64 llmc-run's greedy ids equal x86's: $got"
done
