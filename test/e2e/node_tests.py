#!/usr/bin/python3
"""ONNX backend node-test conformance runner for Tessel.

For every folder of the ONNX node tests (model.onnx + test_data_set_*/):
select it iff the compiler supports what it uses and every graph
input/output is a tensor. The compiler is the judge (`tessel-compile
--check-supported`, which imports each model and nothing else): a node is
supported when the importer has a handler for its op at the opset the model
imports, or expands it into a function body of supported ops; an import
error that is not about support selects the test, so that it fails visibly.
Then

    tessel-compile model.onnx -o model.tsl
    tessel-run model.tsl --input NAME=test_data_set_K/input_I.pb ... --output-dir OUT

and compare OUT/<sanitized output name>.npy with test_data_set_K/output_I.pb:
same shape, same dtype, values close (float32/64: rtol 1e-3, atol 1e-7, the
defaults of ONNX's own backend test runner, whose reference outputs some
tests round to 4 decimals; float16/bfloat16: rtol 1e-3, atol 1e-3; ints and
bools exact; NaN == NaN).

With --device vulkan, each test is compiled for the vulkan target and run on
the first Vulkan device (Mesa's lavapipe here), against the same reference
outputs and tolerances.

Known failures live in the xfail file (test/e2e/node_tests.xfail), one
"test_name  # reason" a line; a device's own exceptions are in a second file
(--device-xfail: node_tests.cpu.xfail for the CPU run, which also compiles
every test for a CUDA and a ROCm target offline, node_tests.vulkan.xfail for
vulkan),
read on top of it. An xfail that passes (XPASS) fails the run,
so the file never goes stale silently.

Conformance over all folders: a folder that is not selected (an op, opset or
data type the compiler lacks, a non-tensor input) counts as not passing, with
the compiler's reason. Without --filter, the number of passing folders is
checked against the ratchet file (test/e2e/node_tests.ratchet: one
"<device> <count>" a line): fewer passes than recorded fail the run, more
print a reminder to raise it (--update-ratchet writes the count).
--conformance-md FILE writes the report docs/conformance.md is: the totals,
one line per op family, and every folder that does not pass with its reason.

Last lines: `selected S of T folders`, `conformance: P of T folders pass` and
`node-tests: N passed, M failed, K skipped` (skipped = expected failures).
Exit 0 when nothing but expected failures failed (and the ratchet holds), 1
otherwise, 2 on bad usage.

Run it with /usr/bin/python3 (Debian's python3-onnx and python3-numpy).
"""

import argparse
import concurrent.futures
import glob
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import cpu_variant
import gpu_offline as gpu_offline_check

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


TEST_TIMEOUT_S = 120.0

TOLERANCES = {  # dtype -> (rtol, atol)
    np.dtype(np.float64): (1e-3, 1e-7),
    np.dtype(np.float32): (1e-3, 1e-7),
    np.dtype(np.float16): (1e-3, 1e-3),
}
BF16_TOLERANCE = (1e-2, 1e-2)


