#!/usr/bin/env python3
"""Runs ONNX Runtime on a model and writes its outputs as ONNX test data.

Usage:
    python3 scripts/models/ort_run.py MODEL INPUT_DIR OUTPUT_DIR [--opt-level LEVEL]

INPUT_DIR holds `input_0.pb`, `input_1.pb`, ... (serialized TensorProto, the
layout of ONNX's `test_data_set_N` folders) or `input_0.npy`, ... (NumPy
arrays); the two kinds may not be mixed for one index.
Input N feeds the model's N-th graph input (initializers excluded), unless a
.pb tensor carries the name of a graph input, in which case it feeds that
input.
The outputs are written to OUTPUT_DIR as `output_0.pb`, `output_1.pb`, ...
in graph-output order, each named after its graph output.

ONNX Runtime runs on the CPU with one intra-op thread, so that reruns on the
same machine give identical bytes.
This is the oracle for nart's differential tests.
"""

import argparse
import os
import re
import sys
from typing import Dict, List, Optional

import numpy as np
import onnx
from onnx import numpy_helper

OPT_LEVELS = ("disable", "basic", "extended", "all")


def load_inputs(input_dir: str) -> List[onnx.TensorProto]:
    """Reads input_N.pb / input_N.npy files from `input_dir`, ordered by N."""
    found: Dict[int, str] = {}
    for name in os.listdir(input_dir):
        m = re.fullmatch(r"input_(\d+)\.(pb|npy)", name)
        if not m:
            continue
        idx = int(m.group(1))
        if idx in found:
            raise SystemExit(f"error: two files for input {idx} in {input_dir}")
        found[idx] = os.path.join(input_dir, name)
    if sorted(found) != list(range(len(found))):
        raise SystemExit(f"error: input indices in {input_dir} are not 0..N-1: {sorted(found)}")
    tensors = []
    for idx in range(len(found)):
        path = found[idx]
        if path.endswith(".npy"):
            tensors.append(numpy_helper.from_array(np.load(path)))
        else:
            t = onnx.TensorProto()
            with open(path, "rb") as f:
                t.ParseFromString(f.read())
            tensors.append(t)
    return tensors


def run_model(
    model_path: str,
    inputs: List[np.ndarray],
    names: Optional[List[str]] = None,
    opt_level: str = "all",
) -> List[onnx.TensorProto]:
    """Runs `model_path` on `inputs` and returns named output tensors.

    `names`, when given, names each input (an empty name means positional).
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    opts.graph_optimization_level = {
        "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
        "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
    }[opt_level]
    sess = ort.InferenceSession(model_path, opts, providers=["CPUExecutionProvider"])
    graph_inputs = [i.name for i in sess.get_inputs()]
    feeds = {}
    for idx, arr in enumerate(inputs):
        name = names[idx] if names and names[idx] in graph_inputs else None
        if name is None:
            if idx >= len(graph_inputs):
                raise SystemExit(
                    f"error: {len(inputs)} inputs given, model takes {len(graph_inputs)}"
                )
            name = graph_inputs[idx]
        feeds[name] = arr
    out_names = [o.name for o in sess.get_outputs()]
    results = sess.run(out_names, feeds)
    return [numpy_helper.from_array(np.asarray(r), name=n) for r, n in zip(results, out_names)]


def write_tensors(out_dir: str, prefix: str, tensors: List[onnx.TensorProto]) -> None:
    """Writes `tensors` as `<prefix>_N.pb` files in `out_dir`."""
    os.makedirs(out_dir, exist_ok=True)
    for idx, t in enumerate(tensors):
        with open(os.path.join(out_dir, f"{prefix}_{idx}.pb"), "wb") as f:
            f.write(t.SerializeToString(deterministic=True))


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("input_dir")
    ap.add_argument("output_dir")
    ap.add_argument("--opt-level", choices=OPT_LEVELS, default="all",
                    help="ONNX Runtime graph optimization level (default: all)")
    args = ap.parse_args(argv)
    tensors = load_inputs(args.input_dir)
    arrays = [numpy_helper.to_array(t) for t in tensors]
    names = [t.name for t in tensors]
    outputs = run_model(args.model, arrays, names, args.opt_level)
    write_tensors(args.output_dir, "output", outputs)
    for t in outputs:
        print(f"{t.name}: {onnx.helper.tensor_dtype_to_np_dtype(t.data_type)} {list(t.dims)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
