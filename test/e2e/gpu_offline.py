"""Offline checks of the GPU code Tessel generates for a model.

Compiles a model for every GPU target with --dump-binaries, then:
  * assembles each PTX file with ptxas for its sm_80 / sm_90 target (when
    the CUDA toolkit's ptxas exists; otherwise says so once),
  * reads each hsaco back with llvm-readobj-22 and checks its kernel
    metadata: the right gfx target, one kernel per PTX entry, no scratch
    (private segment 0), 256-thread workgroups, no undefined symbols.
No GPU is needed: nothing runs here.
"""
import os
import re
import shutil
import subprocess

PTXAS = "/usr/local/cuda/bin/ptxas"
LLVM_BIN = "/usr/lib/llvm-22/bin"
CUDA_TARGETS = ("sm_80", "sm_90")
ROCM_TARGETS = ("gfx90a", "gfx942")


def ptxas_available():
    return os.access(PTXAS, os.X_OK)


def _run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check(compile_bin, model, work_dir, timeout=120):
    """Returns None when all checks pass, else a one-line reason."""
    out = os.path.join(work_dir, "gpu")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [compile_bin, model, "-o", os.path.join(out, "gpu.tsl"), "--dump-binaries", out]
    for t in CUDA_TARGETS:
        cmd += ["--target", "cuda:" + t]
    for t in ROCM_TARGETS:
        cmd += ["--target", "rocm:" + t]
    rc, _, err = _run(cmd, timeout)
    if rc != 0:
        return "gpu compile: exit %d: %s" % (rc, err.strip().splitlines()[0] if err.strip() else "")
    entries = None
    for t in CUDA_TARGETS:
        ptx = os.path.join(out, "cuda_%s.ptx" % t)
        with open(ptx) as f:
            text = f.read()
        if ".extern" in text:
            return "%s: PTX calls an external function (a device library)" % t
        found = re.findall(r"^\.visible \.entry (\w+)", text, re.M)
        if not found and entries is None:
            entries = []
        entries = found if entries is None else entries
        if ptxas_available():
            rc, _, err = _run([PTXAS, "-arch=" + t, ptx, "-o", os.path.join(out, t + ".cubin")],
                              timeout)
            if rc != 0:
                return "ptxas -arch=%s: %s" % (t, err.strip().splitlines()[0])
    for t in ROCM_TARGETS:
        hsaco = os.path.join(out, "rocm_%s.hsaco" % t)
        rc, notes, err = _run([os.path.join(LLVM_BIN, "llvm-readobj"), "--notes", hsaco], timeout)
        if rc != 0:
            return "llvm-readobj %s: %s" % (t, err.strip())
        if "amdgcn-amd-amdhsa--" + t not in notes:
            return "%s: hsaco is not for %s" % (t, t)
        names = re.findall(r"^\s+\.name:\s+(\w+)$", notes, re.M)
        if sorted(names) != sorted(entries or []):
            return "%s: hsaco kernels %s differ from PTX entries %s" % (t, names, entries)
        scratch = re.findall(r"\.private_segment_fixed_size:\s+(\d+)", notes)
        if any(int(s) != 0 for s in scratch):
            return "%s: a kernel uses scratch memory (register spills)" % t
        groups = re.findall(r"\.max_flat_workgroup_size:\s+(\d+)", notes)
        if any(int(g) != 256 for g in groups):
            return "%s: a kernel's workgroup size is not 256" % t
        rc, undefined, _ = _run([os.path.join(LLVM_BIN, "llvm-nm"), "-u", hsaco], timeout)
        if rc != 0 or undefined.strip():
            return "%s: hsaco has undefined symbols: %s" % (t, " ".join(undefined.split()))
    return None
