#!/bin/bash
# Bad user input must give one clear error, exit code 2 and no output file.
#
#   test/e2e/bad_input_test.sh [BIN_DIR [WORK_DIR]]
#     BIN_DIR   folder of tessel-compile and tessel-run (default: build/bin)
#     WORK_DIR  scratch folder (default: a fresh one in the build folder,
#               removed when every case passes)
#
# Each case runs one tool on one bad input in a folder of its own, then checks:
#   * the exit code is exactly 2 (not 1, not a crash, not a hang: 60 s limit);
#   * stderr has exactly one "error:" line, it starts with "<tool>: error:",
#     and it says what is wrong (the key words of the case, case-insensitive);
#   * no file was left behind: no output, no temporary, nothing new in the folder.
# Last line: `bad-input: N passed, M failed`. Exit 1 if any case failed.
set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
BIN_DIR=$(cd "${1:-$REPO/build/bin}" 2>/dev/null && pwd) || {
  echo "bad-input: error: no bin folder ${1:-$REPO/build/bin}" >&2; exit 2; }
COMPILE=$BIN_DIR/tessel-compile
RUN=$BIN_DIR/tessel-run
for t in "$COMPILE" "$RUN"; do
  [ -x "$t" ] || { echo "bad-input: error: $t not found or not executable" >&2; exit 2; }
done
if [ $# -ge 2 ]; then
  WORK=$2; TEMP_WORK=0
  rm -rf "$WORK"; mkdir -p "$WORK"
else
  WORK=$(mktemp -d "$(dirname "$BIN_DIR")/bad-input-XXXXXX"); TEMP_WORK=1
fi
WORK=$(cd "$WORK" && pwd)

PASSED=0
FAILED=0
FAILED_NAMES=()

pass() { PASSED=$((PASSED + 1)); echo "PASS  $1"; }
fail() { FAILED=$((FAILED + 1)); FAILED_NAMES+=("$1"); echo "FAIL  $1  -- $2"; }

# Files (not folders: an empty output folder is no output) under $1.
listing() { (cd "$1" && find . -mindepth 1 ! -type d | LC_ALL=C sort); }

# check_case NAME TOOL "WORDS_ERE..." -- COMMAND...
#   Runs COMMAND in $WORK/NAME (which the caller filled), then checks exit 2,
#   one "TOOL: error:" line matching every ERE in WORDS (separated by '|||'),
#   and that the folder's listing did not change.
check_case() {
  local name=$1 tool=$2 words=$3
  shift 4
  local dir=$WORK/$name
  local before after rc err_lines line
  before=$(listing "$dir")
  (cd "$dir" && timeout 60 "$@" >"$WORK/$name.stdout" 2>"$WORK/$name.stderr")
  rc=$?
  after=$(listing "$dir")
  local stderr_text
  stderr_text=$(cat "$WORK/$name.stderr")
  line=$(grep -m1 'error:' "$WORK/$name.stderr")
  err_lines=$(grep -c 'error:' "$WORK/$name.stderr")
  if [ $rc -eq 124 ]; then
    fail "$name" "hung: no answer in 60 s"; return
  fi
  if [ $rc -ne 2 ]; then
    fail "$name" "exit code $rc, expected 2; stderr: $(head -n1 "$WORK/$name.stderr")"; return
  fi
  if [ "$before" != "$after" ]; then
    fail "$name" "files left behind: $(diff <(echo "$before") <(echo "$after") | grep '^>' | tr '\n' ' ')"
    return
  fi
  if [ "$err_lines" -ne 1 ]; then
    fail "$name" "expected one 'error:' line on stderr, got $err_lines: $(head -c 300 <<<"$stderr_text" | tr '\n' '|')"
    return
  fi
  case $line in
    "$tool: error: "*) ;;
    *) fail "$name" "error line does not start with '$tool: error: ': $line"; return ;;
  esac
  local w rest=$words
  while [ -n "$rest" ]; do
    w=${rest%%|||*}
    if [ "$w" = "$rest" ]; then rest=; else rest=${rest#*|||}; fi
    if ! grep -qiE -- "$w" <<<"$line"; then
      fail "$name" "error line does not match /$w/: $line"; return
    fi
  done
  pass "$name: $line"
}

# ---------------------------------------------------------------------------
GEN=$WORK/inputs
if ! "$PY" "$HERE/make_bad_inputs.py" models "$GEN" >"$WORK/gen.log" 2>&1; then
  cat "$WORK/gen.log"
  echo "FAIL  make_bad_inputs.py failed"
  echo "bad-input: 0 passed, 1 failed"
  exit 1
fi

new_case() { rm -rf "${WORK:?}/${1:?}"; mkdir -p "$WORK/$1"; }
PARSE_WORDS='model\.onnx|||pars|invalid|truncat|corrupt|malformed|decod|not an onnx'

# (a) truncated model
new_case compile_truncated_onnx
size=$(stat -c %s "$GEN/valid/model.onnx")
head -c $((size / 2)) "$GEN/valid/model.onnx" >"$WORK/compile_truncated_onnx/model.onnx"
check_case compile_truncated_onnx tessel-compile "$PARSE_WORDS" -- \
  "$COMPILE" model.onnx -o out.tsl

