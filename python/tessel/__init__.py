"""Tessel: compile ONNX models and run them from Python.

    import numpy as np
    import tessel

    artifact = tessel.compile("mlp.onnx", "mlp.tsl")      # or bytes: output_path=None
    session = tessel.Session(artifact)                     # device="cpu", threads=None
    print(session.inputs)    # [TensorInfo(name='input', dtype=float32, shape=('batch', 64))]
    probs = session.run({"input": np.zeros((2, 64), np.float32)})["probs"]

``compile`` runs the ``tessel-compile`` executable; ``Session`` is the
runtime itself (its C API, linked into the extension ``tessel._tessel``).
Errors of both are ``tessel.Error``, whose message names the file, the ONNX
node and op, the input or output concerned, and whose ``code`` is the
status code's name.

Arrays: an input that is a C-contiguous array of the input's dtype is read
in place (no copy); outputs are new arrays (``run``) or the caller's arrays,
written in place (``run_into``). A session may be shared by several threads:
their runs are serialized, with the GIL released while one executes.
"""

import os
import shutil
import subprocess
import tempfile

from ._tessel import API_VERSION, Error, Session, TensorInfo

__all__ = ["compile", "Session", "TensorInfo", "Error", "__version__"]

__version__ = "0.1.0"

# compile()'s keyword options and the flags of tessel-compile they become:
# a str value gives "--flag VALUE", True gives "--flag", False nothing.
_OPTIONS = {
    "mcpu": "--mcpu",                 # x86-64 CPUs of the cpu target ("native", "x86-64-v3,x86-64-v2")
    "cpu_gpu_tiles": "--cpu-gpu-tiles",  # test aid: the cpu target takes a GPU's tiles
    # Precision (docs/design.md section 8): the flags of the same names.
    "precision": "--precision",       # "fp32", "bf16", "fp16", "int8", "fp8"
    "keep_fp32": "--keep-fp32",       # "Softmax,node_3": ONNX op types or nodes kept f32
    "lower": "--lower",               # int8/fp8: first/last layers quantized too
    "io_precision": "--io-precision",  # "low": bf16/fp16 inputs and outputs
    "calibration": "--calibration",   # folder of calibration inputs
    "calibration_cache": "--calibration-cache",
    "calibrator": "--calibrator",     # "minmax", "percentile", "entropy", "mse"
    "percentile": "--percentile",
    "activations": "--activations",   # "symmetric", "asymmetric"
    "fp8_format": "--fp8-format",     # "e4m3", "e5m2"
    "precision_report": "--precision-report",
    "accuracy_budget": "--accuracy-budget",
    "metric": "--metric",             # "rel-l2", "top1"
}


def _find_compiler():
    """The tessel-compile to run: next to the package (installed
    <P>/lib/python3/dist-packages/tessel -> <P>/bin; build tree
    build/python/tessel -> build/bin), then $TESSEL_COMPILE, then PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [
        os.path.join(here, "..", "..", "..", "..", "bin", "tessel-compile"),  # installed
        os.path.join(here, "..", "..", "bin", "tessel-compile"),              # build tree
    ]
    env = os.environ.get("TESSEL_COMPILE")
    if env:
        candidates.append(env)
    on_path = shutil.which("tessel-compile")
    if on_path:
        candidates.append(on_path)
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.normpath(c)
    raise Error("tessel-compile not found: looked next to the tessel package "
                "(<prefix>/bin, build/bin), in $TESSEL_COMPILE and on PATH",
                "NOT_FOUND")


def compile(model_path, output_path=None, targets=("cpu",), **options):
    """Compiles the ONNX model at ``model_path`` into a Tessel artifact.

    ``output_path``: where to write the artifact (``.tsl``); the function
    returns that path. With None, the artifact is written to a temporary
    file and its bytes are returned (``tessel.Session`` takes either).

    ``targets``: "cpu", "cuda:sm_80", "cuda:sm_90", "rocm:gfx90a",
    "rocm:gfx942", "vulkan", or a sequence of them (one artifact holds them
    all).

    Options: ``mcpu="native"`` (or "x86-64-v3", a comma-separated list such
    as "x86-64-v4+avx512bf16,x86-64-v2", ...; default
    "x86-64-v4+avx512bf16+avx512vnni,x86-64-v3") picks the CPUs the cpu
    target is compiled for, one binary each, of which a session runs the
    best the host supports; ``cpu_gpu_tiles=True`` is
    a test aid (the cpu target takes a GPU's tiles). The precision options
    are tessel-compile's flags of the same names with '-' for '_':
    ``precision="bf16"``, ``precision="int8", calibration="calib/"``,
    ``keep_fp32="Softmax"``, ``calibrator``, ``calibration_cache``,
    ``activations``, ``fp8_format``, ``io_precision``, ``lower``,
    ``precision_report``, ``accuracy_budget``, ``metric``,
    ``percentile``. Another option raises TypeError naming it.

    Raises tessel.Error (code "COMPILE_ERROR") with tessel-compile's message,
    which names the file, the ONNX node and op, when the model cannot be
    compiled (no such file, invalid ONNX, an unsupported op, ...).
    """
    if isinstance(targets, str):
        targets = (targets,)
    args = [os.fspath(model_path)]
    for t in targets:
        args += ["--target", str(t)]
    for key, value in options.items():
        flag = _OPTIONS.get(key)
        if flag is None:
            raise TypeError("compile() got an unknown option '%s' (options: %s)"
                            % (key, ", ".join(sorted(_OPTIONS))))
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            pass
        else:
            args += [flag, str(value)]
    exe = _find_compiler()
    if output_path is not None:
        out = os.fspath(output_path)
        _run_compiler(exe, args + ["-o", out])
        return output_path
    with tempfile.TemporaryDirectory(prefix="tessel-") as tmp:
        out = os.path.join(tmp, "model.tsl")
        _run_compiler(exe, args + ["-o", out])
        with open(out, "rb") as f:
            return f.read()


def _run_compiler(exe, args):
    try:
        proc = subprocess.run([exe] + args, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise Error("cannot run %s: %s" % (exe, e), "NOT_FOUND") from None
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if not message:
            message = proc.stdout.decode("utf-8", "replace").strip()
        raise Error(message or "tessel-compile failed with exit code %d" % proc.returncode,
                    "COMPILE_ERROR")
