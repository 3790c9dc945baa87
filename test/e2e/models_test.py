#!/usr/bin/python3
"""End-to-end test of whole models against an independent numpy reference.

scripts/make_models.py writes the models (mlp, cnn, mlp_external: the mlp
with its weights in weights.bin beside model.onnx) with inputs of batch 2
and 3 and their reference outputs. Each model is compiled once with
tessel-compile and run on every input with tessel-run; each output must
match the reference (rtol 1e-4, atol 1e-5) in shape, dtype and values.

With --device vulkan each model is compiled for the vulkan target and run
on the first Vulkan device; --gpu-mapping-of TARGET (repeatable) also runs
each model with the kernels of that GPU target's mapping (tessel-compile
--gpu-mapping-of), so the CUDA and HIP targets' tiles run on Vulkan.

Last line: `models: N passed, M failed` (one line per model and input set
before it). Exit 1 when anything failed, 2 on bad usage.

Run it with /usr/bin/python3 (Debian's python3-onnx and python3-numpy).
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RTOL, ATOL = 1e-4, 1e-5
TIMEOUT_S = 300


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no message)"


def call(cmd, cwd):
    """None on success, else a short reason."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=TIMEOUT_S, cwd=cwd)
    except subprocess.TimeoutExpired:
        return "timed out after %ds" % TIMEOUT_S
    except OSError as e:
        return "cannot start %s: %s" % (cmd[0], e)
    if p.returncode != 0:
        what = ("killed by signal %d" % -p.returncode if p.returncode < 0
                else "exit %d" % p.returncode)
        return "%s: %s" % (what, first_line(p.stderr.decode("utf-8", "replace")))
    return None


def compare(expected, actual):
    if actual.dtype != expected.dtype:
        return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    close = np.isclose(actual.astype(np.float64), expected.astype(np.float64),
                       rtol=RTOL, atol=ATOL)
    if close.all():
        return None
    bad = np.argwhere(~close)
    idx = tuple(bad[0])
    err = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    return "%d of %d values differ; first at %s: %r vs expected %r; max abs err %.3g" % (
        len(bad), expected.size, list(idx), actual[idx].item(), expected[idx].item(),
        float(np.nanmax(err)))


def check_external(model_dir):
    """mlp_external must really keep its weights outside model.onnx."""
    m = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    ext = [t.name for t in m.graph.initializer
           if t.data_location == onnx.TensorProto.EXTERNAL]
    if not ext:
        return "model.onnx has no external-data initializer"
    if not os.path.isfile(os.path.join(model_dir, "weights.bin")):
        return "weights.bin missing"
    return None


