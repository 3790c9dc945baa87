"""Differential test of Cast to and from ONNX's narrow formats (float8
E4M3FN/E4M3FNUZ/E5M2/E5M2FNUZ/E8M0, float4 E2M1, int4/uint4/int2/uint2).

  narrow-cast.py make PREFIX   writes PREFIX.onnx and its inputs
  narrow-cast.py check PREFIX OUT   checks tessel-run's outputs in OUT

The reference is written here from ONNX's Cast specification, separately
from the compiler's bit manipulation (dialects/Graph/NarrowFormats.cpp): a
value rounds to the nearest of all the format's values (ties to the even
mantissa), overflow saturates or becomes NaN (E5M2: infinity). The inputs
are every value of every format, the midpoints between neighbours (exact
ties), those midpoints one float32 ulp either side, values beyond the
largest, seeded random magnitudes over the whole range and the special
values; float64 inputs add midpoints one float64 ulp either side, which a
conversion through float32 would round twice.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

# format -> (exponent bits, mantissa bits, bias, largest finite code)
FLOATS = {17: (4, 3, 7, 0x7E), 18: (4, 3, 8, 0x7F), 19: (5, 2, 15, 0x7B),
          20: (5, 2, 16, 0x7F), 23: (2, 1, 1, 0x7)}
INTS = {21: (4, False), 22: (4, True), 25: (2, False), 26: (2, True)}
MODES = ["up", "down", "nearest"]


def decode(fmt, code):
    if fmt == 24:
        return np.nan if code == 0xFF else 2.0 ** (code - 127)
    e, m, bias, _ = FLOATS[fmt]
    sign = -1.0 if (code >> (e + m)) & 1 else 1.0
    mag = code & ((1 << (e + m)) - 1)
    exp, man = mag >> m, mag & ((1 << m) - 1)
    if fmt in (18, 20) and code == 0x80 or fmt == 17 and mag == 0x7F:
        return np.nan
    if fmt == 19 and exp == 31:
        return sign * np.inf if man == 0 else np.nan
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - m)
    return sign * (1 + man / 2.0 ** m) * 2.0 ** (exp - bias)


def encode(fmt, x, saturate):
    """The value Cast gives (as a float), by the specification's rules."""
    e, m, bias, top = FLOATS[fmt]
    biggest = decode(fmt, top)
    if np.isnan(x):
        return biggest if fmt == 23 else np.nan
    # Candidates: every non-negative finite value, and the next value past
    # the largest, whose mantissa parity decides ties at the boundary.
    values = [(decode(fmt, c), c) for c in range(top + 1)]
    values.append((biggest + 2.0 ** (np.floor(np.log2(biggest)) - m), top + 1))
    a = abs(x)
    if a >= values[-1][0]:  # at or past the value after the largest
        best = (np.inf, top + 1)
    else:
        dist = [abs(v - a) for v, _ in values]
        near = min(dist)
        ties = [values[i] for i, d in enumerate(dist) if d == near]
        best = min(ties, key=lambda vc: vc[1] & 1)  # the even mantissa
    v = best[0]
    if best[1] > top:
        if saturate or fmt == 23:
            v = biggest
        elif fmt == 19:
            v = np.inf
        else:
            return np.nan
    if fmt in (18, 20) and v == 0:
        return 0.0
    return -v if np.signbit(x) else v


def encode_e8m0(x, saturate, mode):
    a = abs(float(x))
    if np.isnan(a):
        return np.nan
    if np.isinf(a):
        return 2.0 ** 127 if saturate else np.nan
    if a < 2.0 ** -126:  # below the smallest normal float32
        up = (a > 0) if mode == "up" else (a > 2.0 ** -127) if mode == "nearest" else False
        return 2.0 ** (-126 if up else -127)
    frac, exp = np.frexp(a)  # a = frac * 2^exp, frac in [0.5, 1)
    k = exp - 1
    if mode == "up" and frac != 0.5:
        k += 1
    if mode == "nearest" and frac >= 0.75:
        k += 1
    if k > 127:
        return 2.0 ** 127 if saturate else np.nan
    return 2.0 ** k


