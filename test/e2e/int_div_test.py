#!/usr/bin/python3
"""Integer Div by zero and INT_MIN / -1 give defined results, never a signal.

    /usr/bin/python3 test/e2e/int_div_test.py --bin-dir build/bin --work-dir DIR

ONNX leaves integer division by zero undefined; x86's idiv raises SIGFPE for
it and for INT_MIN / -1, which would kill the process that embeds the
runtime. Tessel defines both (docs/design.md, "Integer division"): for
signed types x / 0 = 0 and INT_MIN / -1 = INT_MIN (wrapping); for unsigned
types x / 0 = 0; every other quotient truncates toward zero as ONNX says.

For each element type, one model `y = Div(a, b)` over [8] vectors is
compiled with tessel-compile and run with tessel-run on divisors that hold
0 and -1 next to ordinary ones; y must equal the reference below exactly.

Last line: `int-div: N passed, M failed`. Exit 1 when anything failed.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_S = 300

CASES = {  # name: (numpy dtype, ONNX element type)
    "int32": (np.int32, TensorProto.INT32),
    "int64": (np.int64, TensorProto.INT64),
    "int8": (np.int8, TensorProto.INT8),
    "uint32": (np.uint32, TensorProto.UINT32),
}


def operands(dtype):
    info = np.iinfo(dtype)
    if info.min < 0:
        a = [info.min, info.min, 7, -7, 7, info.max, -9, 0]
        b = [-1, 0, 0, 0, -2, -1, 2, 0]
    else:
        a = [7, info.max, 0, 9, info.max, 5, 6, 1]
        b = [0, 0, 0, 2, 1, info.max, 4, 3]
    return np.array(a, dtype=dtype), np.array(b, dtype=dtype)


def reference(a, b):
    """ONNX Div on integers (truncating) with Tessel's defined corner cases."""
    out = np.zeros_like(a)
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        if y == 0:
            q = 0
        else:
            q = abs(x) // abs(y)
            if (x < 0) != (y < 0):
                q = -q
        # Wrap into the type (INT_MIN / -1 = INT_MIN).
        bits = np.iinfo(a.dtype).bits
        q &= (1 << bits) - 1
        if np.iinfo(a.dtype).min < 0 and q >= 1 << (bits - 1):
            q -= 1 << bits
        out[i] = q
    return out


def run_case(name, bin_dir, work):
    dtype, elem = CASES[name]
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "out"))
    graph = helper.make_graph(
        [helper.make_node("Div", ["a", "b"], ["y"], name="div")], "int_div",
        [helper.make_tensor_value_info("a", elem, [8]),
         helper.make_tensor_value_info("b", elem, [8])],
        [helper.make_tensor_value_info("y", elem, [8])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, os.path.join(d, "model.onnx"))
    a, b = operands(dtype)
    np.save(os.path.join(d, "a.npy"), a)
    np.save(os.path.join(d, "b.npy"), b)
    for cmd in ([os.path.join(bin_dir, "tessel-compile"), "model.onnx", "-o", "model.tsl"],
                [os.path.join(bin_dir, "tessel-run"), "model.tsl", "--input", "a=a.npy",
                 "--input", "b=b.npy", "--output-dir", "out"]):
        try:
            p = subprocess.run(cmd, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "%s timed out" % os.path.basename(cmd[0])
        if p.returncode != 0:
            what = ("killed by signal %d" % -p.returncode if p.returncode < 0
                    else "exit %d" % p.returncode)
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            return "%s: %s: %s" % (os.path.basename(cmd[0]), what,
                                   err[0][:200] if err else "(no message)")
    y = np.load(os.path.join(d, "out", "y.npy"))
    want = reference(a, b)
    if y.dtype != want.dtype or y.shape != want.shape or not np.array_equal(y, want):
        return "y = %s (%s), expected %s for a = %s, b = %s" % (
            y.tolist(), y.dtype, want.tolist(), a.tolist(), b.tolist())
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args(argv)
    passed = failed = 0
    for name in CASES:
        try:
            err = run_case(name, os.path.abspath(args.bin_dir),
                           os.path.abspath(args.work_dir))
        except Exception as e:  # noqa: BLE001 - a harness error fails the case
            err = "harness: %s: %s" % (type(e).__name__, e)
        if err:
            failed += 1
            print("FAIL  div %s  -- %s" % (name, err))
        else:
            passed += 1
            print("PASS  div %s" % name)
        sys.stdout.flush()
    print("int-div: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
