"""Tests of the `tessel` Python module (python/): compile + run the MLP and
the CNN of scripts/make_models.py against its numpy reference, every error
path, threads, and a long loop without memory growth.

Run by the `check-python` target (part of `check`):
    PYTHONPATH=build/python TESSEL_COMPILE=build/bin/tessel-compile \
        /usr/bin/python3 -m pytest -q test/python
TESSEL_BUILD_DIR (set by check-python) enables the test of the installed
layout (`cmake --install --component python`).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tessel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_make_models():
    spec = importlib.util.spec_from_file_location(
        "make_models", os.path.join(ROOT, "scripts", "make_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_models = _load_make_models()


class Model:
    """One model of make_models.py: its folder, reference and artifact."""

    def __init__(self, name, out_dir):
        model, self.ref, self.input_name, self.sample_shape = make_models.MODELS[name]()
        self.dir = make_models.write_model_dir(str(out_dir), name, model, self.ref,
                                               self.input_name, self.sample_shape)
        self.onnx = os.path.join(self.dir, "model.onnx")
        self.artifact = os.path.join(self.dir, "model.tsl")
        assert tessel.compile(self.onnx, self.artifact) == self.artifact

    def input(self, batch, seed=0):
        rng = np.random.default_rng(seed)
        return rng.standard_normal((batch,) + tuple(self.sample_shape)).astype(np.float32)

    def expected(self, x):
        return self.ref(x).astype(np.float32)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    out = tmp_path_factory.mktemp("models")
    return {name: Model(name, out) for name in ("mlp", "cnn")}


@pytest.fixture(scope="module")
def mlp(models):
    return models["mlp"]


@pytest.fixture(scope="module")
def mlp_session(mlp):
    return tessel.Session(mlp.artifact)


def close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=1e-4, atol=1e-5)


def expect_error(code, *fragments):
    """A context that expects tessel.Error of `code` whose message has
    every fragment."""
    class Check:
        def __enter__(self):
            self.raises = pytest.raises(tessel.Error)
            self.info = self.raises.__enter__()
            return self.info

        def __exit__(self, *exc):
            handled = self.raises.__exit__(*exc)
            e = self.info.value
            assert e.code == code, (e.code, str(e))
            for f in fragments:
                assert f in str(e), (f, str(e))
            return handled
    return Check()


# ---------------------------------------------------------------------------
# Compile and run against the numpy reference
# ---------------------------------------------------------------------------

def test_version_and_api():
    assert isinstance(tessel.__version__, str)
    assert issubclass(tessel.Error, RuntimeError)
    for name in ("compile", "Session", "Error", "TensorInfo"):
        assert hasattr(tessel, name)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_models_match_reference(models, name):
    m = models[name]
    session = tessel.Session(m.artifact, threads=2)
    for k in (0, 1):  # batch 2 and 3, make_models.py's own inputs and outputs
        x = np.load(os.path.join(m.dir, "input_%d.npy" % k))
        y = session.run({m.input_name: x})
        assert list(y) == [o.name for o in session.outputs]
        (out,) = y.values()
        assert out.dtype == np.float32
        close(out, np.load(os.path.join(m.dir, "output_%d.npy" % k)))
    for batch in (1, 5):
        x = m.input(batch, seed=batch)
        (out,) = session.run({m.input_name: x}).values()
        close(out, m.expected(x))


def test_compile_to_bytes_and_targets(mlp):
    data = tessel.compile(mlp.onnx, targets="cpu", mcpu="x86-64-v3")
    assert isinstance(data, bytes) and len(data) > 0
    session = tessel.Session(data)
    assert session.targets == ["cpu:x86-64-v3"]
    assert session.binary == "cpu:x86-64-v3"
    assert session.device == "cpu"
    x = mlp.input(4)
    close(session.run({"input": x})["probs"], mlp.expected(x))
    # bytearray, memoryview and os.PathLike are accepted too.
    tessel.Session(bytearray(data))
    tessel.Session(memoryview(data))
    import pathlib
    tessel.Session(pathlib.Path(mlp.artifact))


def test_compile_precision_options(mlp, tmp_path):
    """The precision flags are compile() options: bf16, and int8 calibrated
    on a folder of inputs with a cache, stay close to the reference."""
    x = mlp.input(4)
    bf16 = tessel.Session(tessel.compile(mlp.onnx, precision="bf16"))
    np.testing.assert_allclose(bf16.run({"input": x})["probs"], mlp.expected(x),
                               rtol=2e-2, atol=2e-3)
    calib = tmp_path / "calib"
    calib.mkdir()
    np.save(calib / "input.npy", mlp.input(16, seed=7))
    cache = tmp_path / "ranges.json"
    int8 = tessel.Session(tessel.compile(mlp.onnx, precision="int8", calibration=calib,
                                         calibration_cache=cache))
    np.testing.assert_allclose(int8.run({"input": x})["probs"], mlp.expected(x),
                               rtol=5e-2, atol=5e-3)
    assert '"format": "tessel-calibration"' in cache.read_text()
    with pytest.raises(tessel.Error, match="int8 needs --calibration DIR"):
        tessel.compile(mlp.onnx, precision="int8")


def test_compile_cuda_target_is_written(mlp, tmp_path):
    out = tessel.compile(mlp.onnx, str(tmp_path / "multi.tsl"),
                         targets=("cpu", "cuda:sm_80"))
    assert tessel.Session(out).targets == [
        "cpu:x86-64-v4+avx512bf16+avx512vnni", "cpu:x86-64-v3", "cuda:sm_80"]


def test_cpu_variants(mlp):
    """Every CPU variant of the default list that this CPU runs gives the
    reference's results; one it cannot run is refused with what it lacks."""
    data = tessel.compile(mlp.onnx)
    x = mlp.input(3)
    ran = []
    for variant in tessel.Session(data).targets:
        try:
            session = tessel.Session(data, cpu_variant=variant)
        except tessel.Error as e:
            assert "lacks" in str(e), e
            continue
        assert session.binary == variant
        close(session.run({"input": x})["probs"], mlp.expected(x))
        ran.append(variant)
    assert "cpu:x86-64-v3" in ran
    # The default is the variant with the most extensions the host has.
    assert tessel.Session(data).binary == ran[0]
    with pytest.raises(tessel.Error, match="no CPU binary 'cpu:znver9'"):
        tessel.Session(data, cpu_variant="znver9")