def inputs():
    vals = []
    for fmt in FLOATS:
        vs = sorted({abs(decode(fmt, c)) for c in range(256 if fmt != 23 else 16)
                     if np.isfinite(decode(fmt, c))})
        vals += vs
        mids = [(p + q) / 2 for p, q in zip(vs, vs[1:])]
        vals += mids
        for mid in mids:
            f = np.float32(mid)
            vals += [float(np.nextafter(f, np.float32(0))), float(np.nextafter(f, np.float32(np.inf)))]
        vals += [vs[-1] * 1.03, vs[-1] * 1.1, vs[-1] * 4]
    for k in range(-130, 128):
        vals += [2.0 ** k, 2.0 ** k * 1.5, 2.0 ** k * 1.25, 2.0 ** k * 1.75]
    r = np.random.default_rng(7)
    vals += list(10.0 ** r.uniform(-45, 38, 2000))
    vals = [float(np.float32(v)) for v in vals]  # exact in float32
    vals += [0.0, np.inf, np.nan, 1e-45]
    x = np.array(vals + [-v for v in vals], dtype=np.float64)
    d = list(x)
    for fmt in FLOATS:  # float64-only neighbours of the ties
        vs = sorted({abs(decode(fmt, c)) for c in range(16 if fmt == 23 else 256)
                     if np.isfinite(decode(fmt, c))})
        for p, q in zip(vs, vs[1:]):
            mid = (p + q) / 2
            d += [np.nextafter(mid, 0), np.nextafter(mid, np.inf)]
    return x.astype(np.float32), np.array(d, dtype=np.float64)


def outputs():
    """(name, source, to, saturate, round_mode)"""
    outs = []
    for src in ("f", "d"):
        for fmt in FLOATS:
            for sat in ((1,) if fmt == 23 else (1, 0)):
                outs.append(("%s_%d_s%d" % (src, fmt, sat), src, fmt, sat, None))
        for sat in (1, 0):
            for mode in MODES:
                outs.append(("%s_24_s%d_%s" % (src, sat, mode), src, 24, sat, mode))
    for fmt in INTS:
        outs.append(("f_%d" % fmt, "f", fmt, 1, None))
    return outs


def make(prefix):
    f, d = inputs()
    nodes, graph_outputs = [], []
    for name, src, to, sat, mode in outputs():
        attrs = {"to": to, "saturate": sat}
        if mode:
            attrs["round_mode"] = mode
        nodes.append(helper.make_node("Cast", [src], [name], **attrs))
        n = f.size if src == "f" else d.size
        graph_outputs.append(helper.make_tensor_value_info(name, to, [n]))
    graph_inputs = [helper.make_tensor_value_info("f", TensorProto.FLOAT, [f.size]),
                    helper.make_tensor_value_info("d", TensorProto.DOUBLE, [d.size])]
    for fmt in list(FLOATS) + [24]:  # every code back to float
        count = 16 if fmt == 23 else 256
        nodes.append(helper.make_node("Cast", ["c%d" % fmt], ["back_%d" % fmt], to=1))
        graph_inputs.append(helper.make_tensor_value_info("c%d" % fmt, fmt, [count]))
        graph_outputs.append(helper.make_tensor_value_info("back_%d" % fmt, 1, [count]))
        codes = np.arange(count, dtype=np.uint8)
        raw = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8) if fmt == 23 else codes
        t = TensorProto(name="c%d" % fmt, data_type=fmt, dims=[count], raw_data=raw.tobytes())
        with open("%s.c%d.pb" % (prefix, fmt), "wb") as out:
            out.write(t.SerializeToString())
    model = helper.make_model(helper.make_graph(nodes, "narrow_cast", graph_inputs, graph_outputs),
                              opset_imports=[helper.make_opsetid("", 25)])
    model.ir_version = 8
    with open(prefix + ".onnx", "wb") as out:
        out.write(model.SerializeToString())
    np.save(prefix + ".f.npy", f)
    np.save(prefix + ".d.npy", d)


def same(a, b):
    return a == b and np.signbit(a) == np.signbit(b) or np.isnan(a) and np.isnan(b)


def check(prefix, out):
    x = {"f": np.load(prefix + ".f.npy"), "d": np.load(prefix + ".d.npy")}
    checked = 0
    for name, src, to, sat, mode in outputs():
        y = np.load("%s/%s.npy" % (out, name))
        for xi, yi in zip(x[src], y):
            xi = float(xi)
            if to in INTS:
                bits, signed = INTS[to]
                w = int(np.rint(xi)) & ((1 << bits) - 1) if np.isfinite(xi) and abs(xi) < 2 ** 31 else None
                if w is None:
                    continue  # outside int32: undefined by the specification
                if signed and w >= 1 << (bits - 1):
                    w -= 1 << bits
                ref = w
                assert int(yi) == ref, (name, xi, int(yi), ref)
            else:
                ref = encode_e8m0(xi, sat, mode) if to == 24 else encode(to, xi, sat)
                assert same(float(yi), ref), (name, xi, float(yi), ref)
            checked += 1
    for fmt in list(FLOATS) + [24]:
        y = np.load("%s/back_%d.npy" % (out, fmt))
        for c, yi in enumerate(y):
            assert same(float(yi), decode(fmt, c)), ("decode", fmt, c, float(yi))
            checked += 1
    print("narrow-cast: %d values match" % checked)


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3])
