#!/usr/bin/env bash
# GPU check: run the end-to-end models on an NVIDIA GPU and compare every
# output with the CPU backend's, then time both. Prints a markdown table.
#
#   scripts/gpu-check.sh prepare        # on any machine with the build (no GPU needed)
#   scripts/gpu-check.sh run [OUT.md]   # on the GPU machine; needs only build/gpu-check/
#   scripts/gpu-check.sh all [OUT.md]   # both, on a GPU machine that can build
#
# `prepare` builds, generates the models (scripts/make_models.py: an MLP and a
# CNN with a symbolic batch, and the MLP with external weights), compiles each
# for cpu, cuda:sm_80 and cuda:sm_90 into one artifact, runs the CPU backend
# for the reference outputs, and gathers tessel-run with the few shared
# libraries it needs beyond the base system into build/gpu-check/ (a few MB),
# so that a GPU machine without the build tools can run the check.
# `run` runs each model and batch on the GPU (tessel-run --device cuda
# --compare, rtol 1e-3 / atol 1e-5), times 20 runs on each device, prints the
# table and writes it to OUT.md (default: build/gpu-check/results.md). Exit 0
# only if every output matched.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CHECK=$ROOT/build/gpu-check
RUNS=${RUNS:-20}
TARGETS=(--target cpu --target cuda:sm_80 --target cuda:sm_90)

prepare() {
  make -C "$ROOT" build
  rm -rf "$CHECK"
  mkdir -p "$CHECK/bin" "$CHECK/lib"
  /usr/bin/python3 "$ROOT/scripts/make_models.py" "$CHECK/models" >/dev/null
  for dir in "$CHECK"/models/*/; do
    name=$(basename "$dir")
    "$ROOT/build/bin/tessel-compile" "$dir/model.onnx" -o "$CHECK/$name.tsl" "${TARGETS[@]}"
    input=$(/usr/bin/python3 -c "import onnx,sys; m=onnx.load(sys.argv[1], load_external_data=False); \
print([i.name for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}][0])" \
      "$dir/model.onnx")
    for npy in "$dir"/input_*.npy; do
      k=$(basename "$npy" .npy); k=${k#input_}
      echo "$name $k $input" >> "$CHECK/cases.txt"
      "$ROOT/build/bin/tessel-run" "$CHECK/$name.tsl" --input "$input=$npy" \
        --output-dir "$CHECK/ref/$name-$k" >/dev/null
    done
  done
  cp "$ROOT/build/bin/tessel-run" "$CHECK/bin/"
  # Libraries outside the base system (protobuf, ONNX's protos).
  ldd "$ROOT/build/bin/tessel-run" | awk '/=> \// {print $3}' |
    grep -E 'libprotobuf|libonnx' | xargs -r -I{} cp -L {} "$CHECK/lib/"
  echo "gpu-check: prepared $(wc -l < "$CHECK/cases.txt") cases in $CHECK"
}

# Median latency in ms from tessel-run's "timing:" line, or "-".
median_ms() {
  local ms
  ms=$(sed -n 's/^timing: .*median \([0-9.e+-]*\) ms.*/\1/p' "$1" | head -1)
  echo "${ms:--}"
}

run() {
  local out=${1:-$CHECK/results.md}
  [ -f "$CHECK/cases.txt" ] || { echo "gpu-check: run 'prepare' first" >&2; exit 2; }
  export LD_LIBRARY_PATH="$CHECK/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local tool=$CHECK/bin/tessel-run failed=0 log
  log=$(mktemp -d)
  {
    echo "# Tessel GPU check"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version \
      --format=csv,noheader 2>/dev/null | head -1 || echo 'no nvidia-smi')"
    echo
    echo "Each output of the CUDA backend compared with the CPU backend's (rtol 1e-3,"
    echo "atol 1e-5); latency is the median of $RUNS runs after one warm-up run, the"
    echo "whole model including host<->device copies."
    echo
    echo "| model | input | result | max abs error | max rel error | CPU ms | GPU ms |"
    echo "|---|---|---|---|---|---|---|"
  } > "$out"
  while read -r name k input; do
    npy=$CHECK/models/$name/input_$k.npy
    "$tool" "$CHECK/$name.tsl" --input "$input=$npy" --device cpu --print \
      --runs "$RUNS" > "$log/cpu.txt" 2>&1 || true
    if "$tool" "$CHECK/$name.tsl" --input "$input=$npy" --device cuda \
         --compare "$CHECK/ref/$name-$k" --runs "$RUNS" > "$log/gpu.txt" 2> "$log/err.txt"; then
      result=ok
    else
      result="FAIL: $(head -1 "$log/err.txt")"
      failed=1
    fi
    abs=$(sed -n 's/.*max abs error \([^,]*\),.*/\1/p' "$log/gpu.txt" | sort -g | tail -1)
    rel=$(sed -n 's/.*max rel error \([^,]*\),.*/\1/p' "$log/gpu.txt" | sort -g | tail -1)
    echo "| $name | input_$k | $result | ${abs:--} | ${rel:--} | $(median_ms "$log/cpu.txt") |" \
         "$(median_ms "$log/gpu.txt") |" >> "$out"
  done < "$CHECK/cases.txt"
  rm -rf "$log"
  cat "$out"
  return $failed
}

case "${1:-}" in
  prepare) prepare ;;
  run) run "${2:-}" ;;
  all) prepare; run "${2:-}" ;;
  *) sed -n '2,19p' "$0"; exit 2 ;;
esac