def test_tensor_infos(mlp_session, models):
    (i,) = mlp_session.inputs
    (o,) = mlp_session.outputs
    assert (i.name, i.dtype, i.shape) == ("input", np.dtype(np.float32), ("batch", 64))
    assert (o.name, o.dtype, o.shape) == ("probs", np.dtype(np.float32), ("batch", 10))
    assert repr(i) == "TensorInfo(name='input', dtype=float32, shape=('batch', 64))"
    cnn = tessel.Session(models["cnn"].artifact)
    assert cnn.inputs[0].shape == ("batch", 3, 32, 32)
    assert "inputs input; outputs probs" in repr(mlp_session)


def test_inputs_are_not_written(models):
    # Bound in place, the inputs stay the caller's: no launch writes them
    # (the compiler never writes in place over a model input).
    for m in models.values():
        session = tessel.Session(m.artifact)
        x = m.input(3)
        before = x.copy()
        for _ in range(2):
            (out,) = session.run({m.input_name: x}).values()
            close(out, m.expected(before))
        np.testing.assert_array_equal(x, before)


def test_input_changed_between_runs(mlp, mlp_session):
    x = mlp.input(2)
    first = mlp_session.run({"input": x})["probs"]
    x[:] = mlp.input(2, seed=7)  # same memory, new values
    second = mlp_session.run({"input": x})["probs"]
    close(first, mlp.expected(mlp.input(2)))
    close(second, mlp.expected(x))


