#!/usr/bin/python3
"""Precision benchmark: Tessel at fp32, bf16 and int8 against ONNX Runtime fp32.

    /usr/bin/python3 scripts/bench_precision.py --models EXPORT_DIR
        [--bin-dir build/bin] [--threads 1,2] [--runs N] [--rounds R]
        [--only NAME]... [--out FILE.md]

For ResNet-50, MobileNet-V2 and the BERT-like encoder (opset 17, as
scripts/test_models.py exports them into EXPORT_DIR) at each thread count:
ONNX Runtime fp32, Tessel fp32 (the default CPU variants: the runtime runs
the best the host has, named in the table), Tessel --precision bf16 and
--precision int8 (calibrated with --calibrator minmax on the model's own
input: the dev models have random weights, so their accuracy says little
beyond "the numbers are right"). Columns: latencies (each runtime's median
over --rounds rounds of --runs runs, all in the same invocation, so the
ratios compare like with like), Tessel fp32 / ORT, the speedup of bf16 and
int8 over Tessel fp32, bf16's relative L2 error against Tessel fp32 and
int8's output cosine similarity with it. Timing is for reading, never
asserted. Needs node and ORT (../shared/models/setup_ort.sh).
"""

import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cpu  # noqa: E402

MODELS = [("ResNet-50", "resnet50-op17"), ("MobileNet-V2", "mobilenet_v2-op17"),
          ("BERT-like d256 l4", "bert_like_d256_l4-op17")]


def compile_at(bin_dir, model, precision, work, calib=None):
    tsl = os.path.join(work, "model-%s.tsl" % precision)
    cmd = [os.path.join(bin_dir, "tessel-compile"), model, "-o", tsl, "--precision", precision]
    if calib:
        cmd += ["--calibration", calib]
    bench_cpu.run(cmd)
    return tsl


def binary_of(bin_dir, tsl, feeds, work):
    cmd = [os.path.join(bin_dir, "tessel-run"), tsl, "--profile", "--runs", "1",
           "--output-dir", os.path.join(work, "probe")]
    for n, f in feeds.items():
        cmd += ["--input", "%s=%s" % (n, f)]
    for line in bench_cpu.run(cmd).splitlines():
        if line.startswith("binary: "):
            return line.split(": ", 1)[1]
    return "?"


def outputs(folder):
    return {f: np.load(os.path.join(folder, f)).astype(np.float64)
            for f in sorted(os.listdir(folder)) if f.endswith(".npy")}


def rel_l2(a_dir, b_dir):
    a, b = outputs(a_dir), outputs(b_dir)
    return max(float(np.linalg.norm(a[k] - b[k]) / max(np.linalg.norm(b[k]), 1e-300))
               for k in b)


def cosine(a_dir, b_dir):
    a, b = outputs(a_dir), outputs(b_dir)
    return min(float(np.dot(a[k].ravel(), b[k].ravel()) /
                     max(np.linalg.norm(a[k]) * np.linalg.norm(b[k]), 1e-300)) for k in b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", default=os.path.join(bench_cpu.REPO, "build", "bin"))
    ap.add_argument("--models", required=True)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", action="append")
    ap.add_argument("--out")
    args = ap.parse_args()
    if not os.environ.get("ORT_NODE_DIR") and os.path.isdir("/tmp/tessel-ort"):
        os.environ["ORT_NODE_DIR"] = "/tmp/tessel-ort"
    header = ["model", "threads", "Tessel binary", "ORT fp32 ms", "Tessel fp32 ms",
              "fp32 / ORT", "bf16 ms", "fp32 / bf16", "bf16 rel. L2", "int8 ms",
              "fp32 / int8", "int8 cosine"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="tessel-bench-precision-") as root:
        for name, folder in MODELS:
            if args.only and not any(o in folder for o in args.only):
                continue
            folder = os.path.join(args.models, folder)
            model, feeds = os.path.join(folder, "model.onnx"), bench_cpu.feeds_of(folder)
            work = tempfile.mkdtemp(dir=root)
            calib = os.path.join(work, "calib")
            os.makedirs(calib)
            for n, f in feeds.items():
                shutil.copy(f, os.path.join(calib, n + ".npy"))
            tsl = {p: compile_at(args.bin_dir, model, p, work, calib if p == "int8" else None)
                   for p in ("fp32", "bf16", "int8")}
            binary = binary_of(args.bin_dir, tsl["fp32"], feeds, work)
            for t in [int(x) for x in args.threads.split(",")]:
                times = {k: [] for k in ("ort", "fp32", "bf16", "int8")}
                outs = {}
                for _ in range(args.rounds):
                    ms, outs["ort"] = bench_cpu.ort(model, feeds, args.runs, work, t)
                    times["ort"].append(ms)
                    for p in ("fp32", "bf16", "int8"):
                        outs[p] = os.path.join(work, "%s-%d" % (p, t))
                        times[p].append(bench_cpu.run_tessel(args.bin_dir, tsl[p], feeds,
                                                             args.runs, t, outs[p]))
                med = {k: float(np.median(v)) for k, v in times.items()}
                row = [name, str(t), binary, "%.2f" % med["ort"], "%.2f" % med["fp32"],
                       "%.2f" % (med["fp32"] / med["ort"]), "%.2f" % med["bf16"],
                       "%.2f" % (med["fp32"] / med["bf16"]),
                       "%.1e" % rel_l2(outs["bf16"], outs["fp32"]), "%.2f" % med["int8"],
                       "%.2f" % (med["fp32"] / med["int8"]),
                       "%.4f" % cosine(outs["int8"], outs["fp32"])]
                rows.append(row)
                print(" | ".join(row), file=sys.stderr, flush=True)
    bench_cpu.write_table(header, rows, args.out)


if __name__ == "__main__":
    main()
