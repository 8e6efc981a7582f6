"""nart --targets cpu against ONNX Runtime, in one run; see run.sh.

With --threads 1,2 (a list), every model runs with each thread count: nart with
`nart bench --cpu-threads T` (the cpu target's thread pool), ONNX Runtime with
intra_op_num_threads T, and the table gains nart's speed-up over its own one-thread run."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def gemm_model(path, n):
    """Y = X @ W for X: 1xNxN... a plain N x N x N MatMul with a constant weight."""
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, n])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, n])],
        [w],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, path)


def static_inputs(model_path, dims):
    """Random inputs of the model's input shapes with symbolic dims set from `dims`."""
    m = onnx.load(model_path)
    init = {i.name for i in m.graph.initializer}
    rng = np.random.default_rng(1)
    feeds = {}
    for vi in m.graph.input:
        if vi.name in init:
            continue
        shape = []
        for d in vi.type.tensor_type.shape.dim:
            shape.append(d.dim_value if d.dim_value > 0 else dims.get(d.dim_param, 1))
        if vi.type.tensor_type.elem_type == TensorProto.INT64:
            # Token ids: small, valid for any vocabulary the zoo uses.
            feeds[vi.name] = rng.integers(0, 10, shape).astype(np.int64)
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


def ort_median(model_path, feeds, runs, threads=1):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])
    sess.run(None, feeds)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        sess.run(None, feeds)
        times.append(time.perf_counter() - t)
    return float(np.median(times)), sess.run(None, feeds)


def nart_compile(nart, model, out, dims):
    args = [nart, "compile", model, "--targets", "cpu", "-o", out]
    for k, v in dims.items():
        if k in symbolic_dims(model):
            args += ["--dim", f"{k}={v}"]
    t = time.perf_counter()
    r = subprocess.run(args, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise RuntimeError(f"nart compile failed: {r.stderr.strip()}")
    return dt, r.stdout


def symbolic_dims(model_path):
    """The names of the symbolic dims of the model's inputs."""
    m = onnx.load(model_path)
    return {
        d.dim_param
        for vi in m.graph.input
        for d in vi.type.tensor_type.shape.dim
        if d.dim_param
    }


def nart_bench(nart, pkg, runs, threads=1):
    cmd = [nart, "bench", "--package", pkg, "--runs", str(runs), "--json"]
    if threads != 1:
        cmd += ["--cpu-threads", str(threads)]
    r = subprocess.run(
        cmd,
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        raise RuntimeError(f"nart bench failed: {r.stderr.strip()}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def placement(nart, pkg):
    r = subprocess.run([nart, "inspect", pkg, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        return "?"
    manifest = json.loads(r.stdout)
    steps = manifest.get("steps", [])
    targets = [s.get("target") for s in steps if s.get("target")]
    return ",".join(sorted(set(targets))) or "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nart", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--models", default="gemm512,digits_mlp,digits_cnn,tiny_transformer,resnet18,mobilenetv2")
    ap.add_argument("--threads", default="1", help="comma-separated thread counts, e.g. 1,2")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    if len(threads) > 1:
        return by_threads(args, threads)
    cache = os.path.expanduser("~/.cache/nart/models")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            if name == "gemm512":
                path = os.path.join(tmp, "gemm512.onnx")
                gemm_model(path, 512)
            elif os.path.exists(os.path.join(args.root, "tests/models", name, "model.onnx")):
                path = os.path.join(args.root, "tests/models", name, "model.onnx")
            elif os.path.exists(os.path.join(cache, name, "model.onnx")):
                path = os.path.join(cache, name, "model.onnx")
            else:
                print(f"skip {name}: not in tests/models or {cache}")
                continue
            dims = {"N": 1, "batch": 1, "batch_size": 1}
            pkg = os.path.join(tmp, f"{name}.nartpkg")
            try:
                compile_s, _ = nart_compile(args.nart, path, pkg, dims)
                b = nart_bench(args.nart, pkg, args.runs)
            except RuntimeError as e:
                print(f"{name}: {e}")
                continue
            feeds = static_inputs(path, dims)
            ort_s, _ = ort_median(path, feeds, args.runs)
            nart_s = b["run_ms_median"] / 1e3
            rows.append((name, placement(args.nart, pkg), compile_s, nart_s, ort_s))
    print(f"nart: {args.nart}; onnxruntime {ort.__version__}; one thread each; median of {args.runs} runs")
    print("| model | placement | nart compile s | nart cpu ms | ORT ms | nart / ORT |")
    print("|---|---|---|---|---|---|")
    for name, place, c, n, o in rows:
        print(f"| {name} | {place} | {c:.2f} | {n * 1e3:.3f} | {o * 1e3:.3f} | {n / o:.1f}x |")


def model_path(args, name, tmp):
    cache = os.path.expanduser("~/.cache/nart/models")
    if name == "gemm512":
        path = os.path.join(tmp, "gemm512.onnx")
        gemm_model(path, 512)
        return path
    for p in (os.path.join(args.root, "tests/models", name, "model.onnx"),
              os.path.join(cache, name, "model.onnx")):
        if os.path.exists(p):
            return p
    print(f"skip {name}: not in tests/models or {cache}")
    return None


def by_threads(args, threads):
    """Each model compiled once, then nart and ONNX Runtime timed with every thread count,
    interleaved per model so that both see the same load."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            path = model_path(args, name, tmp)
            if path is None:
                continue
            dims = {"N": 1, "batch": 1, "batch_size": 1}
            pkg = os.path.join(tmp, f"{name}.nartpkg")
            try:
                nart_compile(args.nart, path, pkg, dims)
                feeds = static_inputs(path, dims)
                nart_ms, ort_ms = {}, {}
                for t in threads:
                    nart_ms[t] = nart_bench(args.nart, pkg, args.runs, t)["run_ms_median"]
                    ort_ms[t] = ort_median(path, feeds, args.runs, t)[0] * 1e3
            except RuntimeError as e:
                print(f"{name}: {e}")
                continue
            rows.append((name, placement(args.nart, pkg), nart_ms, ort_ms))
    print(f"nart: {args.nart}; onnxruntime {ort.__version__}; {os.cpu_count()} cpus; "
          f"median of {args.runs} runs; threads {','.join(map(str, threads))}")
    t0 = threads[0]
    head = ["model", "placement"]
    for t in threads:
        head += [f"nart ms (T={t})", f"ORT ms (T={t})", f"nart/ORT (T={t})"]
    head += [f"nart T={t0} / T={t}" for t in threads[1:]]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name, place, n, o in rows:
        cells = [name, place]
        for t in threads:
            cells += [f"{n[t]:.3f}", f"{o[t]:.3f}", f"{n[t] / o[t]:.2f}x"]
        cells += [f"{n[t0] / n[t]:.2f}x" for t in threads[1:]]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