# (b) garbage bytes
new_case compile_garbage_onnx
cp "$GEN/garbage/model.onnx" "$WORK/compile_garbage_onnx/model.onnx"
check_case compile_garbage_onnx tessel-compile "$PARSE_WORDS" -- \
  "$COMPILE" model.onnx -o out.tsl

# (c) unsupported op: names the node and the op
new_case compile_unsupported_op
cp "$GEN/unsupported/model.onnx" "$WORK/compile_unsupported_op/model.onnx"
check_case compile_unsupported_op tessel-compile \
  'my_node|||Frobnicate|||unsupported|not supported|no support|cannot' -- \
  "$COMPILE" model.onnx -o out.tsl

# (d) external data outside the model folder (the file exists: only the path is wrong).
# The words must be more than the file name: "outside" alone would match "outside.bin".
new_case compile_external_escape
cp -r "$GEN/escape/model" "$GEN/escape/outside.bin" "$WORK/compile_external_escape/"
check_case compile_external_escape tessel-compile \
  'outside\.bin|||(outside (of )?the|outside (the )?model|leaves|escapes|not (with)?in|not under|beyond|parent)' -- \
  "$COMPILE" model/model.onnx -o out.tsl

# (k) an initializer whose dims multiply past 2^63 elements (the byte count
# wraps to 0, which its empty data would match if it were not checked).
new_case compile_wrapped_size
cp "$GEN/wrapped/model.onnx" "$WORK/compile_wrapped_size/model.onnx"
check_case compile_wrapped_size tessel-compile \
  "'w'|||2\^63|too (large|many)|more than|overflow" -- \
  "$COMPILE" model.onnx -o out.tsl

# (j) missing model file
new_case compile_missing_model
check_case compile_missing_model tessel-compile \
  'nothere\.onnx|||no such|not found|cannot open|does not exist|can.t open|missing' -- \
  "$COMPILE" nothere.onnx -o out.tsl

# --- tessel-run cases need a good artifact --------------------------------
SETUP=$WORK/setup
mkdir -p "$SETUP"
if (cd "$SETUP" && timeout 300 "$COMPILE" "$GEN/valid/model.onnx" -o model.tsl) \
     >"$SETUP/compile.log" 2>&1 && [ -f "$SETUP/model.tsl" ]; then
  # the good input must work, or the failures below mean nothing
  mkdir -p "$SETUP/out"
  if (cd "$SETUP" && timeout 60 "$RUN" model.tsl --input "input=$GEN/valid/input.npy" \
        --output-dir out) >"$SETUP/run.log" 2>&1 && [ -f "$SETUP/out/probs.npy" ]; then
    pass "run_good_input_control"
  else
    fail "run_good_input_control" "the valid model does not run: $(grep -m1 . "$SETUP/run.log")"
  fi

  run_case() {  # NAME WORDS TSL-PREP-FN ARGS...
    local name=$1 words=$2 prep=$3
    shift 3
    new_case "$name"
    cp "$SETUP/model.tsl" "$WORK/$name/model.tsl"
    $prep "$WORK/$name/model.tsl"
    check_case "$name" tessel-run "$words" -- "$RUN" model.tsl "$@" --output-dir out
  }
  nothing() { :; }
  corrupt() { "$PY" "$HERE/make_bad_inputs.py" flip "$1" 64; }
  truncate_half() { local s; s=$(stat -c %s "$1"); head -c $((s / 2)) "$1" >"$1.tmp" && mv "$1.tmp" "$1"; }

  # (e) wrong shape [2,65] for [batch,64]
  run_case run_wrong_shape "input|||shape|dim|extent" nothing \
    --input "input=$GEN/valid/input_wrong_shape.npy"
  # (f) wrong dtype: int64 for float32
  run_case run_wrong_dtype "input|||dtype|type|int64|float" nothing \
    --input "input=$GEN/valid/input_int64.npy"
  # (g) missing input
  run_case run_missing_input "input|||missing|not (given|provided|bound|set)|required|no value" \
    nothing
  # (h) corrupt artifact: 64 bytes flipped in the middle
  run_case run_corrupt_tsl \
    "model\.tsl|||corrupt|invalid|checksum|crc|mismatch|damaged|bad|malformed" corrupt \
    --input "input=$GEN/valid/input.npy"
  # (i) truncated artifact
  run_case run_truncated_tsl \
    "model\.tsl|||truncat|size|short|corrupt|invalid|too small|bounds|end of file|eof" \
    truncate_half --input "input=$GEN/valid/input.npy"
else
  reason="setup: the valid model does not compile: $(grep -m1 . "$SETUP/compile.log")"
  for c in run_good_input_control run_wrong_shape run_wrong_dtype run_missing_input run_corrupt_tsl \
           run_truncated_tsl; do
    fail "$c" "$reason"
  done
fi

if [ $FAILED -eq 0 ] && [ $TEMP_WORK -eq 1 ]; then
  rm -rf "$WORK"
elif [ $FAILED -ne 0 ]; then
  echo "failed: ${FAILED_NAMES[*]}"
  echo "(files kept in $WORK)"
fi
echo "bad-input: $PASSED passed, $FAILED failed"
[ $FAILED -eq 0 ]
