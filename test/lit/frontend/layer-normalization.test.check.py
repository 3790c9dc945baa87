"""Checks layer-normalization.test's outputs against numpy in float64."""
import sys

import numpy as np

t = sys.argv[1]
x, s, b = (np.load("%s.%s.npy" % (t, n)).astype(np.float64) for n in "xsb")
h, g = (np.load("%s.%s.npy" % (t, n)) for n in "hg")
out = lambda n: np.load("%s.out/%s.npy" % (t, n))

mean = x.mean(axis=-1, keepdims=True)
inv = 1 / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + 1e-3)
assert np.allclose(out("m"), mean, rtol=1e-6, atol=0), abs(out("m") - mean).max()
assert np.allclose(out("v"), inv, rtol=1e-5, atol=0), abs(out("v") - inv).max()
y = (x - mean) * inv * s + b
assert np.allclose(out("y"), y, rtol=1e-5, atol=1e-5), abs(out("y") - y).max()

# f16: statistics in f32, the normalized value rounded to f16, then scale.
hf = h.astype(np.float32)
hm = hf.mean(axis=-1, keepdims=True)
hi = 1 / np.sqrt(((hf - hm) ** 2).mean(axis=-1, keepdims=True) + 1e-5)
z = ((hf - hm) * hi).astype(np.float16) * g
assert out("z").dtype == np.float16
assert np.allclose(out("z").astype(np.float32), z.astype(np.float32), rtol=2e-3, atol=2e-3), \
    abs(out("z").astype(np.float32) - z.astype(np.float32)).max()
