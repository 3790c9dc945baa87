#!/usr/bin/python3
"""CPU benchmark: Tessel against ONNX Runtime, same threads, same inputs.

    /usr/bin/python3 scripts/bench_cpu.py [--bin-dir build/bin] [--mcpu CPU]...
        [--runs N] [--resnet MODEL_DIR] [--out FILE.md]
    /usr/bin/python3 scripts/bench_cpu.py --models EXPORT_DIR [--threads 1,2]
        [--mcpu CPU] [--runs N] [--rounds R] [--out FILE.md]

The second form benchmarks the five dev models (ResNet-18, ResNet-50,
MobileNet-V2, the BERT-like and the GPT-like, opset 17, from the folder
scripts/test_models.py exports into) at each thread count: Tessel
(`tessel-run --threads N`) and ORT (`--threads N`) with the model's own
input, the ratio, Tessel's speedup over its first thread count (each the median over
--rounds rounds of ORT then Tessel), its
dispatch count (`tessel-compile --report`) and the largest relative L2
error between the two runtimes' outputs.

For each model (single ops at ResNet sizes, generated here with fixed seeds,
plus ResNet-18 when --resnet names a folder written by
../shared/models/export_models.py), it compiles with tessel-compile for
every --mcpu (default: x86-64-v2, x86-64-v3 -- the default -- and native), times
`tessel-run --runs N` and ONNX Runtime (`node ort_run.js --threads 1
--runs N`, the reference runtime installed by ../shared/models/setup_ort.sh),
and prints one table: median latencies, the ratio Tessel / ORT (below 1 is
faster), and the largest absolute difference between the two outputs.
Both runtimes run in the same invocation, one after the other, so the ratio
is measured under the same machine load. Timing is for reading, never
asserted. Needs python3-onnx and python3-numpy, node, and ORT.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ORT_RUN = os.path.join(REPO, "..", "shared", "models", "ort_run.js")


def save_model(path, nodes, inputs, outputs, weights):
    graph = helper.make_graph(
        nodes, os.path.basename(os.path.dirname(path)),
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in outputs],
        [numpy_helper.from_array(w, n) for n, w in weights.items()])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def make_models(root):
    """Single ops at the sizes ResNet-18 and an MLP use; returns
    [(name, model.onnx, {input: .npy})]."""
    rng = np.random.default_rng(0)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)
    specs = [
        ("matmul 256x512x512", [helper.make_node("MatMul", ["x", "w"], ["y"])],
         [("x", [256, 512])], {"w": f32(512, 512)}),
        ("gemm transB 64x1024x1024",
         [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)],
         [("x", [64, 1024])], {"w": f32(1024, 1024), "b": f32(1024)}),
        ("conv 7x7/2 3->64 224", [helper.make_node(
            "Conv", ["x", "w"], ["y"], pads=[3, 3, 3, 3], strides=[2, 2])],
         [("x", [1, 3, 224, 224])], {"w": f32(64, 3, 7, 7)}),
        ("conv 3x3/1 64->64 56", [helper.make_node(
            "Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
         [("x", [1, 64, 56, 56])], {"w": f32(64, 64, 3, 3)}),
        ("conv 3x3/2 64->128 56", [helper.make_node(
            "Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2])],
         [("x", [1, 64, 56, 56])], {"w": f32(128, 64, 3, 3)}),
        ("conv 3x3/1 256->256 14", [helper.make_node(
            "Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
         [("x", [1, 256, 14, 14])], {"w": f32(256, 256, 3, 3)}),
        ("maxpool 3x3/2 64 112", [helper.make_node(
            "MaxPool", ["x"], ["y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
            strides=[2, 2])], [("x", [1, 64, 112, 112])], {}),
    ]
    models = []
    for i, (name, nodes, inputs, weights) in enumerate(specs):
        folder = os.path.join(root, "m%d" % i)
        os.makedirs(folder)
        path = os.path.join(folder, "model.onnx")
        save_model(path, nodes, inputs, ["y"], weights)
        feeds = {}
        for n, shape in inputs:
            feeds[n] = os.path.join(folder, n + ".npy")
            np.save(feeds[n], f32(*shape))
        models.append((name, path, feeds))
    return models


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (cmd[0], p.returncode,
                                                   (p.stderr or p.stdout).strip()[-500:]))
    return p.stdout + p.stderr


def compile_tessel(bin_dir, model, mcpu, work):
    """The artifact and its dispatch count."""
    tsl = os.path.join(work, "model-%s.tsl" % mcpu)
    report = run([os.path.join(bin_dir, "tessel-compile"), model, "-o", tsl,
                  "--mcpu", mcpu, "--report"])
    return tsl, int(re.match(r"(\d+) dispatch", report).group(1))


def run_tessel(bin_dir, tsl, feeds, runs, threads, out):
    cmd = [os.path.join(bin_dir, "tessel-run"), tsl, "--runs", str(runs),
           "--threads", str(threads), "--output-dir", out]
    for n, f in feeds.items():
        cmd += ["--input", "%s=%s" % (n, f)]
    m = re.search(r"median ([0-9.]+) ms", run(cmd))
    return float(m.group(1))


def tessel(bin_dir, model, feeds, mcpu, runs, work, threads=1):
    tsl, _ = compile_tessel(bin_dir, model, mcpu, work)
    out = os.path.join(work, "tessel-" + mcpu)
    return run_tessel(bin_dir, tsl, feeds, runs, threads, out), out


def ort(model, feeds, runs, work, threads=1):
    out = os.path.join(work, "ort-%d" % threads)
    cmd = ["node", ORT_RUN, model, "--threads", str(threads), "--runs", str(runs),
           "--quiet", "--out", out]
    for n, f in feeds.items():
        cmd += ["--input", "%s=%s" % (n, f)]
    m = re.search(r"latency median ([0-9.]+) ms", run(cmd))
    return float(m.group(1)), out


def max_rel_l2(a_dir, b_dir):
    """The largest relative L2 error ||a - b|| / ||b|| over the outputs (the
    dev models' outputs can be tiny: MobileNet-V2's are ~1e-9)."""
    worst = 0.0
    for f in os.listdir(b_dir):
        if f.endswith(".npy"):
            a = np.load(os.path.join(a_dir, f)).astype(np.float64)
            b = np.load(os.path.join(b_dir, f)).astype(np.float64)
            worst = max(worst, float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)))
    return worst


def max_diff(a_dir, b_dir):
    worst = 0.0
    for f in os.listdir(b_dir):
        if f.endswith(".npy"):
            a, b = np.load(os.path.join(a_dir, f)), np.load(os.path.join(b_dir, f))
            worst = max(worst, float(np.max(np.abs(a.astype(np.float64) - b))))
    return worst


DEV_MODELS = [("ResNet-18", "resnet18-op17"), ("ResNet-50", "resnet50-op17"),
              ("MobileNet-V2", "mobilenet_v2-op17"),
              ("BERT-like d256 l4", "bert_like_d256_l4-op17"),
              ("GPT-like d256 l4", "gpt_like_d256_l4-op17")]


def feeds_of(folder):
    m = onnx.load(os.path.join(folder, "model.onnx"), load_external_data=False)
    weights = {t.name for t in m.graph.initializer}
    names = [i.name for i in m.graph.input if i.name not in weights]
    return {n: os.path.join(folder, "input_%d.npy" % i) for i, n in enumerate(names)}


def bench_models(args, mcpu):
    """One row per dev model: ORT and Tessel at each thread count."""
    threads = [int(t) for t in args.threads.split(",")]
    header = ["model", "dispatches"]
    for t in threads:
        header += ["ORT %dt ms" % t, "Tessel %dt ms" % t, "ratio"]
    header += ["Tessel %dt / %dt" % (threads[0], t) for t in threads[1:]]
    header.append("max rel L2 error")
    rows = []
    with tempfile.TemporaryDirectory(prefix="tessel-bench-") as root:
        for name, folder in DEV_MODELS:
            if args.only and not any(o in folder for o in args.only):
                continue
            folder = os.path.join(args.models, folder)
            model, feeds = os.path.join(folder, "model.onnx"), feeds_of(folder)
            work = tempfile.mkdtemp(dir=root)
            tsl, dispatches = compile_tessel(args.bin_dir, model, mcpu, work)
            row, diff, mine = [name, str(dispatches)], 0.0, []
            for t in threads:
                # Rounds of ORT then Tessel, each runtime's median over the
                # rounds' medians: a burst of load on a shared machine
                # spoils one round, not the ratio.
                ort_times, times = [], []
                for _ in range(args.rounds):
                    ort_ms, ort_out = ort(model, feeds, args.runs, work, t)
                    out = os.path.join(work, "tessel-%d" % t)
                    ort_times.append(ort_ms)
                    times.append(run_tessel(args.bin_dir, tsl, feeds, args.runs, t, out))
                ort_ms, ms = float(np.median(ort_times)), float(np.median(times))
                mine.append(ms)
                row += ["%.2f" % ort_ms, "%.2f" % ms, "%.2f" % (ms / ort_ms)]
                diff = max(diff, max_rel_l2(out, ort_out))
            row += ["%.2f" % (mine[0] / ms) for ms in mine[1:]]
            row.append("%.1e" % diff)
            rows.append(row)
            print(" | ".join(row), file=sys.stderr, flush=True)
    return header, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(REPO, "build", "bin"))
    ap.add_argument("--mcpu", action="append",
                    help="x86-64 CPU to compile for (repeatable; default "
                         "x86-64-v2, x86-64-v3 and native)")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--resnet", help="folder with model.onnx and input_0.npy "
                                     "(export_models.py --only resnet18)")
    ap.add_argument("--models", help="folder of the exported dev models "
                                     "(build/models-test/export): benchmark them")
    ap.add_argument("--threads", default="1,2",
                    help="thread counts for --models (default 1,2)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="with --models: rounds of ORT then Tessel per thread "
                         "count; each runtime's median over the rounds "
                         "(default 3)")
    ap.add_argument("--only", action="append",
                    help="with --models: only the models whose folder "
                         "contains this (repeatable)")
    ap.add_argument("--out", help="also write the table (markdown) here")
    args = ap.parse_args()
    mcpus = args.mcpu or ["x86-64-v2", "x86-64-v3", "native"]
    if not os.environ.get("ORT_NODE_DIR") and os.path.isdir("/tmp/tessel-ort"):
        os.environ["ORT_NODE_DIR"] = "/tmp/tessel-ort"
    if args.models:
        header, rows = bench_models(args, (args.mcpu or ["x86-64-v3"])[0])
        write_table(header, rows, args.out)
        return

    with tempfile.TemporaryDirectory(prefix="tessel-bench-") as root:
        models = make_models(root)
        if args.resnet:
            m = onnx.load(os.path.join(args.resnet, "model.onnx"), load_external_data=False)
            models.append(("ResNet-18 (batch 1)", os.path.join(args.resnet, "model.onnx"),
                           {m.graph.input[0].name: os.path.join(args.resnet, "input_0.npy")}))
        header = ["model", "ORT 1 thread ms"]
        for c in mcpus:
            header += ["Tessel %s ms" % c, "ratio"]
        header.append("max abs diff")
        rows = []
        for name, model, feeds in models:
            work = tempfile.mkdtemp(dir=root)
            ort_ms, ort_out = ort(model, feeds, args.runs, work)
            row, diff = [name, "%.3f" % ort_ms], 0.0
            for c in mcpus:
                ms, out = tessel(args.bin_dir, model, feeds, c, args.runs, work)
                row += ["%.3f" % ms, "%.2f" % (ms / ort_ms)]
                diff = max(diff, max_diff(out, ort_out))
            row.append("%.1e" % diff)
            rows.append(row)
            print(" | ".join(row), file=sys.stderr, flush=True)
    write_table(header, rows, args.out)


def write_table(header, rows, path):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if path:
        with open(path, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
