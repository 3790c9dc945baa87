#!/usr/bin/env python3
"""Writes a model of Convs whose weights are initializers, inputs for it and
numpy's outputs: OUT_DIR/model.onnx, OUT_DIR/<input>.npy, OUT_DIR/ref/<output>.npy.

Usage: conv-constant-weights.py OUT_DIR

Each Conv reads its own input and writes its own output. The shapes cover
what laying constant weights out with the filters last changes: filter
counts that are not a multiple of any vector width, strides, dilations and
asymmetric pads, groups, depthwise, 1x1 on a narrow image, rows of
512 bytes (padded), 1-d and 3-d.
"""
import itertools
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# name: (input shape, filters, kernel, strides, dilations, pads, group)
CASES = {
    "narrow": ((1, 16, 7, 7), 40, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
    "strided": ((2, 8, 9, 11), 64, (3, 3), (2, 1), (1, 2), (0, 1, 2, 1), 1),
    "grouped": ((1, 8, 7, 7), 32, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 2),
    "depthwise": ((1, 32, 7, 7), 32, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), 32),
    "pointwise": ((1, 32, 7, 7), 48, (1, 1), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    "padded": ((1, 8, 6, 6), 128, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
    "wide": ((1, 4, 20, 40), 24, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 1),
    "conv1d": ((3, 4, 10), 24, (3,), (1,), (1,), (1, 1), 1),
    "conv3d": ((1, 3, 4, 5, 6), 20, (2, 3, 3), (1, 1, 2), (1, 1, 1), (0, 1, 1, 1, 0, 0), 1),
}


def reference(x, w, b, strides, dilations, pads, group):
    """ONNX Conv in float64, one kernel offset at a time."""
    spatial = x.ndim - 2
    padding = [(0, 0), (0, 0)] + [(pads[i], pads[spatial + i]) for i in range(spatial)]
    xp = np.pad(x.astype(np.float64), padding)
    n, f = x.shape[0], w.shape[0]
    kernel = w.shape[2:]
    out_shape = [
        (xp.shape[2 + i] - dilations[i] * (kernel[i] - 1) - 1) // strides[i] + 1
        for i in range(spatial)
    ]
    y = np.zeros([n, f] + out_shape)
    per_in, per_out = w.shape[1], f // group
    for g in range(group):
        xg = xp[:, g * per_in:(g + 1) * per_in]
        wg = w[g * per_out:(g + 1) * per_out].astype(np.float64)
        for k in itertools.product(*(range(e) for e in kernel)):
            window = tuple(
                slice(k[i] * dilations[i], k[i] * dilations[i] + strides[i] * (out_shape[i] - 1) + 1,
                      strides[i])
                for i in range(spatial))
            patch = xg[(slice(None), slice(None)) + window]
            y[:, g * per_out:(g + 1) * per_out] += np.einsum(
                "nc...,fc->nf...", patch, wg[(slice(None), slice(None)) + k])
    return y + b.reshape([1, f] + [1] * spatial)


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "ref"), exist_ok=True)
    rng = np.random.default_rng(3)
    nodes, inputs, outputs, inits = [], [], [], []
    for name, (shape, f, kernel, strides, dilations, pads, group) in CASES.items():
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((f, shape[1] // group) + kernel).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32)
        inits += [numpy_helper.from_array(w, name + "_w"), numpy_helper.from_array(b, name + "_b")]
        nodes.append(helper.make_node(
            "Conv", [name + "_x", name + "_w", name + "_b"], [name + "_y"], name=name,
            kernel_shape=list(kernel), strides=list(strides), dilations=list(dilations),
            pads=list(pads), group=group))
        y = reference(x, w, b, strides, dilations, pads, group).astype(np.float32)
        inputs.append(helper.make_tensor_value_info(name + "_x", TensorProto.FLOAT, list(shape)))
        outputs.append(helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, list(y.shape)))
        np.save(os.path.join(out, name + "_x.npy"), x)
        np.save(os.path.join(out, "ref", name + "_y.npy"), y)
    graph = helper.make_graph(nodes, "convs", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))


if __name__ == "__main__":
    main()
