#!/usr/bin/python3
"""Seeded differential sweep: random Conv, ConvTranspose, pooling and MatMul/Gemm shapes.

    /usr/bin/python3 test/e2e/sweep_test.py --bin-dir build/bin --work-dir DIR
        [--device cpu|vulkan] [--seed N] [--cases N] [-j N]

The node tests fix a few shapes per op; a wrong answer for a class of shapes
they do not reach (grouped Convs with few channels per group, tiny or odd
images, prime extents) would pass them unseen. This sweep draws shapes from
a seeded generator, builds one ONNX model per family holding every case as a
separate node with its own input and output, compiles it once and runs it
once with tessel-compile / tessel-run, and compares each output with a
float64 numpy reference written here from the ONNX specification (relative
L2 error <= 1e-5, and max abs error <= 1e-4 * max(1, max |reference|);
integer results exactly).

Conv and pooling cases take a symbolic batch in every other case.
Families: Conv or MatMul with a bias and one or two elementwise ops after it
(Relu, Clip, a residual Add, a per-channel Mul, SiLU: the epilogues the CPU
runs inside the register tiles) against numpy; AffineGrid (against PyTorch's coordinates); Col2Im (against a loop
adding patches) and Det (numpy.linalg);
NonZero, Unique, Compress and ReverseSequence against numpy; DFT-20 (forward, inverse, rfft, irfft, dft_length, the axis
as input or constant) against numpy's FFT; Einsum-12 (contractions, diagonals, ellipsis broadcasting,
implicit outputs) against numpy.einsum; RNN/GRU/LSTM-14 (directions, layouts, sequence_lens, initial
states, peepholes, clip, activations) against a loop of their equations;
ScatterElements/ScatterND-18 (every reduction, duplicates,
negative indices, updates smaller than data) and GatherND-13 (batch_dims)
against ONNX's loops; TopK-11 (ties, NaN, K as input or constant) and CumSum-14
(exclusive, reverse, the axis as input or constant), against numpy;
Resize-13 (nearest, linear, cubic; every coordinate transform
but half_pixel_symmetric; scales or sizes, constants or graph inputs;
against a per-output reference that picks the taps nearest each position),
ConvTranspose (groups, strides, dilations, pads, output_padding,
auto_pad SAME_*, 1-D to 3-D), Conv (groups 1 to 60, 1 to 16 channels per group, kernels 1 to 7,
strides, dilations, explicit pads, images from 1x1 to 29x31, with and
without bias), MaxPool / AveragePool (kernels, strides, pads, dilations for
MaxPool, count_include_pad for AveragePool), MatMul (batched, prime and unit
extents) and Gemm (transposes, alpha, beta, bias of each broadcast shape).

The seed is fixed by default (the run is reproducible); --seed picks another
draw. A failing case prints its parameters, which is a test to add. -j N
(default 2) runs N families at once: a family's time is mostly its one
compile, on one core. Each family's line gives where its time went.

Last line: `sweep: N passed, M failed`. Exit 1 when anything failed.
"""

import argparse
import concurrent.futures
import os
import shutil
import subprocess
import sys
import time

import cpu_variant
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_S = 600
RTOL_L2 = 1e-5
ATOL_REL = 1e-4


# ---------------------------------------------------------------------------
# References (float64, straight from the ONNX operator definitions)
# ---------------------------------------------------------------------------

def _windows(x, kernel, strides, dilations, out_shape):
    """x: [N, C, *spatial] (already padded). Returns [N, C, *out, *kernel]."""
    n, c = x.shape[:2]
    spatial = len(kernel)
    out = np.empty((n, c) + tuple(out_shape) + tuple(kernel), dtype=x.dtype)
    for o in np.ndindex(*out_shape):
        for k in np.ndindex(*kernel):
            idx = tuple(o[i] * strides[i] + k[i] * dilations[i] for i in range(spatial))
            out[(slice(None), slice(None)) + o + k] = x[(slice(None), slice(None)) + idx]
    return out


def _resize_coords(mode, y, scale, length, out_float, out_int, roi):
    """Output position y -> input coordinate (float64), per
    coordinate_transformation_mode, as the Resize specification defines it."""
    if mode == "half_pixel":
        return (y + 0.5) / scale - 0.5
    if mode == "asymmetric":
        return y / scale
    if mode == "pytorch_half_pixel":
        return -0.5 if out_float == 1 else (y + 0.5) / scale - 0.5
    if mode == "align_corners":
        return 0.0 if out_float == 1 else y * (length - 1) / (out_float - 1)
    if mode == "tf_crop_and_resize":
        start, end = roi
        if out_float == 1:
            x = (end - start) * (length - 1) / 2
        else:
            x = y * (end - start) * (length - 1) / (out_float - 1)
        return x + start * (length - 1)
    raise ValueError(mode)


