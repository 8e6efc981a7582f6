#!/usr/bin/env python3
"""nart quantize vs ONNX Runtime's quantize_static, in one run, on the same calibration data.

Usage (benches/quant/run.sh builds nart and the zoo models first):
    python3 benches/quant/compare.py --nart target/release/nart [--cache DIR]
        [--models digits_cnn,resnet18,mobilenetv2] [--calibrators minmax,entropy,percentile]
        [--n-calib 64] [--n-eval 8] [--keep DIR]

What it measures, per model and calibrator (both tools have MinMax, Entropy and Percentile):
- nart: `nart quantize M --calib DATA --scheme onnx-qdq --calibrator C --export-qparams P.json
  -o Q.mlir` (timed: load, calibration, quantization, writing), then the same quantization
  evaluated by nart's reference interpreter through the accuracy guard:
  `nart quantize M --qparams P.json --eval EVAL [--labels L] --report R.json -o Q2.mlir` (the
  parameters read back give the same quantized IR as the first run; nart's own tests check it);
  float vs int8 top-1 and output SQNR of the QDQ form come from R.json. Q2.mlir is the integer
  form (qnn ops with the exact integer kernels, what `nart compile --quant` packages); `nart run
  --model Q2.mlir` runs it, and its output SQNR is the row "output SQNR dB, integer form".
- ONNX Runtime: `quant_pre_process` (BatchNorm folding, shape inference; not timed), then
  `quantize_static` (QDQ format, per-channel s8 weights, u8 activations, the same calibration
  samples; timed), run by ONNX Runtime's CPU provider against the float model run by ONNX Runtime.
- digits_cnn: top-1 on its 449 held-out digits with labels, float vs nart int8 vs ORT int8; also
  nart's W4 weights (`w4-group`) on its Gemm, and W4A8 (`w4a8`: s4 per-channel weights on every
  conv and matmul, u8 activations).
- resnet18 / mobilenetv2 (random weights, scripts/models/build_zoo.py): output SQNR against float
  on --n-eval seeded random inputs, calibrated on --n-calib others.
- ranges: the activation range that the scale and zero point of a few tensors stand for, minmax
  vs entropy, for both tools (ORT's Entropy calibrator can give MinMax's ranges).
- the calibration time ratio (quantize_static / nart quantize).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import onnx
    import onnxruntime as ort
    from onnx import numpy_helper
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process
except ImportError as e:  # run.sh checks first; this is for direct calls
    print(f"skip: {e} (benches/quant needs onnx and onnxruntime)")
    sys.exit(0)

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_METHOD = {
    "minmax": CalibrationMethod.MinMax,
    "entropy": CalibrationMethod.Entropy,
    "percentile": CalibrationMethod.Percentile,
}
# ORT's Percentile calibrator keeps 99.999% by default; nart is told the same.
NART_CALIBRATOR = {"minmax": "minmax", "entropy": "entropy", "percentile": "percentile:99.999"}


def sqnr_db(ref, q):
    ref = np.concatenate([r.astype(np.float64).ravel() for r in ref])
    q = np.concatenate([x.astype(np.float64).ravel() for x in q])
    noise = np.sum((ref - q) ** 2)
    if noise == 0:
        return float("inf")
    return float(10 * np.log10(np.sum(ref**2) / noise))


def per_sample_sqnr(ref, q):
    """The output SQNR (dB) of each evaluation sample: each row along the first axis."""
    rows = [(r, x) for rb, qb in zip(ref, q) for r, x in zip(rb, qb)]
    return np.array([sqnr_db([r], [x]) for r, x in rows])


def save_samples(root, batches):
    """Writes each array as root/sample_NNN/input_0.npy (a folder of sample folders)."""
    os.makedirs(root, exist_ok=True)
    for i, b in enumerate(batches):
        d = os.path.join(root, f"sample_{i:03d}")
        os.makedirs(d, exist_ok=True)
        np.save(os.path.join(d, "input_0.npy"), b)
    return root


class Reader(CalibrationDataReader):
    def __init__(self, name, batches):
        self.name, self.batches, self.i = name, batches, 0

    def get_next(self):
        if self.i >= len(self.batches):
            return None
        self.i += 1
        return {self.name: self.batches[self.i - 1]}

    def rewind(self):
        self.i = 0


def run(cmd):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return dt, p


def nart_quantize(args, model, calib, calibrator, work, evalset, labels=None, extra=()):
    """Quantizes with nart (timed), then evaluates the same parameters with the guard."""
    params = os.path.join(work, "params.json")
    dt, _ = run(
        [args.nart, "quantize", model, "--calib", calib, "--scheme", "onnx-qdq",
         "--calibrator", NART_CALIBRATOR.get(calibrator, calibrator), "--export-qparams", params,
         "-o", os.path.join(work, "q.mlir"), *extra]
    )
    report = os.path.join(work, "report.json")
    cmd = [args.nart, "quantize", model, "--qparams", params, "--scheme", "onnx-qdq",
           "--eval", evalset, "--report", report, "-o", os.path.join(work, "q2.mlir"), *extra]
    if labels:
        cmd += ["--labels", labels]
    run(cmd)
    with open(report) as f:
        r = json.load(f)
    with open(params) as f:
        p = json.load(f)
    return dt, r, p


def nart_run(args, model, samples, out):
    """Runs `model` with `nart run` on every sample folder; the first outputs, in order."""
    run([args.nart, "run", "--model", model, "--dataset", samples, "--outputs", out])
    return [numpy_helper.to_array(onnx.load_tensor(os.path.join(out, d, "output_0.pb")))
            for d in sorted(os.listdir(out))]


def ort_quantize(model_pre, out, input_name, batches, calibrator):
    extra = {}
    if calibrator == "percentile":
        extra["CalibPercentile"] = 99.999
    t = time.perf_counter()
    quantize_static(
        model_pre, out, Reader(input_name, batches), quant_format=QuantFormat.QDQ,
        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
        calibrate_method=ORT_METHOD[calibrator], extra_options=extra,
    )
    return time.perf_counter() - t


def ort_outputs(model, input_name, batches):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    return [s.run(None, {input_name: b})[0] for b in batches]


def nart_ranges(p):
    """tensor -> (lo, hi) that a per-tensor u8/i8 scale and zero point stand for."""
    out = {}
    for name, t in p["tensors"].items():
        if len(t["scale"]) != 1 or t["dtype"] not in ("u8", "i8"):
            continue
        lo_q, hi_q = (0, 255) if t["dtype"] == "u8" else (-128, 127)
        s, z = t["scale"][0], t["zero_point"][0]
        out[name] = ((lo_q - z) * s, (hi_q - z) * s)
    return out


def ort_ranges(model):
    m = onnx.load(model)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    out = {}
    for n in m.graph.node:
        if n.op_type != "QuantizeLinear" or n.input[0] in inits:
            continue
        s, z = inits.get(n.input[1]), inits.get(n.input[2])
        if s is None or z is None or s.size != 1:
            continue
        info = np.iinfo(z.dtype)
        out[n.input[0]] = ((info.min - int(z)) * float(s), (info.max - int(z)) * float(s))
    return out


def fmt(x, d=2):
    return "inf" if x == float("inf") else f"{x:.{d}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nart", required=True)
    ap.add_argument("--cache", default=os.environ.get("NART_MODEL_CACHE",
                                                      os.path.expanduser("~/.cache/nart/models")))
    ap.add_argument("--models", default="digits_cnn,resnet18,mobilenetv2")
    ap.add_argument("--calibrators", default="minmax,entropy,percentile")
    ap.add_argument("--n-calib", type=int, default=64)
    ap.add_argument("--n-eval", type=int, default=8)
    ap.add_argument("--keep", help="keep the work files here instead of a temporary folder")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="nart-bench-quant-")
    os.makedirs(work, exist_ok=True)
    calibrators = args.calibrators.split(",")
    print(f"nart: {args.nart}; onnxruntime {ort.__version__}, onnx {onnx.__version__}, "
          f"numpy {np.__version__}; {os.cpu_count()} CPUs")
    # Untimed: reads nart's binary into the page cache, as importing onnxruntime above did
    # for ORT's libraries (the first timed command otherwise pays for a cold executable).
    subprocess.run([args.nart, "--version"], capture_output=True, check=False)
    results = []  # (model, calibrator, metric, float, nart, ort)
    times = []  # (model, calibrator, n, nart_s, ort_s)
    ranges = {}  # (model, calibrator) -> (nart, ort)
    spread = []  # (model, calibrator, per-sample SQNR nart integer form, per-sample ORT)
    try:
        for model_name in args.models.split(","):
            if model_name == "digits_cnn":
                mdir = os.path.join(REPO, "tests/models/digits_cnn")
            else:
                mdir = os.path.join(args.cache, model_name)
            model = os.path.join(mdir, "model.onnx")
            if not os.path.exists(model):
                print(f"skip {model_name}: {model} is missing (scripts/models/build_zoo.py)")
                continue
            mwork = os.path.join(work, model_name)
            os.makedirs(mwork, exist_ok=True)
            input_name = onnx.load(model, load_external_data=False).graph.input[0].name
            pre = os.path.join(mwork, "model.pre.onnx")
            quant_pre_process(model, pre, skip_symbolic_shape=True)
            if model_name == "digits_cnn":
                x = numpy_helper.to_array(onnx.load_tensor(os.path.join(mdir, "calib_inputs.pb")))
                # --n-calib rows of the calibration split, one row per sample for both tools.
                calib = [x[i:i + 1] for i in range(min(args.n_calib, len(x)))]
                ev = numpy_helper.to_array(onnx.load_tensor(os.path.join(mdir, "heldout_inputs.pb")))
                labels_arr = numpy_helper.to_array(
                    onnx.load_tensor(os.path.join(mdir, "heldout_labels.pb")))
                evalset = os.path.join(mdir, "heldout_inputs.pb")
                labels = os.path.join(mdir, "heldout_labels.pb")
                eval_batches = [ev]
                eval_samples = save_samples(os.path.join(mwork, "eval"), eval_batches)
            else:
                rng = np.random.default_rng(20240517)
                calib = [rng.standard_normal((1, 3, 224, 224), dtype=np.float32)
                         for _ in range(args.n_calib)]
                eval_batches = [rng.standard_normal((1, 3, 224, 224), dtype=np.float32)
                                for _ in range(args.n_eval)]
                evalset = save_samples(os.path.join(mwork, "eval"), eval_batches)
                eval_samples = evalset
                labels = None
            calib_dir = save_samples(os.path.join(mwork, "calib"), calib)
            float_out = ort_outputs(model, input_name, eval_batches)
            for cal in calibrators:
                cwork = os.path.join(mwork, cal)
                os.makedirs(cwork, exist_ok=True)
                nart_s, r, p = nart_quantize(args, model, calib_dir, cal, cwork, evalset, labels)
                qmodel = os.path.join(cwork, "ort.qdq.onnx")
                ort_s = ort_quantize(pre, qmodel, input_name, calib, cal)
                q_out = ort_outputs(qmodel, input_name, eval_batches)
                times.append((model_name, cal, len(calib), nart_s, ort_s))
                ranges[(model_name, cal)] = (nart_ranges(p), ort_ranges(qmodel))
                results.append((model_name, cal, "output SQNR dB", None,
                                r["outputs"][0]["sqnr_db"], sqnr_db(float_out, q_out)))
                # The deployed form: q2.mlir holds the integer qnn ops (--form auto), run by
                # `nart run` with the exact integer kernels.
                int_out = nart_run(args, os.path.join(cwork, "q2.mlir"), eval_samples,
                                   os.path.join(cwork, "int-out"))
                results.append((model_name, cal, "output SQNR dB, integer form", None,
                                sqnr_db(float_out, int_out), sqnr_db(float_out, q_out)))
                spread.append((model_name, cal, per_sample_sqnr(float_out, int_out),
                               per_sample_sqnr(float_out, q_out)))
                if labels is not None:
                    ort_f = float(np.mean(np.argmax(float_out[0], -1) == labels_arr)) * 100
                    ort_q = float(np.mean(np.argmax(q_out[0], -1) == labels_arr)) * 100
                    nf = r["top1"]["float"]["percent"]
                    results.append((model_name, cal, "top-1 % (float: nart / ORT)",
                                    f"{nf:.2f} / {ort_f:.2f}",
                                    r["top1"]["quantized"]["percent"], ort_q))
                print(f"  {model_name} {cal}: nart {nart_s:.2f} s, quantize_static {ort_s:.2f} s",
                      flush=True)
            if model_name == "digits_cnn":
                for label, extra in [
                    ("w4-group (Gemm weights u4/32, float act.)", ["--scheme", "w4-group"]),
                    ("onnx-qdq + Gemm w4-group", ["--override", "logits=scheme:w4-group"]),
                    ("w4a8 (s4 per-channel weights, u8 act.)", ["--scheme", "w4a8"]),
                ]:
                    cwork = os.path.join(mwork, "w4")
                    os.makedirs(cwork, exist_ok=True)
                    rep = os.path.join(cwork, "report.json")
                    cmd = [args.nart, "quantize", model, "--calib", calib_dir, "--eval", evalset,
                           "--labels", labels, "--report", rep, "-o", os.path.join(cwork, "q.mlir")]
                    if extra[0] != "--scheme":
                        cmd += ["--scheme", "onnx-qdq"]
                    run(cmd + extra)
                    with open(rep) as f:
                        r = json.load(f)
                    results.append((model_name, label, "top-1 %", r["top1"]["float"]["percent"],
                                    r["top1"]["quantized"]["percent"], None))
                    results.append((model_name, label, "output SQNR dB", None,
                                    r["outputs"][0]["sqnr_db"], None))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    def cell(x):
        if x is None:
            return "-"
        if isinstance(x, str):
            return x
        return fmt(x)

    print()
    print("| model | calibrator | metric | float | nart int8 (nart) | ORT int8 (ORT) |")
    print("|---|---|---|---|---|---|")
    for m, c, metric, f, n, o in results:
        print(f"| {m} | {c} | {metric} | {cell(f)} | {cell(n)} | {cell(o)} |")
    print()
    print("| model | calibrator | calibration samples | nart quantize s | quantize_static s | ratio |")
    print("|---|---|---|---|---|---|")
    for m, c, n, a, b in times:
        print(f"| {m} | {c} | {n} | {a:.2f} | {b:.2f} | {b / a:.1f}x |")
    print()
    print("per-sample output SQNR (dB; the integer form for nart; the mean of the samples' SQNRs,")
    print("not the pooled SQNR of the first table), and the difference nart - ORT with its standard")
    print("error (sd / sqrt(n)): differences within about two standard errors are what this many")
    print("samples cannot resolve:")
    print()
    print("| model | calibrator | samples | nart mean (sd) | ORT mean (sd) | nart - ORT mean ± SE |")
    print("|---|---|---|---|---|---|")
    for m, c, a, b in spread:
        fin = np.isfinite(a) & np.isfinite(b)
        a, b = a[fin], b[fin]
        d = a - b
        se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        print(f"| {m} | {c} | {len(d)} | {a.mean():.2f} ({a.std(ddof=1):.2f}) | "
              f"{b.mean():.2f} ({b.std(ddof=1):.2f}) | {d.mean():+.3f} ± {se:.3f} |")
    print()
    print("activation ranges (lo, hi) that the u8 scale and zero point stand for, minmax vs entropy:")
    for m in args.models.split(","):
        if (m, "minmax") not in ranges or (m, "entropy") not in ranges:
            continue
        (nm, om), (ne, oe) = ranges[(m, "minmax")], ranges[(m, "entropy")]
        names = [k for k in nm if k in ne][:4]
        onames = [k for k in om if k in oe][:4]
        for k in names:
            print(f"  {m} nart {k}: minmax [{nm[k][0]:.4f}, {nm[k][1]:.4f}]  "
                  f"entropy [{ne[k][0]:.4f}, {ne[k][1]:.4f}]")
        for k in onames:
            print(f"  {m} ORT  {k}: minmax [{om[k][0]:.4f}, {om[k][1]:.4f}]  "
                  f"entropy [{oe[k][0]:.4f}, {oe[k][1]:.4f}]")
        nboth = [k for k in nm if k in ne]
        oboth = [k for k in om if k in oe]
        nd = sum(1 for k in nboth if nm[k] != ne[k])
        od = sum(1 for k in oboth if om[k] != oe[k])
        print(f"  {m}: entropy differs from minmax on {nd} of {len(nboth)} nart activation "
              f"tensors, on {od} of {len(oboth)} ORT activation tensors")


if __name__ == "__main__":
    main()
