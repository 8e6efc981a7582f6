#!/usr/bin/env python3
"""Runs ONNX Runtime over generated backend node tests, as a baseline.

Usage:
    python3 scripts/conformance/ort_baseline.py TESTS_DIR [--report FILE]

TESTS_DIR is the OUT_DIR of `gen_node_tests.py`.
Each test's model runs on the CPU provider with its `test_data_set_0` inputs,
and each output is compared with upstream's tolerances (rtol 1e-3,
atol 1e-7, NaN equal to NaN; exact for non-float types).
Tests whose inputs or outputs are not plain tensors (sequences, maps,
optionals) are counted as skipped.
The summary line gives pass / mismatch / error / skipped counts; `--report`
writes one `name<TAB>status<TAB>detail` line per test.
This tells how far the oracle itself goes, so nart's own pass rate can be
read against it.
"""

import argparse
import glob
import os
import sys
import time

import numpy as np
import onnx
from onnx import numpy_helper


def load_tensor(path: str) -> np.ndarray:
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def check(case_dir: str, ort) -> tuple:
    model = onnx.load(os.path.join(case_dir, "model.onnx"))
    values = list(model.graph.input) + list(model.graph.output)
    if any(v.type.WhichOneof("value") != "tensor_type" for v in values):
        return "skipped", "non-tensor input or output"
    ds = os.path.join(case_dir, "test_data_set_0")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 4
    try:
        sess = ort.InferenceSession(os.path.join(case_dir, "model.onnx"), opts,
                                    providers=["CPUExecutionProvider"])
        feeds = {vi.name: load_tensor(os.path.join(ds, f"input_{j}.pb"))
                 for j, vi in enumerate(model.graph.input)}
        got = sess.run(None, feeds)
    except Exception as ex:  # noqa: BLE001 - any ORT failure is a result here
        return "error", str(ex).splitlines()[0][:200]
    for j, res in enumerate(got):
        want = load_tensor(os.path.join(ds, f"output_{j}.pb"))
        res = np.asarray(res)
        if res.shape != want.shape:
            return "mismatch", f"output {j}: shape {res.shape} vs {want.shape}"
        if want.dtype.kind in "fc":
            if not np.allclose(res.astype(want.dtype), want, rtol=1e-3, atol=1e-7,
                               equal_nan=True):
                return "mismatch", f"output {j}: values differ"
        elif not np.array_equal(res, want):
            return "mismatch", f"output {j}: values differ"
    return "pass", ""


def main(argv) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tests_dir")
    ap.add_argument("--report", default=None)
    args = ap.parse_args(argv)
    import onnxruntime as ort

    ort.set_default_logger_severity(4)
    start = time.perf_counter()
    rows = []
    for case_dir in sorted(glob.glob(os.path.join(args.tests_dir, "node", "*"))):
        status, detail = check(case_dir, ort)
        rows.append((os.path.basename(case_dir), status, detail))
    counts = {s: sum(r[1] == s for r in rows) for s in ("pass", "mismatch", "error", "skipped")}
    if args.report:
        with open(args.report, "w") as f:
            for row in rows:
                f.write("\t".join(row) + "\n")
    print(f"onnxruntime {ort.__version__} on {len(rows)} tests: "
          + ", ".join(f"{k} {v}" for k, v in counts.items())
          + f" ({time.perf_counter() - start:.1f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