def resize_1d_ref(data, scale, out_int, attrs, roi):
    """Resizes 1-D `data` to `out_int` samples: for each output, the taps
    nearest the input coordinate in the edge-padded data (ties to the lower
    index), weighted by the mode's kernel."""
    length = len(data)
    out_float = scale * length
    mode = attrs.get("mode", "nearest")
    a = attrs.get("cubic_coeff_a", -0.75)
    pad = 2
    padded = np.concatenate([[data[0]] * pad, data, [data[-1]] * pad])
    result = np.empty(out_int)
    for y in range(out_int):
        x = _resize_coords(attrs.get("coordinate_transformation_mode", "half_pixel"),
                           y, scale, length, out_float, out_int, roi)
        if attrs.get("coordinate_transformation_mode") == "tf_crop_and_resize" and \
                (x < 0 or x > length - 1):
            result[y] = attrs.get("extrapolation_value", 0.0)
            continue
        lo = int(np.floor(x))
        ratio = 1.0 if x == lo else x - lo
        if mode == "nearest":
            nm = attrs.get("nearest_mode", "round_prefer_floor")
            if x == lo:
                idx = lo
            elif nm == "round_prefer_floor":
                idx = lo + (ratio > 0.5)
            elif nm == "round_prefer_ceil":
                idx = lo + (ratio >= 0.5)
            elif nm == "floor":
                idx = lo
            else:
                idx = lo + 1
            result[y] = data[min(max(idx, 0), length - 1)]
            continue
        # The n nearest positions to x, the lower one on a tie.
        n = 2 if mode == "linear" else 4
        first = int(np.ceil(x)) - 1 - (n // 2 - 1)
        taps = np.arange(first, first + n)
        dist = np.abs(taps - x)
        if mode == "linear":
            w = np.maximum(1 - dist, 0)
        else:
            w = np.where(dist <= 1, ((a + 2) * dist - (a + 3)) * dist * dist + 1,
                         np.where(dist < 2, ((a * dist - 5 * a) * dist + 8 * a) * dist - 4 * a,
                                  0.0))
        if attrs.get("exclude_outside", 0):
            w = np.where((taps < 0) | (taps >= length), 0.0, w)
            w = w / w.sum() if w.sum() != 0 else w
        result[y] = np.dot(w, padded[np.clip(taps, -pad, length - 1 + pad) + pad])
    return result


def resize_ref(x, scales, sizes, attrs, roi):
    """Resize-13 on every axis, one axis after the other (the interpolation
    is separable)."""
    y = x.astype(np.float64)
    rank = x.ndim
    for axis in range(rank):
        length = x.shape[axis]
        if sizes is not None:
            out_int, scale = int(sizes[axis]), sizes[axis] / length
        else:
            scale = float(scales[axis])
            out_int = int(np.floor(scale * length))
        if scale == 1.0 and out_int == length and \
                attrs.get("coordinate_transformation_mode") != "tf_crop_and_resize":
            continue
        r = None if roi is None else (float(roi[axis]), float(roi[axis + rank]))
        y = np.apply_along_axis(resize_1d_ref, axis, y, scale, out_int, attrs, r)
    return y


def conv_ref(x, w, b, group, strides, dilations, pads):
    spatial = x.ndim - 2
    pad_width = [(0, 0), (0, 0)] + [(pads[i], pads[i + spatial]) for i in range(spatial)]
    xp = np.pad(x.astype(np.float64), pad_width)
    kernel = w.shape[2:]
    out_shape = [(xp.shape[2 + i] - ((kernel[i] - 1) * dilations[i] + 1)) // strides[i] + 1
                 for i in range(spatial)]
    win = _windows(xp, kernel, strides, dilations, out_shape)  # N C O.. K..
    f = w.shape[0]
    cg, fg = w.shape[1], f // group
    n = x.shape[0]
    y = np.empty((n, f) + tuple(out_shape))
    axes_o = "".join("opqr"[i] for i in range(spatial))
    axes_k = "".join("klmj"[i] for i in range(spatial))
    for g in range(group):
        xg = win[:, g * cg:(g + 1) * cg]
        wg = w[g * fg:(g + 1) * fg].astype(np.float64)
        y[:, g * fg:(g + 1) * fg] = np.einsum(
            "nc%s%s,fc%s->nf%s" % (axes_o, axes_k, axes_k, axes_o), xg, wg)
    if b is not None:
        y += b.astype(np.float64).reshape((1, f) + (1,) * spatial)
    return y


def conv_transpose_ref(x, w, b, group, strides, dilations, pads, output_padding):
    """ConvTranspose by its definition: input element i of a spatial dim adds
    x[i] * w[k] to output i * stride + k * dilation - pad_begin."""
    spatial = x.ndim - 2
    n, c = x.shape[:2]
    cg, fg = c // group, w.shape[1]
    kernel = w.shape[2:]
    full = [strides[d] * (x.shape[2 + d] - 1) + dilations[d] * (kernel[d] - 1) + 1
            + output_padding[d] for d in range(spatial)]
    y = np.zeros((n, group * fg) + tuple(full))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    for g in range(group):
        xg = x64[:, g * cg:(g + 1) * cg]
        for k in np.ndindex(*kernel):
            wk = w64[(slice(g * cg, (g + 1) * cg), slice(None)) + k]  # [cg, fg]
            part = np.tensordot(xg, wk, axes=([1], [0]))  # [n, *in, fg]
            part = np.moveaxis(part, -1, 1)
            idx = tuple(slice(k[d] * dilations[d],
                              k[d] * dilations[d] + strides[d] * (x.shape[2 + d] - 1) + 1,
                              strides[d]) for d in range(spatial))
            y[(slice(None), slice(g * fg, (g + 1) * fg)) + idx] += part
    # A negative pad (auto_pad SAME_* can make one) extends with zeros.
    grow = [(0, 0), (0, 0)] + [(max(0, -pads[d]), max(0, -pads[d + spatial]))
                               for d in range(spatial)]
    y = np.pad(y, grow)
    crop = tuple(slice(max(0, pads[d]), y.shape[2 + d] - max(0, pads[d + spatial]))
                 for d in range(spatial))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y += b.astype(np.float64).reshape((1, -1) + (1,) * spatial)
    return y


def pool_ref(kind, x, kernel, strides, pads, dilations, count_include_pad):
    spatial = x.ndim - 2
    x = x.astype(np.float64)
    fill = -np.inf if kind == "MaxPool" else 0.0
    pad_width = [(0, 0), (0, 0)] + [(pads[i], pads[i + spatial]) for i in range(spatial)]
    xp = np.pad(x, pad_width, constant_values=fill)
    out_shape = [(xp.shape[2 + i] - ((kernel[i] - 1) * dilations[i] + 1)) // strides[i] + 1
                 for i in range(spatial)]
    win = _windows(xp, kernel, strides, dilations, out_shape)
    red = tuple(range(2 + spatial, 2 + 2 * spatial))
    if kind == "MaxPool":
        return win.max(axis=red)
    if count_include_pad:
        return win.sum(axis=red) / float(np.prod(kernel))
    ones = np.pad(np.ones(x.shape[2:]), pad_width[2:])
    counts = _windows(ones[None, None], kernel, strides, dilations, out_shape)
    return win.sum(axis=red) / counts.sum(axis=red)


def gemm_ref(a, b, c, trans_a, trans_b, alpha, beta):
    a = a.astype(np.float64).T if trans_a else a.astype(np.float64)
    b = b.astype(np.float64).T if trans_b else b.astype(np.float64)
    y = alpha * (a @ b)
    if c is not None:
        y = y + beta * c.astype(np.float64)
    return y


# ---------------------------------------------------------------------------
# Case generators: each returns (nodes, inputs {name: array}, initializers,
# outputs {name: reference}, description)
# ---------------------------------------------------------------------------

def conv_case(rng, i):
    spatial = 2 if rng.random() < 0.8 else 1
    group = int(rng.choice([1, 1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 55, 60]))
    cg = int(rng.integers(1, 17))
    fg = int(rng.choice([cg, int(rng.integers(1, 17))]))
    n = int(rng.integers(1, 3))
    kernel = [int(rng.choice([1, 1, 2, 3, 3, 5, 7])) for _ in range(spatial)]
    dil = [int(rng.choice([1, 1, 1, 2, 3])) for _ in range(spatial)]
    strides = [int(rng.choice([1, 1, 2, 3])) for _ in range(spatial)]
    pads = [int(rng.integers(0, kernel[d % spatial])) for d in range(2 * spatial)]
    image = []
    for d in range(spatial):
        span = (kernel[d] - 1) * dil[d] + 1
        lo = max(1, span - pads[d] - pads[d + spatial])
        image.append(int(rng.integers(lo, max(lo, 29) + 3)))
    # Keep each case small enough for the numpy reference.
    while group * cg * fg * np.prod(image) * np.prod(kernel) > 4e6 and group > 1:
        group //= 2
    c, f = group * cg, group * fg
    x = rng.standard_normal([n, c] + image).astype(np.float32)
    w = rng.standard_normal([f, cg] + kernel).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if rng.random() < 0.6 else None
    names = ["conv%d_x" % i, "conv%d_w" % i] + (["conv%d_b" % i] if b is not None else [])
    node = helper.make_node("Conv", names, ["conv%d_y" % i], name="conv%d" % i,
                            group=group, kernel_shape=kernel, strides=strides,
                            dilations=dil, pads=pads)
    inits = [numpy_helper.from_array(w, names[1])]
    if b is not None:
        inits.append(numpy_helper.from_array(b, names[2]))
    ref = conv_ref(x, w, b, group, strides, dil, pads)
    desc = ("Conv x=%s w=%s group=%d kernel=%s strides=%s dilations=%s pads=%s bias=%s"
            % (list(x.shape), list(w.shape), group, kernel, strides, dil, pads, b is not None))
    return [node], {names[0]: x}, inits, {"conv%d_y" % i: ref}, desc


def pool_case(rng, i):
    """A MaxPool or AveragePool whose every window holds an input element (a
    window wholly in the padding has no value in ONNX Runtime or PyTorch)."""
    while True:
        case = _pool_case(rng, i)
        if case is not None:
            return case


def _pool_case(rng, i):
    kind = "MaxPool" if rng.random() < 0.5 else "AveragePool"
    spatial = 2 if rng.random() < 0.8 else 1
    kernel = [int(rng.integers(1, 6)) for _ in range(spatial)]
    strides = [int(rng.integers(1, 4)) for _ in range(spatial)]
    dil = ([int(rng.choice([1, 1, 2])) for _ in range(spatial)]
           if kind == "MaxPool" else [1] * spatial)
    pads = [int(rng.integers(0, kernel[d % spatial])) for d in range(2 * spatial)]
    image = []
    for d in range(spatial):
        span = (kernel[d] - 1) * dil[d] + 1
        lo = max(1, span - pads[d] - pads[d + spatial])
        image.append(int(rng.integers(lo, lo + 24)))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 20))] + image
    ones = np.pad(np.ones(image), [(pads[d], pads[d + spatial]) for d in range(spatial)])
    out_shape = [(ones.shape[d] - ((kernel[d] - 1) * dil[d] + 1)) // strides[d] + 1
                 for d in range(spatial)]
    if _windows(ones[None, None], kernel, strides, dil, out_shape).reshape(
            int(np.prod(out_shape)), -1).sum(axis=1).min() == 0:
        return None
    x = rng.standard_normal(shape).astype(np.float32)
    cip = int(rng.integers(0, 2)) if kind == "AveragePool" else 0
    attrs = dict(kernel_shape=kernel, strides=strides, pads=pads)
    if kind == "MaxPool":
        attrs["dilations"] = dil
    else:
        attrs["count_include_pad"] = cip
    node = helper.make_node(kind, ["pool%d_x" % i], ["pool%d_y" % i], name="pool%d" % i,
                            **attrs)
    ref = pool_ref(kind, x, kernel, strides, pads, dil, cip)
    desc = "%s x=%s %s" % (kind, shape, attrs)
    return [node], {"pool%d_x" % i: x}, [], {"pool%d_y" % i: ref}, desc


def matmul_case(rng, i):
    dims = [1, 2, 3, 5, 7, 13, 16, 17, 31, 33, 64, 67]
    m, k, n = (int(rng.choice(dims)) for _ in range(3))
    if rng.random() < 0.5:
        batch = [int(rng.choice([1, 2, 3]))] if rng.random() < 0.7 else [2, 3]
        # One side broadcast over the batch now and then.
        a_shape = batch + [m, k] if rng.random() < 0.8 else [m, k]
        b_shape = batch + [k, n] if rng.random() < 0.8 else [k, n]
        a = rng.standard_normal(a_shape).astype(np.float32)
        b = rng.standard_normal(b_shape).astype(np.float32)
        const_b = rng.random() < 0.5
        node = helper.make_node("MatMul", ["mm%d_a" % i, "mm%d_b" % i], ["mm%d_y" % i],
                                name="mm%d" % i)
        inputs = {"mm%d_a" % i: a}
        inits = []
        if const_b:
            inits.append(numpy_helper.from_array(b, "mm%d_b" % i))
        else:
            inputs["mm%d_b" % i] = b
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        desc = "MatMul a=%s b=%s (b %s)" % (a_shape, b_shape,
                                            "constant" if const_b else "input")
        return [node], inputs, inits, {"mm%d_y" % i: ref}, desc
    ta, tb = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    alpha = float(rng.choice([1.0, 0.5, 2.0]))
    beta = float(rng.choice([1.0, 0.25]))
    a = rng.standard_normal([k, m] if ta else [m, k]).astype(np.float32)
    b = rng.standard_normal([n, k] if tb else [k, n]).astype(np.float32)
    c_shape = [[], [n], [1, n], [m, 1], [m, n], None][int(rng.integers(0, 6))]
    c = rng.standard_normal(c_shape).astype(np.float32) if c_shape is not None else None
    names = ["gemm%d_a" % i, "gemm%d_b" % i] + (["gemm%d_c" % i] if c is not None else [])
    node = helper.make_node("Gemm", names, ["gemm%d_y" % i], name="gemm%d" % i,
                            transA=ta, transB=tb, alpha=alpha, beta=beta)
    inits = [numpy_helper.from_array(b, names[1])]
    if c is not None:
        inits.append(numpy_helper.from_array(c, names[2]))
    ref = gemm_ref(a, b, c, ta, tb, alpha, beta)
    desc = "Gemm a=%s b=%s c=%s transA=%d transB=%d alpha=%g beta=%g" % (
        list(a.shape), list(b.shape), c_shape, ta, tb, alpha, beta)
    return [node], {names[0]: a}, inits, {"gemm%d_y" % i: ref}, desc


