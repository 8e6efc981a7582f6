#!/usr/bin/env python3
"""Checks graph-optimize against ONNX Runtime on the ONNX backend node tests.

For every node test model: `nart-opt M.onnx -o BASE.onnx` (the plain round trip) and
`nart-opt M.onnx --graph-optimize -o OPT.onnx`; ONNX Runtime (no graph optimizations) runs the
original, BASE and OPT on the test's inputs. Models whose plain round trip ONNX Runtime does
not run, or runs to other outputs, are skipped (those are importer/exporter matters, not
graph-optimize's); the others must give the original's outputs after graph-optimize
(rtol 1e-4, atol 1e-5 by default).

Usage: benches/graph/node_tests.py --nart-opt PATH [--dir ~/.cache/nart/node-tests-1.23.2/node]
"""

import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def same(r0, r1, rtol, atol):
    for a, b in zip(r0, r1):
        if isinstance(a, list) or isinstance(b, list):
            if str(a) != str(b):
                return False
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc" and not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            return False
        if a.dtype.kind in "iub" and not np.array_equal(a, b):
            return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nart-opt", required=True)
    ap.add_argument("--dir", default=os.path.expanduser("~/.cache/nart/node-tests-1.23.2/node"))
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-5)
    args = ap.parse_args()
    ort.set_default_logger_severity(4)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    tmp = tempfile.mkdtemp(prefix="nart-node-")
    base, out = os.path.join(tmp, "base.onnx"), os.path.join(tmp, "opt.onnx")
    ok, skipped, bad = 0, 0, []
    for d in sorted(glob.glob(os.path.join(args.dir, "*/"))):
        name = os.path.basename(d.rstrip("/"))
        m = os.path.join(d, "model.onnx")
        if subprocess.run([args.nart_opt, m, "-o", base], capture_output=True, timeout=120).returncode:
            skipped += 1
            continue
        p = subprocess.run([args.nart_opt, m, "--graph-optimize", "-o", out], capture_output=True,
                           timeout=120)
        if p.returncode:
            bad.append((name, "graph-optimize failed: " + p.stderr.decode()[:300]))
            continue
        model = onnx.load(m)
        init = {i.name for i in model.graph.initializer}
        feeds = {}

        def run(path):
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            names = {i.name for i in sess.get_inputs()}
            return sess.run(None, {k: v for k, v in feeds.items() if k in names})

        try:
            for j, vi in enumerate(i for i in model.graph.input if i.name not in init):
                t = onnx.TensorProto()
                with open(os.path.join(d, "test_data_set_0", f"input_{j}.pb"), "rb") as f:
                    t.ParseFromString(f.read())
                feeds[vi.name] = numpy_helper.to_array(t)
            reference = run(m)
            if not same(reference, run(base), args.rtol, args.atol):
                skipped += 1
                continue
        except Exception:
            skipped += 1
            continue
        try:
            got = run(out)
        except Exception as e:
            bad.append((name, "ONNX Runtime rejects the optimized model: " + str(e)[:300]))
            continue
        if same(reference, got, args.rtol, args.atol):
            ok += 1
        else:
            diff = max((float(np.nanmax(np.abs(np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64))))
                        for a, b in zip(reference, got)
                        if not isinstance(a, list) and np.asarray(a).dtype.kind in "fc" and np.asarray(a).size),
                       default=float("nan"))
            bad.append((name, f"outputs differ (max abs diff {diff:.3g})"))
    print(f"agree: {ok}, skipped (plain round trip not comparable): {skipped}, differ: {len(bad)}")
    for b in bad:
        print(*b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
