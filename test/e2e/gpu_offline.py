"""Offline checks of the GPU code Tessel generates for a model.

Compiles a model for every GPU target with --dump-binaries, then:
  * assembles each PTX file with ptxas for its sm_80 / sm_90 target (when
    the CUDA toolkit's ptxas exists; otherwise says so once),
  * reads each hsaco back with llvm-readobj-22 and checks its kernel
    metadata: the right gfx target, one kernel per PTX entry, no scratch
    (private segment 0), no undefined symbols,
  * checks that every kernel declares the workgroup size the artifact's
    launch config for its target records (`tessel-compile --report`): the
    PTX entry's `.maxntid`, the hsaco kernel's `.reqd_workgroup_size` and
    `.max_flat_workgroup_size`, and its static shared memory
    (`.group_segment_fixed_size`) plus the dynamic bytes the config records
    within the 64 KiB a workgroup has.
No GPU is needed: nothing runs here.
"""
import os
import re
import shutil
import subprocess
import zlib

PTXAS = "/usr/local/cuda/bin/ptxas"
LLVM_BIN = "/usr/lib/llvm-22/bin"
CUDA_TARGETS = ("sm_80", "sm_90")
ROCM_TARGETS = ("gfx90a", "gfx942")
LDS_BYTES = 64 * 1024  # shared memory (LDS) per workgroup on gfx90a and gfx942


def ptxas_available():
    return os.access(PTXAS, os.X_OK)


def _run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def launch_configs(report):
    """{target: {kernel: ((x, y, z), shared bytes)}} from --report's lines
    "  tessel_k0_s1  cpu: 1x1x1 (w0, 1, 1)  cuda:sm_90: 256x1x1 (...)"."""
    configs = {}
    for line in report.splitlines():
        m = re.match(r"^  (tessel_\w+)  (.*)$", line)
        if not m:
            continue
        for t, x, y, z, rest in re.findall(
                r"([\w:]+): (\d+)x(\d+)x(\d+) \([^)]*\)((?: shared \d+)?)", m.group(2)):
            shared = int(rest.split()[1]) if rest else 0
            configs.setdefault(t, {})[m.group(1)] = ((int(x), int(y), int(z)), shared)
    return configs


def hsaco_kernels(notes):
    """[(name, reqd_workgroup_size, max_flat_workgroup_size, group segment)]
    from llvm-readobj --notes."""
    kernels = []
    listing = notes.split("amdhsa.kernels:", 1)[-1]
    listing = re.split(r"^amdhsa\.", listing, maxsplit=1, flags=re.M)[0]
    for block in re.split(r"^  - ", listing, flags=re.M)[1:]:
        name = re.search(r"^\s+\.name:\s+(\w+)$", block, re.M)
        reqd = re.search(r"\.reqd_workgroup_size:\s*\n\s+- (\d+)\n\s+- (\d+)\n\s+- (\d+)", block)
        flat = re.search(r"\.max_flat_workgroup_size:\s+(\d+)", block)
        group = re.search(r"\.group_segment_fixed_size:\s+(\d+)", block)
        kernels.append((name.group(1) if name else None,
                        tuple(int(g) for g in reqd.groups()) if reqd else None,
                        int(flat.group(1)) if flat else None,
                        int(group.group(1)) if group else None))
    return kernels


def targets_for(name, every=False):
    """The (CUDA, ROCm) targets to check a test named `name` on: every one,
    or (the default of the node tests) one of each chosen by a hash of the
    name, sm_80 with gfx90a or sm_90 with gfx942, so that a full run covers
    every target on about half the tests at half the cost."""
    if every:
        return CUDA_TARGETS, ROCM_TARGETS
    k = zlib.crc32(name.encode("utf-8")) % 2
    return (CUDA_TARGETS[k],), (ROCM_TARGETS[k],)


def check(compile_bin, model, work_dir, timeout=120, cuda_targets=CUDA_TARGETS,
          rocm_targets=ROCM_TARGETS):
    """Returns None when all checks pass, else a one-line reason."""
    out = os.path.join(work_dir, "gpu")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    cmd = [compile_bin, model, "-o", os.path.join(out, "gpu.tsl"), "--dump-binaries", out,
           "--report"]
    for t in cuda_targets:
        cmd += ["--target", "cuda:" + t]
    for t in rocm_targets:
        cmd += ["--target", "rocm:" + t]
    rc, report, err = _run(cmd, timeout)
    if rc != 0:
        return "gpu compile: exit %d: %s" % (rc, err.strip().splitlines()[0] if err.strip() else "")
    configs = launch_configs(report)
    entries = None
    for t in cuda_targets:
        ptx = os.path.join(out, "cuda_%s.ptx" % t)
        with open(ptx) as f:
            text = f.read()
        if ".extern" in text:
            return "%s: PTX calls an external function (a device library)" % t
        found = re.findall(r"^\.visible \.entry (\w+)", text, re.M)
        if not found and entries is None:
            entries = []
        entries = found if entries is None else entries
        recorded = configs.get("cuda:" + t, {})
        if sorted(recorded) != sorted(found):
            return "%s: launch configs for %s, PTX entries %s" % (t, sorted(recorded), found)
        for name, *sizes in re.findall(r"^\.visible \.entry (\w+)\(.*?^\.maxntid (\d+), (\d+), (\d+)",
                                       text, re.M | re.S):
            if tuple(int(v) for v in sizes) != recorded[name][0]:
                return "%s: %s declares .maxntid %s, its launch config %s" % (
                    t, name, ", ".join(sizes), recorded[name][0])
        if text.count(".maxntid") != len(found):
            return "%s: an entry declares no .maxntid" % t
        if ptxas_available():
            rc, _, err = _run([PTXAS, "-arch=" + t, ptx, "-o", os.path.join(out, t + ".cubin")],
                              timeout)
            if rc != 0:
                return "ptxas -arch=%s: %s" % (t, err.strip().splitlines()[0])
    for t in rocm_targets:
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
        recorded = configs.get("rocm:" + t, {})
        for name, reqd, flat, group in hsaco_kernels(notes):
            if name not in recorded:
                return "%s: kernel %s has no launch config" % (t, name)
            size, shared = recorded[name]
            if reqd != size or flat != size[0] * size[1] * size[2]:
                return "%s: %s declares workgroup %s (max %s), its launch config %s" % (
                    t, name, reqd, flat, size)
            if group is None or group + shared > LDS_BYTES:
                return "%s: %s declares %s bytes of shared memory and its launch config %d: " \
                       "more than the %d a workgroup has" % (t, name, group, shared, LDS_BYTES)
        rc, undefined, _ = _run([os.path.join(LLVM_BIN, "llvm-nm"), "-u", hsaco], timeout)
        if rc != 0 or undefined.strip():
            return "%s: hsaco has undefined symbols: %s" % (t, " ".join(undefined.split()))
    return None