def conv_transpose_case(rng, i):
    """ConvTranspose: groups, strides, dilations, pads, output_padding and
    auto_pad SAME_UPPER / SAME_LOWER (whose pads the reference derives as the
    specification says)."""
    spatial = int(rng.choice([1, 2, 2, 2, 3]))
    group = int(rng.choice([1, 1, 2, 3, 4]))
    cg, fg = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    kernel = [int(rng.choice([1, 2, 3, 3, 4, 5])) for _ in range(spatial)]
    dil = [int(rng.choice([1, 1, 2])) for _ in range(spatial)]
    strides = [int(rng.choice([1, 2, 2, 3])) for _ in range(spatial)]
    outpad = [int(rng.integers(0, max(strides[d], dil[d]))) if rng.random() < 0.4 else 0
              for d in range(spatial)]
    image = [int(rng.integers(1, 10 if spatial < 3 else 5)) for _ in range(spatial)]
    auto_pad = str(rng.choice(["NOTSET", "NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER"]))
    if auto_pad == "NOTSET":
        pads = []
        for d in range(2 * spatial):
            span = (kernel[d % spatial] - 1) * dil[d % spatial] + 1
            pads.append(int(rng.integers(0, span)))
        for d in range(spatial):  # leave at least one output
            full = strides[d] * (image[d] - 1) + (kernel[d] - 1) * dil[d] + 1 + outpad[d]
            while pads[d] + pads[d + spatial] >= full:
                pads[d + spatial] = max(0, pads[d + spatial] - 1)
                pads[d] = max(0, pads[d] - 1)
    else:
        pads = []
        for d in range(spatial):
            full = strides[d] * (image[d] - 1) + (kernel[d] - 1) * dil[d] + 1 + outpad[d]
            total = full - image[d] * strides[d]
            first = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            pads.append(first)
        pads += [full_total - p for full_total, p in zip(
            [strides[d] * (image[d] - 1) + (kernel[d] - 1) * dil[d] + 1 + outpad[d]
             - image[d] * strides[d] for d in range(spatial)], pads)]
    n = int(rng.integers(1, 3))
    c, f = group * cg, group * fg
    x = rng.standard_normal([n, c] + image).astype(np.float32)
    w = rng.standard_normal([c, fg] + kernel).astype(np.float32)
    b = rng.standard_normal([f]).astype(np.float32) if rng.random() < 0.5 else None
    names = ["convt%d_x" % i, "convt%d_w" % i] + (["convt%d_b" % i] if b is not None else [])
    attrs = dict(group=group, kernel_shape=kernel, strides=strides, dilations=dil)
    if any(outpad):
        attrs["output_padding"] = outpad
    if auto_pad == "NOTSET":
        attrs["pads"] = pads
    else:
        attrs["auto_pad"] = auto_pad
    node = helper.make_node("ConvTranspose", names, ["convt%d_y" % i], name="convt%d" % i,
                            **attrs)
    inits = [numpy_helper.from_array(w, names[1])]
    if b is not None:
        inits.append(numpy_helper.from_array(b, names[2]))
    ref = conv_transpose_ref(x, w, b, group, strides, dil, pads, outpad)
    desc = ("ConvTranspose x=%s w=%s group=%d kernel=%s strides=%s dilations=%s pads=%s "
            "output_padding=%s auto_pad=%s bias=%s"
            % (list(x.shape), list(w.shape), group, kernel, strides, dil, pads, outpad,
               auto_pad, b is not None))
    return [node], {names[0]: x}, inits, {"convt%d_y" % i: ref}, desc


def resize_case(rng, i):
    """Resize-13: nearest (each nearest_mode), linear and cubic (cubic_coeff_a,
    exclude_outside) under each coordinate transform, with scales or sizes
    as constants or as graph inputs (whose extents the plan reads back or
    reads from the input), up- and downscaling, 1-D to 4-D."""
    rank = int(rng.choice([1, 2, 3, 4, 4]))
    shape = [int(rng.integers(1, 4)) for _ in range(rank - 2)] + \
        [int(rng.integers(1, 9)) for _ in range(min(rank, 2))]
    mode = str(rng.choice(["nearest", "linear", "cubic"]))
    transform = str(rng.choice(["half_pixel", "asymmetric", "pytorch_half_pixel",
                                "align_corners", "tf_crop_and_resize"]))
    attrs = {"mode": mode, "coordinate_transformation_mode": transform}
    if mode == "nearest":
        attrs["nearest_mode"] = str(rng.choice(["round_prefer_floor", "round_prefer_ceil",
                                                "floor", "ceil"]))
    if mode == "cubic":
        attrs["cubic_coeff_a"] = float(rng.choice([-0.75, -0.5]))
        attrs["exclude_outside"] = int(rng.integers(0, 2))
    if transform == "tf_crop_and_resize":
        attrs["extrapolation_value"] = float(rng.choice([0.0, 10.0]))
    # Leading dims mostly keep their extent, as in images.
    resized = [d >= rank - 2 or rng.random() < 0.3 for d in range(rank)]
    use_sizes = rng.random() < 0.5
    if use_sizes:
        sizes = np.array([int(rng.integers(1, 13)) if r else shape[d]
                          for d, r in enumerate(resized)], dtype=np.int64)
        scales = None
    else:
        scales = np.array([float(rng.choice([0.5, 0.6, 0.75, 1.5, 2.0, 2.5, 3.0]))
                           if r else 1.0 for r in resized], dtype=np.float32)
        sizes = None
        for d in range(rank):  # at least one output along each axis
            while np.floor(scales[d] * shape[d]) < 1:
                scales[d] *= 2
    roi = None
    if transform == "tf_crop_and_resize":
        roi = np.concatenate([rng.uniform(-0.2, 0.4, rank),
                              rng.uniform(0.6, 1.2, rank)]).astype(np.float32)
    x = rng.standard_normal(shape).astype(np.float32)
    as_input = rng.random() < 0.5
    prefix = "resize%d_" % i
    names = [prefix + "x", prefix + "roi" if roi is not None else "",
             prefix + "scales" if scales is not None else "",
             prefix + "sizes" if sizes is not None else ""]
    while names[-1] == "":
        names.pop()
    node = helper.make_node("Resize", names, [prefix + "y"], name=prefix[:-1], **attrs)
    inputs, inits = {prefix + "x": x}, []
    for name, value in ((prefix + "roi", roi), (prefix + "scales", scales),
                        (prefix + "sizes", sizes)):
        if value is None:
            continue
        if as_input:
            inputs[name] = value
        else:
            inits.append(numpy_helper.from_array(value, name))
    ref = resize_ref(x, scales, sizes, attrs, roi)
    desc = ("Resize x=%s %s scales=%s sizes=%s roi=%s (%s)"
            % (shape, attrs, None if scales is None else scales.tolist(),
               None if sizes is None else sizes.tolist(),
               None if roi is None else np.round(roi, 3).tolist(),
               "graph inputs" if as_input else "constants"))
    return [node], inputs, inits, {prefix + "y": ref}, desc


def _feed(name, value, as_input, inputs, inits):
    """Gives the model `value` as graph input `name`, or as an initializer."""
    if as_input:
        inputs[name] = value
    else:
        inits.append(numpy_helper.from_array(value, name))


def topk_ref(x, k, axis, largest):
    """TopK as ONNX's reference computes it: a stable sort by value (NaN
    above every number), equal values keeping the lower index first."""
    index = np.indices(x.shape)[axis]
    order = np.lexsort((-index if largest else index, x), axis=axis)
    if largest:
        order = np.flip(order, axis=axis)
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis=axis), order.astype(np.int64)


def topk_case(rng, i):
    """TopK-11: largest or smallest along any axis (negative too), K from 1
    to the extent, as a constant or a graph input; values with many ties
    (small integers) and NaN in some cases; float32 or int32."""
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 6)) for _ in range(rank)]
    axis = int(rng.integers(-rank, rank))
    n = shape[axis]
    shape[axis] = n = max(n, int(rng.integers(1, 12)))
    k = int(rng.integers(1, n + 1))
    largest = int(rng.integers(0, 2))
    integer = rng.random() < 0.25
    if integer:
        x = rng.integers(-3, 4, shape).astype(np.int32)
    else:
        x = rng.integers(-4, 5, shape).astype(np.float32) * 0.5
        x += rng.random(shape).astype(np.float32) * (rng.random() < 0.5)
        if rng.random() < 0.3:
            x[rng.random(shape) < 0.2] = np.nan
    prefix = "topk%d_" % i
    as_input = rng.random() < 0.5
    kv = np.array([k], dtype=np.int64)
    node = helper.make_node("TopK", [prefix + "x", prefix + "k"],
                            [prefix + "values", prefix + "indices"], name=prefix[:-1],
                            axis=axis, largest=largest)
    inputs, inits = {prefix + "x": x}, []
    _feed(prefix + "k", kv, as_input, inputs, inits)
    values, indices = topk_ref(x, k, axis % rank, largest)
    if not integer:
        values = values.astype(np.float64)
    desc = "TopK x=%s %s axis=%d k=%d largest=%d (%s)" % (
        shape, x.dtype, axis, k, largest, "k input" if as_input else "k constant")
    return [node], inputs, inits, {prefix + "values": values,
                                   prefix + "indices": indices}, desc