def sanitize(name):
    """The file name tessel-run gives an output: [A-Za-z0-9._-] kept, the rest '_'."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------

def _graphs_of(attr):
    if attr.type == onnx.AttributeProto.GRAPH:
        return [attr.g]
    if attr.type == onnx.AttributeProto.GRAPHS:
        return list(attr.graphs)
    return []


def _value_kind(vi):
    return vi.type.WhichOneof("value")


def graph_inputs(graph):
    """Graph inputs that are not backed by an initializer, in order."""
    inits = {t.name for t in graph.initializer} | {t.values.name for t in graph.sparse_initializer}
    return [vi for vi in graph.input if vi.name not in inits]


def compiler_support(compile_bin, paths):
    """{model path: (status, message)} from `tessel-compile --check-supported`.

    status is "supported", "unsupported" (an op, opset or data type the
    compiler lacks) or "invalid" (any other import error). All models go to
    one process; should it die on a model, that model is reported as
    "invalid" with the reason and the rest are asked again."""
    answers, pending = {}, list(paths)
    while pending:
        p = subprocess.run([compile_bin, "--check-supported"] + pending,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL)
        for line in p.stdout.decode("utf-8", "replace").splitlines():
            path, _, rest = line.partition("\t")
            status, _, message = rest.partition("\t")
            if status in ("supported", "unsupported", "invalid"):
                answers[path] = (status, message)
        left = [path for path in pending if path not in answers]
        if not left:
            break
        # The process stopped before answering left[0]: it died on that model.
        what = ("killed by signal %d" % -p.returncode if p.returncode < 0
                else "exit %d" % p.returncode)
        answers[left[0]] = ("invalid", "tessel-compile --check-supported: %s: %s"
                            % (what, _first_line(p.stderr.decode("utf-8", "replace"))))
        pending = left[1:]
    return answers


def classify(folder, support):
    """Returns (selected, reason, info). info: dict(inputs, outputs) when parsed.

    support: the compiler's (status, message) for the folder's model.onnx."""
    path = os.path.join(folder, "model.onnx")
    if not os.path.isfile(path):
        return False, "no model.onnx", None
    try:
        model = onnx.load(path, load_external_data=False)
    except Exception as e:  # noqa: BLE001 - any parse failure means "not selected"
        return False, "model.onnx does not parse (%s: %s)" % (type(e).__name__,
                                                             str(e).splitlines()[0][:80]
                                                             if str(e) else ""), None
    g = model.graph
    info = {"inputs": [vi.name for vi in graph_inputs(g)],
            "outputs": [vi.name for vi in g.output],
            "ops": sorted({n.op_type for n in g.node})}
    for what, vis in (("input", graph_inputs(g)), ("output", g.output)):
        for vi in vis:
            kind = _value_kind(vi)
            if kind not in (None, "tensor_type"):
                return False, "non-tensor %s '%s' (%s)" % (what, vi.name, kind), info
    status, message = support
    if status == "unsupported":
        prefix = path + ": "
        return False, message[len(prefix):] if message.startswith(prefix) else message, info
    return True, "", info


# ---------------------------------------------------------------------------
# xfail file
# ---------------------------------------------------------------------------

def read_xfail(path):
    """{test name: reason}. Raises ValueError on an entry without a reason."""
    entries = {}
    if not path or not os.path.exists(path):
        return entries
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            name, sep, reason = line.partition("#")
            name, reason = name.strip(), reason.strip()
            if not sep or not reason or len(name.split()) != 1:
                raise ValueError("%s:%d: expected 'test_name  # reason', got %r"
                                 % (path, lineno, line))
            if name in entries:
                raise ValueError("%s:%d: %s is listed twice" % (path, lineno, name))
            entries[name] = reason
    return entries


# ---------------------------------------------------------------------------
# Running one test
# ---------------------------------------------------------------------------

def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:200]
    return "(no message)"


def _num_key(path):
    m = re.search(r"_(\d+)\.pb$", path)
    return int(m.group(1)) if m else 0


# ONNX's narrow formats, which onnx 1.12's numpy_helper cannot read:
# data type -> (name, bits per element in the proto, kind). tessel-run
# writes them as float32 (float8/float4 values, exactly), int8 (int4/int2)
# or uint8 (uint4/uint2), so the references are decoded to the same.
NARROW = {
    17: ("float8e4m3fn", 8, "float"), 18: ("float8e4m3fnuz", 8, "float"),
    19: ("float8e5m2", 8, "float"), 20: ("float8e5m2fnuz", 8, "float"),
    21: ("uint4", 4, "uint"), 22: ("int4", 4, "int"),
    23: ("float4e2m1", 4, "float"), 24: ("float8e8m0", 8, "float"),
    25: ("uint2", 2, "uint"), 26: ("int2", 2, "int"),
}


def _narrow_float(data_type, code):
    """The value of one float8/float4 bit pattern, from ONNX's format notes."""
    if data_type == 24:  # E8M0: 2^(code - 127), 0xFF NaN
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    e, m, bias = {17: (4, 3, 7), 18: (4, 3, 8), 19: (5, 2, 15), 20: (5, 2, 16),
                  23: (2, 1, 1)}[data_type]
    sign = -1.0 if code >> (e + m) & 1 else 1.0
    mag = code & ((1 << (e + m)) - 1)
    exp, man = mag >> m, mag & ((1 << m) - 1)
    if data_type in (18, 20) and code == 0x80:
        return float("nan")
    if data_type == 17 and mag == 0x7F:
        return float("nan")
    if data_type == 19 and exp == 31:
        return sign * float("inf") if man == 0 else float("nan")
    if exp == 0:
        return sign * man * 2.0 ** (1 - bias - m)
    return sign * (1 + man / 2.0 ** m) * 2.0 ** (exp - bias)


