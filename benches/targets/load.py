#!/usr/bin/env python3
"""Package load time of the openvino target: the compiled blob against the ONNX model.

For each model, `nart compile --targets openvino,interp` twice: once as nart compiles by
default (the segment compiled by OpenVINO at compile time and stored as its exported blob,
format `openvino-blob`, imported at load) and once with NART_OPENVINO_ARTIFACT=onnx (the
segment stored as an ONNX model, read and compiled at load). Each package is loaded by
`nart bench --package` in --reps fresh processes (load_ms: opening the package, loading
libopenvino_c from NART_OPENVINO_LIB, which the script sets to the wheel's, importing or
compiling, creating the infer request); the medians and their ratio
are printed, with the run medians to show the blob runs as fast. In the same run, OpenVINO's
own Python API compiles the model (read_model + compile_model) and imports a blob it exported
(import_model), each in a fresh process, with the same properties (f32 precision hint, latency
hint, --threads inference threads).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

PY_LOAD = r"""
import sys, time, openvino as ov
model, blob, threads = sys.argv[1], sys.argv[2], sys.argv[3]
config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
          "INFERENCE_NUM_THREADS": threads}
core = ov.Core()
if blob == "-":
    t = time.perf_counter()
    c = core.compile_model(core.read_model(model), "CPU", config)
    c.create_infer_request()
else:
    data = open(blob, "rb").read()
    core.set_property("CPU", config)
    t = time.perf_counter()
    c = core.import_model(data, "CPU")
    c.create_infer_request()
print((time.perf_counter() - t) * 1e3)
"""

PY_EXPORT = r"""
import sys, openvino as ov
model, out, threads = sys.argv[1], sys.argv[2], sys.argv[3]
config = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY",
          "INFERENCE_NUM_THREADS": threads}
core = ov.Core()
b = core.compile_model(core.read_model(model), "CPU", config).export_model()
open(out, "wb").write(b if isinstance(b, bytes) else b.getvalue())
"""


def nart_load(nart, pkg, data, env, reps):
    loads, runs = [], []
    for _ in range(reps):
        out = subprocess.run([nart, "bench", "--package", pkg, "--inputs", data, "--runs", "5",
                              "--json"], check=True, capture_output=True, text=True,
                             env=env).stdout
        r = json.loads(out.strip().splitlines()[-1])
        loads.append(r["load_ms"])
        runs.append(r["run_ms_median"])
    return statistics.median(loads), statistics.median(runs)


def py_load(model, blob, threads, reps):
    times = []
    for _ in range(reps):
        out = subprocess.run([sys.executable, "-c", PY_LOAD, model, blob, str(threads)],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(out.strip().splitlines()[-1]))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nart", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--models", default="digits_cnn,tiny_transformer,resnet18,mobilenetv2")
    args = ap.parse_args()
    cache = os.environ.get("NART_MODEL_CACHE", os.path.expanduser("~/.cache/nart/models"))
    env = dict(os.environ, NART_OPENVINO_THREADS=str(args.threads))
    env.pop("NART_OPENVINO_ARTIFACT", None)
    # The library's path, so that no nart process spends its load asking python3 for it.
    if "NART_OPENVINO_LIB" not in env:
        import glob
        import openvino
        libs = sorted(glob.glob(os.path.join(os.path.dirname(openvino.__file__), "libs",
                                             "libopenvino_c.so*")))
        env["NART_OPENVINO_LIB"] = libs[0]
    print(f"threads {args.threads}, median of {args.reps} fresh processes, same machine, same run")
    print(f"{'model':<18}{'artifact':<20}{'package KiB':>12}{'load ms':>10}{'run ms':>10}"
          f"{'load vs blob':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            d = os.path.join(args.root, "tests/models", name)
            if not os.path.exists(os.path.join(d, "model.onnx")):
                d = os.path.join(cache, name)
            model = os.path.join(d, "model.onnx")
            if not os.path.exists(model):
                print(f"{name:<18}missing (scripts/models/build_zoo.py --cache)")
                continue
            data = os.path.join(d, "test_data_set_0")
            rows = []
            for kind in ["openvino-blob", "onnx"]:
                pkg = os.path.join(tmp, f"{name}-{kind}.nartpkg")
                e = dict(env, NART_OPENVINO_ARTIFACT="onnx") if kind == "onnx" else env
                subprocess.run([args.nart, "compile", model, "--targets", "openvino,interp",
                                "-o", pkg], check=True, stdout=subprocess.DEVNULL, env=e)
                load, run = nart_load(args.nart, pkg, data, env, args.reps)
                rows.append((kind, os.path.getsize(pkg) / 1024, load, run))
            blob_load = rows[0][2]
            for i, (kind, kib, load, run) in enumerate(rows):
                print(f"{name if i == 0 else '':<18}{'nart ' + kind:<20}{kib:>12.1f}{load:>10.1f}"
                      f"{run:>10.3f}{load / blob_load:>13.2f}x")
            exported = os.path.join(tmp, f"{name}.blob")
            subprocess.run([sys.executable, "-c", PY_EXPORT, model, exported, str(args.threads)],
                           check=True)
            compile_ms = py_load(model, "-", args.threads, args.reps)
            import_ms = py_load(model, exported, args.threads, args.reps)
            print(f"{'':<18}{'python compile':<20}{'':>12}{compile_ms:>10.1f}{'':>10}"
                  f"{compile_ms / blob_load:>13.2f}x")
            print(f"{'':<18}{'python import':<20}{os.path.getsize(exported) / 1024:>12.1f}"
                  f"{import_ms:>10.1f}{'':>10}{import_ms / blob_load:>13.2f}x")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
