#!/bin/bash
# Runs the end-to-end suites; all of them run even when one fails.
#
#   test/e2e/run_all.sh BIN_DIR WORK_DIR [NODE_TEST_JOBS]
#
# Scratch files go to WORK_DIR/{node-tests,node-tests-gpu-tiles,models,bad-input,
# int-div,sweep,...-vulkan} (kept there for a look after a failure). Exit 1 if any
# suite failed.
#
# The GPU mapping runs numerically on Vulkan: Mesa's lavapipe (a CPU Vulkan
# driver, mesa-vulkan-drivers) runs the vulkan target's kernels at its
# default subgroup size 8, and the node tests of the reductions again at 4
# (LP_NATIVE_VECTOR_WIDTH=128), so that no kernel assumes one.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
BIN_DIR=${1:?usage: run_all.sh BIN_DIR WORK_DIR [JOBS]}
WORK=${2:?usage: run_all.sh BIN_DIR WORK_DIR [JOBS]}
JOBS=${3:-2}
mkdir -p "$WORK"

status=0
failed=()
suite() {
  local name=$1
  shift
  local start=$SECONDS
  echo "== e2e: $name"
  if ! "$@"; then status=1; failed+=("$name"); fi
  echo "== e2e: $name took $((SECONDS - start)) s"
}
suite models "$PY" "$HERE/models_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/models"
suite bad-input bash "$HERE/bad_input_test.sh" "$BIN_DIR" "$WORK/bad-input"
suite int-div "$PY" "$HERE/int_div_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/int-div"
suite sweep "$PY" "$HERE/sweep_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/sweep"
# Trained digits classifiers at --precision fp32/bf16/fp16: top-1 on a
# held-out test set within 0.5 points of fp32.
suite precision "$PY" "$HERE/precision_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/precision"
# The int8 and bf16 dot-product kernels (vpdpbusd, vdpbf16ps) of the AVX-512
# variant against x86-64-v3 and numpy, on a seeded sweep of MatMul/Gemm
# shapes; every variant the host supports runs.
suite dot-products "$PY" "$HERE/dot_product_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/dot-products"
# Pre-quantized (QDQ) Convs, MatMuls and Gemms as integer kernels, against
# numpy's evaluation of the ONNX semantics.
suite prequantized "$PY" "$HERE/prequantized_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/prequantized"
suite node-tests "$PY" "$HERE/node_tests.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/node-tests" -j "$JOBS" --conformance-md "$WORK/conformance.md"
# The GPU targets' tiling (block tiles, fusion, row reductions split over
# the threads) run on the CPU: the node tests of the ops it changes.
suite node-tests-gpu-tiles "$PY" "$HERE/node_tests.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/node-tests-gpu-tiles" -j "$JOBS" --no-gpu-offline \
  --compile-arg=--cpu-gpu-tiles \
  --filter 'softmax|reduce|norm|pool|conv|gemm|matmul|mean|lrn|argm|hardmax'
# Vulkan: the same models and node tests on --device vulkan, the models also
# with the mappings of the CUDA and HIP targets.
suite models-vulkan "$PY" "$HERE/models_test.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/models-vulkan" --device vulkan \
  --gpu-mapping-of cuda:sm_80 --gpu-mapping-of cuda:sm_90 --gpu-mapping-of rocm:gfx942
suite sweep-vulkan "$PY" "$HERE/sweep_test.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/sweep-vulkan" --device vulkan
suite node-tests-vulkan "$PY" "$HERE/node_tests.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/node-tests-vulkan" -j "$JOBS" --no-gpu-offline --device vulkan
# At subgroup size 4 only the folders whose kernels let threads cooperate:
# the row reductions split over a block's threads (workgroup memory and
# barriers, MapStagesToGpu.cpp) are the only kernels whose results could
# depend on the subgroup size; an elementwise kernel's thread is alone.
# Every folder again would add a quarter hour to CI for no further check.
suite node-tests-vulkan-subgroup-4 env LP_NATIVE_VECTOR_WIDTH=128 "$PY" \
  "$HERE/node_tests.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/node-tests-vulkan-sg4" \
  -j "$JOBS" --no-gpu-offline --device vulkan \
  --filter 'softmax|reduce|norm|pool|conv|gemm|matmul|mean|lrn|argm|hardmax|attention|loss|mvn|einsum'
if [ $status -ne 0 ]; then
  echo "== e2e: FAILED: ${failed[*]} (scratch files in $WORK)"
else
  echo "== e2e: all suites passed"
fi
exit $status
