#!/usr/bin/python3
"""The CPU's dot-product kernels against an independent reference.

    /usr/bin/python3 test/e2e/dot_product_test.py --bin-dir build/bin --work-dir DIR

The x86-64-v4+avx512bf16+avx512vnni variant computes int8 MatMul and Gemm
tiles with vpdpbusd and bf16 ones with vdpbf16ps (tessel-tile-and-vectorize,
design.md section 8), gathering the vector operand's groups with vpermi2w;
x86-64-v4+avx512vbmi+avx512vnni gathers int8 groups with vpermi2b (its bf16
is widened); x86-64-v3 computes them as widened multiply-adds. A
seeded sweep of shapes (full and partial register tiles, reductions that are
not a multiple of the group, one row, batched MatMul, a sequence-first one
with a run-time batch (rows a run-time stride apart), Gemm with a bias, 1x1
Convs: their weights are the rows, the pixels the vectors; padded 3x3 Convs
of stride 1 and 2: the input the rows, with one tap more per kernel row) is
compiled for both variants at --precision int8 and bf16, and every variant
the host supports runs:

  * int8: the variants' outputs must be identical (integer sums), and equal
    within 1e-5 of the scale to numpy's exact quantized product: x quantized
    with the minmax range of the calibration set (the same inputs) as
    u8 = clip(round(x * 127 / A) + 128, 0, 255), weights per column with
    max |w| / 127, sums in int64; a Conv's padding is the real 0 (exactly
    the zero point).
  * bf16: each variant within 1e-5 (relative to sum |x| |w|) of numpy's
    float64 product of the bf16-rounded operands.

A host without AVX512-VNNI/BF16 runs x86-64-v3 alone and says so. Last line:
`dot-products: N passed, M failed`; exit 1 when anything failed.
"""

import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_variant  # noqa: E402

TIMEOUT_S = 300
VARIANTS = cpu_variant.DEFAULT_VARIANTS  # (v4 + bf16 + vnni, v3)
# The int8 tiles' byte permutes (AVX512-VBMI), not in a default variant.
VBMI_VARIANT = "x86-64-v4+avx512vbmi+avx512vnni"


def cases(seed=21):
    """(name, op, batch, M, K, N): fixed edges, then seeded random shapes.
    For a Conv (CONVS), M is the image's side, K the input channels, N the
    filters."""
    fixed = [("full", "MatMul", None, 64, 256, 96),
             ("k-not-group", "MatMul", None, 37, 70, 45),
             ("one-row", "MatMul", None, 1, 64, 64),
             ("k3-n33", "MatMul", None, 9, 3, 33),
             ("batched", "MatMul", 3, 20, 40, 48),
             ("seq-first", "MatMulSeqFirst", 3, 24, 64, 48),
             ("gemm-bias", "Gemm", None, 19, 96, 80),
             ("conv-56", "Conv1x1", None, 56, 64, 24),
             ("conv-7", "Conv1x1", None, 7, 128, 16),
             ("conv-odd", "Conv1x1", None, 14, 70, 45),
             ("conv3-14", "Conv3x3", None, 14, 32, 64),
             ("conv3-odd", "Conv3x3", None, 9, 21, 19),
             ("conv3-s2", "Conv3x3s2", None, 15, 16, 40),
             ("conv3-s2-even", "Conv3x3s2", None, 8, 8, 8)]
    rng = np.random.default_rng(seed)
    rand = []
    for i in range(6):
        rand.append((f"random{i}", ["MatMul", "Gemm"][i % 2], None,
                     int(rng.integers(1, 80)), int(rng.integers(1, 300)),
                     int(rng.integers(1, 130))))
    return fixed + rand


# Conv cases: (kernel side, stride, padding on each side).
CONVS = {"Conv1x1": (1, 1, 0), "Conv3x3": (3, 1, 1), "Conv3x3s2": (3, 2, 1)}


def make_model(path, op, batch, m, k, n, rng):
    """The model of a case; returns its weights as a [K', N] matrix (a
    Conv's: [C * KH * KW, F], the order of im2col's rows) and its bias."""
    kernel = CONVS[op][0] if op in CONVS else 1
    w = rng.standard_normal((k * kernel * kernel, n)).astype(np.float32)
    shape_x = ([batch] if batch else []) + ["M", k]
    shape_y = ([batch] if batch else []) + ["M", n]
    if op == "MatMulSeqFirst":  # [M, B, K], B at run time: rows B * K apart
        shape_x, shape_y, op = [m, "B", k], [m, "B", n], "MatMul"
    inits = [numpy_helper.from_array(w if op == "MatMul" else w.T.copy(), "w")]
    if op in CONVS:  # weights [N, K, KH, KW], a bias
        _, stride, pad = CONVS[op]
        side = (m + 2 * pad - kernel) // stride + 1
        shape_x, shape_y = ["B", k, m, m], ["B", n, side, side]
        inits = [numpy_helper.from_array(
            w.T.copy().reshape(n, k, kernel, kernel), "w")]
        bias = rng.standard_normal(n).astype(np.float32)
        inits.append(numpy_helper.from_array(bias, "b"))
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="dot",
                                kernel_shape=[kernel, kernel],
                                strides=[stride, stride], pads=[pad] * 4)
    elif op == "MatMul":
        node = helper.make_node("MatMul", ["x", "w"], ["y"], name="dot")
    else:  # PyTorch's Linear: B transposed, with a bias
        bias = rng.standard_normal(n).astype(np.float32)
        inits.append(numpy_helper.from_array(bias, "b"))
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="dot",
                                transB=1)
    graph = helper.make_graph(
        [node], "dot",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape_x)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape_y)],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.save(model, path)
    bias = numpy_helper.to_array(inits[1]) if len(inits) > 1 else None
    return w, bias


