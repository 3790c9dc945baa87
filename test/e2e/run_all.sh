#!/bin/bash
# Runs the end-to-end suites; all of them run even when one fails.
#
#   test/e2e/run_all.sh BIN_DIR WORK_DIR [NODE_TEST_JOBS]
#
# Scratch files go to WORK_DIR/{node-tests,node-tests-gpu-tiles,models,bad-input,
# int-div} (kept there for a look after a failure). Exit 1 if any suite failed.
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
  echo "== e2e: $name"
  if ! "$@"; then status=1; failed+=("$name"); fi
}
suite models "$PY" "$HERE/models_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/models"
suite bad-input bash "$HERE/bad_input_test.sh" "$BIN_DIR" "$WORK/bad-input"
suite int-div "$PY" "$HERE/int_div_test.py" --bin-dir "$BIN_DIR" --work-dir "$WORK/int-div"
suite node-tests "$PY" "$HERE/node_tests.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/node-tests" -j "$JOBS"
# The GPU targets' tiling (block tiles, fusion, row reductions split over
# the threads) run on the CPU: the node tests of the ops it changes.
suite node-tests-gpu-tiles "$PY" "$HERE/node_tests.py" --bin-dir "$BIN_DIR" \
  --work-dir "$WORK/node-tests-gpu-tiles" -j "$JOBS" --no-gpu-offline \
  --compile-arg=--cpu-gpu-tiles \
  --filter 'softmax|reduce|norm|pool|conv|gemm|matmul|mean|lrn|argm|hardmax'
if [ $status -ne 0 ]; then
  echo "== e2e: FAILED: ${failed[*]} (scratch files in $WORK)"
else
  echo "== e2e: all suites passed"
fi
exit $status
