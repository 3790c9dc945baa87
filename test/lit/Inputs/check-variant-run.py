"""Checks one tessel-run of a CPU variant that this host may lack.

    check-variant-run.py LOG REF_DIR OUT_DIR

LOG holds tessel-run's output and a last line "exit N". Exit 0: every
REF_DIR/*.npy must match OUT_DIR's file of that name (rtol 1e-5): the
variant ran and computed what the reference variant did. Exit 2: the
runtime must have refused the binary for an extension this CPU lacks.
Anything else fails. Prints "ran" or "refused" for FileCheck.
"""
import glob
import os
import sys

import numpy as np

log, ref_dir, out_dir = sys.argv[1:4]
text = open(log).read()
status = text.strip().splitlines()[-1]
if status == "exit 0":
    refs = sorted(glob.glob(os.path.join(ref_dir, "*.npy")))
    assert refs, "no reference outputs in %s" % ref_dir
    for ref in refs:
        got = np.load(os.path.join(out_dir, os.path.basename(ref)))
        np.testing.assert_allclose(got, np.load(ref), rtol=1e-5, atol=1e-6)
    print("ran")
elif status == "exit 2" and "this CPU lacks x86-64 extensions" in text:
    print("refused")
else:
    sys.exit("unexpected tessel-run result:\n" + text)