def bf16(a):
    """a rounded to bfloat16 (nearest even), as float32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def im2col(x, op):
    """A Conv's input [B, C, H, W] as rows [B * OH * OW, C * KH * KW], the
    padding 0."""
    kernel, stride, pad = CONVS[op]
    b, c, h, _ = x.shape
    side = (h + 2 * pad - kernel) // stride + 1
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    cols = np.empty((b, side, side, c, kernel, kernel), x.dtype)
    for i in range(kernel):
        for j in range(kernel):
            cols[:, :, :, :, i, j] = xp[:, :, i:i + stride * side:stride,
                                        j:j + stride * side:stride].transpose(0, 2, 3, 1)
    return cols.reshape(b * side * side, c * kernel * kernel)


def int8_reference(x, w, bias):
    """The exact value of the quantized product (see the module doc)."""
    step = float(np.abs(x).max()) / 127.0
    # x * (1 / s) in f32, as the compiled model computes it (a product near
    # a tie rounds the other way in float64).
    scaled = x.astype(np.float32) * np.float32(1.0 / step)
    xq = np.clip(np.rint(scaled) + 128, 0, 255).astype(np.int64) - 128
    ws = np.abs(w).max(axis=0) / 127.0
    ws[ws == 0] = 1.0
    wq = np.rint(w / ws).astype(np.int64)
    y = (xq @ wq).astype(np.float64) * step * ws
    bound = (np.abs(xq) @ np.abs(wq)).astype(np.float64) * step * ws
    return y + (bias if bias is not None else 0), bound


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stdout + p.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    compile_bin = os.path.join(args.bin_dir, "tessel-compile")
    run_bin = os.path.join(args.bin_dir, "tessel-run")
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    flags = cpu_variant.host_flags()
    runnable = [VARIANTS[1]]
    if cpu_variant.host_variant() == VARIANTS[0]:
        runnable.insert(0, VARIANTS[0])
        if "avx512vbmi" in flags:
            runnable.insert(1, VBMI_VARIANT)
        else:
            print(f"dot-products: this host lacks avx512vbmi: {VBMI_VARIANT} "
                  "is compiled, not run")
    else:
        print(f"dot-products: this host lacks {VARIANTS[0]} "
              f"(avx512_vnni: {'avx512_vnni' in flags}, avx512_bf16: "
              f"{'avx512_bf16' in flags}): only {VARIANTS[1]} runs; the "
              "dot-product instructions are checked offline by "
              "test/lit/codegen/cpu-dot-products.test")
    rng = np.random.default_rng(5)
    passed = failed = 0
    for name, op, batch, m, k, n in cases():
        case_dir = os.path.join(args.work_dir, name)
        os.makedirs(os.path.join(case_dir, "cal"))
        model = os.path.join(case_dir, "model.onnx")
        w, bias = make_model(model, op, batch, m, k, n, rng)
        conv = op in CONVS
        x = rng.standard_normal([2, k, m, m] if conv else
                                [m, batch, k] if op == "MatMulSeqFirst" else
                                ([batch] if batch else []) + [m, k]).astype(np.float32)
        np.save(os.path.join(case_dir, "x.npy"), x)
        np.save(os.path.join(case_dir, "cal", "x.npy"), x)
        # Rows of K inputs: pixels for a Conv (its output compared as
        # [pixels, N]).
        x2 = (im2col(x, op) if conv else x.reshape(-1, k)).astype(np.float64)
        for precision in ("int8", "bf16"):
            label = f"{name} {op} {'%dx' % batch if batch else ''}{m}x{k}x{n} {precision}"
            artifact = os.path.join(case_dir, precision + ".tsl")
            extra = (["--calibration", os.path.join(case_dir, "cal"), "--lower", "dot"]
                     if precision == "int8" else [])
            outputs = {}
            try:
                run([compile_bin, model, "-o", artifact, "--precision", precision,
                     "--mcpu", ",".join([VARIANTS[0], VBMI_VARIANT, VARIANTS[1]])] + extra)
                for variant in runnable:
                    out = os.path.join(case_dir, f"{precision}-{variant}")
                    run([run_bin, artifact, "--input", "x=" + os.path.join(case_dir, "x.npy"),
                         "-o", out, "--cpu-variant", variant, "--threads", "2"])
                    y = np.load(os.path.join(out, "y.npy"))
                    outputs[variant] = (y.transpose(0, 2, 3, 1) if conv else y).reshape(-1, n)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL {label}: {e}")
                failed += 1
                continue
            problems = []
            if precision == "int8":
                ref, bound = int8_reference(x2, w.astype(np.float64), bias)
                values = list(outputs.values())
                if any(not np.array_equal(values[0], v) for v in values[1:]):
                    problems.append("variants differ")
                tolerance = 1e-5 * (bound + 1e-30)
            else:
                ref = bf16(x2.astype(np.float32)).astype(np.float64) @ \
                    bf16(w).astype(np.float64) + (bias if bias is not None else 0)
                tolerance = 1e-5 * (np.abs(x2) @ np.abs(w.astype(np.float64)) + 1e-30)
            for variant, y in outputs.items():
                err = np.abs(y.astype(np.float64) - ref)
                if not np.all(err <= tolerance + 1e-6):
                    worst = np.unravel_index(np.argmax(err - tolerance), err.shape)
                    problems.append(f"{variant}: |y - ref| = {err[worst]:.3g} at {worst} "
                                    f"(allowed {tolerance[worst]:.3g})")
            if problems:
                print(f"FAIL {label}: " + "; ".join(problems))
                failed += 1
            else:
                passed += 1
    print(f"dot-products: {passed} passed, {failed} failed "
          f"(variants run: {', '.join(runnable)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
