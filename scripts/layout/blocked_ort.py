#!/usr/bin/env python3
"""ONNX Runtime on a model and on its blocked-layout export, on the same seeded input.

    nart-opt M.onnx --pass-pipeline='builtin.module(graph-optimize,graph-layout{layout=nchw8c},graph-optimize)' -o B.onnx
    python3 scripts/layout/blocked_ort.py M.onnx B.onnx

Prints the largest absolute difference per output and the op counts of the export (standard
ops only: graph.reorder and the blocked convolutions and pools are written as Pad, Reshape,
Transpose, Slice, Conv/FusedConv and pools). Exits non-zero when a difference exceeds 1e-4
relative to the output's magnitude. Dynamic dimensions are 1.
"""
import sys

import numpy as np
import onnx
import onnxruntime as ort


def main(orig, blocked):
    s0 = ort.InferenceSession(orig, providers=["CPUExecutionProvider"])
    s1 = ort.InferenceSession(blocked, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    feeds = {}
    for i in s0.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        feeds[i.name] = rng.uniform(-1, 1, shape).astype(np.float32)
    want = s0.run(None, feeds)
    got = s1.run(None, {i.name: feeds[o.name] for i, o in zip(s1.get_inputs(), s0.get_inputs())})
    ok = True
    for w, g in zip(want, got):
        diff = float(np.max(np.abs(w - g)))
        scale = 1.0 + float(np.max(np.abs(w)))
        print(f"output {w.shape}: max abs diff {diff:.3g} (max |ref| {scale - 1:.3g})")
        ok &= diff <= 1e-4 * scale
    ops = {}
    for n in onnx.load(blocked).graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print("ops in the export:", dict(sorted(ops.items())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
