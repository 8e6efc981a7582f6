#!/usr/bin/env python3
"""nart's targets against ONNX Runtime on the model zoo, in the same run.

For each model: `nart compile` with each target list into a package, `nart bench --package`
(median of --runs runs after one untimed run, on the model's test_data_set_0 inputs, oneDNN's
OpenMP pool and ONNX Runtime's intra-op pool both at --threads), and ONNX Runtime's
InferenceSession on the same inputs (all graph optimizations, --runs runs after one untimed
run). Prints one row per model and target: median ms, package load ms, and the ratio to ONNX
Runtime (below 1 is faster than ONNX Runtime), then the fastest run and its ratio to ONNX
Runtime's fastest (on a machine other processes load, the fastest run is what they disturb
least). When the openvino target is available, OpenVINO's
own Python API runs the same model too (compiled for CPU with the f32 precision hint, the latency
hint and --threads inference threads, as nart's openvino runtime compiles its segments), and the
`nart openvino,interp` row also gives its ratio to that.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import numpy_helper


def ort_median(model, inputs, threads, runs):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    t0 = time.perf_counter()
    sess = ort.InferenceSession(model, opts, providers=["CPUExecutionProvider"])
    load = time.perf_counter() - t0
    names = [i.name for i in sess.get_inputs()]
    feed = dict(zip(names, inputs))
    sess.run(None, feed)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, feed)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, min(times) * 1e3, load * 1e3


def ov_median(model, inputs, threads, runs):
    import openvino as ov

    core = ov.Core()
    config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
              "INFERENCE_NUM_THREADS": str(threads)}
    t0 = time.perf_counter()
    compiled = core.compile_model(core.read_model(model), "CPU", config)
    request = compiled.create_infer_request()
    load = time.perf_counter() - t0
    request.infer(inputs)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        request.infer(inputs)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3, min(times) * 1e3, load * 1e3


def read_inputs(data_dir):
    xs = []
    i = 0
    while os.path.exists(os.path.join(data_dir, f"input_{i}.pb")):
        t = onnx.TensorProto()
        with open(os.path.join(data_dir, f"input_{i}.pb"), "rb") as f:
            t.ParseFromString(f.read())
        xs.append(numpy_helper.to_array(t))
        i += 1
    return xs


def nart_bench(nart, model, data_dir, targets, threads, runs, tmp):
    pkg = os.path.join(tmp, f"{os.path.basename(os.path.dirname(model))}-{targets.replace(',', '+')}.nartpkg")
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), NART_OPENVINO_THREADS=str(threads))
    subprocess.run([nart, "compile", model, "--targets", targets, "-o", pkg],
                   check=True, stdout=subprocess.DEVNULL, env=env)
    out = subprocess.run([nart, "bench", "--package", pkg, "--inputs", data_dir,
                          "--runs", str(runs), "--json"],
                         check=True, capture_output=True, text=True, env=env).stdout
    r = json.loads(out.strip().splitlines()[-1])
    return r["run_ms_median"], r["run_ms_min"], r["load_ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nart", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--models", default="digits_cnn,tiny_transformer,resnet18,mobilenetv2")
    ap.add_argument("--lists", default=None,
                    help="the target lists to run, separated by ';' (default: every available)")
    args = ap.parse_args()

    cache = os.environ.get("NART_MODEL_CACHE", os.path.expanduser("~/.cache/nart/models"))
    targets = subprocess.run([args.nart, "targets"], check=True, capture_output=True,
                             text=True).stdout
    lists = ["interp", "onednn,interp"]
    unavailable = [l for l in targets.splitlines() if "unavailable" in l]
    openvino = any(l.startswith("openvino ") for l in targets.splitlines()) and not any(
        l.startswith("openvino ") for l in unavailable)
    if openvino:
        lists.append("openvino,interp")
    if args.lists:
        lists = args.lists.split(";")
    for l in unavailable:
        print(f"note: {l}")

    print(f"threads {args.threads}, median of {args.runs} runs, same machine, same run")
    print(f"{'model':<24}{'runtime':<18}{'median ms':>12}{'load ms':>10}{'vs ORT':>9}"
          f"{'min ms':>10}{'vs ORT':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            d = os.path.join(args.root, "tests/models", name)
            if not os.path.exists(os.path.join(d, "model.onnx")):
                d = os.path.join(cache, name)
            model = os.path.join(d, "model.onnx")
            if not os.path.exists(model):
                print(f"{name:<24}missing (scripts/models/build_zoo.py --cache)")
                continue
            data = os.path.join(d, "test_data_set_0")
            inputs = read_inputs(data)
            ort_ms, ort_min, ort_load = ort_median(model, inputs, args.threads, args.runs)
            print(f"{name:<24}{'onnxruntime':<18}{ort_ms:>12.3f}{ort_load:>10.1f}{1.0:>9.2f}"
                  f"{ort_min:>10.3f}{1.0:>9.2f}")
            ov_ms = None
            if openvino:
                ov_ms, ov_min, ov_load = ov_median(model, inputs, args.threads, args.runs)
                print(f"{'':<24}{'openvino (python)':<18}{ov_ms:>12.3f}{ov_load:>10.1f}"
                      f"{ov_ms / ort_ms:>9.2f}{ov_min:>10.3f}{ov_min / ort_min:>9.2f}")
            for t in lists:
                ms, best, load = nart_bench(args.nart, model, data, t, args.threads, args.runs,
                                            tmp)
                extra = ""
                if t.startswith("openvino") and ov_ms:
                    extra = f"   {ms / ov_ms:.2f}x OpenVINO's Python API"
                print(f"{'':<24}{'nart ' + t:<18}{ms:>12.3f}{load:>10.1f}{ms / ort_ms:>9.2f}"
                      f"{best:>10.3f}{best / ort_min:>9.2f}{extra}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