def cumsum_case(rng, i):
    """CumSum-14: exclusive and reverse along any axis (negative too), the
    axis a constant or a graph input (the body then folds x into
    [outer, n, inner] with extents read back); float32 or int32."""
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 7)) for _ in range(rank)]
    axis = int(rng.integers(-rank, rank))
    exclusive, reverse = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    integer = rng.random() < 0.3
    x = (rng.integers(-9, 10, shape).astype(np.int32) if integer
         else rng.standard_normal(shape).astype(np.float32))
    prefix = "cumsum%d_" % i
    as_input = rng.random() < 0.5
    av = np.array(axis, dtype=np.int64 if rng.random() < 0.5 else np.int32)
    node = helper.make_node("CumSum", [prefix + "x", prefix + "axis"], [prefix + "y"],
                            name=prefix[:-1], exclusive=exclusive, reverse=reverse)
    inputs, inits = {prefix + "x": x}, []
    _feed(prefix + "axis", av, as_input, inputs, inits)
    a = axis % rank
    y = x.astype(np.int64 if integer else np.float64)
    if reverse:
        y = np.flip(y, axis=a)
    y = np.cumsum(y, axis=a)
    if exclusive:
        y = y - (np.flip(x, axis=a) if reverse else x)
    if reverse:
        y = np.flip(y, axis=a)
    if integer:
        y = y.astype(np.int32)
    desc = "CumSum x=%s %s axis=%d (%s) exclusive=%d reverse=%d" % (
        shape, x.dtype, axis, "input" if as_input else "constant", exclusive, reverse)
    return [node], inputs, inits, {prefix + "y": y}, desc


_COMBINE = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply,
            "max": np.maximum, "min": np.minimum}


def scatter_case(rng, i):
    """ScatterElements-18 (any axis, updates smaller than data in the other
    dims, negative and duplicate indices) or ScatterND-18 (index tuples of
    1 to rank elements, duplicates), each reduction; float32 or int32.
    The reference is ONNX's loop over the updates in order."""
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 6)) for _ in range(rank)]
    reduction = str(rng.choice(["none", "add", "mul", "max", "min"]))
    integer = rng.random() < 0.3
    def draw(sh):
        return (rng.integers(-5, 6, sh).astype(np.int32) if integer
                else rng.integers(-8, 9, sh).astype(np.float32) * 0.25)
    data = draw(shape)
    prefix = "scatter%d_" % i
    out = data.copy()
    f = _COMBINE[reduction]
    if rng.random() < 0.5:
        axis = int(rng.integers(-rank, rank))
        a = axis % rank
        ushape = [int(rng.integers(1, shape[d] + 1)) if d != a else int(rng.integers(1, 6))
                  for d in range(rank)]
        idx = rng.integers(-shape[a], shape[a], ushape).astype(np.int64)
        upd = draw(ushape)
        for u in np.ndindex(*ushape):
            t = list(u)
            t[a] = idx[u] % shape[a]
            out[tuple(t)] = f(out[tuple(t)], upd[u])
        node = helper.make_node("ScatterElements", [prefix + "data", prefix + "idx",
                                                    prefix + "upd"], [prefix + "y"],
                                name=prefix[:-1], axis=axis, reduction=reduction)
        desc = "ScatterElements data=%s updates=%s axis=%d reduction=%s %s" % (
            shape, ushape, axis, reduction, data.dtype)
    else:
        k = int(rng.integers(1, rank + 1))
        front = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 3)))]
        idx = np.stack([rng.integers(-shape[j], shape[j], front) for j in range(k)],
                       axis=-1).astype(np.int64)
        upd = draw(front + shape[k:])
        for m in np.ndindex(*front):
            t = tuple(int(v) % shape[j] for j, v in enumerate(idx[m]))
            out[t] = f(out[t], upd[m])
        node = helper.make_node("ScatterND", [prefix + "data", prefix + "idx",
                                              prefix + "upd"], [prefix + "y"],
                                name=prefix[:-1], reduction=reduction)
        desc = "ScatterND data=%s indices=%s reduction=%s %s" % (
            shape, list(idx.shape), reduction, data.dtype)
    inputs = {prefix + "data": data, prefix + "idx": idx, prefix + "upd": upd}
    ref = out if integer else out.astype(np.float64)
    return [node], inputs, [], {prefix + "y": ref}, desc


def gathernd_case(rng, i):
    """GatherND-13: batch_dims 0 to 2, index tuples of 1 to rank - batch_dims
    elements, negative indices; float32 or int32."""
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(rank)]
    batch = int(rng.integers(0, min(rank, 3)))
    k = int(rng.integers(1, rank - batch + 1))
    front = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    idx = np.stack([rng.integers(-shape[batch + j], shape[batch + j],
                                 shape[:batch] + front) for j in range(k)],
                   axis=-1).astype(np.int64)
    integer = rng.random() < 0.3
    data = (rng.integers(-9, 10, shape).astype(np.int32) if integer
            else rng.standard_normal(shape).astype(np.float32))
    out = np.empty(shape[:batch] + front + shape[batch + k:], data.dtype)
    for b in np.ndindex(*shape[:batch]):
        for m in np.ndindex(*front):
            t = tuple(int(v) % shape[batch + j] for j, v in enumerate(idx[b + m]))
            out[b + m] = data[b + t]
    prefix = "gathernd%d_" % i
    node = helper.make_node("GatherND", [prefix + "data", prefix + "idx"], [prefix + "y"],
                            name=prefix[:-1], batch_dims=batch)
    desc = "GatherND data=%s indices=%s batch_dims=%d %s" % (
        shape, list(idx.shape), batch, data.dtype)
    return [node], {prefix + "data": data, prefix + "idx": idx}, [], \
        {prefix + "y": out if integer else out.astype(np.float64)}, desc


_ACTS = {
    "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Tanh": lambda x, a, b: np.tanh(x),
    "Relu": lambda x, a, b: np.maximum(x, 0),
    "LeakyRelu": lambda x, a, b: np.where(x >= 0, x, a * x),
    "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x),
    "Affine": lambda x, a, b: a * x + b,
    "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
}
_ACT_DEFAULTS = {"LeakyRelu": (0.01, None), "HardSigmoid": (0.2, 0.5),
                 "ScaledTanh": (1.0, 1.0), "Affine": (1.0, 0.0)}


