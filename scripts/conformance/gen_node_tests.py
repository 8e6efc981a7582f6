#!/usr/bin/env python3
"""Generates the ONNX backend node tests with the installed `onnx` package.

Usage:
    python3 scripts/conformance/gen_node_tests.py OUT_DIR [--op OP_TYPE] [--seed N]

Recent `onnx` wheels ship the generators of the backend node tests
(`onnx/backend/test/case/node/*.py`) but not the generated data, and
`python -m onnx.backend.test.cmd_tools generate-data` only writes the model
test cases (`real`, `simple`), not the node ones.
This script runs the node generators through
`onnx.backend.test.case.node.collect_testcases` and writes each case in the
layout of upstream's `onnx/backend/test/data/node`:

    OUT_DIR/node/<test_name>/model.onnx
    OUT_DIR/node/<test_name>/test_data_set_0/input_<j>.pb
    OUT_DIR/node/<test_name>/test_data_set_0/output_<j>.pb

Inputs and outputs that are sequences, maps or optionals are written as
`onnx.SequenceProto`, `onnx.MapProto` and `onnx.OptionalProto`, as upstream
does; everything else as `onnx.TensorProto`.

With `--light`, it also lays out the nine "light" real-model tests that the
wheel ships in `onnx/backend/test/data/light/` (AlexNet, DenseNet-121,
Inception v1/v2, ResNet-50, ShuffleNet, SqueezeNet, VGG-19, ZFNet-512, with
their weights replaced by `ConstantOfShape` nodes so the files stay small):
`OUT_DIR/light/<name>/model.onnx` plus `test_data_set_0/input_0.pb` made the
way upstream's runner makes it (`arange(n) / n` in the input's shape, unknown
dimensions set to 1) and the shipped expected `output_0.pb`.
The wheel's other shipped tests (`data/simple`, `data/pytorch-converted`,
`data/pytorch-operator`) are already in test-data layout and are not copied.

It also writes `OUT_DIR/manifest.tsv` (one line per test: name, op types of
the graph's nodes, number of inputs, number of outputs, opset of the default
domain, kind: `node`, `expanded` for a function-expanded variant, or `light`), and prints the time taken.

Several generators draw random data from NumPy's global generator; the script
seeds it (`--seed`, default 0) so reruns give the same data.
Tests written by other onnx versions may differ: pin the version
(`scripts/conformance/requirements.txt`).
"""

import argparse
import os
import shutil
import sys
import time
from typing import Any, List

import numpy as np
import onnx
from onnx import numpy_helper


def serialize_value(value: Any, vi: onnx.ValueInfoProto) -> bytes:
    """Serializes one test input or output according to its declared type."""
    kind = vi.type.WhichOneof("value")
    if kind == "sequence_type":
        proto = numpy_helper.from_list(value, vi.name)
    elif kind == "map_type":
        proto = numpy_helper.from_dict(value, vi.name)
    elif kind == "optional_type":
        proto = numpy_helper.from_optional(value, vi.name)
    elif isinstance(value, onnx.TensorProto):
        proto = value
    else:
        proto = numpy_helper.from_array(np.asarray(value), vi.name)
    return proto.SerializeToString()


def default_opset(model: onnx.ModelProto) -> int:
    for it in model.opset_import:
        if it.domain in ("", "ai.onnx"):
            return it.version
    return 0


def write_case(case, node_dir: str) -> List[str]:
    """Writes one test case; returns its manifest row."""
    case_dir = os.path.join(node_dir, case.name)
    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    model = case.model
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    n_in = n_out = 0
    for ds_idx, (inputs, outputs) in enumerate(case.data_sets):
        ds_dir = os.path.join(case_dir, f"test_data_set_{ds_idx}")
        os.makedirs(ds_dir)
        for j, value in enumerate(inputs):
            with open(os.path.join(ds_dir, f"input_{j}.pb"), "wb") as f:
                f.write(serialize_value(value, model.graph.input[j]))
        for j, value in enumerate(outputs):
            with open(os.path.join(ds_dir, f"output_{j}.pb"), "wb") as f:
                f.write(serialize_value(value, model.graph.output[j]))
        n_in, n_out = len(inputs), len(outputs)
    ops = sorted({n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}"
                  for n in model.graph.node})
    expanded = "_expanded" in case.name
    return [case.name, ",".join(ops), str(n_in), str(n_out), str(default_opset(model)),
            "expanded" if expanded else "node"]


def write_light(out_dir: str) -> List[List[str]]:
    """Lays out the shipped light real-model tests; returns manifest rows."""
    from onnx.backend.test.runner import Runner

    src = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data", "light")
    rows = []
    for fname in sorted(os.listdir(src)):
        if not (fname.startswith("light_") and fname.endswith(".onnx")):
            continue
        stem = fname[: -len(".onnx")]
        name = "test_" + stem[len("light_"):]
        case_dir = os.path.join(out_dir, "light", name)
        ds = os.path.join(case_dir, "test_data_set_0")
        if os.path.exists(case_dir):
            shutil.rmtree(case_dir)
        os.makedirs(ds)
        shutil.copyfile(os.path.join(src, fname), os.path.join(case_dir, "model.onnx"))
        model = onnx.load(os.path.join(src, fname))
        inits = {t.name for t in model.graph.initializer}
        inputs = [vi for vi in model.graph.input if vi.name not in inits]
        for j, vi in enumerate(inputs):
            value = Runner.generate_dummy_data(vi, seed=0, name=name, random=False)
            with open(os.path.join(ds, f"input_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value, vi.name).SerializeToString())
        n_out = 0
        for j in range(len(model.graph.output)):
            ref = os.path.join(src, f"{stem}_output_{j}.pb")
            if os.path.exists(ref):
                shutil.copyfile(ref, os.path.join(ds, f"output_{j}.pb"))
                n_out += 1
        ops = sorted({n.op_type for n in model.graph.node})
        rows.append([name, ",".join(ops), str(len(inputs)), str(n_out),
                     str(default_opset(model)), "light"])
    return rows


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--op", default=None, help="only generate tests of this op type")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--light", action="store_true",
                    help="also lay out the shipped light real-model tests")
    args = ap.parse_args(argv)

    start = time.perf_counter()
    np.random.seed(args.seed)
    from onnx.backend.test.case import node as node_cases

    cases = node_cases.collect_testcases(args.op)
    collect_s = time.perf_counter() - start

    node_dir = os.path.join(args.out_dir, "node")
    os.makedirs(node_dir, exist_ok=True)
    rows = [write_case(case, node_dir) for case in sorted(cases, key=lambda c: c.name)]
    if args.light:
        rows += write_light(args.out_dir)
    with open(os.path.join(args.out_dir, "manifest.tsv"), "w") as f:
        f.write(f"# onnx {onnx.__version__} backend node tests, seed {args.seed}\n")
        f.write("name\tops\tn_inputs\tn_outputs\topset\tkind\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    total_s = time.perf_counter() - start
    n_kind = {k: sum(r[5] == k for r in rows) for k in ("node", "expanded", "light")}
    n_ops = len({r[1] for r in rows if r[5] == "node"})
    print(f"onnx {onnx.__version__}: {len(rows)} tests ({n_kind['node']} node, "
          f"{n_kind['expanded']} function-expanded, {n_kind['light']} light models) "
          f"over {n_ops} op types; "
          f"collected in {collect_s:.1f}s, total {total_s:.1f}s -> {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