def test_strided_misaligned_and_list_inputs(mlp, mlp_session):
    x = mlp.input(3)
    expected = mlp.expected(x)
    # Fortran order and a strided view: copied contiguous, same result.
    close(mlp_session.run({"input": np.asfortranarray(x)})["probs"], expected)
    wide = np.zeros((3, 128), np.float32)
    wide[:, ::2] = x
    close(mlp_session.run({"input": wide[:, ::2]})["probs"], expected)
    # Misaligned for float32: copied too.
    raw = bytearray(x.nbytes + 1)
    misaligned = np.frombuffer(raw, dtype=np.float32, count=x.size, offset=1).reshape(x.shape)
    misaligned[...] = x
    assert not misaligned.flags.aligned
    close(mlp_session.run({"input": misaligned})["probs"], expected)
    # A list has no dtype: it takes the input's.
    close(mlp_session.run({"input": x.tolist()})["probs"], expected)


def test_run_into_writes_callers_arrays(mlp, mlp_session):
    x = mlp.input(2)
    out = np.full((2, 10), -1, np.float32)
    result = mlp_session.run_into({"input": x}, {"probs": out})
    assert result["probs"] is out
    close(out, mlp.expected(x))
    # The arrays are unbound after the call: run() leaves `out` alone.
    kept = out.copy()
    mlp_session.run({"input": mlp.input(2, seed=3)})
    np.testing.assert_array_equal(out, kept)
    # Another batch, another array.
    x5 = mlp.input(5, seed=5)
    out5 = np.empty((5, 10), np.float32)
    mlp_session.run_into({"input": x5}, {"probs": out5})
    close(out5, mlp.expected(x5))
    # No outputs given: new arrays, as run().
    close(mlp_session.run_into({"input": x5}, {})["probs"], mlp.expected(x5))


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

def test_compile_missing_file(tmp_path):
    path = str(tmp_path / "nope.onnx")
    with expect_error("COMPILE_ERROR", path, "cannot read the model file"):
        tessel.compile(path)


def test_compile_invalid_onnx(tmp_path):
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"this is not a protobuf")
    with expect_error("COMPILE_ERROR", str(path), "not a valid ONNX model"):
        tessel.compile(str(path))


def test_compile_unsupported_op(tmp_path):
    # An op of a domain Tessel has no handlers for stays unsupported however
    # many ONNX ops are added.
    node = helper.make_node("Frobnicate", ["x"], ["y"], name="frob_0",
                            domain="com.example")
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])
    model.ir_version = 8
    path = str(tmp_path / "frob.onnx")
    onnx.save(model, path)
    with expect_error("COMPILE_ERROR", path, "node 'frob_0' (Frobnicate)",
                      "unsupported op 'com.example.Frobnicate'"):
        tessel.compile(path, str(tmp_path / "frob.tsl"))
    assert not os.path.exists(tmp_path / "frob.tsl")


def test_compile_unknown_option_and_target(mlp):
    with pytest.raises(TypeError, match="unknown option 'bogus'"):
        tessel.compile(mlp.onnx, bogus=1)
    with pytest.raises(tessel.Error, match="tpu") as info:
        tessel.compile(mlp.onnx, targets=("tpu",))
    assert info.value.code == "COMPILE_ERROR"