def load_expected(path):
    """A reference output as numpy; narrow formats decoded (see NARROW)."""
    t = onnx.load_tensor(path)
    if t.data_type not in NARROW:
        return numpy_helper.to_array(t)
    _, bits, kind = NARROW[t.data_type]
    count = int(np.prod(t.dims, dtype=np.int64))
    if t.HasField("raw_data"):
        packed = np.frombuffer(t.raw_data, dtype=np.uint8)
    else:
        packed = np.array(t.int32_data, dtype=np.int64).astype(np.uint8)
    per_byte = 8 // bits
    idx = np.arange(count)
    codes = (packed[idx // per_byte].astype(np.int64) >> (bits * (idx % per_byte))) & ((1 << bits) - 1)
    if kind == "float":
        values = np.array([_narrow_float(t.data_type, int(c)) for c in codes], dtype=np.float32)
        return NarrowFloat(values.reshape(tuple(t.dims)))
    if kind == "int":
        codes = np.where(codes >= 1 << (bits - 1), codes - (1 << bits), codes)
        return codes.astype(np.int8).reshape(tuple(t.dims))
    return codes.astype(np.uint8).reshape(tuple(t.dims))


class NarrowFloat(np.ndarray):
    """float32 values of a float8/float4 reference: compared exactly."""

    def __new__(cls, values):
        return np.asarray(values).view(cls)


def compare(expected, actual):
    """None if equal under the tolerance of the dtype, else a short reason."""
    if isinstance(expected, NarrowFloat):  # every value is exact in float32
        expected = np.asarray(expected)
        if actual.dtype != expected.dtype or actual.shape != expected.shape:
            return "dtype %s %s, expected %s %s (float8/float4 as float32)" % (
                actual.dtype, list(actual.shape), expected.dtype, list(expected.shape))
        same = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
        if same.all():
            return None
        idx = tuple(np.argwhere(~same)[0])
        return "%d of %d values differ (exact); first at %s: %r vs expected %r" % (
            int((~same).sum()), expected.size, list(idx), actual[idx].item(),
            expected[idx].item())
    if actual.dtype != expected.dtype:
        return "dtype %s, expected %s" % (actual.dtype, expected.dtype)
    if actual.shape != expected.shape:
        return "shape %s, expected %s" % (list(actual.shape), list(expected.shape))
    if expected.size == 0:
        return None
    kind = expected.dtype.kind
    if kind in "fc" or expected.dtype.name == "bfloat16":
        rtol, atol = TOLERANCES.get(expected.dtype, BF16_TOLERANCE)
        e = expected.astype(np.float64) if kind != "c" else expected.astype(np.complex128)
        a = actual.astype(e.dtype)
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
        if close.all():
            return None
        bad = np.argwhere(~close)
        idx = tuple(bad[0])
        err = np.abs(a - e)
        err[~np.isfinite(err)] = 0
        return "%d of %d values differ (rtol %g, atol %g); first at %s: %r vs expected %r, " \
               "max abs err %.3g" % (len(bad), e.size, rtol, atol, list(idx), a[idx].item(),
                                     e[idx].item(), float(err.max()))
    if np.array_equal(actual, expected):
        return None
    bad = np.argwhere(actual != expected)
    idx = tuple(bad[0])
    return "%d of %d values differ; first at %s: %r vs expected %r" % (
        len(bad), expected.size, list(idx), actual[idx].item(), expected[idx].item())


class Result:
    def __init__(self, name, ok, reason=""):
        self.name, self.ok, self.reason = name, ok, reason


def gpu_sample(selected, share, always=()):
    """The names of the selected tests whose GPU code is checked offline:
    those in `always` (the expected failures, some of which fail only
    there), one in `share` by a hash of the name, then the first test (in
    order) of every op type those do not reach, so that every op's GPU code
    is still checked in every run. The offline compile costs more than the
    CPU run itself; a third of the folders keeps the coverage at well under
    half the time."""
    chosen = {d for d, _ in selected
              if d in always or (zlib.crc32(d.encode("utf-8")) // 2) % max(1, share) == 0}
    covered = set()
    for d, info in selected:
        if d in chosen:
            covered.update(info["ops"])
    for d, info in selected:
        if not covered.issuperset(info["ops"]):
            chosen.add(d)
            covered.update(info["ops"])
    return chosen


def run_test(name, folder, info, bin_dir, work_dir, timeout_s, gpu_offline=True,
             compile_args=(), device=None, every_gpu_target=False):
    deadline = time.monotonic() + timeout_s
    tdir = os.path.join(work_dir, name)
    shutil.rmtree(tdir, ignore_errors=True)
    os.makedirs(tdir)
    compile_bin = os.path.join(bin_dir, "tessel-compile")
    run_bin = os.path.join(bin_dir, "tessel-run")

    def call(stage, cmd):
        left = deadline - time.monotonic()
        if left <= 0:
            return "%s: timed out (test limit %ds)" % (stage, timeout_s)
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=left, cwd=tdir)
        except subprocess.TimeoutExpired:
            return "%s: timed out (test limit %ds)" % (stage, timeout_s)
        except OSError as e:
            return "%s: cannot start %s: %s" % (stage, cmd[0], e)
        if p.returncode != 0:
            what = ("killed by signal %d" % -p.returncode if p.returncode < 0
                    else "exit %d" % p.returncode)
            return "%s: %s: %s" % (stage, what, _first_line(p.stderr.decode("utf-8", "replace")))
        return None

    tsl = os.path.join(tdir, "model.tsl")
    target = (["--target", device.split(":")[0]] if device
              else ["--mcpu", cpu_variant.suite_variant()])
    err = call("compile", [compile_bin, os.path.join(folder, "model.onnx"), "-o", tsl]
               + target + list(compile_args))
    if err:
        return Result(name, False, err)
    if not os.path.isfile(tsl):
        return Result(name, False, "compile: exit 0 but no %s" % os.path.basename(tsl))

    if gpu_offline:
        cuda, rocm = gpu_offline_check.targets_for(name, every_gpu_target)
        err = gpu_offline_check.check(compile_bin, os.path.join(folder, "model.onnx"), tdir,
                                      max(1.0, deadline - time.monotonic()), cuda, rocm)
        if err:
            return Result(name, False, err)

    data_sets = sorted(glob.glob(os.path.join(folder, "test_data_set_*")),
                       key=lambda p: int(re.sub(r"\D", "", os.path.basename(p)) or 0))
    if not data_sets:
        return Result(name, False, "no test_data_set_* folder")
    for ds in data_sets:
        dsn = os.path.basename(ds)
        in_files = sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=_num_key)
        out_files = sorted(glob.glob(os.path.join(ds, "output_*.pb")), key=_num_key)
        if len(in_files) > len(info["inputs"]):
            return Result(name, False, "%s: %d input files for %d graph inputs"
                          % (dsn, len(in_files), len(info["inputs"])))
        if len(out_files) != len(info["outputs"]):
            return Result(name, False, "%s: %d output files for %d graph outputs"
                          % (dsn, len(out_files), len(info["outputs"])))
        out_dir = os.path.join(tdir, dsn)
        os.makedirs(out_dir)
        cmd = [run_bin, tsl] + (["--device", device] if device else [])
        for in_name, f in zip(info["inputs"], in_files):
            cmd += ["--input", "%s=%s" % (in_name, f)]
        cmd += ["--output-dir", out_dir]
        err = call("run %s" % dsn, cmd)
        if err:
            return Result(name, False, err)
        for out_name, f in zip(info["outputs"], out_files):
            try:
                expected = load_expected(f)
            except Exception as e:  # noqa: BLE001
                return Result(name, False, "%s: cannot read %s: %s"
                              % (dsn, os.path.basename(f), _first_line(str(e))))
            produced = os.path.join(out_dir, sanitize(out_name) + ".npy")
            if not os.path.isfile(produced):
                return Result(name, False, "%s: output '%s' not written (%s)"
                              % (dsn, out_name, os.path.basename(produced)))
            try:
                actual = np.load(produced, allow_pickle=False)
            except Exception as e:  # noqa: BLE001
                return Result(name, False, "%s: %s is not a valid .npy: %s"
                              % (dsn, os.path.basename(produced), _first_line(str(e))))
            diff = compare(expected, actual)
            if diff:
                return Result(name, False, "%s: output '%s': %s" % (dsn, out_name, diff))
    return Result(name, True)


# ---------------------------------------------------------------------------
# Conformance: ratchet and report
# ---------------------------------------------------------------------------

def read_ratchet(path):
    """{device: count} from lines "<device> <count>" (# comments allowed)."""
    counts = {}
    if not os.path.exists(path):
        return counts
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError("%s:%d: expected '<device> <count>', got %r"
                                 % (path, lineno, raw.strip()))
            counts[parts[0]] = int(parts[1])
    return counts


def write_ratchet(path, counts):
    with open(path, "w", encoding="utf-8") as f:
        f.write("# Passing ONNX node-test folders per device (test/e2e/node_tests.py).\n"
                "# A run over all folders fails below these counts; raise them as the\n"
                "# compiler grows (node_tests.py --update-ratchet), never lower them.\n")
        for device in sorted(counts):
            f.write("%s %d\n" % (device, counts[device]))


def op_families(tests_dir, folders):
    """{folder: op family}: the op type of a one-node graph; a graph of
    several nodes takes its twin's (test_x_expanded -> test_x), else the
    op types it uses joined by '+' (at most three)."""
    ops = {}
    for d in folders:
        try:
            g = onnx.load(os.path.join(tests_dir, d, "model.onnx"),
                          load_external_data=False).graph
            ops[d] = [n.op_type for n in g.node]
        except Exception:  # noqa: BLE001 - an unreadable model is its own family
            ops[d] = []
    families = {}
    for d in folders:
        if len(ops[d]) == 1:
            families[d] = ops[d][0]
            continue
        twin = re.sub(r"_expanded(_ver\d+)?$", "", d)
        if twin != d and len(ops.get(twin, [])) == 1:
            families[d] = ops[twin][0]
            continue
        seen = list(dict.fromkeys(ops[d]))
        families[d] = "+".join(seen[:3]) + ("+..." if len(seen) > 3 else "") or "(no nodes)"
    return families


def write_conformance(path, tests_dir, outcomes, device, command):
    """outcomes: {folder: (status, reason)}, status pass / fail / xfail /
    unsupported."""
    families = op_families(tests_dir, sorted(outcomes))
    rev = ""
    rev_file = os.path.join(tests_dir, "ONNX_REV")
    if os.path.isfile(rev_file):
        with open(rev_file, encoding="utf-8") as f:
            rev = f.read().strip()
    by_family = {}
    for d, (status, reason) in outcomes.items():
        by_family.setdefault(families[d], []).append((d, status, reason))
    total = len(outcomes)
    passed = sum(1 for st, _ in outcomes.values() if st == "pass")
    counts = {st: sum(1 for s_, _ in outcomes.values() if s_ == st)
              for st in ("pass", "xfail", "fail", "unsupported")}
    lines = [
        "# ONNX node-test conformance",
        "",
        "Generated by `%s` (`make test` writes it to build/test/e2e/work/"
        "conformance.md); do not edit by hand." % command,
        "",
        "The ONNX backend node tests%s: every folder of ../shared/onnx-node-tests, on "
        "the %s. A folder passes when the compiled model's outputs match every "
        "test_data_set (test/e2e/node_tests.py has the tolerances)." % (
            " (ONNX_REV: %s)" % rev if rev else "", device),
        "",
        "| | folders |",
        "|---|---|",
        "| pass | %d (%.1f %%) |" % (passed, 100.0 * passed / max(1, total)),
        "| expected failures (node_tests.xfail, with reasons) | %d |" % counts["xfail"],
        "| failures | %d |" % counts["fail"],
        "| unsupported (an op, opset, data type or kind of value the compiler lacks) | %d |"
        % counts["unsupported"],
        "| total | %d |" % total,
        "",
        "## By op family",
        "",
        "A family is the op a folder tests (an `_expanded` folder counts with its op).",
        "",
        "| family | folders | pass | not passing |",
        "|---|---|---|---|",
    ]
    for fam in sorted(by_family, key=lambda f: (-len(by_family[f]), f)):
        rows = by_family[fam]
        ok = sum(1 for _, st, _ in rows if st == "pass")
        lines.append("| %s | %d | %d | %d |" % (fam, len(rows), ok, len(rows) - ok))
    lines += ["", "## Every folder that does not pass, with its reason", ""]
    for fam in sorted(by_family):
        rows = [(d, st, r) for d, st, r in sorted(by_family[fam]) if st != "pass"]
        if not rows:
            continue
        lines.append("### %s" % fam)
        lines.append("")
        for d, st, reason in rows:
            reason = re.sub(r"\s+", " ", reason).replace("|", "\\|")
            if tests_dir in reason:
                reason = reason.replace(tests_dir.rstrip("/") + "/", "")
            lines.append("- `%s` (%s): %s" % (d, st, reason[:300]))
        lines.append("")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def default_tests_dir():
    return os.environ.get("TESSEL_NODE_TESTS") or os.path.normpath(
        os.path.join(REPO, "..", "shared", "onnx-node-tests"))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Run the ONNX backend node tests that use only ops Tessel supports.")
    ap.add_argument("--tests-dir", default=default_tests_dir(),
                    help="the node-test folders (default: $TESSEL_NODE_TESTS or "
                    "<repo>/../shared/onnx-node-tests)")
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"),
                    help="folder of tessel-compile and tessel-run (default: build/bin)")
    ap.add_argument("--work-dir", help="scratch folder (default: a fresh temporary folder "
                    "in the build folder, the parent of --bin-dir; removed when all pass)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="tests run at once (default 2)")
    ap.add_argument("--filter", help="only folders whose name matches this regex (re.search)")
    ap.add_argument("--xfail", default=os.path.join(HERE, "node_tests.xfail"),
                    help="expected-failure list (default test/e2e/node_tests.xfail)")
    ap.add_argument("--device", help="compile for this device's target and run on it "
                    "(vulkan, vulkan:N); default: the CPU")
    ap.add_argument("--device-xfail",
                    help="the device's own expected failures, on top of --xfail "
                    "(default test/e2e/node_tests.<driver>.xfail: cpu without --device, "
                    "whose run also compiles every test for the GPU targets offline)")
    ap.add_argument("--list", action="store_true", help="print the selected tests only")
    ap.add_argument("--list-unselected", action="store_true",
                    help="print every folder not selected, with the reason")
    ap.add_argument("--timeout", type=float, default=TEST_TIMEOUT_S,
                    help="seconds per test (default %d)" % TEST_TIMEOUT_S)
    ap.add_argument("--no-gpu-offline", action="store_true",
                    help="skip compiling each test for the GPU targets and checking the code "
                         "offline (ptxas for PTX, llvm-readobj for hsaco)")
    ap.add_argument("--every-gpu-target", action="store_true",
                    help="check every GPU target offline on every test (default: one CUDA "
                         "and one ROCm target per test, chosen by a hash of its name, so "
                         "that each target is checked on about half the tests)")
    ap.add_argument("--gpu-offline-share", type=int, default=3, metavar="N",
                    help="check the GPU code of the expected failures, of one test in N "
                         "chosen by a hash of its name, and of the first test of each op type "
                         "those miss (default 3: the offline GPU compile costs more than the "
                         "CPU run itself); 1 checks every test")
    ap.add_argument("--compile-arg", action="append", default=[], metavar="ARG",
                    help="pass ARG to tessel-compile as well (repeatable), e.g. "
                         "--compile-arg=--cpu-gpu-tiles to run the CPU with a GPU's tiles")
    ap.add_argument("--keep-work", action="store_true",
                    help="keep the scratch folders of passing tests too")
    ap.add_argument("--sample", type=float, default=1.0, metavar="FRACTION",
                    help="run a seeded random share of the folders (0 < FRACTION <= 1), "
                    "e.g. the sanitizer build's run; no ratchet then")
    ap.add_argument("--seed", type=int, default=20, help="seed of --sample (default 20)")
    ap.add_argument("--ratchet", default=os.path.join(HERE, "node_tests.ratchet"),
                    help="passing-folder counts per device (default "
                    "test/e2e/node_tests.ratchet); checked on runs over all folders")
    ap.add_argument("--update-ratchet", action="store_true",
                    help="record this run's passing count in the ratchet file")
    ap.add_argument("--conformance-md", metavar="FILE",
                    help="write the conformance report (docs/conformance.md) to FILE")
    args = ap.parse_args(argv)
    args.bin_dir = os.path.abspath(args.bin_dir)  # the tests run in their own folders

    if not os.path.isdir(args.tests_dir):
        print("node-tests: error: no node-test folder at %s (set --tests-dir or "
              "TESSEL_NODE_TESTS)" % args.tests_dir, file=sys.stderr)
        return 2
    try:
        pattern = re.compile(args.filter) if args.filter else None
    except re.error as e:
        print("node-tests: error: bad --filter: %s" % e, file=sys.stderr)
        return 2
    try:
        xfail = read_xfail(args.xfail)
        driver = (args.device or "cpu").split(":")[0]
        device_xfail = args.device_xfail or os.path.join(HERE, "node_tests.%s.xfail" % driver)
        for name, reason in read_xfail(device_xfail).items():
            if name in xfail:
                raise ValueError("%s: %s is already in %s" % (device_xfail, name, args.xfail))
            xfail[name] = "%s: %s" % (driver, reason)
    except ValueError as e:
        print("node-tests: error: %s" % e, file=sys.stderr)
        return 2

    compile_bin = os.path.join(args.bin_dir, "tessel-compile")
    if not os.access(compile_bin, os.X_OK):
        print("node-tests: error: %s not found or not executable (build first, or set "
              "--bin-dir): it decides which tests are selected" % compile_bin,
              file=sys.stderr)
        return 2
    folders = sorted(d for d in os.listdir(args.tests_dir)
                     if os.path.isdir(os.path.join(args.tests_dir, d)))
    total = len(folders)
    if pattern:
        folders = [d for d in folders if pattern.search(d)]
    if not 0.0 < args.sample <= 1.0:
        print("node-tests: error: --sample must be in (0, 1]", file=sys.stderr)
        return 2
    sampled = args.sample < 1.0
    if sampled:
        keep = max(1, round(len(folders) * args.sample))
        folders = sorted(random.Random(args.seed).sample(folders, keep))
    in_run = set(folders)
    models = {d: os.path.join(args.tests_dir, d, "model.onnx") for d in folders}
    support = compiler_support(compile_bin, [m for m in models.values() if os.path.isfile(m)])
    selected, unselected = [], []
    for d in folders:
        ok, reason, info = classify(os.path.join(args.tests_dir, d),
                                    support.get(models[d], ("unsupported", "no answer")))
        (selected if ok else unselected).append((d, info if ok else reason))

    sel_names = {d for d, _ in selected}
    all_names = set(os.listdir(args.tests_dir))
    for name in sorted(xfail):
        if name not in all_names:
            print("WARNING: xfail entry %s: no such test folder; remove it from %s"
                  % (name, args.xfail))
        elif name not in sel_names and name in in_run:
            print("WARNING: xfail entry %s: test is not selected; remove it from %s"
                  % (name, args.xfail))

    filt = (" matching /%s/" % args.filter if args.filter else "") + (
        " (a sample of %g, seed %d)" % (args.sample, args.seed) if sampled else "")
    if args.list or args.list_unselected:
        if args.list:
            for d, _ in selected:
                print(d + ("  # xfail: " + xfail[d] if d in xfail else ""))
        if args.list_unselected:
            for d, reason in unselected:
                print("not selected: %s: %s" % (d, reason))
        print("selected %d of %d folders%s" % (len(selected), total, filt))
        return 0

    for tool in ("tessel-compile", "tessel-run"):
        p = os.path.join(args.bin_dir, tool)
        if not os.access(p, os.X_OK):
            print("node-tests: error: %s not found or not executable (build first, or set "
                  "--bin-dir)" % p, file=sys.stderr)
            return 2

    if args.work_dir:
        work_dir = os.path.abspath(args.work_dir)
        os.makedirs(work_dir, exist_ok=True)
        temp_work = False
    else:
        build_dir = os.path.dirname(os.path.abspath(args.bin_dir))
        work_dir = tempfile.mkdtemp(prefix="node-tests-", dir=build_dir)
        temp_work = True

    gpu_checked = (set() if args.no_gpu_offline else
                   gpu_sample(selected, 1 if args.every_gpu_target else args.gpu_offline_share,
                              xfail))

    def job(item):
        d, info = item
        try:
            r = run_test(d, os.path.join(args.tests_dir, d), info, args.bin_dir, work_dir,
                         args.timeout, gpu_offline=d in gpu_checked,
                         compile_args=args.compile_arg, device=args.device,
                         every_gpu_target=args.every_gpu_target)
        except Exception as e:  # noqa: BLE001 - a harness error is that test's failure
            r = Result(d, False, "harness: %s: %s" % (type(e).__name__, e))
        if r.ok and not args.keep_work:
            shutil.rmtree(os.path.join(work_dir, d), ignore_errors=True)
        return r

    n_pass = n_fail = n_xfail = 0
    xpasses, failures = [], []
    outcomes = {d: ("unsupported", reason) for d, reason in unselected}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(job, selected):  # in order: the log reads the same every run
            outcomes[r.name] = (("pass", "") if r.ok else
                                ("xfail", xfail[r.name]) if r.name in xfail else
                                ("fail", r.reason))
            if r.name in xfail:
                if r.ok:
                    print("XPASS %s  (listed in the xfail file: %s) -- it passes now: remove "
                          "it from %s" % (r.name, xfail[r.name], args.xfail))
                    xpasses.append(r.name)
                else:
                    print("XFAIL %s  (%s) -- %s" % (r.name, xfail[r.name], r.reason))
                    n_xfail += 1
            elif r.ok:
                print("PASS  %s" % r.name)
                n_pass += 1
            else:
                print("FAIL  %s  -- %s" % (r.name, r.reason))
                failures.append(r.name)
            sys.stdout.flush()
    n_fail = len(failures) + len(xpasses)

    if failures:
        print("failed: " + " ".join(failures))
        print("(scratch files of failed tests are kept in %s)" % work_dir)
    if xpasses:
        print("unexpectedly passed (remove from %s): %s" % (args.xfail, " ".join(xpasses)))
    if temp_work and not failures and not args.keep_work:
        shutil.rmtree(work_dir, ignore_errors=True)
    if not args.no_gpu_offline:
        ptxas = ("PTX assembled by " + gpu_offline_check.PTXAS
                 if gpu_offline_check.ptxas_available()
                 else "ptxas not found at %s: PTX assembly skipped" % gpu_offline_check.PTXAS)
        if args.every_gpu_target:
            targets = "cuda:%s and rocm:%s" % (",".join(gpu_offline_check.CUDA_TARGETS),
                                               ",".join(gpu_offline_check.ROCM_TARGETS))
        else:
            targets = "one CUDA and one ROCm target (%s, by a hash of its name)" % " or ".join(
                "cuda:%s with rocm:%s" % pair for pair in zip(gpu_offline_check.CUDA_TARGETS,
                                                              gpu_offline_check.ROCM_TARGETS))
        which = ("every selected test is" if len(gpu_checked) == len(selected) else
                 "%d of the %d selected tests (the expected failures, one in %d by a hash of "
                 "its name, and the first of each op type those miss) are"
                 % (len(gpu_checked), len(selected), args.gpu_offline_share))
        print("GPU code: %s also compiled for %s; %s" % (which, targets, ptxas))
    print("selected %d of %d folders%s" % (len(selected), total, filt))
    device = (args.device or "cpu").split(":")[0]
    ratchet_failed = False
    if not pattern and not sampled and not args.compile_arg:
        print("conformance: %d of %d folders pass (%.1f %%) on %s"
              % (n_pass, total, 100.0 * n_pass / max(1, total), device))
        try:
            counts = read_ratchet(args.ratchet)
        except ValueError as e:
            print("node-tests: error: %s" % e, file=sys.stderr)
            return 2
        recorded = counts.get(device)
        if args.update_ratchet:
            counts[device] = max(n_pass, recorded or 0)
            write_ratchet(args.ratchet, counts)
            print("ratchet: %s %d recorded in %s" % (device, counts[device], args.ratchet))
        elif recorded is None:
            print("RATCHET FAIL: %s has no count for %s (run with --update-ratchet)"
                  % (args.ratchet, device))
            ratchet_failed = True
        elif n_pass < recorded:
            print("RATCHET FAIL: %d folders pass on %s, fewer than the %d recorded in %s"
                  % (n_pass, device, recorded, args.ratchet))
            ratchet_failed = True
        elif n_pass > recorded:
            print("ratchet: %d folders pass on %s, more than the %d recorded: raise it "
                  "(--update-ratchet)" % (n_pass, device, recorded))
        if args.conformance_md:
            command = "test/e2e/node_tests.py%s --conformance-md docs/conformance.md" % (
                " --device " + args.device if args.device else "")
            write_conformance(args.conformance_md, args.tests_dir, outcomes, device, command)
            print("conformance report written to %s" % args.conformance_md)
    elif args.update_ratchet or args.conformance_md:
        print("node-tests: error: --update-ratchet and --conformance-md need a run over "
              "all folders (no --filter, --sample or --compile-arg)", file=sys.stderr)
        return 2
    print("node-tests: %d passed, %d failed, %d skipped"
          % (n_pass, n_fail + (1 if ratchet_failed else 0), n_xfail))
    return 1 if n_fail or ratchet_failed else 0


if __name__ == "__main__":
    sys.exit(main())