def recurrent_ref(op, x, w, r, bias, lens, h0, c0, p, attrs):
    """RNN/GRU/LSTM-14 by their ONNX equations, time-major, float64; steps
    at or past a batch entry's sequence length keep its state and output 0
    (ONNX Runtime's semantics; reverse runs over the valid steps
    backwards)."""
    seq, batch, _ = x.shape
    nd, hidden = r.shape[0], r.shape[2]
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    funcs = attrs.get("activations")
    alphas = list(attrs.get("activation_alpha", []))
    betas = list(attrs.get("activation_beta", []))
    acts = []
    for name in funcs:
        a, b = _ACT_DEFAULTS.get(name, (None, None))
        if a is not None:
            a = alphas.pop(0) if alphas else a
        if b is not None:
            b = betas.pop(0) if betas else b
        acts.append(lambda v, f=_ACTS[name], a=a, b=b: f(v, a, b))
    per = len(funcs) // nd
    clip = attrs.get("clip")
    cl = (lambda v: np.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    ys, hs, cs = [], [], []
    for d in range(nd):
        f = acts[d * per:(d + 1) * per]
        W, R = w[d].astype(np.float64), r[d].astype(np.float64)
        Bv = bias[d].astype(np.float64) if bias is not None else np.zeros(2 * gates * hidden)
        Wb, Rb = Bv[:gates * hidden], Bv[gates * hidden:]
        H = h0[d].astype(np.float64) if h0 is not None else np.zeros((batch, hidden))
        C = c0[d].astype(np.float64) if c0 is not None else np.zeros((batch, hidden))
        Y = np.zeros((seq, batch, hidden))
        reverse = attrs.get("direction") == "reverse" or d == 1
        for t in (range(seq - 1, -1, -1) if reverse else range(seq)):
            xt = x[t].astype(np.float64)
            if op == "RNN":
                Hn = f[0](cl(xt @ W.T + H @ R.T + Wb + Rb))
            elif op == "GRU":
                Wz, Wr, Wh = np.split(W, 3)
                Rz, Rr, Rh = np.split(R, 3)
                wbz, wbr, wbh = np.split(Wb, 3)
                rbz, rbr, rbh = np.split(Rb, 3)
                z = f[0](cl(xt @ Wz.T + H @ Rz.T + wbz + rbz))
                rr = f[0](cl(xt @ Wr.T + H @ Rr.T + wbr + rbr))
                if attrs.get("linear_before_reset", 0):
                    hh = f[1](cl(xt @ Wh.T + rr * (H @ Rh.T + rbh) + wbh))
                else:
                    hh = f[1](cl(xt @ Wh.T + (rr * H) @ Rh.T + rbh + wbh))
                Hn = (1 - z) * hh + z * H
            else:
                g = xt @ W.T + H @ R.T + Wb + Rb
                gi, go, gf, gc = np.split(g, 4, axis=-1)
                pi, po, pf = (np.split(p[d].astype(np.float64), 3) if p is not None
                              else (0, 0, 0))
                i = f[0](cl(gi + pi * C))
                ff = 1 - i if attrs.get("input_forget", 0) else f[0](cl(gf + pf * C))
                Cn = ff * C + i * f[1](cl(gc))
                o = f[0](cl(go + po * Cn))
                Hn = o * f[2](Cn)
            active = (t < lens)[:, None] if lens is not None else np.ones((batch, 1), bool)
            H = np.where(active, Hn, H)
            if op == "LSTM":
                C = np.where(active, Cn, C)
            Y[t] = np.where(active, Hn, 0)
        ys.append(Y)
        hs.append(H)
        cs.append(C)
    return np.stack(ys, axis=1), np.stack(hs), np.stack(cs)


def recurrent_case(rng, i):
    """RNN, GRU or LSTM-14: forward, reverse or bidirectional, layout 0 or
    1, with or without biases, initial states, sequence_lens (some shorter
    than the sequence), peepholes, clip, input_forget, linear_before_reset
    and other activations; float32 against a float64 loop of the
    equations."""
    op = str(rng.choice(["RNN", "GRU", "LSTM"]))
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    seq, batch, inp, hidden = (int(rng.integers(1, 6)), int(rng.integers(1, 4)),
                               int(rng.integers(1, 5)), int(rng.integers(1, 6)))
    direction = str(rng.choice(["forward", "reverse", "bidirectional"]))
    nd = 2 if direction == "bidirectional" else 1
    layout = int(rng.integers(0, 2))
    attrs = {"hidden_size": hidden, "direction": direction, "layout": layout}
    per = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
           "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[op]
    funcs = per * nd
    if rng.random() < 0.3:
        funcs = [str(rng.choice(list(_ACTS))) for _ in funcs]
        attrs["activations"] = funcs
        if rng.random() < 0.5:
            attrs["activation_alpha"] = [float(v) for v in rng.uniform(0.1, 1.0, 2)]
            attrs["activation_beta"] = [float(v) for v in rng.uniform(0.1, 1.0, 1)]
    if rng.random() < 0.3:
        attrs["clip"] = float(rng.uniform(0.2, 2.0))
    if op == "LSTM" and rng.random() < 0.3:
        attrs["input_forget"] = 1
    if op == "GRU" and rng.random() < 0.5:
        attrs["linear_before_reset"] = 1
    scale = 1 / np.sqrt(hidden)
    x = rng.standard_normal((seq, batch, inp)).astype(np.float32)
    w = (rng.standard_normal((nd, gates * hidden, inp)) * scale).astype(np.float32)
    r = (rng.standard_normal((nd, gates * hidden, hidden)) * scale).astype(np.float32)
    bias = (rng.standard_normal((nd, 2 * gates * hidden)) * 0.5).astype(np.float32) \
        if rng.random() < 0.6 else None
    lens = rng.integers(1, seq + 1, batch).astype(np.int32) if rng.random() < 0.4 else None
    h0 = rng.standard_normal((nd, batch, hidden)).astype(np.float32) \
        if rng.random() < 0.5 else None
    c0 = rng.standard_normal((nd, batch, hidden)).astype(np.float32) \
        if op == "LSTM" and rng.random() < 0.5 else None
    p = (rng.standard_normal((nd, 3 * hidden)) * 0.5).astype(np.float32) \
        if op == "LSTM" and rng.random() < 0.4 else None
    attrs["activations"] = funcs
    y, yh, yc = recurrent_ref(op, x, w, r, bias, lens, h0, c0, p, attrs)
    if "activations" in attrs and attrs["activations"] == per * nd:
        del attrs["activations"]
    prefix = "rec%d_" % i
    names = ["x", "w", "r", "b", "lens", "h0", "c0", "p"][:8 if op == "LSTM" else 6]
    values = [x, w, r, bias, lens, h0, c0, p]
    inputs, node_inputs = {}, []
    for name, v in zip(names, values):
        if v is None:
            node_inputs.append("")
            continue
        if layout and name == "x":
            v = np.ascontiguousarray(v.transpose(1, 0, 2))
        if layout and name in ("h0", "c0"):
            v = np.ascontiguousarray(v.transpose(1, 0, 2))
        inputs[prefix + name] = v
        node_inputs.append(prefix + name)
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    outs = [prefix + "y", prefix + "yh"] + ([prefix + "yc"] if op == "LSTM" else [])
    node = helper.make_node(op, node_inputs, outs, name=prefix[:-1], **attrs)
    if layout:
        y, yh, yc = y.transpose(2, 0, 1, 3), yh.transpose(1, 0, 2), yc.transpose(1, 0, 2)
    refs = {prefix + "y": y, prefix + "yh": yh}
    if op == "LSTM":
        refs[prefix + "yc"] = yc
    desc = "%s seq=%d batch=%d input=%d hidden=%d %s layout=%d bias=%s lens=%s h0=%s " \
        "c0=%s p=%s %s" % (op, seq, batch, inp, hidden, direction, layout, bias is not None,
                           None if lens is None else lens.tolist(), h0 is not None,
                           c0 is not None, p is not None,
                           {k: v for k, v in attrs.items()
                            if k not in ("hidden_size", "direction", "layout")})
    return [node], inputs, [], refs, desc


def einsum_case(rng, i):
    """Einsum-12: one to three operands over letters of random extents,
    with contractions, batch letters, outer products, sums, a repeated
    letter (a diagonal) now and then, an ellipsis with broadcast (unit)
    dims, implicit or explicit outputs; against numpy.einsum."""
    pool = "abcdefg"
    extents = {l: int(rng.integers(1, 5)) for l in pool}
    n_ops = int(rng.integers(1, 4))
    terms = []
    for _ in range(n_ops):
        k = int(rng.integers(0, 4))
        letters = list(rng.choice(list(pool[:5]), size=k, replace=False))
        if k and rng.random() < 0.15:  # a diagonal
            letters.append(letters[0])
        terms.append("".join(letters))
    ellipsis = rng.random() < 0.25
    ell_dims = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 3)))]
    shapes = []
    for k, t in enumerate(terms):
        shape = [extents[l] for l in t]
        if ellipsis:
            # Some operands broadcast: fewer dims, or unit ones.
            own = ell_dims[int(rng.integers(0, len(ell_dims))):] if k else ell_dims
            own = [1 if rng.random() < 0.3 else d for d in own]
            terms[k] = "..." + t
            shape = own + shape
        shapes.append(shape)
    lhs = ",".join(terms)
    explicit = rng.random() < 0.6
    if explicit:
        used = sorted(set("".join(terms).replace(".", "")))
        out = [l for l in used if rng.random() < 0.5]
        rng.shuffle(out)
        eq = lhs + "->" + ("..." if ellipsis else "") + "".join(out)
    else:
        eq = lhs
    operands = [rng.standard_normal(sh).astype(np.float32) for sh in shapes]
    ref = np.einsum(eq, *[o.astype(np.float64) for o in operands])
    prefix = "einsum%d_" % i
    names = [prefix + "x%d" % k for k in range(n_ops)]
    node = helper.make_node("Einsum", names, [prefix + "y"], name=prefix[:-1], equation=eq)
    desc = "Einsum '%s' shapes=%s" % (eq, shapes)
    return [node], dict(zip(names, operands)), [], {prefix + "y": np.asarray(ref)}, desc