def test_compiler_not_found(mlp, tmp_path):
    # A copy of the package with no tessel-compile beside it, none in
    # $TESSEL_COMPILE and none on PATH.
    shutil.copytree(os.path.dirname(tessel.__file__), tmp_path / "site" / "tessel")
    script = ("import tessel, sys\n"
              "try:\n"
              "    tessel.compile(sys.argv[1])\n"
              "except tessel.Error as e:\n"
              "    print(e.code, e)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TESSEL_COMPILE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(tmp_path / "site")
    env["PATH"] = str(tmp_path)
    proc = subprocess.run([sys.executable, "-c", script, mlp.onnx], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("NOT_FOUND tessel-compile not found"), proc.stdout
    # $TESSEL_COMPILE is the next place it looks.
    env["TESSEL_COMPILE"] = tessel._find_compiler()
    proc = subprocess.run([sys.executable, "-c", script, mlp.onnx], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0 and proc.stdout == "", (proc.stdout, proc.stderr)


def test_bad_artifacts(tmp_path):
    with expect_error("INVALID_ARTIFACT"):
        tessel.Session(b"not an artifact at all")
    with expect_error("INVALID_ARTIFACT"):
        tessel.Session(b"")
    path = str(tmp_path / "none.tsl")
    with pytest.raises(tessel.Error, match="none.tsl"):
        tessel.Session(path)
    with pytest.raises(TypeError):
        tessel.Session(42)


@pytest.mark.parametrize("name", ["mlp", "cnn"])
def test_vulkan_device(models, name):
    """The vulkan target on the first Vulkan device (lavapipe in `make test`,
    whose deps install it): the same results as numpy's reference, a
    session's arrays written in place."""
    m = models[name]
    data = tessel.compile(m.onnx, targets=("cpu", "vulkan"))
    session = tessel.Session(data, device="vulkan")
    assert session.targets[-1] == "vulkan"
    assert session.binary == "vulkan"
    assert session.device.startswith("vulkan:")
    for batch in (1, 3):
        x = m.input(batch, seed=batch)
        (out,) = session.run({m.input_name: x}).values()
        close(out, m.expected(x))
        (info,) = session.outputs
        into = np.empty(out.shape, np.float32)
        session.run_into({m.input_name: x}, {info.name: into})
        close(into, m.expected(x))


def test_devices_and_threads(mlp):
    try:
        gpu = tessel.Session(mlp.artifact, device="cuda")
    except tessel.Error as e:
        assert e.code == "UNAVAILABLE", str(e)  # no GPU, or no kernels for it
    else:  # a GPU is here, but the artifact has no CUDA kernels
        pytest.fail("a cpu-only artifact opened on %s" % gpu.device)
    with expect_error("NOT_FOUND", "tpu"):
        tessel.Session(mlp.artifact, device="tpu")
    with pytest.raises(ValueError, match="threads"):
        tessel.Session(mlp.artifact, threads=-1)
    s = tessel.Session(mlp.artifact, threads=1)
    x = mlp.input(2)
    close(s.run({"input": x})["probs"], mlp.expected(x))


def test_input_errors(mlp, mlp_session):
    x = mlp.input(2)
    with expect_error("NOT_FOUND", "unknown input 'nope'", "'input'"):
        mlp_session.run({"input": x, "nope": x})
    with expect_error("FAILED_PRECONDITION", "input 'input' is not set"):
        mlp_session.run({})
    with expect_error("INVALID_ARGUMENT", "input 'input': expected dtype float32, got float64"):
        mlp_session.run({"input": x.astype(np.float64)})
    with expect_error("INVALID_ARGUMENT", "input 'input': expected dtype float32, got int32"):
        mlp_session.run({"input": np.zeros((2, 64), np.int32)})
    with expect_error("INVALID_ARGUMENT", "input 'input': expected dtype float32, got complex64"):
        mlp_session.run({"input": np.zeros((2, 64), np.complex64)})
    with expect_error("INVALID_ARGUMENT", "input 'input': dim 1 is 63, expected 64"):
        mlp_session.run({"input": np.zeros((2, 63), np.float32)})
    with expect_error("INVALID_ARGUMENT", "input 'input': expected rank 2"):
        mlp_session.run({"input": np.zeros((2, 64, 1), np.float32)})
    with expect_error("INVALID_ARGUMENT", "expected rank 2"):
        mlp_session.run({"input": np.zeros(64, np.float32)})
    with pytest.raises(TypeError):
        mlp_session.run({1: x})
    # The session still works after every failure.
    close(mlp_session.run({"input": x})["probs"], mlp.expected(x))


def test_run_into_errors(mlp, mlp_session):
    x = mlp.input(2)
    feeds = {"input": x}
    with expect_error("INVALID_ARGUMENT", "output 'probs': expected dtype float32, got float64"):
        mlp_session.run_into(feeds, {"probs": np.empty((2, 10), np.float64)})
    with expect_error("INVALID_ARGUMENT", "output 'probs': the array must be C-contiguous"):
        mlp_session.run_into(feeds, {"probs": np.empty((10, 2), np.float32).T})
    with expect_error("INVALID_ARGUMENT", "output 'probs': the array must be C-contiguous"):
        mlp_session.run_into(feeds, {"probs": np.empty((2, 20), np.float32)[:, ::2]})
    readonly = np.empty((2, 10), np.float32)
    readonly.flags.writeable = False
    with expect_error("INVALID_ARGUMENT", "output 'probs': the array is read-only"):
        mlp_session.run_into(feeds, {"probs": readonly})
    # Static dims are checked before the run...
    with expect_error("INVALID_ARGUMENT", "output 'probs': expected shape (batch, 10), "
                      "got an array of shape (2, 5)"):
        mlp_session.run_into(feeds, {"probs": np.empty((2, 5), np.float32)})
    with expect_error("INVALID_ARGUMENT", "expected shape (batch, 10)"):
        mlp_session.run_into(feeds, {"probs": np.empty(20, np.float32)})
    # ... the batch by the run: too small fails it (the runtime's message) ...
    with expect_error("INVALID_ARGUMENT", "output 'probs' needs 80 bytes, "
                      "but its bound buffer has 40"):
        mlp_session.run_into(feeds, {"probs": np.empty((1, 10), np.float32)})
    # ... and a larger array of another shape is refused after it.
    with expect_error("INVALID_ARGUMENT", "output 'probs': the run produced shape (2, 10), "
                      "but the array has shape (4, 10)"):
        mlp_session.run_into(feeds, {"probs": np.empty((4, 10), np.float32)})
    with expect_error("NOT_FOUND", "unknown output 'nope'"):
        mlp_session.run_into(feeds, {"nope": np.empty((2, 10), np.float32)})
    with expect_error("INVALID_ARGUMENT", "expected a numpy array"):
        mlp_session.run_into(feeds, {"probs": [0.0] * 20})
    out = np.empty((2, 10), np.float32)
    mlp_session.run_into(feeds, {"probs": out})
    close(out, mlp.expected(x))


def test_two_inputs_new_batch_after_failed_run(tmp_path):
    # y = a + b, z = a * b over [batch, 4]: after a run that fails on an
    # output array too small, another batch size still runs.
    nodes = [helper.make_node("Add", ["a", "b"], ["y"], name="add_0"),
             helper.make_node("Mul", ["a", "b"], ["z"], name="mul_0")]
    info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", 4])
    graph = helper.make_graph(nodes, "two", [info("a"), info("b")], [info("y"), info("z")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    path = str(tmp_path / "two.onnx")
    onnx.save(model, path)
    session = tessel.Session(tessel.compile(path))
    assert [i.name for i in session.inputs] == ["a", "b"]
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((2, 4)).astype(np.float32) for _ in range(2))
    with expect_error("INVALID_ARGUMENT", "output 'z' needs 32 bytes"):
        session.run_into({"a": a, "b": b}, {"z": np.empty((1, 4), np.float32)})
    a, b = (rng.standard_normal((3, 4)).astype(np.float32) for _ in range(2))
    z = np.empty((3, 4), np.float32)
    out = session.run_into({"b": b, "a": a}, {"z": z})
    assert list(out) == ["y", "z"] and out["z"] is z
    close(out["y"], a + b)
    close(z, a * b)
    with expect_error("INVALID_ARGUMENT", "symbol 'batch'"):
        session.run({"a": a, "b": b[:2]})


def test_error_is_picklable():
    import pickle
    e = pickle.loads(pickle.dumps(tessel.Error("m", "NOT_FOUND")))
    assert (str(e), e.code) == ("m", "NOT_FOUND")


# ---------------------------------------------------------------------------
# Threads and memory
# ---------------------------------------------------------------------------

def test_one_session_from_four_threads(mlp, mlp_session):
    # Each thread its own batch size, so that interleaved runs would bind
    # different shapes: the session serializes them.
    failures = []
    barrier = threading.Barrier(4)

    def work(t):
        try:
            barrier.wait()
            for i in range(25):
                x = mlp.input(1 + t, seed=100 * t + i)
                if i % 2:
                    out = np.empty((1 + t, 10), np.float32)
                    mlp_session.run_into({"input": x}, {"probs": out})
                else:
                    out = mlp_session.run({"input": x})["probs"]
                close(out, mlp.expected(x))
        except Exception as e:  # noqa: BLE001 - reported below
            failures.append("thread %d: %r" % (t, e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, failures


def test_gil_is_released_during_runs(models):
    # One thread runs the CNN on a large batch 8 times; this one spins
    # meanwhile, timing its iterations. Were the GIL held during a run,
    # each run would stop this thread for about the run's duration; with
    # it released, such a gap happens only if the OS preempts this thread.
    import time
    m = models["cnn"]
    session = tessel.Session(m.artifact, threads=1)
    x = m.input(1024)
    durations = []
    done = threading.Event()

    def runner():
        for _ in range(8):
            start = time.perf_counter()
            session.run({m.input_name: x})
            durations.append(time.perf_counter() - start)
        done.set()

    th = threading.Thread(target=runner)
    th.start()
    gaps = []
    last = time.perf_counter()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
    th.join()
    shortest = min(durations)
    long_gaps = [g for g in gaps if g > shortest / 2]
    assert len(long_gaps) <= 2, (shortest, sorted(gaps)[-10:])


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_no_memory_growth_over_1000_runs(mlp):
    session = tessel.Session(mlp.artifact)
    x = mlp.input(8)
    out = np.empty((8, 10), np.float32)
    bad = x.astype(np.float64)
    rss_after_100 = None
    for i in range(1000):
        session.run({"input": x})
        session.run_into({"input": x}, {"probs": out})
        if i % 10 == 0:  # the error paths too
            with pytest.raises(tessel.Error):
                session.run({"input": bad})
        if i == 99:
            rss_after_100 = _rss_bytes()
    growth = _rss_bytes() - rss_after_100
    print("RSS growth from run 100 to 1000: %d bytes" % growth)
    assert growth < 2 * 1024 * 1024, "RSS grew by %d bytes" % growth
    close(out, mlp.expected(x))


# ---------------------------------------------------------------------------
# The installed layout
# ---------------------------------------------------------------------------

@pytest.mark.skipif(not os.environ.get("TESSEL_BUILD_DIR") or not shutil.which("cmake"),
                    reason="needs TESSEL_BUILD_DIR (set by the check-python target)")
def test_installed_layout(mlp, tmp_path):
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", os.environ["TESSEL_BUILD_DIR"],
                    "--component", "python", "--prefix", str(prefix)],
                   check=True, stdout=subprocess.DEVNULL)
    package = prefix / "lib" / "python3" / "dist-packages" / "tessel"
    assert (package / "__init__.py").is_file()
    # compile() finds <prefix>/bin/tessel-compile first.
    (prefix / "bin").mkdir()
    os.symlink(tessel._find_compiler(), prefix / "bin" / "tessel-compile")
    script = (
        "import numpy as np, tessel, sys\n"
        "assert tessel.__file__.startswith(sys.argv[1]), tessel.__file__\n"
        "assert tessel._find_compiler() == sys.argv[1] + '/bin/tessel-compile'\n"
        "s = tessel.Session(tessel.compile(sys.argv[2]))\n"
        "print(s.run({'input': np.zeros((2, 64), np.float32)})['probs'].shape)\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TESSEL_COMPILE", "PYTHONPATH")}
    env["PYTHONPATH"] = str(prefix / "lib" / "python3" / "dist-packages")
    env["PATH"] = "/usr/bin:/bin"
    proc = subprocess.run([sys.executable, "-c", script, str(prefix), mlp.onnx],
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(2, 10)"
