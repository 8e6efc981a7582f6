#!/usr/bin/env python3
"""ONNX Runtime runs a QDQ model that `nart quantize -o Q.onnx` wrote, and agrees with `nart run`.

Runs the model on one batch of inputs in `nart run` (the exact integer kernels) and in ONNX
Runtime, and compares every output element in units of the output's quantization step (the scale
of the DequantizeLinear that makes each graph output). ONNX Runtime runs twice: with graph
optimizations off (QDQ executed as written: float convolutions on dequantized values, so a sum can
round to the neighbouring step) and with its default optimizations (QDQ fused into its int8
kernels). The check is on the first: every element within one step, and at most
`--max-off-fraction` of them off at all (a float output, of a weight-only scheme, within 1e-5 of
its largest magnitude). The second is reported, not checked (onnxruntime 1.32's
optimizer, for one, removes the QDQ pair around a MaxPool of 4-bit activations and then rejects
the 4-bit MaxPool it made).

Usage: check_ort_qdq.py --nart BIN --model Q.onnx --input X.pb [--max-off-fraction F]
Exit status 0 when the check holds, 1 otherwise.
"""

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def output_steps(model):
    """The scale of the DequantizeLinear producing each graph output (None if there is none)."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    producer = {o: n for n in model.graph.node for o in n.output}
    steps = []
    for out in model.graph.output:
        name = out.name
        n = producer.get(name)
        while n is not None and n.op_type == "Identity":
            name = n.input[0]
            n = producer.get(name)
        if n is not None and n.op_type == "DequantizeLinear" and n.input[1] in inits:
            steps.append(float(np.max(inits[n.input[1]])))
        else:
            steps.append(None)
    return steps


def run_ort(path, feeds, level):
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def compare(name, ours, theirs, step):
    ours = ours.astype(np.float64)
    theirs = theirs.astype(np.float64)
    if ours.shape != theirs.shape:
        return None, f"{name}: shapes differ: nart {ours.shape}, onnxruntime {theirs.shape}"
    diff = np.abs(ours - theirs)
    if step:
        steps = diff / step
    else:
        # A float output (weight-only schemes): differences relative to the output's magnitude.
        steps = diff / max(float(np.abs(theirs).max()), 1e-30)
    off = int(np.count_nonzero(steps > 1e-6))
    worst = float(steps.max()) if steps.size else 0.0
    return (off, worst, ours.size), None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nart", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True, help="a TensorProto .pb for the model's only input")
    p.add_argument("--max-off-fraction", type=float, default=0.02)
    a = p.parse_args()

    model = onnx.load(a.model)
    steps = output_steps(model)
    x = numpy_helper.to_array(onnx.load_tensor(a.input))
    input_name = model.graph.input[0].name
    with tempfile.TemporaryDirectory() as tmp:
        ind = os.path.join(tmp, "in")
        outd = os.path.join(tmp, "out")
        os.makedirs(ind)
        with open(os.path.join(ind, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, input_name).SerializeToString())
        r = subprocess.run(
            [a.nart, "run", "--model", a.model, "--inputs", ind, "--outputs", outd],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            print(f"nart run failed:\n{r.stderr}")
            return 1
        ours = [
            numpy_helper.to_array(onnx.load_tensor(os.path.join(outd, f"output_{k}.pb")))
            for k in range(len(model.graph.output))
        ]
    ok = True
    for label, level in [
        ("onnxruntime (optimizations off)", ort.GraphOptimizationLevel.ORT_DISABLE_ALL),
        ("onnxruntime (default optimizations)", ort.GraphOptimizationLevel.ORT_ENABLE_ALL),
    ]:
        try:
            theirs = run_ort(a.model, {input_name: x}, level)
        except Exception as e:  # noqa: BLE001 - onnxruntime raises its own exception types
            first = str(e).splitlines()[0] if str(e) else type(e).__name__
            print(f"{label}: onnxruntime cannot run the model: {first}")
            if level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL:
                ok = False
            continue
        for k, (o, t) in enumerate(zip(ours, theirs)):
            res, err = compare(f"output {k}", o, t, steps[k])
            if err:
                print(err)
                ok = False
                continue
            off, worst, n = res
            unit = f"steps (step {steps[k]})" if steps[k] else "of the largest |output| (a float output)"
            print(
                f"{label}: output {k}: {off} of {n} elements differ from nart run by more than "
                f"1e-6 ({100.0 * off / n:.2f}%), at most {worst:.3g} {unit}"
            )
            # One step for quantized outputs; float rounding (1e-5 of the range) for float ones.
            limit = 1.0 + 1e-6 if steps[k] else 1e-5
            if level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL:
                if worst > limit or (steps[k] and off > a.max_off_fraction * n):
                    print(f"FAIL: more than one step, or more than {a.max_off_fraction:.1%} off")
                    ok = False
    print("OK" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
