#!/usr/bin/env python3
"""Compares graph optimizers on ONNX models, all run here in the same run.

For each model: the original; nart (`nart-opt M.onnx --pass-pipeline=
'builtin.module(graph-optimize)' -o OUT.onnx`); nart with `egraph-optimize` after it when that
pass is registered; onnxslim (`onnxslim.slim`); and ONNX Runtime's extended-level saved model
(`SessionOptions.optimized_model_filepath` with `ORT_ENABLE_EXTENDED`). It reports node counts,
the op types whose counts changed, nart's cost model (FLOPs and bytes moved, from the
`graph-cost` pass's statistics) for every model nart can import, the optimizer's wall time, and
the max abs difference between ONNX Runtime on each optimized model and on the original (with
the model's test inputs, or seeded random ones).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

TOLERANCE = 1e-3


def op_counts(model):
    return collections.Counter(
        (n.domain + "." if n.domain not in ("", "ai.onnx") else "") + n.op_type
        for n in model.graph.node
    )


def nart_passes(nart_opt):
    out = subprocess.run([nart_opt, "--list-passes"], capture_output=True, text=True, check=True)
    return set(re.findall(r"^\s+--([a-z0-9-]+)", out.stdout, re.M))


def nart_cost(nart_opt, path):
    """(flops, bytes, unknown) from graph-cost's statistics, or None if nart cannot import it."""
    out = subprocess.run(
        [nart_opt, path, "--pass-pipeline=builtin.module(graph-cost)", "--mlir-pass-statistics",
         "--allow-unregistered-dialect", "-o", os.devnull],
        capture_output=True, text=True)
    if out.returncode != 0:
        return None
    text = out.stdout + out.stderr
    stat = lambda name: int(re.search(r"\(S\)\s+(\d+) " + name + r"\b", text).group(1))
    return stat("flops"), stat("bytes"), stat("num-unknown")


def with_static_inputs(model, feeds):
    """The model with its inputs' shapes set to those of `feeds` (the test inputs), so that
    every tool, and nart's cost model, sees static shapes; intermediate value_info is dropped
    for the tools to infer again."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for vi in m.graph.input:
        if vi.name not in feeds:
            continue
        dims = vi.type.tensor_type.shape.dim
        for d, n in zip(dims, feeds[vi.name].shape):
            d.Clear()
            d.dim_value = int(n)
    for vi in m.graph.output:
        for d in vi.type.tensor_type.shape.dim:
            if not d.HasField("dim_value"):
                d.Clear()
    del m.graph.value_info[:]
    return m


def inputs_for(model, path):
    """The model's test inputs (test_data_set_0 next to it), or seeded random ones."""
    init = {i.name for i in model.graph.initializer}
    graph_inputs = [i for i in model.graph.input if i.name not in init]
    data_dir = os.path.join(os.path.dirname(path), "test_data_set_0")
    feeds = {}
    rng = np.random.default_rng(0)
    for j, vi in enumerate(graph_inputs):
        pb = os.path.join(data_dir, f"input_{j}.pb")
        if os.path.exists(pb):
            t = onnx.TensorProto()
            with open(pb, "rb") as f:
                t.ParseFromString(f.read())
            feeds[vi.name] = numpy_helper.to_array(t)
            continue
        tt = vi.type.tensor_type
        # Symbolic dimensions (a batch) become 1.
        shape = [d.dim_value if d.dim_value > 0 else 1 for d in tt.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tt.elem_type)
        if np.issubdtype(dtype, np.integer):
            feeds[vi.name] = rng.integers(0, 10, size=shape).astype(dtype)
        else:
            feeds[vi.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def run_ort(path, feeds, level=ort.GraphOptimizationLevel.ORT_DISABLE_ALL):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    names = {i.name for i in sess.get_inputs()}
    return sess.run(None, {k: v for k, v in feeds.items() if k in names})


def max_diff(a, b):
    return max(float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))) if x.size else 0.0
               for x, y in zip(a, b))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nart-opt", required=True)
    ap.add_argument("--out", default=os.environ.get("OUT") or tempfile.mkdtemp(prefix="nart-graph-"))
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    import onnxslim

    ort.set_default_logger_severity(3)
    passes = nart_passes(args.nart_opt)
    tools = [("nart graph-optimize", "builtin.module(graph-optimize)")]
    if "egraph-optimize" in passes:
        tools.append(("nart +egraph-optimize", "builtin.module(graph-optimize,func.func(egraph-optimize))"))
    os.makedirs(args.out, exist_ok=True)
    rows = []
    details = []
    ok = True
    for path in args.models:
        name = os.path.basename(os.path.dirname(path)) or os.path.basename(path)
        model = onnx.load(path)
        feeds = inputs_for(model, path)
        model = with_static_inputs(model, feeds)
        path = os.path.join(args.out, f"{name}.static.onnx")
        onnx.save(model, path)
        reference = run_ort(path, feeds)
        results = [("original", path, 0.0)]
        for label, pipeline in tools:
            out = os.path.join(args.out, f"{name}.{label.split()[-1]}.onnx")
            t0 = time.perf_counter()
            p = subprocess.run([args.nart_opt, path, f"--pass-pipeline={pipeline}", "-o", out],
                               capture_output=True, text=True)
            dt = time.perf_counter() - t0
            if p.returncode != 0:
                print(f"{name}: {label} failed:\n{p.stdout}{p.stderr}", file=sys.stderr)
                ok = False
                continue
            results.append((label, out, dt))
        out = os.path.join(args.out, f"{name}.onnxslim.onnx")
        t0 = time.perf_counter()
        onnx.save(onnxslim.slim(onnx.load(path)), out)
        results.append(("onnxslim", out, time.perf_counter() - t0))
        out = os.path.join(args.out, f"{name}.ort-extended.onnx")
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        so.optimized_model_filepath = out
        t0 = time.perf_counter()
        ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        results.append(("ORT extended", out, time.perf_counter() - t0))

        base_counts = op_counts(model)
        for label, out, dt in results:
            m = onnx.load(out)
            counts = op_counts(m)
            cost = nart_cost(args.nart_opt, out)
            diff = max_diff(reference, run_ort(out, feeds)) if label != "original" else 0.0
            if label.startswith("nart") and diff > TOLERANCE:
                ok = False
            changed = sorted(set(base_counts) | set(counts))
            delta = ", ".join(f"{k} {base_counts.get(k, 0)}→{counts.get(k, 0)}" for k in changed
                              if base_counts.get(k, 0) != counts.get(k, 0))
            # Ops nart has no cost for (contrib ops, or ops whose shapes follow from them).
            unknown = f" ({cost[2]} ops unknown)" if cost and cost[2] else ""
            rows.append((name, label, len(m.graph.node),
                         f"{cost[0] / 1e6:.2f}{unknown}" if cost else "n/a",
                         f"{cost[1] / 1e6:.2f}{unknown}" if cost else "n/a",
                         f"{dt * 1e3:.0f}" if label != "original" else "",
                         f"{diff:.2e}" if label != "original" else ""))
            if label != "original":
                details.append((name, label, delta or "(no change)"))
    print("| model | tool | nodes | MFLOPs (nart cost) | MB moved (nart cost) | time ms | max abs diff vs ORT on original |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print("| " + " | ".join(str(x) for x in r) + " |")
    print()
    print("| model | tool | op counts that changed (before→after) |")
    print("|---|---|---|")
    for d in details:
        print("| " + " | ".join(d) + " |")
    if not ok:
        print(f"\nFAILED: a nart run failed or its outputs differ from ONNX Runtime's by more than {TOLERANCE}",
              file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