def dft_case(rng, i):
    """DFT-20: forward, inverse, onesided (rfft) and onesided inverse
    (irfft) along any axis but the last (a constant or a graph input),
    real or complex signals, dft_length shorter or longer than the axis
    (truncation, zero padding) or absent; against numpy's float64 FFT."""
    rank = int(rng.integers(2, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(rank - 1)]
    axis = int(rng.integers(0, rank - 1))
    shape[axis] = int(rng.integers(1, 13))
    inverse, onesided = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    complex_in = inverse == 1 or rng.random() < 0.5
    x = rng.standard_normal(shape + [2 if complex_in else 1]).astype(np.float32)
    n = shape[axis]
    length = None
    if rng.random() < 0.4:
        length = int(rng.integers(1, 2 * n + 3))
    if inverse and onesided and length is None and n < 2:
        length = 2
    z = x[..., 0].astype(np.float64) + (1j * x[..., 1] if complex_in else 0)
    if inverse and onesided:
        N = length if length is not None else 2 * (n - 1)
        ref = np.fft.irfft(z, n=N, axis=axis)[..., np.newaxis]
    else:
        N = length if length is not None else n
        r = (np.fft.ifft if inverse else np.fft.fft)(z, n=N, axis=axis)
        if onesided and not inverse:
            r = np.take(r, np.arange(N // 2 + 1), axis=axis)
        ref = np.stack([r.real, r.imag], axis=-1)
    prefix = "dft%d_" % i
    axis_given = int(axis - rank if rng.random() < 0.5 else axis)
    as_input = rng.random() < 0.5
    names = [prefix + "x", prefix + "len" if length is not None else "", prefix + "axis"]
    inputs, inits = {prefix + "x": x}, []
    values = {prefix + "len": np.array(length if length is not None else 0, np.int64),
              prefix + "axis": np.array(axis_given, np.int64)}
    for nm in names[1:]:
        if nm:
            _feed(nm, values[nm], as_input, inputs, inits)
    node = helper.make_node("DFT", names, [prefix + "y"], name=prefix[:-1],
                            inverse=inverse, onesided=onesided)
    desc = "DFT x=%s axis=%d dft_length=%s inverse=%d onesided=%d (%s)" % (
        list(x.shape), axis_given, length, inverse, onesided,
        "inputs" if as_input else "constants")
    return [node], inputs, inits, {prefix + "y": ref}, desc


def select_case(rng, i):
    """NonZero-13 (float, int32 or bool, rank 0 to 4 (a scalar as a 1-D
    tensor: [1, count], as numpy and ONNX's reference), none to all nonzero),
    Compress-11 (an axis or the flattened input, a condition shorter than
    the axis) and ReverseSequence-10 (either layout, lengths 1 to the
    extent); against numpy."""
    prefix = "select%d_" % i
    kind = str(rng.choice(["nonzero", "compress", "reverse", "unique"]))
    if kind == "unique":
        rank = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 5)) for _ in range(rank)]
        x = rng.integers(-2, 3, shape).astype(np.float32)  # many repeats
        axis = int(rng.integers(-rank, rank)) if rng.random() < 0.5 else None
        sort = int(rng.integers(0, 2))
        y, idx, inv, cnt = np.unique(x, return_index=True, return_inverse=True,
                                     return_counts=True, axis=axis)
        if not sort:  # order of first occurrence
            order = np.argsort(idx)
            where = np.empty_like(order)
            where[order] = np.arange(len(order))
            y = np.take(y, order, axis=0 if axis is None else axis)
            idx, inv, cnt = idx[order], where[inv.reshape(-1)], cnt[order]
        attrs = {"sorted": sort} if axis is None else {"sorted": sort, "axis": axis}
        outs = [prefix + n for n in ("y", "idx", "inv", "cnt")]
        node = helper.make_node("Unique", [prefix + "x"], outs, name=prefix[:-1], **attrs)
        refs = dict(zip(outs, [y.astype(np.float64), idx.astype(np.int64),
                               inv.reshape(-1).astype(np.int64), cnt.astype(np.int64)]))
        return [node], {prefix + "x": x}, [], refs, "Unique x=%s axis=%s sorted=%d" % (
            shape, axis, sort)
    if kind == "nonzero":
        rank = int(rng.integers(0, 5))
        shape = [int(rng.integers(1, 5)) for _ in range(rank)]
        dtype = rng.choice([np.float32, np.int32, np.bool_])
        density = float(rng.choice([0.0, 0.3, 0.7, 1.0]))
        x = (rng.random(shape) < density)
        x = x.astype(dtype) * (1 if dtype == np.bool_ else rng.integers(1, 5, shape).astype(dtype))
        x = np.asarray(x, dtype=dtype)
        node = helper.make_node("NonZero", [prefix + "x"], [prefix + "y"], name=prefix[:-1])
        return [node], {prefix + "x": x}, [], {prefix + "y": np.array(np.nonzero(np.atleast_1d(x)), np.int64)}, \
            "NonZero x=%s %s density=%s" % (shape, np.dtype(dtype).name, density)
    if kind == "compress":
        rank = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 5)) for _ in range(rank)]
        x = rng.standard_normal(shape).astype(np.float32)
        axis = int(rng.integers(-rank, rank)) if rng.random() < 0.7 else None
        n = x.size if axis is None else shape[axis]
        cond = rng.random(int(rng.integers(1, n + 1))) < 0.5
        ref = np.compress(cond, x, axis=axis)
        attrs = {} if axis is None else {"axis": axis}
        node = helper.make_node("Compress", [prefix + "x", prefix + "c"], [prefix + "y"],
                                name=prefix[:-1], **attrs)
        return [node], {prefix + "x": x, prefix + "c": cond}, [], \
            {prefix + "y": ref.astype(np.float64)}, \
            "Compress x=%s axis=%s condition=%s" % (shape, axis, cond.astype(int).tolist())
    batch_axis = int(rng.integers(0, 2))
    time_axis = 1 - batch_axis
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(2, 4)))]
    x = rng.standard_normal(shape).astype(np.float32)
    lens = rng.integers(1, shape[time_axis] + 1, shape[batch_axis]).astype(np.int64)
    ref = x.astype(np.float64).copy()
    for b_, l in enumerate(lens):
        idx = [slice(None)] * len(shape)
        idx[batch_axis] = b_
        idx[time_axis] = slice(0, l)
        ref[tuple(idx)] = np.flip(x[tuple(idx)], axis=time_axis - (time_axis > batch_axis))
    node = helper.make_node("ReverseSequence", [prefix + "x", prefix + "l"], [prefix + "y"],
                            name=prefix[:-1], batch_axis=batch_axis, time_axis=time_axis)
    return [node], {prefix + "x": x, prefix + "l": lens}, [], {prefix + "y": ref}, \
        "ReverseSequence x=%s batch_axis=%d lens=%s" % (shape, batch_axis, lens.tolist())


