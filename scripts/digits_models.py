#!/usr/bin/env python3
"""Trains two small classifiers on scikit-learn's digits and exports them to ONNX.

    /usr/bin/python3 scripts/digits_models.py OUT_DIR [--seed N]

The digits data set (Debian's python3-sklearn bundles it) holds 1,797 real
8x8 images of handwritten digits with 16 grey levels. It is split, with a
seeded permutation, into 1,000 training images, 297 calibration images
(the precision passes' calibration set: never trained on) and 500 test
images. Training is plain numpy (no framework): mini-batch Adam on the
cross-entropy, so it runs on the CPU in seconds and needs nothing beyond
the project's test packages.

  * digits_mlp:  x [N, 64] -> Gemm 128 -> Relu -> Gemm 64 -> Relu -> Gemm 10
  * digits_cnn:  image [N, 1, 8, 8] -> Conv 3x3 8 -> Relu -> MaxPool 2
                 -> Conv 3x3 16 -> Relu -> MaxPool 2 -> Flatten -> Gemm 10

Both output logits [N, 10]. OUT_DIR gets digits_mlp.onnx, digits_cnn.onnx,
and the data as .npy: {calib,test}_x.npy (flat, float32 in [0, 1]),
{calib,test}_image.npy (the same as [N, 1, 8, 8]) and {calib,test}_y.npy
(labels, int64), plus train_accuracy.txt (each model's float64 accuracy on
the test set, from numpy, as a check of the export).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def load_digits(seed):
    from sklearn.datasets import load_digits as sk_load
    data = sk_load()
    x = (data.data / 16.0).astype(np.float32)
    y = data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    x, y = x[order], y[order]
    return (x[:1000], y[:1000]), (x[1000:1297], y[1000:1297]), (x[1297:1797], y[1297:1797])


# ---- layers (forward returns a cache for backward) --------------------------

def im2col(x):
    """(N, C, H, W) -> (N*H*W, C*9): 3x3 windows with padding 1."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    patches = np.stack([xp[:, :, i:i + h, j:j + w] for i in range(3) for j in range(3)], axis=2)
    return patches.transpose(0, 3, 4, 1, 2).reshape(n * h * w, c * 9)


