#!/usr/bin/env python3
"""Runs two ONNX models on the same inputs with ONNX Runtime and compares their outputs.

Usage: compare_ort.py ORIGINAL EXPORTED
Inputs: the committed test_data_set_0 beside ORIGINAL when there is one, else two seeded random sets.
Exit status 0 when every output matches (same dtype and shape, values within 1e-5), 1 when
one differs, 2 when onnxruntime is missing (the caller skips then).
"""

import os
import sys

try:
    import numpy as np
    import onnxruntime as ort
except ImportError:
    print("onnxruntime or numpy is not installed", file=sys.stderr)
    sys.exit(2)

DTYPES = {
    "tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(float16)": np.float16,
    "tensor(int64)": np.int64, "tensor(int32)": np.int32, "tensor(int8)": np.int8,
    "tensor(uint8)": np.uint8, "tensor(bool)": np.bool_,
}


def feeds(sess, rng):
    out = {}
    for i in sess.get_inputs():
        shape = [d if isinstance(d, int) else 2 for d in i.shape]
        dt = DTYPES[i.type]
        if dt == np.bool_:
            out[i.name] = rng.integers(0, 2, shape).astype(np.bool_)
        elif np.issubdtype(dt, np.integer):
            out[i.name] = rng.integers(0, 5, shape).astype(dt)
        else:
            out[i.name] = rng.standard_normal(shape).astype(dt)
    return out


def committed_feeds(sess, model_path):
    """The inputs of test_data_set_0 beside the model, when it has them: some models take inputs
    whose values ONNX constrains (NonMaxSuppression's iou_threshold in [0, 1]), which random
    feeds would break."""
    d = os.path.join(os.path.dirname(model_path), "test_data_set_0")
    if not os.path.isdir(d):
        return None
    import onnx
    from onnx import numpy_helper
    out = {}
    for k, i in enumerate(sess.get_inputs()):
        p = os.path.join(d, f"input_{k}.pb")
        if not os.path.exists(p):
            return None
        t = onnx.TensorProto()
        with open(p, "rb") as f:
            t.ParseFromString(f.read())
        out[i.name] = numpy_helper.to_array(t)
    return out


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    a = ort.InferenceSession(a_path, opts, providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(b_path, opts, providers=["CPUExecutionProvider"])
    ok = True
    fixed = committed_feeds(a, a_path)
    for trial in range(1 if fixed else 2):
        rng = np.random.default_rng(trial)
        fa = fixed if fixed else feeds(a, rng)
        names_b = [i.name for i in b.get_inputs()]
        if sorted(names_b) != sorted(fa):
            print(f"inputs differ: {sorted(fa)} vs {sorted(names_b)}")
            return 1
        ra = a.run(None, fa)
        rb = b.run(None, fa)
        if len(ra) != len(rb):
            print(f"output counts differ: {len(ra)} vs {len(rb)}")
            return 1
        for k, (x, y) in enumerate(zip(ra, rb)):
            x, y = np.asarray(x), np.asarray(y)
            if x.dtype != y.dtype or x.shape != y.shape:
                print(f"output {k}: {x.dtype}{x.shape} vs {y.dtype}{y.shape}")
                ok = False
            elif x.dtype.kind in "fc":
                if not np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True):
                    print(f"output {k}: max difference {np.max(np.abs(x - y))}")
                    ok = False
            elif not np.array_equal(x, y):
                print(f"output {k}: values differ")
                ok = False
    print("match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
