#!/usr/bin/python3
"""Pre-quantized (QDQ) models run as integer kernels.

    /usr/bin/python3 test/e2e/prequantized_test.py --bin-dir build/bin --work-dir DIR

Seeded models in the QDQ form that ONNX Runtime's quantize_static writes:
x -> QuantizeLinear -> DequantizeLinear -> Conv / MatMul / Gemm (weight:
DequantizeLinear of a constant int8 or uint8 tensor, scales per output
channel or one; bias: DequantizeLinear of int32 with scale x_scale * w_scale)
-> QuantizeLinear -> DequantizeLinear. Covered: padded 3x3 Convs with a u8
and an i8 input, a strided 3x3 one, a strided 1x1 one (read through a
slice), a depthwise one, MatMul with i8 and u8 weights, Gemm with transB
and a bias. And the integer ops with constant weights (ORT's QOperator
form): ConvInteger, MatMulInteger, QLinearConv (padded, with a bias) and
QLinearMatMul, whose outputs must equal numpy's integer evaluation exactly.

For each model:
  * `tessel-compile --emit graph-opt --precision int8 --calibration DIR`
    must show every contraction on 8-bit integers with `acc_type = i32`
    (never dequantized to f32; the calibration finds nothing left to
    quantize);
  * each CPU variant the host supports runs it (the default artifact), and
    its output must equal numpy's evaluation of the ONNX semantics (float32
    Quantize/DequantizeLinear, round half to even, saturation; the
    contraction in float64) except where the output quantizer's input lies
    within 1e-4 of a step of a rounding tie, where one step either way is
    allowed (the integer sums and the f32 products differ in the last
    bits);
  * the variants' outputs must be identical.

Last line: `prequantized: N passed, M failed`; exit 1 when anything failed.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cpu_variant  # noqa: E402

TIMEOUT_S = 300
F32 = np.float32


def quantize(x, scale, zero, dtype):
    info = np.iinfo(dtype)
    q = np.rint((x.astype(F32) / F32(scale)).astype(F32)) + zero
    return np.clip(q, info.min, info.max).astype(dtype)


def dequantize(q, scale, zero):
    return ((q.astype(F32) - F32(zero)).astype(F32) * F32(scale)).astype(F32)


def conv_ref(x, w, b, group, stride, pad):
    """float64 Conv of NCHW x by FCKK w."""
    n, c, h, wd = x.shape
    f, cg, k, _ = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - k) // stride + 1
    ow = (wd + 2 * pad - k) // stride + 1
    y = np.zeros((n, f, oh, ow))
    fg = f // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg]
        for i in range(k):
            for j in range(k):
                patch = xs[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
                y[:, g * fg:(g + 1) * fg] += np.einsum(
                    "nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j])
    return y + (b.reshape(1, -1, 1, 1) if b is not None else 0)


def cases():
    """(name, op, params): op Conv (c, f, side, k, stride, pad, group) or
    MatMul/Gemm (m, k, n); x_type/w_type the integer types."""
    return [
        ("conv3-u8", "Conv", dict(c=16, f=24, side=12, k=3, stride=1, pad=1, group=1,
                                  x_type=np.uint8, w_type=np.int8, per_channel=True)),
        ("conv3-i8", "Conv", dict(c=8, f=16, side=9, k=3, stride=1, pad=1, group=1,
                                  x_type=np.int8, w_type=np.int8, per_channel=True)),
        ("conv3-s2-tensor-scale", "Conv", dict(c=12, f=20, side=15, k=3, stride=2, pad=1,
                                               group=1, x_type=np.uint8, w_type=np.int8,
                                               per_channel=False)),
        ("conv1-s2", "Conv", dict(c=32, f=16, side=14, k=1, stride=2, pad=0, group=1,
                                  x_type=np.uint8, w_type=np.int8, per_channel=True)),
        ("conv1", "Conv", dict(c=24, f=40, side=7, k=1, stride=1, pad=0, group=1,
                               x_type=np.int8, w_type=np.int8, per_channel=True)),
        ("depthwise", "Conv", dict(c=16, f=16, side=10, k=3, stride=1, pad=1, group=16,
                                   x_type=np.uint8, w_type=np.int8, per_channel=True)),
        ("matmul-i8w", "MatMul", dict(m=20, k=72, n=48, x_type=np.uint8, w_type=np.int8,
                                      per_channel=True)),
        ("matmul-u8w", "MatMul", dict(m=9, k=33, n=17, x_type=np.uint8, w_type=np.uint8,
                                      per_channel=False)),
        ("gemm-transb-bias", "Gemm", dict(m=16, k=64, n=40, x_type=np.int8, w_type=np.int8,
                                          per_channel=True)),
    ]


def make_case(path, op, p, rng):
    """Writes the model; returns (x, reference output, output step)."""
    x_type, w_type = p["x_type"], p["w_type"]
    x_info = np.iinfo(x_type)
    x_zero = int(rng.integers(x_info.min + 60, x_info.max - 60))
    if op == "Conv":
        x = rng.standard_normal((2, p["c"], p["side"], p["side"])).astype(F32)
        w_shape = (p["f"], p["c"] // p["group"], p["k"], p["k"])
        channels = p["f"]
    else:
        x = rng.standard_normal((p["m"], p["k"])).astype(F32)
        w_shape = (p["n"], p["k"]) if op == "Gemm" else (p["k"], p["n"])
        channels = p["n"]
    x_scale = F32(float(np.abs(x).max()) / 100.0)
    w_zero = 128 if w_type == np.uint8 else 0
    w_info = np.iinfo(w_type)
    wq = rng.integers(max(w_info.min, w_zero - 127), min(w_info.max, w_zero + 127) + 1,
                      w_shape).astype(w_type)
    if p["per_channel"]:
        w_scale = (rng.random(channels) * 0.02 + 0.005).astype(F32)
    else:
        w_scale = np.array(F32(0.013))
    channel_axis = 0 if op in ("Conv", "Gemm") else 1
    bq = rng.integers(-5000, 5000, channels).astype(np.int32)
    b_scale = (F32(x_scale) * np.broadcast_to(w_scale, (channels,))).astype(F32)

    def per_channel(v):  # w_scale broadcast along the weight
        if v.ndim == 0:
            return v
        shape = [1] * len(w_shape)
        shape[channel_axis] = -1
        return v.reshape(shape)

    xd = dequantize(quantize(x, x_scale, x_zero, x_type), x_scale, x_zero)
    wd = ((wq.astype(F32) - F32(w_zero)) * per_channel(w_scale)).astype(F32)
    bias = (bq.astype(F32) * b_scale).astype(F32)
    if op == "Conv":
        y = conv_ref(xd.astype(np.float64), wd.astype(np.float64), bias.astype(np.float64),
                     p["group"], p["stride"], p["pad"])
    elif op == "Gemm":
        y = xd.astype(np.float64) @ wd.astype(np.float64).T + bias
    else:
        y = xd.astype(np.float64) @ wd.astype(np.float64)
    y_scale = F32(float(np.abs(y).max()) / 120.0)
    y_zero = 128
    ref_q = quantize(y.astype(F32), y_scale, y_zero, np.uint8)
    ref = dequantize(ref_q, y_scale, y_zero)
    # Where y / y_scale is within 1e-4 of a tie, either neighbour is right.
    ratio = y / np.float64(y_scale)
    near_tie = np.abs(ratio - np.floor(ratio) - 0.5) < 1e-4

    inits = [
        numpy_helper.from_array(np.array(x_scale, F32), "xs"),
        numpy_helper.from_array(np.array(x_zero, x_type), "xz"),
        numpy_helper.from_array(wq, "wq"),
        numpy_helper.from_array(w_scale, "ws"),
        numpy_helper.from_array(np.zeros(w_scale.shape, w_type) + w_type(w_zero), "wz"),
        numpy_helper.from_array(np.array(y_scale, F32), "ys"),
        numpy_helper.from_array(np.array(y_zero, np.uint8), "yz"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dqx"),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], name="dqw",
                         axis=channel_axis),
    ]
    if op in ("Conv", "Gemm"):
        inits += [numpy_helper.from_array(bq, "bq"),
                  numpy_helper.from_array(b_scale, "bs"),
                  numpy_helper.from_array(np.zeros(channels, np.int32), "bz")]
        nodes.append(helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["bd"],
                                      name="dqb", axis=0))
    if op == "Conv":
        nodes.append(helper.make_node("Conv", ["xd", "wd", "bd"], ["y"], name="op",
                                      kernel_shape=[p["k"], p["k"]], group=p["group"],
                                      strides=[p["stride"]] * 2, pads=[p["pad"]] * 4))
        out_shape = ["N", p["f"], ref.shape[2], ref.shape[3]]
        in_shape = ["N", p["c"], p["side"], p["side"]]
    elif op == "Gemm":
        nodes.append(helper.make_node("Gemm", ["xd", "wd", "bd"], ["y"], name="op", transB=1))
        out_shape, in_shape = ["M", p["n"]], ["M", p["k"]]
    else:
        nodes.append(helper.make_node("MatMul", ["xd", "wd"], ["y"], name="op"))
        out_shape, in_shape = ["M", p["n"]], ["M", p["k"]]
    nodes += [helper.make_node("QuantizeLinear", ["y", "ys", "yz"], ["yq"], name="qy"),
              helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["out"], name="dqy")]
    graph = helper.make_graph(
        nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return x, ref, y_scale, near_tie


def integer_cases():
    """(name, op, params) of the integer ops."""
    return [
        ("convinteger", "ConvInteger", dict(c=8, f=12, side=9, k=3, stride=1, pad=1,
                                            x_type=np.uint8)),
        ("matmulinteger", "MatMulInteger", dict(m=10, k=40, n=24, x_type=np.int8)),
        ("qlinearconv", "QLinearConv", dict(c=8, f=16, side=8, k=3, stride=2, pad=1,
                                            x_type=np.uint8)),
        ("qlinearmatmul", "QLinearMatMul", dict(m=12, k=36, n=20, x_type=np.uint8)),
    ]


def make_integer_case(path, op, p, rng):
    """Writes the model; returns (x, the exact reference output)."""
    x_type = p["x_type"]
    info = np.iinfo(x_type)
    x_zero = x_type(int(rng.integers(info.min + 50, info.max - 50)))
    conv = op in ("ConvInteger", "QLinearConv")
    if conv:
        x = rng.integers(info.min, info.max + 1, (2, p["c"], p["side"], p["side"])).astype(x_type)
        w_shape, channels = (p["f"], p["c"], p["k"], p["k"]), p["f"]
    else:
        x = rng.integers(info.min, info.max + 1, (p["m"], p["k"])).astype(x_type)
        w_shape, channels = (p["k"], p["n"]), p["n"]
    wq = rng.integers(-120, 121, w_shape).astype(np.int8)
    w_zero = np.int8(int(rng.integers(-5, 6)))
    xc = x.astype(np.int64) - int(x_zero)
    wc = wq.astype(np.int64) - int(w_zero)
    if conv:
        acc = np.rint(conv_ref(xc.astype(np.float64), wc.astype(np.float64), None, 1,
                               p["stride"], p["pad"])).astype(np.int64)
    else:
        acc = xc @ wc
    conv_attrs = dict(kernel_shape=[p["k"]] * 2, strides=[p["stride"]] * 2,
                      pads=[p["pad"]] * 4) if conv else {}
    inits = [numpy_helper.from_array(wq, "w"),
             numpy_helper.from_array(np.array(x_zero, x_type), "xz"),
             numpy_helper.from_array(np.array(w_zero, np.int8), "wz")]
    if op in ("ConvInteger", "MatMulInteger"):
        node = helper.make_node(op, ["x", "w", "xz", "wz"], ["y"], name="op", **conv_attrs)
        ref, out_type = acc.astype(np.int32), TensorProto.INT32
    else:
        x_scale, w_scale = F32(0.02), F32(0.011)
        y_scale, y_zero = F32(float(np.abs(acc).max()) * 0.02 * 0.011 / 100), np.uint8(120)
        inits += [numpy_helper.from_array(np.array(x_scale), "xs"),
                  numpy_helper.from_array(np.array(w_scale), "ws"),
                  numpy_helper.from_array(np.array(y_scale), "ys"),
                  numpy_helper.from_array(np.array(y_zero), "yz")]
        names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"]
        if conv:
            bias = rng.integers(-3000, 3000, channels).astype(np.int32)
            inits.append(numpy_helper.from_array(bias, "b"))
            names.append("b")
            acc = acc + bias.reshape(1, -1, 1, 1)
        node = helper.make_node(op, names, ["y"], name="op", **conv_attrs)
        factor = np.float64(F32(F32(x_scale * w_scale) / y_scale))
        ref = np.clip(np.rint(acc.astype(np.float64) * factor) + int(y_zero), 0,
                      255).astype(np.uint8)
        out_type = TensorProto.UINT8
    elem = TensorProto.UINT8 if x_type == np.uint8 else TensorProto.INT8
    in_shape = ["N", p["c"], p["side"], p["side"]] if conv else ["M", p["k"]]
    out_shape = (["N", channels, ref.shape[2], ref.shape[3]] if conv else ["M", channels])
    graph = helper.make_graph(
        [node], "integer", [helper.make_tensor_value_info("x", elem, in_shape)],
        [helper.make_tensor_value_info("y", out_type, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return x, ref


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    return p.stdout


class Runner:
    """Compiles a case, checks its graph and runs it on every CPU variant
    the host supports."""

    def __init__(self, bin_dir):
        self.compile_bin = os.path.join(bin_dir, "tessel-compile")
        self.run_bin = os.path.join(bin_dir, "tessel-run")
        variants = cpu_variant.DEFAULT_VARIANTS
        self.runnable = [variants[1]]
        if cpu_variant.host_variant() == variants[0]:
            self.runnable.insert(0, variants[0])

    def outputs(self, case_dir, model, x, kind, output, problems):
        """The output `output` per variant; appends to `problems` when a
        `kind` contraction of the optimized graph is not on 8-bit integers
        with i32 sums. At --precision int8 too: the calibration finds no
        f32 contraction left to quantize, which is no error."""
        np.save(os.path.join(case_dir, "x.npy"), x)
        os.makedirs(os.path.join(case_dir, "cal"))
        np.save(os.path.join(case_dir, "cal", "x.npy"), x)
        ir = run([self.compile_bin, model, "--emit", "graph-opt", "--precision", "int8",
                  "--calibration", os.path.join(case_dir, "cal")])
        lines = [l for l in ir.splitlines() if re.search(r"tessel\.%s " % kind, l)]
        if not lines or any("acc_type = i32" not in l or "xi8>, tensor<" not in l
                            for l in lines):
            problems.append("the contraction is not on 8-bit integers:\n" +
                            "\n".join(lines or ["(none)"]))
        artifact = os.path.join(case_dir, "model.tsl")
        run([self.compile_bin, model, "-o", artifact])
        outputs = {}
        for variant in self.runnable:
            out = os.path.join(case_dir, variant)
            run([self.run_bin, artifact, "--input", "x=" + os.path.join(case_dir, "x.npy"),
                 "-o", out, "--cpu-variant", variant])
            outputs[variant] = np.load(os.path.join(out, output + ".npy"))
        return outputs


def check_qdq(outputs, ref, step, near_tie, problems):
    values = list(outputs.values())
    if any(not np.array_equal(values[0], v) for v in values[1:]):
        problems.append("variants differ")
    for variant, y in outputs.items():
        steps = np.rint(np.abs(y.astype(np.float64) - ref) / np.float64(step))
        bad = (steps > 1) | ((steps == 1) & ~near_tie)
        if bad.any():
            i = np.unravel_index(np.argmax(bad), bad.shape)
            problems.append(f"{variant}: {int(bad.sum())} of {bad.size} outputs off "
                            f"(first at {i}: {y[i]} vs {ref[i]}, step {step})")


def check_exact(outputs, ref, problems):
    for variant, y in outputs.items():
        if y.dtype != ref.dtype or not np.array_equal(y, ref):
            bad = np.argwhere(y.astype(np.int64) != ref.astype(np.int64))
            problems.append(f"{variant}: {len(bad)} of {ref.size} outputs differ "
                            f"(first at {tuple(bad[0]) if len(bad) else None})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--work-dir", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work_dir, ignore_errors=True)
    os.makedirs(args.work_dir)
    runner = Runner(args.bin_dir)
    rng = np.random.default_rng(21)
    passed = failed = 0
    kinds = {"Conv": "conv", "MatMul": "matmul", "Gemm": "matmul", "ConvInteger": "conv",
             "QLinearConv": "conv", "MatMulInteger": "matmul", "QLinearMatMul": "matmul"}
    for name, op, p in cases() + integer_cases():
        case_dir = os.path.join(args.work_dir, name)
        os.makedirs(case_dir)
        model = os.path.join(case_dir, "model.onnx")
        problems = []
        try:
            if op in ("Conv", "MatMul", "Gemm"):
                x, ref, step, near_tie = make_case(model, op, p, rng)
                outputs = runner.outputs(case_dir, model, x, kinds[op], "out", problems)
                check_qdq(outputs, ref, step, near_tie, problems)
            else:
                x, ref = make_integer_case(model, op, p, rng)
                outputs = runner.outputs(case_dir, model, x, kinds[op], "y", problems)
                check_exact(outputs, ref, problems)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            problems.append(str(e))
        if problems:
            print(f"FAIL {name}: " + "; ".join(problems))
            failed += 1
        else:
            passed += 1
    print(f"prequantized: {passed} passed, {failed} failed "
          f"(variants run: {', '.join(runner.runnable)})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