def test_model(name, model_dir, bin_dir, work_dir, report, device=None, mapping=None):
    """Runs one model; calls report(label, reason_or_None) per check."""
    compile_args, run_args = [], []
    if device:
        compile_args += ["--target", device.split(":")[0]]
        run_args += ["--device", device]
        name_suffix = " on %s" % device
        if mapping:
            compile_args += ["--gpu-mapping-of", mapping]
            name_suffix += " (mapping of %s)" % mapping
    else:
        name_suffix = ""
    m = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    inits = {t.name for t in m.graph.initializer}
    in_names = [vi.name for vi in m.graph.input if vi.name not in inits]
    out_names = [vi.name for vi in m.graph.output]
    pairs = sorted(glob.glob(os.path.join(model_dir, "input_*.npy")))
    if len(in_names) != 1 or len(out_names) != 1 or not pairs:
        report(name, "expected one input, one output and input_K.npy files")
        return

    if name.endswith("_external"):
        err = check_external(model_dir)
        if err:
            report("%s setup" % name, err)
            return

    wdir = os.path.join(work_dir, name + ("_" + sanitize(device) if device else "")
                        + ("_" + sanitize(mapping) if mapping else ""))
    os.makedirs(wdir, exist_ok=True)
    tsl = os.path.join(wdir, "model.tsl")
    src_dir = model_dir
    if name.endswith("_external"):
        # Compile a copy that is deleted before running: the .tsl must hold
        # the weights, not point at weights.bin.
        src_dir = os.path.join(wdir, "src")
        shutil.rmtree(src_dir, ignore_errors=True)
        shutil.copytree(model_dir, src_dir)
    # Compile from another folder, so that external data must be found
    # relative to the model, not to the working directory.
    err = call([os.path.join(bin_dir, "tessel-compile"),
                os.path.join(src_dir, "model.onnx"), "-o", tsl] + compile_args, cwd=wdir)
    if err is None and not os.path.isfile(tsl):
        err = "exit 0 but no .tsl written"
    if src_dir != model_dir:
        shutil.rmtree(src_dir, ignore_errors=True)
    if err:
        for inp in pairs:
            report("%s %s%s" % (name, os.path.basename(inp), name_suffix), "compile: " + err)
        return

    for inp in pairs:
        k = re.search(r"input_(\d+)\.npy$", inp).group(1)
        label = "%s input_%s (batch %d)%s" % (name, k, np.load(inp, mmap_mode="r").shape[0],
                                              name_suffix)
        expected = np.load(os.path.join(model_dir, "output_%s.npy" % k))
        out_dir = os.path.join(wdir, "out_%s" % k)
        shutil.rmtree(out_dir, ignore_errors=True)
        os.makedirs(out_dir)
        err = call([os.path.join(bin_dir, "tessel-run"), tsl] + run_args +
                   ["--input", "%s=%s" % (in_names[0], inp), "--output-dir", out_dir], cwd=wdir)
        if err:
            report(label, "run: " + err)
            continue
        produced = os.path.join(out_dir, sanitize(out_names[0]) + ".npy")
        if not os.path.isfile(produced):
            report(label, "output %s not written" % os.path.basename(produced))
            continue
        report(label, compare(expected, np.load(produced, allow_pickle=False)))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Compile and run Tessel's e2e models against "
                                 "their numpy reference.")
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"),
                    help="folder of tessel-compile and tessel-run (default: build/bin)")
    ap.add_argument("--work-dir", help="scratch folder (default: a fresh temporary folder in "
                    "the build folder, the parent of --bin-dir; removed when all pass)")
    ap.add_argument("--models", help="comma-separated subset of mlp,cnn,mlp_external")
    ap.add_argument("--device", help="compile for this device's target and run on it "
                    "(vulkan, vulkan:N); default: the CPU")
    ap.add_argument("--gpu-mapping-of", action="append", default=[], metavar="TARGET",
                    help="with --device vulkan, also run each model with TARGET's GPU "
                    "mapping (repeatable)")
    args = ap.parse_args(argv)
    args.bin_dir = os.path.abspath(args.bin_dir)  # the tests run in their own folders

    for tool in ("tessel-compile", "tessel-run"):
        p = os.path.join(args.bin_dir, tool)
        if not os.access(p, os.X_OK):
            print("models: error: %s not found or not executable (build first, or set "
                  "--bin-dir)" % p, file=sys.stderr)
            return 2

    if args.work_dir:
        work_dir = os.path.abspath(args.work_dir)
        os.makedirs(work_dir, exist_ok=True)
        temp_work = False
    else:
        work_dir = tempfile.mkdtemp(prefix="models-test-",
                                    dir=os.path.dirname(os.path.abspath(args.bin_dir)))
        temp_work = True

    models_dir = os.path.join(work_dir, "models")
    shutil.rmtree(models_dir, ignore_errors=True)
    gen = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "make_models.py"),
                          models_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if gen.returncode != 0:
        sys.stdout.write(gen.stdout.decode("utf-8", "replace"))
        print("FAIL  make_models.py exited with %d" % gen.returncode)
        print("models: 0 passed, 1 failed")
        return 1

    names = sorted(d for d in os.listdir(models_dir)
                   if os.path.isdir(os.path.join(models_dir, d)))
    if args.models:
        wanted = args.models.split(",")
        unknown = sorted(set(wanted) - set(names))
        if unknown:
            print("models: error: unknown model(s) %s; have %s" % (",".join(unknown),
                                                                   ",".join(names)),
                  file=sys.stderr)
            return 2
        names = [n for n in names if n in wanted]

    results = []

    def report(label, reason):
        results.append(reason is None)
        print(("PASS  %s" % label) if reason is None else ("FAIL  %s  -- %s" % (label, reason)))
        sys.stdout.flush()

    if args.gpu_mapping_of and not args.device:
        print("models: error: --gpu-mapping-of needs --device vulkan", file=sys.stderr)
        return 2
    for name in names:
        for mapping in [None] + args.gpu_mapping_of:
            try:
                test_model(name, os.path.join(models_dir, name), args.bin_dir,
                           os.path.join(work_dir, "run"), report, args.device, mapping)
            except Exception as e:  # noqa: BLE001 - a harness error fails that model
                report(name, "harness: %s: %s" % (type(e).__name__, e))

    n_pass = sum(results)
    n_fail = len(results) - n_pass
    if n_fail:
        print("(scratch files kept in %s)" % work_dir)
    elif temp_work:
        shutil.rmtree(work_dir, ignore_errors=True)
    print("models: %d passed, %d failed" % (n_pass, n_fail))
    return 1 if n_fail or not results else 0


if __name__ == "__main__":
    sys.exit(main())