def col2im(cols, shape):
    n, c, h, w = shape
    d = cols.reshape(n, h, w, c, 3, 3)
    dxp = np.zeros((n, c, h + 2, w + 2), cols.dtype)
    for i in range(3):
        for j in range(3):
            dxp[:, :, i:i + h, j:j + w] += d[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dxp[:, :, 1:-1, 1:-1]


def conv_forward(x, w, b):
    n, _, h, wd = x.shape
    cols = im2col(x)
    out = cols @ w.reshape(w.shape[0], -1).T + b
    return out.reshape(n, h, wd, -1).transpose(0, 3, 1, 2), (x.shape, cols)


def conv_backward(dout, w, cache):
    shape, cols = cache
    d = dout.transpose(0, 2, 3, 1).reshape(-1, w.shape[0])
    dw = (d.T @ cols).reshape(w.shape)
    db = d.sum(0)
    dx = col2im(d @ w.reshape(w.shape[0], -1), shape)
    return dx, dw, db


def pool_forward(x):
    n, c, h, w = x.shape
    r = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = r.max(axis=(3, 5))
    mask = r == out[:, :, :, None, :, None]
    # One winner per window (the first), as a backward pass needs.
    flat = mask.transpose(0, 1, 2, 4, 3, 5).reshape(n, c, h // 2, w // 2, 4)
    first = np.zeros_like(flat)
    first[np.arange(n)[:, None, None, None], np.arange(c)[None, :, None, None],
          np.arange(h // 2)[None, None, :, None], np.arange(w // 2)[None, None, None, :],
          flat.argmax(-1)] = True
    return out, first


def pool_backward(dout, first):
    n, c, h2, w2, _ = first.shape
    d = first * dout[..., None]
    return d.reshape(n, c, h2, w2, 2, 2).transpose(0, 1, 2, 4, 3, 5).reshape(n, c, 2 * h2, 2 * w2)


def softmax_xent(logits, y):
    z = logits - logits.max(1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(1, keepdims=True)
    loss = -np.log(p[np.arange(len(y)), y] + 1e-12).mean()
    d = p.copy()
    d[np.arange(len(y)), y] -= 1
    return loss, d / len(y)


# ---- models -----------------------------------------------------------------

def he(rng, shape, fan_in):
    return rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)


class Mlp:
    def __init__(self, rng):
        self.p = {"w1": he(rng, (64, 128), 64), "b1": np.zeros(128),
                  "w2": he(rng, (128, 64), 128), "b2": np.zeros(64),
                  "w3": he(rng, (64, 10), 64), "b3": np.zeros(10)}

    def forward(self, x):
        p = self.p
        h1 = np.maximum(x @ p["w1"] + p["b1"], 0)
        h2 = np.maximum(h1 @ p["w2"] + p["b2"], 0)
        return h2 @ p["w3"] + p["b3"], (x, h1, h2)

    def backward(self, d, cache):
        x, h1, h2 = cache
        p, g = self.p, {}
        g["w3"], g["b3"] = h2.T @ d, d.sum(0)
        d = (d @ p["w3"].T) * (h2 > 0)
        g["w2"], g["b2"] = h1.T @ d, d.sum(0)
        d = (d @ p["w2"].T) * (h1 > 0)
        g["w1"], g["b1"] = x.T @ d, d.sum(0)
        return g


class Cnn:
    def __init__(self, rng):
        self.p = {"w1": he(rng, (8, 1, 3, 3), 9), "b1": np.zeros(8),
                  "w2": he(rng, (16, 8, 3, 3), 72), "b2": np.zeros(16),
                  "w3": he(rng, (64, 10), 64), "b3": np.zeros(10)}

    def forward(self, x):
        p = self.p
        x = x.reshape(-1, 1, 8, 8)
        c1, k1 = conv_forward(x, p["w1"], p["b1"])
        r1 = np.maximum(c1, 0)
        q1, m1 = pool_forward(r1)
        c2, k2 = conv_forward(q1, p["w2"], p["b2"])
        r2 = np.maximum(c2, 0)
        q2, m2 = pool_forward(r2)
        f = q2.reshape(len(x), -1)
        return f @ p["w3"] + p["b3"], (k1, c1, m1, k2, c2, m2, f, q2.shape)

    def backward(self, d, cache):
        k1, c1, m1, k2, c2, m2, f, shape = cache
        p, g = self.p, {}
        g["w3"], g["b3"] = f.T @ d, d.sum(0)
        d = (d @ p["w3"].T).reshape(shape)
        d = pool_backward(d, m2) * (c2 > 0)
        d, g["w2"], g["b2"] = conv_backward(d, p["w2"], k2)
        d = pool_backward(d, m1) * (c1 > 0)
        _, g["w1"], g["b1"] = conv_backward(d, p["w1"], k1)
        return g


def train(model, x, y, rng, epochs, lr=3e-3, batch=50):
    m = {k: np.zeros_like(v) for k, v in model.p.items()}
    v = {k: np.zeros_like(val) for k, val in model.p.items()}
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            logits, cache = model.forward(x[idx].astype(np.float64))
            _, d = softmax_xent(logits, y[idx])
            g = model.backward(d, cache)
            t += 1
            for k in model.p:
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
                mh = m[k] / (1 - 0.9 ** t)
                vh = v[k] / (1 - 0.999 ** t)
                model.p[k] -= lr * mh / (np.sqrt(vh) + 1e-8)


def accuracy(model, x, y):
    return float((model.forward(x.astype(np.float64))[0].argmax(1) == y).mean())


# ---- ONNX export ------------------------------------------------------------

def initializer(name, value):
    return numpy_helper.from_array(np.asarray(value, np.float32), name)


def export_mlp(model, path):
    p = model.p
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["g1"], name="fc1"),
             helper.make_node("Relu", ["g1"], ["h1"], name="relu1"),
             helper.make_node("Gemm", ["h1", "w2", "b2"], ["g2"], name="fc2"),
             helper.make_node("Relu", ["g2"], ["h2"], name="relu2"),
             helper.make_node("Gemm", ["h2", "w3", "b3"], ["logits"], name="fc3")]
    graph = helper.make_graph(
        nodes, "digits_mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        [initializer(k, p[k]) for k in ("w1", "b1", "w2", "b2", "w3", "b3")])
    save(graph, path)


def export_cnn(model, path):
    p = model.p
    conv = dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    pool = dict(kernel_shape=[2, 2], strides=[2, 2])
    nodes = [helper.make_node("Conv", ["image", "w1", "b1"], ["c1"], name="conv1", **conv),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("MaxPool", ["r1"], ["q1"], name="pool1", **pool),
             helper.make_node("Conv", ["q1", "w2", "b2"], ["c2"], name="conv2", **conv),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("MaxPool", ["r2"], ["q2"], name="pool2", **pool),
             helper.make_node("Flatten", ["q2"], ["f"], name="flatten", axis=1),
             helper.make_node("Gemm", ["f", "w3", "b3"], ["logits"], name="fc")]
    graph = helper.make_graph(
        nodes, "digits_cnn",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["N", 1, 8, 8])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", 10])],
        [initializer(k, p[k]) for k in ("w1", "b1", "w2", "b2", "w3", "b3")])
    save(graph, path)


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="tessel digits_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save_model(model, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20261206)
    ap.add_argument("--epochs", type=int, default=40)
    args = ap.parse_args(argv)
    os.makedirs(args.out_dir, exist_ok=True)
    (xt, yt), (xc, yc), (xs, ys) = load_digits(args.seed)
    for name, data in (("calib", (xc, yc)), ("test", (xs, ys))):
        np.save(os.path.join(args.out_dir, name + "_x.npy"), data[0])
        np.save(os.path.join(args.out_dir, name + "_image.npy"), data[0].reshape(-1, 1, 8, 8))
        np.save(os.path.join(args.out_dir, name + "_y.npy"), data[1])
    lines = []
    for name, cls, export in (("digits_mlp", Mlp, export_mlp), ("digits_cnn", Cnn, export_cnn)):
        rng = np.random.default_rng([args.seed, len(name)])
        model = cls(rng)
        train(model, xt, yt, rng, args.epochs)
        acc = accuracy(model, xs, ys)
        export(model, os.path.join(args.out_dir, name + ".onnx"))
        lines.append("%s %.4f" % (name, acc))
        print("%s: test accuracy %.2f %% (numpy, float64)" % (name, 100 * acc))
    with open(os.path.join(args.out_dir, "train_accuracy.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
