#!/usr/bin/python3
"""Generate Tessel's small end-to-end models and their reference results.

    /usr/bin/python3 scripts/make_models.py OUT_DIR
        OUT_DIR/<model>/model.onnx        (checker-valid, opset 13, float32,
                                           symbolic batch dim "batch")
        OUT_DIR/<model>/input_K.npy       K = 0: batch 2, K = 1: batch 3
        OUT_DIR/<model>/output_K.npy      expected output, from the numpy
                                           reference below (not from any runtime)
      models: mlp, cnn, mlp_external (the mlp with its weights in the side
      file weights.bin next to model.onnx, ONNX external data).

    /usr/bin/python3 scripts/make_models.py --examples examples/
        examples/mlp.onnx, examples/mlp_input.npy (batch 2) and
        examples/mlp_expected.npy (its reference output): the bundled demo.

Everything is deterministic (fixed seeds): running it twice gives identical
bytes. The reference is plain numpy written from the ONNX operator
definitions (float64 accumulation, then cast to float32); it shares no code
with the compiler, so a match is independent evidence.

Needs Debian's python3-onnx and python3-numpy (run it with /usr/bin/python3).
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
BATCH_SIZES = (2, 3)  # input_0 / output_0, input_1 / output_1
F32 = np.float32


# ---------------------------------------------------------------------------
# Independent numpy reference (float64 inside).
# ---------------------------------------------------------------------------

def ref_gemm(a, b, c=None, alpha=1.0, beta=1.0, trans_a=0, trans_b=0):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    if trans_a:
        a = a.T
    if trans_b:
        b = b.T
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * c.astype(np.float64)
    return y


def ref_softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


def ref_conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0)):
    """ONNX Conv, NCHW, group 1, dilation 1; pads = [top, left, bottom, right]."""
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    m, cw, kh, kw = w.shape
    assert c == cw
    xp = np.zeros((n, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]))
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - kh) // strides[0] + 1
    ow = (xp.shape[3] - kw) // strides[1] + 1
    y = np.zeros((n, m, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + strides[0] * oh:strides[0],
                       j:j + strides[1] * ow:strides[1]]  # [n, c, oh, ow]
            y += np.einsum("nchw,mc->nmhw", patch, w[:, :, i, j])
    if b is not None:
        y += b.astype(np.float64).reshape(1, m, 1, 1)
    return y


def _windows(x, k, s):
    """[n, c, oh, ow, kh, kw] views of the non-padded windows."""
    n, c, h, w = x.shape
    oh = (h - k[0]) // s[0] + 1
    ow = (w - k[1]) // s[1] + 1
    out = np.empty((n, c, oh, ow, k[0], k[1]), dtype=np.float64)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = x[:, :, i * s[0]:i * s[0] + k[0],
                                j * s[1]:j * s[1] + k[1]]
    return out


def ref_maxpool2d(x, k, s):
    return _windows(x.astype(np.float64), k, s).max(axis=(4, 5))


def ref_avgpool2d(x, k, s):
    return _windows(x.astype(np.float64), k, s).mean(axis=(4, 5))


def ref_batchnorm(x, scale, bias, mean, var, eps):
    shp = (1, -1) + (1,) * (x.ndim - 2)
    x = x.astype(np.float64)
    return ((x - mean.reshape(shp)) / np.sqrt(var.astype(np.float64).reshape(shp) + eps)
            * scale.reshape(shp) + bias.reshape(shp))


# ---------------------------------------------------------------------------
# Models: each builder returns (ModelProto, reference function, input name,
# per-sample input shape).
# ---------------------------------------------------------------------------

def _init(name, array):
    return numpy_helper.from_array(np.ascontiguousarray(array, dtype=F32), name)


def _model(graph):
    model = helper.make_model(graph, producer_name="tessel-make_models",
                              opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # pinned, so the bytes do not depend on the onnx version
    return model


def build_mlp():
    rng = np.random.default_rng(1234)
    w1 = (rng.standard_normal((128, 64)) / 8.0).astype(F32)     # Gemm, transB=1
    b1 = (rng.standard_normal(128) * 0.1).astype(F32)
    w2 = (rng.standard_normal((128, 64)) / np.sqrt(128)).astype(F32)  # MatMul
    b2 = (rng.standard_normal(64) * 0.1).astype(F32)
    w3 = (rng.standard_normal((64, 10)) / 8.0).astype(F32)      # Gemm, transB=0
    b3 = (rng.standard_normal(10) * 0.1).astype(F32)

    nodes = [
        helper.make_node("Gemm", ["input", "fc1.weight", "fc1.bias"], ["fc1"],
                         name="fc1", transB=1),
        helper.make_node("Relu", ["fc1"], ["relu1"], name="relu1"),
        helper.make_node("MatMul", ["relu1", "fc2.weight"], ["fc2_mm"], name="fc2_matmul"),
        helper.make_node("Add", ["fc2_mm", "fc2.bias"], ["fc2"], name="fc2_add"),
        helper.make_node("Tanh", ["fc2"], ["tanh2"], name="tanh2"),
        helper.make_node("Gemm", ["tanh2", "fc3.weight", "fc3.bias"], ["fc3"], name="fc3"),
        helper.make_node("Softmax", ["fc3"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["batch", 64])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
        initializer=[_init("fc1.weight", w1), _init("fc1.bias", b1),
                     _init("fc2.weight", w2), _init("fc2.bias", b2),
                     _init("fc3.weight", w3), _init("fc3.bias", b3)])

    def ref(x):
        h = np.maximum(ref_gemm(x, w1, b1, trans_b=1), 0.0)
        h = np.tanh(h @ w2.astype(np.float64) + b2)
        return ref_softmax(ref_gemm(h, w3, b3), axis=-1)

    return _model(graph), ref, "input", (64,)


def build_cnn():
    rng = np.random.default_rng(5678)

    def rnd(shape, scale):
        return (rng.standard_normal(shape) * scale).astype(F32)

    c1_w = rnd((8, 3, 3, 3), 0.3)                       # Conv, no bias
    bn_scale = (1.0 + rnd(8, 0.1)).astype(F32)
    bn_bias = rnd(8, 0.1)
    bn_mean = rnd(8, 0.1)
    bn_var = (0.5 + rng.random(8)).astype(F32)
    bn_eps = 1e-5
    c2_w = rnd((16, 8, 3, 3), 0.15)                     # Conv, bias
    c2_b = rnd(16, 0.1)
    br_w = rnd((4, 8, 1, 1), 0.4)                       # branch: Conv 1x1 stride 2
    br_b = rnd(4, 0.1)
    fc_w = rnd((10, 20), 0.4)                           # Gemm, transB=1
    fc_b = rnd(10, 0.1)
    fcbn_scale = (1.0 + rnd(10, 0.2)).astype(F32)       # BatchNormalization after the Gemm
    fcbn_bias = rnd(10, 0.1)
    fcbn_mean = rnd(10, 0.1)
    fcbn_var = (0.5 + rng.random(10)).astype(F32)
    mul_c = rnd(10, 1.0)                                # Mul by an initializer [10]
    sub_c = np.array(0.25, dtype=F32)                   # Sub a Constant (scalar)
    div_c = (1.5 + rng.random((1, 10))).astype(F32)     # Div by a Constant [1, 10]

    nodes = [
        helper.make_node("Conv", ["image", "conv1.weight"], ["conv1"], name="conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv1", "bn1.scale", "bn1.bias", "bn1.mean", "bn1.var"], ["bn1"],
                         name="bn1", epsilon=bn_eps),
        helper.make_node("Relu", ["bn1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        # main branch
        helper.make_node("Conv", ["pool1", "conv2.weight", "conv2.bias"], ["conv2"],
                         name="conv2", kernel_shape=[3, 3], strides=[1, 1],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Sigmoid", ["conv2"], ["sig2"], name="sig2"),
        helper.make_node("AveragePool", ["sig2"], ["pool2"], name="pool2",
                         kernel_shape=[2, 2], strides=[2, 2]),
        # parallel branch: 1x1 conv, stride 2, on the MaxPool output
        helper.make_node("Conv", ["pool1", "branch.weight", "branch.bias"], ["branch"],
                         name="branch_conv", kernel_shape=[1, 1], strides=[2, 2]),
        helper.make_node("Tanh", ["branch"], ["branch_tanh"], name="branch_tanh"),
        helper.make_node("Concat", ["pool2", "branch_tanh"], ["cat"], name="concat", axis=1),
        helper.make_node("Transpose", ["cat"], ["nhwc"], name="to_nhwc", perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["nhwc"], ["nchw"], name="to_nchw", perm=[0, 3, 1, 2]),
        helper.make_node("GlobalAveragePool", ["nchw"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten", axis=1),
        helper.make_node("Constant", [], ["reshape_shape"], name="reshape_shape",
                         value=numpy_helper.from_array(np.array([0, -1], dtype=np.int64),
                                                       "reshape_shape")),
        helper.make_node("Reshape", ["flat", "reshape_shape"], ["flat2"], name="reshape"),
        helper.make_node("Gemm", ["flat2", "fc.weight", "fc.bias"], ["fc"], name="fc",
                         transB=1),
        helper.make_node("BatchNormalization",
                         ["fc", "fcbn.scale", "fcbn.bias", "fcbn.mean", "fcbn.var"], ["fcbn"],
                         name="fc_bn", epsilon=1e-3),
        helper.make_node("Mul", ["fcbn", "mul.c"], ["scaled"], name="scale"),
        helper.make_node("Constant", [], ["sub_c"], name="sub_const",
                         value=numpy_helper.from_array(sub_c, "sub_c")),
        helper.make_node("Sub", ["scaled", "sub_c"], ["shifted"], name="shift"),
        helper.make_node("Constant", [], ["div_c"], name="div_const",
                         value=numpy_helper.from_array(div_c, "div_c")),
        helper.make_node("Div", ["shifted", "div_c"], ["divided"], name="divide"),
        helper.make_node("Identity", ["divided"], ["logits"], name="identity"),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 32, 32])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializer=[_init("conv1.weight", c1_w),
                     _init("bn1.scale", bn_scale), _init("bn1.bias", bn_bias),
                     _init("bn1.mean", bn_mean), _init("bn1.var", bn_var),
                     _init("conv2.weight", c2_w), _init("conv2.bias", c2_b),
                     _init("branch.weight", br_w), _init("branch.bias", br_b),
                     _init("fc.weight", fc_w), _init("fc.bias", fc_b),
                     _init("fcbn.scale", fcbn_scale), _init("fcbn.bias", fcbn_bias),
                     _init("fcbn.mean", fcbn_mean), _init("fcbn.var", fcbn_var),
                     _init("mul.c", mul_c)])

    def ref(x):
        h = ref_conv2d(x, c1_w, None, (1, 1), (1, 1, 1, 1))
        h = np.maximum(ref_batchnorm(h, bn_scale, bn_bias, bn_mean, bn_var, bn_eps), 0.0)
        p1 = ref_maxpool2d(h, (2, 2), (2, 2))                       # [n, 8, 16, 16]
        m = ref_avgpool2d(ref_sigmoid(ref_conv2d(p1, c2_w, c2_b, (1, 1), (1, 1, 1, 1))),
                          (2, 2), (2, 2))                            # [n, 16, 8, 8]
        br = np.tanh(ref_conv2d(p1, br_w, br_b, (2, 2), (0, 0, 0, 0)))  # [n, 4, 8, 8]
        cat = np.concatenate([m, br], axis=1)                        # [n, 20, 8, 8]
        cat = cat.transpose(0, 2, 3, 1).transpose(0, 3, 1, 2)
        flat = cat.mean(axis=(2, 3)).reshape(cat.shape[0], -1)       # [n, 20]
        y = ref_gemm(flat, fc_w, fc_b, trans_b=1)
        y = ref_batchnorm(y, fcbn_scale, fcbn_bias, fcbn_mean, fcbn_var, 1e-3)
        return (y * mul_c - sub_c) / div_c

    return _model(graph), ref, "image", (3, 32, 32)


MODELS = {"mlp": build_mlp, "cnn": build_cnn}


def make_inputs(name, sample_shape):
    """Deterministic inputs per model: one array per entry of BATCH_SIZES."""
    seed = sum(ord(ch) for ch in name)
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((b,) + tuple(sample_shape)).astype(F32) for b in BATCH_SIZES]


def write_model_dir(out_dir, name, model, ref, input_name, sample_shape,
                    external_location=None):
    d = os.path.join(out_dir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    if external_location:
        ext = os.path.join(d, external_location)
        if os.path.exists(ext):
            os.remove(ext)  # onnx appends to an existing side file
        onnx.save_model(model, path, save_as_external_data=True,
                        all_tensors_to_one_file=True, location=external_location,
                        size_threshold=1024)
    else:
        onnx.save_model(model, path)
    onnx.checker.check_model(path)  # the path form also checks the external data
    inputs = make_inputs(name.split("_")[0], sample_shape)
    for k, x in enumerate(inputs):
        y = ref(x).astype(F32)
        np.save(os.path.join(d, "input_%d.npy" % k), x)
        np.save(os.path.join(d, "output_%d.npy" % k), y)
    return d


def make_all(out_dir):
    written = []
    for name, build in MODELS.items():
        model, ref, input_name, shape = build()
        written.append(write_model_dir(out_dir, name, model, ref, input_name, shape))
    model, ref, input_name, shape = build_mlp()
    model.graph.name = "mlp_external"
    written.append(write_model_dir(out_dir, "mlp_external", model, ref, input_name, shape,
                                   external_location="weights.bin"))
    return written


def make_examples(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    model, ref, _, shape = build_mlp()
    path = os.path.join(out_dir, "mlp.onnx")
    onnx.save_model(model, path)
    onnx.checker.check_model(path)
    x = make_inputs("mlp", shape)[0]
    np.save(os.path.join(out_dir, "mlp_input.npy"), x)
    np.save(os.path.join(out_dir, "mlp_expected.npy"), ref(x).astype(F32))
    return [path] + [os.path.join(out_dir, f) for f in ("mlp_input.npy", "mlp_expected.npy")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", nargs="?", help="folder for <model>/model.onnx, input_K.npy, "
                    "output_K.npy")
    ap.add_argument("--examples", metavar="DIR",
                    help="write the bundled demo (mlp.onnx, mlp_input.npy, "
                    "mlp_expected.npy) into DIR instead")
    args = ap.parse_args(argv)
    if bool(args.out_dir) == bool(args.examples):
        ap.error("give exactly one of OUT_DIR or --examples DIR")
    if args.examples:
        for p in make_examples(args.examples):
            print("wrote", p)
    else:
        for d in make_all(args.out_dir):
            print("wrote", d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
