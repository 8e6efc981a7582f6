#!/usr/bin/env python3
"""Times nart and ONNX Runtime on one model in the same run; prints medians and ratios.

nart: `nart bench --json --runs 1` in a fresh process per repeat, which reports the import
(protobuf parse, opset upgrade, shape inference into the graph dialect), the interpreter's
planning, and one interpreter run.
ONNX Runtime: `InferenceSession(...)` creation and one `run`, each repeat in the same Python
process, default session options (all cores, all graph optimizations).
"""

import argparse
import json
import statistics
import subprocess
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nart", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    nart = {"import_ms": [], "plan_ms": [], "run_ms": []}
    for _ in range(args.repeats):
        out = subprocess.run([args.nart, "bench", "--json", "--runs", "1", "--model", args.model,
                              "--inputs", args.inputs], check=True, capture_output=True, text=True)
        d = json.loads(out.stdout.strip().splitlines()[-1])
        nart["import_ms"].append(d["import_ms"])
        nart["plan_ms"].append(d["plan_ms"])
        nart["run_ms"].append(d["run_ms_median"])

    model = onnx.load(args.model)
    feeds = {}
    for j, vi in enumerate(model.graph.input):
        t = onnx.TensorProto()
        with open(f"{args.inputs}/input_{j}.pb", "rb") as f:
            t.ParseFromString(f.read())
        feeds[vi.name] = numpy_helper.to_array(t)
    ort.set_default_logger_severity(3)
    ortt = {"session_ms": [], "run_ms": []}
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        sess = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
        t1 = time.perf_counter()
        sess.run(None, feeds)
        t2 = time.perf_counter()
        ortt["session_ms"].append((t1 - t0) * 1e3)
        ortt["run_ms"].append((t2 - t1) * 1e3)

    med = {k: statistics.median(v) for k, v in nart.items()}
    omed = {k: statistics.median(v) for k, v in ortt.items()}
    print(f"model: {args.model} (median of {args.repeats})")
    print(f"nart  import + shape inference: {med['import_ms']:9.1f} ms   (planning {med['plan_ms']:.1f} ms)")
    print(f"nart  interpreter run:          {med['run_ms']:9.1f} ms")
    print(f"ORT   session creation:         {omed['session_ms']:9.1f} ms")
    print(f"ORT   run:                      {omed['run_ms']:9.1f} ms")
    print(f"ratio import / ORT session:     {med['import_ms'] / omed['session_ms']:9.2f}x")
    print(f"ratio (import + plan) / ORT session: {(med['import_ms'] + med['plan_ms']) / omed['session_ms']:5.2f}x")
    print(f"ratio run / ORT run:            {med['run_ms'] / omed['run_ms']:9.2f}x")


if __name__ == "__main__":
    main()
