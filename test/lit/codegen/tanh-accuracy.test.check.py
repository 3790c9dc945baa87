"""tanh-accuracy.test: the outputs in OUT against numpy's tanh of the
inputs PREFIX.f.npy (float32) and PREFIX.d.npy (float64), within BOUND ulp;
zeros (with their sign), infinities and NaN exactly."""
import sys

import numpy as np

prefix, out, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
for name in ("f", "d"):
    x = np.load(prefix + "." + name + ".npy")
    y = np.load(out + "/" + name + "t.npy")
    ref = np.tanh(x.astype(np.float64)).astype(x.dtype)
    finite = np.isfinite(ref) & (ref != 0)
    ulp = np.abs(y[finite].astype(np.float64) - ref[finite]) / np.spacing(np.abs(ref[finite]))
    assert ulp.max() <= bound, (out, name, ulp.max(), x[finite][ulp.argmax()])
    special = ~finite
    same = (y[special] == ref[special]) & (np.signbit(y[special]) == np.signbit(ref[special]))
    assert (same | (np.isnan(y[special]) & np.isnan(ref[special]))).all(), (
        out, name, x[special], y[special], ref[special])
