#!/usr/bin/python3
"""test_models.py - real models, Tessel against ONNX Runtime (`make test-models`).

The measuring stick for whole real architectures (issue 6): every model that
../shared/models/export_models.py writes is compiled once with tessel-compile
(cpu target, one CPU variant: test/e2e/cpu_variant.py)
and run on several shapes by both ONNX Runtime (ort_run.js, one
thread) and tessel-run on the same inputs; every output must agree within a
relative L2 error ||tessel - ort|| / ||ort|| <= 1e-5.

Steps, each skipped when its result is already there:
  1. installs (root, Debian 12, non-interactive): python3-torch,
     python3-torchvision, python3-onnx, python3-numpy (and nodejs + npm if
     `node`/`npm` are missing) with apt-get, only the missing ones; ONNX Runtime
     (onnxruntime-node 1.30.0) with ../shared/models/setup_ort.sh into WORK/ort.
  2. exports into WORK/export: the five models at opsets 13 and 17, and the
     two transformers with a dynamic sequence axis (--dynamic-seq) at both
     opsets: 14 models. WORK/export/stamp holds the sha256 of export_models.py;
     when it changes the cache is wiped and re-exported.
  3. per model: compile once, then per shape: inputs from a fixed numpy seed,
     ORT and tessel-run, compare. Shapes: the CNNs at batch 1 and 4 (or
     --cnn-batches; 3x224x224
     images, float32 N(0,1)); the transformers at batch x seq 1x16, 4x64 and
     2x128 (token ids uniform in [0, vocab), vocab read from the embedding
     initializer the ids index; attention masks 0/1 in the declared dtype, one
     valid prefix per row). Models exported with a static sequence length only
     take the shapes with that length; the others are listed as
     "n/a: static seq 128" and not counted.

Output: one markdown table (model, opset, shape, compile, rel-L2 per output,
result, tessel ms, ORT ms: medians of --runs timed runs; --runs 0 runs each
case once, untimed, as `make test-models` does on lavapipe, whose times say
nothing about a GPU), then, last, exactly
one line `models: N passed, M failed` (N, M count model x shape cases; a model
that fails to export or compile fails each of its cases). Exit 0 when all
passed, 1 otherwise, 2 on bad usage.

--zoo runs the other suite instead (`make test-models-zoo`, issue 20 item 5):
the architectures scripts/export_zoo.py adds (dense, inception, shuffled,
grouped, windowed and plain vision transformers, segmentation with bilinear
Resize, 3-D convolution, bidirectional LSTM/GRU, an encoder-decoder
transformer, an audio encoder, a U-Net, super-resolution, style transfer) at
opsets 13 and 17, each at batch 1 and 2 (every other dim as exported), with
relative L2 <= 1e-4. Its exports go to WORK/export-zoo.

Environment: TESSEL_SHARED_MODELS (default ../shared/models beside the repo).
Run it with /usr/bin/python3 (Debian's python3-numpy, python3-onnx).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "test", "e2e"))
import cpu_variant  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SHARED = os.environ.get("TESSEL_SHARED_MODELS",
                        os.path.join(os.path.dirname(REPO), "shared", "models"))

APT_PACKAGES = ["python3-torch", "python3-torchvision", "python3-onnx", "python3-numpy"]
ORT_VERSION = "1.30.0"
OPSETS = (13, 17)
CNNS = ("resnet18", "resnet50", "mobilenet_v2")
TRANSFORMERS = ("bert_like_d256_l4", "gpt_like_d256_l4")
CNN_BATCHES = (1, 4)
SEQ_SHAPES = ((1, 16), (4, 64), (2, 128))  # batch x sequence
TOL = 1e-5
ZOO_BATCHES = (1, 2)
ZOO_TOL = 1e-4
ZOO_SCRIPT = os.path.join(HERE, "export_zoo.py")


def zoo_models():
    """The model names scripts/export_zoo.py exports, in its order."""
    p = subprocess.run(["/usr/bin/python3", ZOO_SCRIPT, "--list"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise SystemExit("test-models: error: export_zoo.py --list failed: %s"
                         % first_line(p.stderr.decode("utf-8", "replace")))
    return tuple(l.strip() for l in p.stdout.decode().splitlines() if l.strip())
SEED = 0
COMPILE_TIMEOUT_S = 1800
RUN_TIMEOUT_S = 900


def log(msg):
    print(msg, flush=True)


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def short_error(text):
    """The first line of a tool's error, without the 'tool: error: FILE:' prefix."""
    line = first_line(text)
    line = re.sub(r"^(tessel-\w+: )?(error: )?", "", line)
    line = re.sub(r"^\S*model\.onnx:\s*", "", line)
    return line[:160]


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def run(cmd, timeout, env=None, cwd=None):
    """(returncode or None on timeout/start failure, stdout, stderr, seconds)."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=timeout, env=env, cwd=cwd)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout, time.time() - t0
    except OSError as e:
        return None, "", "cannot start %s: %s" % (cmd[0], e), time.time() - t0
    return (p.returncode, p.stdout.decode("utf-8", "replace"),
            p.stderr.decode("utf-8", "replace"), time.time() - t0)


# --------------------------------------------------------------------- installs
def missing_debs():
    missing = []
    for pkg in APT_PACKAGES:
        p = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode != 0 or p.stdout.decode() != "install ok installed":
            missing.append(pkg)
    # Any node + npm will do (NodeSource's nodejs ships npm); Debian's otherwise.
    if not shutil.which("node"):
        missing.append("nodejs")
    if not shutil.which("npm"):
        missing.append("npm")
    return missing


def install_debs():
    missing = missing_debs()
    if not missing:
        log("== Debian packages present (%s, node, npm)" % ", ".join(APT_PACKAGES))
        return None
    log("== installing Debian packages: %s" % " ".join(missing))
    if os.geteuid() != 0:
        return "missing Debian packages %s (run as root to install them)" % " ".join(missing)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "--no-install-recommends"] + missing):
        if subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL).returncode != 0:
            return "%s failed" % " ".join(cmd[:2])
    still = missing_debs()
    return ("still missing after apt-get: %s" % " ".join(still)) if still else None


def ort_ok(ort_dir):
    pkg = os.path.join(ort_dir, "node_modules", "onnxruntime-node")
    try:
        with open(os.path.join(pkg, "package.json")) as f:
            if json.load(f).get("version") != ORT_VERSION:
                return False
    except (OSError, ValueError):
        return False
    lib = os.path.join(pkg, "bin", "napi-v6", "linux", "x64", "libonnxruntime.so.1")
    if not os.path.isfile(lib):
        return False
    rc, _, _, _ = run(["node", "-e", "require(%s)" % json.dumps(pkg)], 60)
    return rc == 0


def install_ort(ort_dir):
    if ort_ok(ort_dir):
        log("== ONNX Runtime %s present in %s" % (ORT_VERSION, ort_dir))
        return None
    log("== installing ONNX Runtime %s into %s" % (ORT_VERSION, ort_dir))
    if subprocess.run(["bash", os.path.join(SHARED, "setup_ort.sh"), ort_dir],
                      stdin=subprocess.DEVNULL).returncode != 0:
        return "setup_ort.sh failed"
    return None if ort_ok(ort_dir) else "setup_ort.sh ran but onnxruntime-node does not load"


# --------------------------------------------------------------------- exports
def variants(zoo=()):
    """[(key, model, opset, dynseq)] in table order."""
    if zoo:
        return [("%s-op%d" % (m, o), m, o, False) for m in zoo for o in OPSETS]
    out = []
    for m in CNNS:
        out += [("%s-op%d" % (m, o), m, o, False) for o in OPSETS]
    for m in TRANSFORMERS:
        out += [("%s-op%d" % (m, o), m, o, False) for o in OPSETS]
        out += [("%s-op%d-dynseq" % (m, o), m, o, True) for o in OPSETS]
    return out


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def export_done(export_dir, key):
    d = os.path.join(export_dir, key)
    return all(os.path.isfile(os.path.join(d, f)) for f in ("model.onnx", "meta.json"))


def export_models(export_dir, wanted, zoo=False):
    """Exports what is missing from `wanted`; returns {key: error} for failed ones."""
    base = os.path.join(SHARED, "export_models.py")
    script = ZOO_SCRIPT if zoo else base
    stamp = os.path.join(export_dir, "stamp")
    # The zoo's script writes through the shared one's export_one.
    digest = file_hash(script) + (file_hash(base) if zoo else "")
    old = open(stamp).read().strip() if os.path.isfile(stamp) else None
    if old != digest:
        if old is not None:
            log("== export_models.py changed: re-exporting everything")
        shutil.rmtree(export_dir, ignore_errors=True)
        os.makedirs(export_dir)
        # Written first: a model folder counts as exported once its meta.json (written last
        # by export_models.py) is there, so an interrupted export is redone next time.
        with open(stamp, "w") as f:
            f.write(digest + "\n")
    todo = [v for v in wanted if not export_done(export_dir, v[0])]
    if not todo:
        log("== exports present in %s (export_models.py sha256 %s...)" % (export_dir, digest[:12]))
        return {}
    env = dict(os.environ, OMP_NUM_THREADS="1")
    for dyn in (False, True):
        part = [v for v in todo if v[3] == dyn]
        if not part:
            continue
        names = sorted({v[1] for v in part})
        opsets = sorted({v[2] for v in part})
        cmd = ["/usr/bin/python3", script, export_dir, "--opsets", ",".join(map(str, opsets)),
               "--only", ",".join(names), "--threads", "1"] + (["--dynamic-seq"] if dyn else [])
        log("== " + " ".join(cmd))
        subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL)
    errors = {}
    summary_path = os.path.join(export_dir, "export_summary.json")
    summary = json.load(open(summary_path)) if os.path.isfile(summary_path) else {}
    for key, *_ in wanted:
        if not export_done(export_dir, key):
            errors[key] = "export: " + first_line(summary.get(key, {}).get("error", "not written"))
    return errors


# --------------------------------------------------------------------- inputs
def graph_inputs(model_path):
    """[(name, numpy dtype, [dim or symbol])] for the graph's real inputs, and vocab sizes
    {input name: rows of the embedding initializer a Gather indexes with it}."""
    import onnx
    try:
        to_np = onnx.helper.tensor_dtype_to_np_dtype
    except AttributeError:  # onnx < 1.13 (Debian 12 has 1.12)
        to_np = onnx.mapping.TENSOR_TYPE_TO_NP_TYPE.__getitem__
    m = onnx.load(model_path, load_external_data=False)
    inits = {t.name: t for t in m.graph.initializer}
    consts = {}
    for n in m.graph.node:
        if n.op_type == "Constant" and n.output:
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = a.t
    ins = []
    for vi in m.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                for d in tt.shape.dim]
        ins.append((vi.name, to_np(tt.elem_type), dims))
    vocab = {}
    for name, _, _ in ins:
        # Follow the ids through Cast/Identity to the Gather that indexes an embedding.
        frontier, seen = [name], set()
        while frontier and name not in vocab:
            cur = frontier.pop()
            seen.add(cur)
            for n in m.graph.node:
                if cur not in n.input:
                    continue
                if n.op_type == "Gather" and len(n.input) > 1 and n.input[1] == cur:
                    table = inits.get(n.input[0]) or consts.get(n.input[0])
                    if table is not None and len(table.dims) >= 1:
                        vocab[name] = int(table.dims[0])
                        break
                elif n.op_type in ("Cast", "Identity"):
                    frontier += [o for o in n.output if o not in seen]
    return ins, vocab


def make_inputs(ins, vocab, batch, seq, out_dir):
    """Writes one .npy per input; returns [(name, path)] or raises ValueError."""
    import numpy as np
    rng = np.random.default_rng(SEED)
    files = []
    for name, dtype, dims in ins:
        shape = []
        for i, d in enumerate(dims):
            if i == 0:
                shape.append(batch)
            elif isinstance(d, int) and d > 0:
                shape.append(d)
            elif seq is not None and i == 1:
                shape.append(seq)
            else:
                raise ValueError("input %s: no value for dim %d (%s)" % (name, i, d))
        dtype = np.dtype(dtype)
        if dtype.kind == "f":
            x = rng.standard_normal(shape).astype(dtype)
        elif name in vocab:
            x = rng.integers(0, vocab[name], size=shape).astype(dtype)
        elif "mask" in name.lower() and len(shape) == 2:
            # 1 = token, 0 = padding: a valid prefix per row, at least half the sequence.
            lengths = rng.integers((shape[1] + 1) // 2, shape[1] + 1, size=shape[0])
            x = (np.arange(shape[1])[None, :] < lengths[:, None]).astype(dtype)
        else:
            raise ValueError("input %s (%s): do not know what values it takes" % (name, dtype))
        path = os.path.join(out_dir, "in_%s.npy" % sanitize(name))
        np.save(path, x)
        files.append((name, path))
    return files


def rel_l2(a, b):
    import numpy as np
    if a.shape != b.shape:
        return None, "shape %s, ORT %s" % (list(a.shape), list(b.shape))
    if a.dtype != b.dtype:
        return None, "dtype %s, ORT %s" % (a.dtype, b.dtype)
    a64, b64 = a.astype(np.float64).ravel(), b.astype(np.float64).ravel()
    nb = float(np.linalg.norm(b64))
    err = float(np.linalg.norm(a64 - b64))
    r = err / nb if nb > 0 else err
    if not np.isfinite(r):
        return float("nan"), None
    return r, None


# --------------------------------------------------------------------- cases
def shapes_for(model, cnn_batches=CNN_BATCHES):
    if model not in CNNS + TRANSFORMERS:  # the zoo: every dim but the batch as exported
        return [(b, None) for b in ZOO_BATCHES]
    if model in CNNS:
        return [(b, None) for b in cnn_batches]
    return list(SEQ_SHAPES)


def shape_label(batch, seq):
    return "%d" % batch if seq is None else "%dx%d" % (batch, seq)


def run_case(case, tsl, model_path, ort_dir, case_dir, runs):
    """Fills case['outputs'], case['ok'], case['why'], case['tessel_ms'], case['ort_ms']."""
    import numpy as np
    os.makedirs(case_dir, exist_ok=True)
    feeds = make_inputs(case["ins"], case["vocab"], case["batch"], case["seq"], case_dir)
    ort_out, tsl_out = os.path.join(case_dir, "ort"), os.path.join(case_dir, "tessel")
    for d in (ort_out, tsl_out):
        shutil.rmtree(d, ignore_errors=True)
    # --runs 0 compares only: one run each (ORT's warm-up), nothing timed.
    cmd = ["node", os.path.join(SHARED, "ort_run.js"), model_path, "--threads", "1",
           "--warmup", "1", "--runs", str(runs), "--out", ort_out, "--json", "--quiet"]
    for name, path in feeds:
        cmd += ["--input", "%s=%s" % (name, path)]
    rc, out, err, _ = run(cmd, RUN_TIMEOUT_S, env=dict(os.environ, ORT_NODE_DIR=ort_dir))
    if rc != 0:
        case["why"] = "ORT: " + short_error(err or out)
        return
    res = json.loads(out.strip().splitlines()[-1])
    case["ort_ms"] = res["latency"]["median_ms"] if runs else None
    out_names = [o["name"] for o in res["outputs"]]

    cmd = [case["tessel_run"], tsl, "--output-dir", tsl_out]
    if runs:
        cmd += ["--runs", str(runs)]
    if case.get("device"):
        cmd += ["--device", case["device"]]
    for name, path in feeds:
        cmd += ["--input", "%s=%s" % (name, path)]
    rc, out, err, _ = run(cmd, RUN_TIMEOUT_S)
    if rc != 0:
        case["why"] = "tessel-run: " + short_error(err or out)
        return
    m = re.search(r"median ([0-9.]+) ms", out + err)
    case["tessel_ms"] = float(m.group(1)) if m and runs else None

    ok, whys = True, []
    # A reference whose every output is one value throughout (vanishing
    # activations, a zero-initialized head) would pass whatever Tessel did.
    spread = [np.load(os.path.join(ort_out, sanitize(n) + ".npy")) for n in out_names]
    if out_names and all(a.size == 0 or np.all(a == a.flat[0]) for a in spread):
        case["why"] = "degenerate reference: every ORT output is constant"
        return
    for name in out_names:
        f = sanitize(name) + ".npy"
        if not os.path.isfile(os.path.join(tsl_out, f)):
            ok = False
            whys.append("%s not written" % name)
            case["outputs"].append((name, None))
            continue
        r, why = rel_l2(np.load(os.path.join(tsl_out, f)), np.load(os.path.join(ort_out, f)))
        case["outputs"].append((name, r))
        tol = case["tol"]
        if why or not (r <= tol):
            ok = False
            whys.append("%s: %s" % (name, why or "rel-L2 %.2e > %g" % (r, tol)))
    case["ok"] = ok
    case["why"] = "; ".join(whys)


def fmt_ms(x):
    return "" if x is None else ("%.1f" % x if x >= 10 else "%.2f" % x)


def cell(s):
    return str(s).replace("|", "\\|")


def print_table(cases):
    log("")
    log("| model | opset | shape | compile | rel-L2 per output (max over the tensor) | result | tessel ms | ORT ms |")
    log("|---|---|---|---|---|---|---|---|")
    for c in cases:
        outs = ", ".join("%s %s" % (n, "-" if r is None else "%.1e" % r) for n, r in c["outputs"])
        if c["na"]:
            result = c["na"]
        elif c["ok"]:
            result = "pass"
        else:
            result = "FAIL" + (": " + c["why"] if c["why"] and c["compile"] == "ok" else "")
        log("| %s | %s | %s | %s | %s | %s | %s | %s |" % tuple(cell(x) for x in (
            c["model"] + ("-dynseq" if c["dynseq"] else ""), c["opset"], c["shape"],
            c["compile"], outs, result, fmt_ms(c["tessel_ms"]), fmt_ms(c["ort_ms"]))))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog="MODEL: " + ", ".join(CNNS + TRANSFORMERS) +
                                 " (or a prefix such as bert_like); comma-separated for several")
    ap.add_argument("--only", metavar="MODEL", help="only these models (all their variants)")
    ap.add_argument("--zoo", action="store_true",
                    help="the architectures of scripts/export_zoo.py instead of the five")
    ap.add_argument("--keep-going", action=argparse.BooleanOptionalAction, default=True,
                    help="go on after a failed case (default); --no-keep-going stops at the first")
    ap.add_argument("--tessel-bin", metavar="DIR", default=os.path.join(REPO, "build", "bin"),
                    help="folder of tessel-compile and tessel-run (default build/bin)")
    ap.add_argument("--work", metavar="DIR", default=os.path.join(REPO, "build", "models-test"),
                    help="caches (ort/, export/) and scratch (run/) (default build/models-test)")
    ap.add_argument("--runs", type=int, default=5,
                    help="timed runs per case and runtime (default 5); 0: one run each, "
                    "compared and not timed (lavapipe's times mean nothing)")
    ap.add_argument("--cnn-batches", default=",".join(str(b) for b in CNN_BATCHES),
                    metavar="B,B", help="the CNNs' batch sizes (default %s)" %
                    ",".join(str(b) for b in CNN_BATCHES))
    ap.add_argument("--device", default="cpu",
                    help="compile for this device's target and run on it: cpu (default), "
                    "vulkan, vulkan:N (lavapipe runs the GPU kernels on the CPU)")
    ap.add_argument("--no-install", action="store_true",
                    help="do not install anything; fail if something is missing")
    args = ap.parse_args(argv)

    zoo = zoo_models() if args.zoo else ()
    chosen = variants(zoo)
    if args.only:
        names = zoo or CNNS + TRANSFORMERS
        sel = set()
        for w in args.only.split(","):
            hit = [n for n in names if n == w] or [n for n in names if n.startswith(w)]
            if len(hit) != 1:
                print("test-models: error: --only %s: not one of %s" % (w, ", ".join(names)),
                      file=sys.stderr)
                return 2
            sel.add(hit[0])
        chosen = [v for v in chosen if v[1] in sel]
    try:
        args.cnn_batches = tuple(int(b) for b in args.cnn_batches.split(","))
        if not args.cnn_batches or min(args.cnn_batches) < 1:
            raise ValueError
    except ValueError:
        print("test-models: error: --cnn-batches takes positive integers, such as 1,4",
              file=sys.stderr)
        return 2
    if args.runs < 0:
        print("test-models: error: --runs must not be negative", file=sys.stderr)
        return 2
    bin_dir = os.path.abspath(args.tessel_bin)
    for tool in ("tessel-compile", "tessel-run"):
        if not os.access(os.path.join(bin_dir, tool), os.X_OK):
            print("test-models: error: %s not found (build first: make build, or --tessel-bin)"
                  % os.path.join(bin_dir, tool), file=sys.stderr)
            return 2
    if not os.path.isfile(os.path.join(SHARED, "export_models.py")):
        print("test-models: error: %s/export_models.py not found (set TESSEL_SHARED_MODELS)"
              % SHARED, file=sys.stderr)
        return 2
    work = os.path.abspath(args.work)
    ort_dir, export_dir, run_dir = (os.path.join(work, d) for d in (
        ("ort", "export-zoo", "run-zoo") if zoo else ("ort", "export", "run")))
    os.makedirs(work, exist_ok=True)
    t_start = time.time()

    # 1. installs
    setup_err = None
    t_apt = 0.0
    if args.no_install:
        miss = missing_debs()
        if miss:
            setup_err = "missing: " + " ".join(miss)
        elif not ort_ok(ort_dir):
            setup_err = "ONNX Runtime not in %s" % ort_dir
    else:
        setup_err = install_debs()
        t_apt = time.time() - t_start
        setup_err = setup_err or install_ort(ort_dir)
    t_install = time.time() - t_start

    # 2. exports
    t0 = time.time()
    export_err = {}
    if not setup_err:
        export_err = export_models(export_dir, chosen, bool(zoo))
    t_export = time.time() - t0

    # 3. compile and run
    t0 = time.time()
    cases = []
    stop = False
    for key, model, opset, dyn in chosen:
        model_path = os.path.join(export_dir, key, "model.onnx")
        vdir = os.path.join(run_dir, key)
        err = setup_err and "setup: " + setup_err or export_err.get(key)
        ins, vocab = [], {}
        if not err:
            try:
                ins, vocab = graph_inputs(model_path)
            except Exception as e:  # noqa: BLE001 - a harness error fails that model
                err = "harness: %s: %s" % (type(e).__name__, e)
        static_seq = None
        if not err and model in TRANSFORMERS:
            d = ins[0][2][1] if ins and len(ins[0][2]) > 1 else None
            static_seq = d if isinstance(d, int) and d > 0 else None
        mcases = []
        for batch, seq in shapes_for(model, args.cnn_batches):
            c = {"model": model, "opset": opset, "dynseq": dyn, "batch": batch, "seq": seq,
                 "shape": shape_label(batch, seq), "compile": "", "outputs": [], "ok": False,
                 "why": "", "na": None, "tessel_ms": None, "ort_ms": None, "ins": ins,
                 "vocab": vocab, "tessel_run": os.path.join(bin_dir, "tessel-run"),
                 "tol": ZOO_TOL if zoo else TOL,
                 "device": args.device}
            if static_seq is not None and seq != static_seq:
                c["na"] = "n/a: static seq %d" % static_seq
            mcases.append(c)
        cases += mcases
        live = [c for c in mcases if not c["na"]]
        if stop:
            for c in live:
                c["compile"] = "not run (--no-keep-going)"
            continue
        tsl = os.path.join(vdir, "model.tsl")
        if not err:
            os.makedirs(vdir, exist_ok=True)
            if os.path.exists(tsl):
                os.remove(tsl)
            log("== %s: tessel-compile" % key)
            target = args.device.split(":")[0]
            mcpu = ["--mcpu", cpu_variant.suite_variant()] if target == "cpu" else []
            rc, out, cerr, secs = run([os.path.join(bin_dir, "tessel-compile"), model_path,
                                       "-o", tsl, "--target", target] + mcpu,
                                      COMPILE_TIMEOUT_S)
            if rc != 0 or not os.path.isfile(tsl):
                err = short_error(cerr or out) if rc else "exit 0 but no .tsl written"
            else:
                for c in live:
                    c["compile"] = "ok"
                log("   compiled in %.1f s" % secs)
        if err:
            for c in live:
                c["compile"] = err
                c["why"] = err
            log("   FAIL: %s" % err)
            if not args.keep_going:
                stop = True
            continue
        for c in live:
            if stop:
                c["compile"] = "not run (--no-keep-going)"
                continue
            log("== %s %s" % (key, c["shape"]))
            try:
                run_case(c, tsl, model_path, ort_dir, os.path.join(vdir, c["shape"]), args.runs)
            except Exception as e:  # noqa: BLE001 - a harness error fails that case
                c["ok"], c["why"] = False, "harness: %s: %s" % (type(e).__name__, e)
            log("   %s%s" % ("pass" if c["ok"] else "FAIL", "" if c["ok"] else ": " + c["why"]))
            if not c["ok"] and not args.keep_going:
                stop = True
    t_run = time.time() - t0

    print_table(cases)
    counted = [c for c in cases if not c["na"]]
    n_pass = sum(1 for c in counted if c["ok"])
    n_fail = len(counted) - n_pass
    log("")
    log("times: installs %.1f s (apt %.1f s, ORT %.1f s), exports %.1f s, compile + runs %.1f s, "
        "total %.1f s" % (t_install, t_apt, t_install - t_apt, t_export, t_run, time.time() - t_start))
    log("models: %d passed, %d failed" % (n_pass, n_fail))
    return 1 if n_fail or not counted else 0


if __name__ == "__main__":
    sys.exit(main())