def col2im_case(rng, i):
    """Col2Im-18 (1-D to 3-D images, blocks, strides, dilations, pads; the
    image and block shapes as graph inputs) against a loop that adds each
    column's patch into the image, and Det-22 (1x1 to 5x5, batched, some
    singular) against numpy.linalg.det."""
    prefix = "col2im%d_" % i
    if rng.random() < 0.3:
        n = int(rng.integers(1, 6))
        batch = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
        a = rng.standard_normal(batch + [n, n]).astype(np.float32)
        singular = n > 1 and rng.random() < 0.3
        ref = np.asarray(np.linalg.det(a.astype(np.float64)))
        if singular:  # two equal rows: exactly 0, which LAPACK's LU misses by 1e-16
            a[..., -1, :] = a[..., 0, :]
            ref = np.zeros(batch)
        node = helper.make_node("Det", [prefix + "x"], [prefix + "y"], name=prefix[:-1])
        return [node], {prefix + "x": a}, [], {prefix + "y": ref}, \
            "Det x=%s%s" % (list(a.shape), " singular" if singular else "")
    dims = int(rng.integers(1, 4))
    image = [int(rng.integers(1, 7)) for _ in range(dims)]
    block = [int(rng.integers(1, 4)) for _ in range(dims)]
    dil = [int(rng.integers(1, 3)) for _ in range(dims)]
    stride = [int(rng.integers(1, 3)) for _ in range(dims)]
    pads = [int(rng.integers(0, 2)) for _ in range(2 * dims)]
    blocks = [(image[d] + pads[d] + pads[d + dims] - dil[d] * (block[d] - 1) - 1) // stride[d] + 1
              for d in range(dims)]
    if min(blocks) < 1:
        pads = [p + 3 for p in pads]
        blocks = [(image[d] + pads[d] + pads[d + dims] - dil[d] * (block[d] - 1) - 1)
                  // stride[d] + 1 for d in range(dims)]
    n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    K, L = int(np.prod(block)), int(np.prod(blocks))
    x = rng.standard_normal((n, c * K, L)).astype(np.float32)
    ref = np.zeros([n, c] + image)
    cols = x.reshape(n, c, K, L).astype(np.float64)
    for k in np.ndindex(*block):
        kf = int(np.ravel_multi_index(k, block))
        for l in np.ndindex(*blocks):
            lf = int(np.ravel_multi_index(l, blocks))
            pos = [l[d] * stride[d] - pads[d] + k[d] * dil[d] for d in range(dims)]
            if all(0 <= pos[d] < image[d] for d in range(dims)):
                ref[(slice(None), slice(None)) + tuple(pos)] += cols[:, :, kf, lf]
    node = helper.make_node("Col2Im", [prefix + "x", prefix + "img", prefix + "blk"],
                            [prefix + "y"], name=prefix[:-1], dilations=dil, pads=pads,
                            strides=stride)
    inputs = {prefix + "x": x, prefix + "img": np.array(image, np.int64),
              prefix + "blk": np.array(block, np.int64)}
    desc = "Col2Im x=%s image=%s block=%s dilations=%s pads=%s strides=%s" % (
        list(x.shape), image, block, dil, pads, stride)
    return [node], inputs, [], {prefix + "y": ref}, desc


def affine_grid_case(rng, i):
    """AffineGrid-20: 2-D and 3-D, align_corners or not, batches of 1 to 3,
    spatial extents 1 to 7 (1 included, where the aligned spacing divides
    by zero), the size as a graph input; against the coordinates PyTorch's
    affine_grid (and ONNX's reference) lays out, transformed in float64."""
    prefix = "affinegrid%d_" % i
    k = int(rng.integers(2, 4))
    n, c = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    spatial = [int(rng.integers(1, 8)) for _ in range(k)]
    align = int(rng.integers(0, 2))
    theta = rng.standard_normal((n, k, k + 1)).astype(np.float32)
    coords = []
    for extent in spatial:
        pos = np.arange(extent, dtype=np.float64)
        coords.append(2 * pos / max(extent - 1, 1) - 1 if align else (2 * pos + 1) / extent - 1)
    mesh = np.meshgrid(*coords, indexing="ij")
    base = np.stack(mesh[::-1] + [np.ones(spatial)], axis=-1)  # x along the last dim
    ref = np.einsum("...j,nij->n...i", base, theta.astype(np.float64))
    node = helper.make_node("AffineGrid", [prefix + "theta", prefix + "size"],
                            [prefix + "grid"], name=prefix[:-1], align_corners=align)
    inputs = {prefix + "theta": theta, prefix + "size": np.array([n, c] + spatial, np.int64)}
    desc = "AffineGrid theta=%s size=%s align_corners=%d" % (list(theta.shape),
                                                              [n, c] + spatial, align)
    return [node], inputs, [], {prefix + "grid": ref}, desc


def nms_ref(boxes, scores, max_out, iou_thr, score_thr, center):
    """NonMaxSuppression by its specification: per batch and class, greedy
    in score order (ties: lower index first)."""
    def corners(b):
        if center:
            return (b[0] - b[2] / 2, b[0] + b[2] / 2, b[1] - b[3] / 2, b[1] + b[3] / 2)
        return (min(b[1], b[3]), max(b[1], b[3]), min(b[0], b[2]), max(b[0], b[2]))

    def suppresses(a, b):
        ax0, ax1, ay0, ay1 = corners(a)
        bx0, bx1, by0, by1 = corners(b)
        iw, ih = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
        if iw <= 0 or ih <= 0:
            return False
        inter = iw * ih
        area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
        union = area_a + area_b - inter
        if inter <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
            return False
        return inter / union > iou_thr
    out = []
    for bi in range(boxes.shape[0]):
        for ci in range(scores.shape[1]):
            s = scores[bi, ci]
            order = sorted(range(len(s)), key=lambda k: (-s[k], k))
            kept = []
            for k in order:
                if len(kept) >= max_out:
                    break
                if score_thr is not None and not s[k] > score_thr:
                    continue
                if not any(suppresses(boxes[bi, k], boxes[bi, j]) for j in kept):
                    kept.append(k)
                    out.append([bi, ci, k])
    return np.array(out, np.int64).reshape(-1, 3)


def roi_align_ref(x, rois, batch, mode, oh, ow, ratio, scale, half_pixel):
    """RoiAlign by its specification (bilinear samples, the reference's rules
    at the borders), in float64."""
    n_, c_, h_, w_ = x.shape
    y = np.zeros((len(rois), c_, oh, ow))
    off = 0.5 if half_pixel else 0.0
    for r, roi in enumerate(rois.astype(np.float64)):
        sw, sh, ew, eh = roi[0] * scale - off, roi[1] * scale - off, roi[2] * scale - off, \
            roi[3] * scale - off
        rw, rh = ew - sw, eh - sh
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = ratio if ratio > 0 else int(np.ceil(rh / oh))
        gw = ratio if ratio > 0 else int(np.ceil(rw / ow))
        count = max(gh * gw, 1)
        img = x[batch[r]].astype(np.float64)
        for ph in range(oh):
            for pw in range(ow):
                vals = []
                for iy in range(gh):
                    yy = sh + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = sw + pw * bw + (ix + 0.5) * bw / gw
                        if yy < -1 or yy > h_ or xx < -1 or xx > w_:
                            vals.append(np.zeros(c_) if mode == "avg" else np.zeros(c_))
                            continue
                        yc, xc = max(yy, 0.0), max(xx, 0.0)
                        yl, xl = int(yc), int(xc)
                        if yl >= h_ - 1:
                            yl = yh = h_ - 1
                            yc = float(yl)
                        else:
                            yh = yl + 1
                        if xl >= w_ - 1:
                            xl = xh = w_ - 1
                            xc = float(xl)
                        else:
                            xh = xl + 1
                        ly, lx = yc - yl, xc - xl
                        hy, hx = 1 - ly, 1 - lx
                        corners = [hy * hx * img[:, yl, xl], hy * lx * img[:, yl, xh],
                                   ly * hx * img[:, yh, xl], ly * lx * img[:, yh, xh]]
                        vals.append(sum(corners) if mode == "avg" else np.max(corners, axis=0))
                if mode == "avg":
                    y[r, :, ph, pw] = sum(vals) / count if vals else 0.0
                else:
                    y[r, :, ph, pw] = np.max(vals, axis=0) if vals else 0.0
    return y


def detection_case(rng, i):
    """NonMaxSuppression-11 (boxes in clusters so that IoU matters, scores
    with ties, both box formats, each threshold given or not, limits from 0
    to all) against a greedy loop, and RoiAlign-16 (regions inside, across
    and outside the map, avg and max, sampling ratios 0 to 2, half_pixel and
    output_half_pixel, spatial scales) against a loop of bilinear samples."""
    prefix = "det%d_" % i
    if rng.random() < 0.5:
        b_, c_, n_ = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 9))
        center = int(rng.integers(0, 2))
        centers = rng.uniform(0, 10, (b_, 2, 2))  # two clusters per batch
        pick = rng.integers(0, 2, (b_, n_))
        xy = centers[np.arange(b_)[:, None], pick] + rng.normal(0, 0.7, (b_, n_, 2))
        wh = rng.uniform(0.5, 3, (b_, n_, 2))
        if center:
            boxes = np.concatenate([xy, wh], -1)
        else:  # [y1, x1, y2, x2], corners in either order
            y0, x0 = xy[..., 1] - wh[..., 1] / 2, xy[..., 0] - wh[..., 0] / 2
            y1, x1 = y0 + wh[..., 1], x0 + wh[..., 0]
            flip = rng.random((b_, n_)) < 0.3
            boxes = np.stack([np.where(flip, y1, y0), x0, np.where(flip, y0, y1), x1], -1)
        boxes = boxes.astype(np.float32)
        scores = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], (b_, c_, n_)).astype(np.float32)
        max_out = int(rng.integers(0, n_ + 2))
        iou = float(rng.choice([0.0, 0.3, 0.5, 0.8]))
        sthr = float(rng.choice([0.2, 0.6])) if rng.random() < 0.5 else None
        ref = nms_ref(boxes.astype(np.float64), scores, max_out, np.float32(iou), sthr, center)
        ins = [prefix + "b", prefix + "s", prefix + "m", prefix + "i"]
        inputs = {prefix + "b": boxes, prefix + "s": scores,
                  prefix + "m": np.array([max_out], np.int64),
                  prefix + "i": np.array([iou], np.float32)}
        if sthr is not None:
            ins.append(prefix + "t")
            inputs[prefix + "t"] = np.array([sthr], np.float32)
        node = helper.make_node("NonMaxSuppression", ins, [prefix + "y"], name=prefix[:-1],
                                center_point_box=center)
        return [node], inputs, [], {prefix + "y": ref}, \
            "NMS boxes=%s classes=%d center=%d max=%d iou=%s score_threshold=%s" % (
                list(boxes.shape), c_, center, max_out, iou, sthr)
    n_, c_ = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    h_, w_ = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    x = rng.standard_normal((n_, c_, h_, w_)).astype(np.float32)
    r_ = int(rng.integers(1, 5))
    scale = float(rng.choice([1.0, 0.5, 0.25]))
    lo = rng.uniform(-2, max(w_, h_) / scale, (r_, 2))
    size = rng.uniform(0, 6 / scale, (r_, 2))
    rois = np.concatenate([lo, lo + size], 1).astype(np.float32)
    batch = rng.integers(0, n_, r_).astype(np.int64)
    mode = str(rng.choice(["avg", "max"]))
    oh, ow = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    ratio = int(rng.integers(0, 3))
    transform = str(rng.choice(["half_pixel", "output_half_pixel"]))
    ref = roi_align_ref(x, rois, batch, mode, oh, ow, ratio, np.float32(scale),
                        transform == "half_pixel")
    node = helper.make_node("RoiAlign", [prefix + "x", prefix + "r", prefix + "b"],
                            [prefix + "y"], name=prefix[:-1], mode=mode, output_height=oh,
                            output_width=ow, sampling_ratio=ratio, spatial_scale=scale,
                            coordinate_transformation_mode=transform)
    return [node], {prefix + "x": x, prefix + "r": rois, prefix + "b": batch}, [], \
        {prefix + "y": ref}, "RoiAlign x=%s rois=%s %s %dx%d ratio=%d scale=%s %s" % (
            list(x.shape), rois.round(2).tolist(), mode, oh, ow, ratio, scale, transform)


def epilogue_case(rng, i):
    """A Conv (3x3, 1x1 or depthwise) or a MatMul with a bias and one or two
    elementwise ops after it (Relu, Clip, a residual Add, a per-channel Mul,
    SiLU), which the CPU runs inside the contraction's register tiles
    (codegen/common/EpilogueTiles.h), at sizes that leave partial tiles."""
    p = "ep%d_" % i
    kind = str(rng.choice(["conv", "1x1", "dw", "matmul"]))
    inputs, inits, nodes = {}, [], []
    if kind == "matmul":
        m, k, n = (int(rng.choice([1, 3, 7, 16, 17, 33, 40])) for _ in range(3))
        x = rng.standard_normal([m, k]).astype(np.float32)
        w = rng.standard_normal([k, n]).astype(np.float32)
        b = rng.standard_normal([n]).astype(np.float32)
        inputs[p + "x"] = x
        inits += [numpy_helper.from_array(w, p + "w"), numpy_helper.from_array(b, p + "b")]
        nodes += [helper.make_node("MatMul", [p + "x", p + "w"], [p + "m"]),
                  helper.make_node("Add", [p + "m", p + "b"], [p + "t0"])]
        y = x.astype(np.float64) @ w.astype(np.float64) + b
        channel_shape = [n]
        desc = "MatMul+bias x=%s w=%s" % ([m, k], [k, n])
    else:
        c = int(rng.choice([3, 8, 16, 17, 32, 40]))
        group = c if kind == "dw" else 1
        f = c if kind == "dw" else int(rng.choice([8, 16, 17, 32, 48]))
        kernel = 1 if kind == "1x1" else 3
        stride = int(rng.choice([1, 1, 2])) if kernel == 3 else 1
        pad = kernel // 2
        image = [int(rng.integers(3, 30)), int(rng.integers(3, 30))]
        x = rng.standard_normal([1, c] + image).astype(np.float32)
        w = rng.standard_normal([f, c // group, kernel, kernel]).astype(np.float32)
        b = rng.standard_normal([f]).astype(np.float32)
        inputs[p + "x"] = x
        inits += [numpy_helper.from_array(w, p + "w"), numpy_helper.from_array(b, p + "b")]
        nodes.append(helper.make_node("Conv", [p + "x", p + "w", p + "b"], [p + "t0"],
                                      group=group, kernel_shape=[kernel, kernel],
                                      strides=[stride, stride], pads=[pad] * 4))
        y = conv_ref(x, w, b, group, [stride, stride], [1, 1], [pad] * 4)
        channel_shape = [f, 1, 1]
        desc = "Conv(%s) x=%s w=%s stride=%d" % (kind, list(x.shape), list(w.shape), stride)
    tails = [str(t) for t in rng.choice(["relu", "clip", "add", "mul", "silu"],
                                        size=int(rng.integers(1, 3)), replace=False)]
    for j, tail in enumerate(tails):
        src, dst = p + "t%d" % j, p + "t%d" % (j + 1)
        if tail == "relu":
            nodes.append(helper.make_node("Relu", [src], [dst]))
            y = np.maximum(y, 0)
        elif tail == "clip":
            inits += [numpy_helper.from_array(np.array(-0.5, np.float32), p + "lo%d" % j),
                      numpy_helper.from_array(np.array(1.5, np.float32), p + "hi%d" % j)]
            nodes.append(helper.make_node("Clip", [src, p + "lo%d" % j, p + "hi%d" % j], [dst]))
            y = np.clip(y, -0.5, 1.5)
        elif tail == "add":
            r = rng.standard_normal(y.shape).astype(np.float32)
            inputs[p + "r%d" % j] = r
            nodes.append(helper.make_node("Add", [src, p + "r%d" % j], [dst]))
            y = y + r
        elif tail == "mul":
            sc = rng.standard_normal(channel_shape).astype(np.float32)
            inits.append(numpy_helper.from_array(sc, p + "s%d" % j))
            nodes.append(helper.make_node("Mul", [src, p + "s%d" % j], [dst]))
            y = y * sc
        else:
            nodes += [helper.make_node("Sigmoid", [src], [p + "g%d" % j]),
                      helper.make_node("Mul", [src, p + "g%d" % j], [dst])]
            y = y / (1 + np.exp(-y))
    out = p + "t%d" % len(tails)
    return nodes, inputs, inits, {out: y}, desc + " then " + "+".join(tails)


FAMILIES = {"conv": conv_case, "pool": pool_case, "matmul": matmul_case,
            "convtranspose": conv_transpose_case, "resize": resize_case,
            "topk": topk_case, "cumsum": cumsum_case, "scatter": scatter_case,
            "gathernd": gathernd_case, "recurrent": recurrent_case,
            "einsum": einsum_case, "dft": dft_case, "select": select_case,
            "col2im": col2im_case, "detection": detection_case,
            "affinegrid": affine_grid_case, "epilogue": epilogue_case}
# Opsets other than 13 (reductions max and min of the scatters came in 18).
OPSET = {"scatter": 18, "recurrent": 14, "dft": 20, "col2im": 22, "detection": 16,
         "affinegrid": 20}
# Each family's generator is seeded by its fixed index here, so that adding
# a family (at the end) leaves the others' draws alone.
SEED_INDEX = {"conv": 0, "matmul": 1, "pool": 2, "convtranspose": 3, "resize": 4,
              "topk": 5, "cumsum": 6, "scatter": 7, "gathernd": 8, "recurrent": 9, "einsum": 10, "dft": 11, "select": 12, "col2im": 13,
              "detection": 14, "affinegrid": 15, "epilogue": 16}


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------

def _run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=TIMEOUT_S)
    if p.returncode != 0:
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError("%s: exit %d: %s" % (os.path.basename(cmd[0]), p.returncode,
                                                err[0][:300] if err else "(no message)"))


def compare(ref, y):
    """Integer results must be exact; float ones (a float64 reference) close,
    NaN exactly where the reference has NaN."""
    if y.shape != ref.shape:
        return "shape %s, expected %s" % (list(y.shape), list(ref.shape))
    if ref.dtype != np.float64:
        if y.dtype != ref.dtype:
            return "type %s, expected %s" % (y.dtype, ref.dtype)
        wrong = np.count_nonzero(y != ref)
        return "%d of %d elements differ" % (wrong, ref.size) if wrong else None
    nan = np.isnan(ref)
    if not np.array_equal(np.isnan(y), nan):
        return "NaN where the reference has none, or the other way round"
    ref, y = np.where(nan, 0, ref), np.where(nan, 0, y)
    if not np.all(np.isfinite(y)):
        return "non-finite values"
    err = y.astype(np.float64) - ref
    norm = np.linalg.norm(ref)
    rel = np.linalg.norm(err) / norm if norm > 0 else np.linalg.norm(err)
    worst = np.max(np.abs(err)) if err.size else 0.0
    bound = ATOL_REL * max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
    if rel > RTOL_L2 or worst > bound:
        return "relative L2 error %.3g, max abs error %.3g" % (rel, worst)
    return None


def run_family(name, gen, count, rng, args):
    """Runs one family; returns (passed, failed, the lines to print)."""
    lines = []
    start = time.monotonic()
    work = os.path.join(args.work_dir, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "out"))
    nodes, inputs, inits, refs, descs = [], {}, [], {}, {}
    for i in range(count):
        n, ins, ini, outs, desc = gen(rng, i)
        nodes += n
        inputs.update(ins)
        inits += ini
        refs.update(outs)
        for o in outs:
            descs[o] = desc
    # Conv and pooling take their batch as a symbolic dim in every other
    # case (exported models have a dynamic batch); the result's batch is
    # the input's.
    def shape_of(k, v, symbolic):
        return (["batch%s" % k.split("_")[0]] + list(v.shape[1:])) if symbolic \
            else list(v.shape)
    batched = name in ("conv", "pool", "convtranspose")
    graph = helper.make_graph(
        nodes, "sweep_" + name,
        [helper.make_tensor_value_info(k, onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[v.dtype],
                                       shape_of(k, v, batched and i % 2 == 1))
         for i, (k, v) in enumerate(inputs.items())],
        [helper.make_tensor_value_info(k, TensorProto.FLOAT if v.dtype == np.float64
                                       else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[v.dtype],
                                       shape_of(k, v, batched and i % 2 == 1))
         for i, (k, v) in enumerate(refs.items())],
        initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET.get(name, 13))])
    model.ir_version = 8
    # Debian's onnx (1.12) checks against the schemas of opset 17 at most.
    if OPSET.get(name, 13) <= 17:
        onnx.checker.check_model(model)
    onnx.save_model(model, os.path.join(work, "model.onnx"))
    run_args = []
    for k, v in inputs.items():
        np.save(os.path.join(work, k + ".npy"), v)
        run_args += ["--input", "%s=%s.npy" % (k, k)]
    compile_cmd = [os.path.join(args.bin_dir, "tessel-compile"), "model.onnx", "-o",
                   "model.tsl"]
    if args.device == "vulkan":
        compile_cmd += ["--target", "vulkan"]
    else:
        # One CPU binary, the suites' variant (cpu_variant.py).
        compile_cmd += ["--mcpu", cpu_variant.suite_variant()]
    built = time.monotonic()
    try:
        _run(compile_cmd, work)
        compiled = time.monotonic()
        _run([os.path.join(args.bin_dir, "tessel-run"), "model.tsl", "--device",
              args.device, "--output-dir", "out"] + run_args, work)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        for o in refs:
            lines.append("FAIL  %s %s  -- %s [%s]" % (name, o, e, descs[o]))
        return 0, len(refs), lines
    ran = time.monotonic()
    passed = failed = 0
    for o, ref in refs.items():
        err = compare(ref, np.load(os.path.join(work, "out", o + ".npy")))
        if err:
            failed += 1
            lines.append("FAIL  %s %s  -- %s [%s]" % (name, o, err, descs[o]))
        else:
            passed += 1
    lines.append("%-6s %d of %d cases passed (cases and references %.1f s, compile %.1f s, "
                 "run %.1f s)" % (name, passed, passed + failed, built - start,
                                  compiled - built, ran - compiled))
    return passed, failed, lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--work-dir", required=True)
    ap.add_argument("--device", default="cpu", choices=["cpu", "vulkan"])
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--cases", type=int, default=60, help="cases per family")
    ap.add_argument("--only", choices=sorted(FAMILIES), action="append")
    ap.add_argument("-j", "--jobs", type=int, default=2,
                    help="families compiled and run at once (default 2)")
    args = ap.parse_args(argv)
    args.bin_dir = os.path.abspath(args.bin_dir)
    args.work_dir = os.path.abspath(args.work_dir)
    names = [n for n in FAMILIES if not args.only or n in args.only]

    def one(name):
        # One generator per family, so adding a family leaves the others' draws alone.
        rng = np.random.default_rng([args.seed, SEED_INDEX[name]])
        return run_family(name, FAMILIES[name], args.cases, rng, args)

    # The families are independent: while one compiles (one core, most of
    # a family's time), another builds its cases or runs. Results print in
    # family order.
    passed = failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for p, f, lines in pool.map(one, names):
            passed += p
            failed += f
            print("\n".join(lines))
            sys.stdout.flush()
    print("sweep: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
