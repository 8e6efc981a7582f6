#!/usr/bin/env python3
"""Runs the ONNX backend node tests through `nart` and writes the conformance report.

Usage:
    python3 scripts/conformance/run_suite.py [--nart PATH] [--tests DIR] [--compare]
                                             [--check] [--no-write] [--jobs N]

Steps:
1. Generate the node tests with the installed (pinned) `onnx` through
   `gen_node_tests.py` into `--tests` (default `~/.cache/nart/node-tests-<onnx version>`),
   unless that folder already holds a `manifest.tsv`.
2. Run every test folder through `nart run-tests` (the batch form of `nart run`: one process
   imports and runs many test folders and writes `output_N.pb` for each data set), in chunks,
   `--jobs` processes at a time; a chunk that crashes or times out is rerun one test per process.
3. Compare each output with the expected one as ONNX's backend runner does: same shape and
   element type, `rtol=1e-3, atol=1e-7` with NaN equal to NaN for numbers, exact equality for
   strings and booleans.
4. Write `tests/conformance/results.tsv` (one line per test) and `tests/conformance/report.md`
   (passed/total, per-op table, the reason for every failure).

`--compare` also runs ONNX Runtime (its Python binding) and tract (the `tract` PyPI package,
importable here or from `/tmp/tractvenv`) on the same tests with the same comparison, and puts
their counts beside nart's.

`--check` is the ratchet CI runs: it exits 1 if a test that passes in the committed
`results.tsv` now fails, or if a node test of a key operator (`KEY_OPS`) fails and is not listed,
with the reason it fails today, in `tests/conformance/key_op_gaps.tsv`; it names them all.
A listed key-op test that passes is reported so that its line gets removed.
"""

import argparse
import concurrent.futures as cf
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = os.path.join(ROOT, "tests", "conformance", "results.tsv")
KEY_GAPS = os.path.join(ROOT, "tests", "conformance", "key_op_gaps.tsv")
REPORT = os.path.join(ROOT, "tests", "conformance", "report.md")
RTOL, ATOL = 1e-3, 1e-7

# The operators issue #4 lists: every node test using only these must pass.
KEY_OPS = set("""
Conv ConvTranspose Gemm MatMul BatchNormalization LayerNormalization Relu LeakyRelu Clip Sigmoid
Tanh Gelu Erf HardSigmoid HardSwish Softmax LogSoftmax Add Sub Mul Div Pow Mod Neg Abs Sqrt Exp
Log Reciprocal Floor Ceil Max Min Sum Mean
ReduceMax ReduceMin ReduceMean ReduceSum ReduceProd ReduceL1 ReduceL2 ReduceLogSum
ReduceLogSumExp ReduceSumSquare MaxPool AveragePool GlobalAveragePool Resize Concat Split Slice
Gather GatherElements Reshape Transpose Flatten Squeeze Unsqueeze Expand Pad Cast Shape
ConstantOfShape Range Where Equal Less LessOrEqual Greater GreaterOrEqual Not And Or Xor Einsum
TopK ArgMax ArgMin NonMaxSuppression QuantizeLinear DequantizeLinear QLinearConv QLinearMatMul
MatMulInteger ConvInteger DynamicQuantizeLinear
""".split())


def load_manifest(tests_dir):
    rows = []
    with open(os.path.join(tests_dir, "manifest.tsv")) as f:
        for line in f:
            if line.startswith("#") or line.startswith("name\t"):
                continue
            name, ops, n_in, n_out, opset, kind = line.rstrip("\n").split("\t")
            rows.append({"name": name, "ops": [o for o in ops.split(",") if o], "kind": kind})
    return rows


def generate(tests_dir):
    if os.path.exists(os.path.join(tests_dir, "manifest.tsv")):
        return
    gen = os.path.join(ROOT, "scripts", "conformance", "gen_node_tests.py")
    subprocess.run([sys.executable, gen, tests_dir], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def is_key_test(row):
    return row["kind"] == "node" and row["ops"] and all(o in KEY_OPS for o in row["ops"])


# ----- reading values -----

def read_value(path, type_proto):
    """Reads an input or output file as the model declares it: ndarray, list or None."""
    kind = type_proto.WhichOneof("value")
    with open(path, "rb") as f:
        data = f.read()
    if kind == "sequence_type":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return numpy_helper.to_list(s)
    if kind == "optional_type":
        o = onnx.OptionalProto()
        o.ParseFromString(data)
        return numpy_helper.to_optional(o)
    if kind == "map_type":
        m = onnx.MapProto()
        m.ParseFromString(data)
        return numpy_helper.to_dict(m)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


def compare(got, want, where):
    """None if equal under the backend runner's rules, else the reason."""
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{where}: expected a sequence, got {type(got).__name__}"
        if len(got) != len(want):
            return f"{where}: sequence length {len(got)} vs {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            r = compare(g, w, f"{where}[{k}]")
            if r:
                return r
        return None
    if want is None:
        return None if got is None else f"{where}: expected an empty optional"
    if isinstance(want, dict):
        return None if got == want else f"{where}: maps differ"
    got = np.asarray(got)
    want = np.asarray(want)
    if got.dtype != want.dtype:
        return f"{where}: element type {got.dtype} vs expected {want.dtype}"
    if got.shape != want.shape:
        return f"{where}: shape {list(got.shape)} vs expected {list(want.shape)}"
    if want.dtype.kind in "fc" or str(want.dtype).startswith(("float8", "bfloat16", "float4")):
        g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        ok = np.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
        if not ok.all():
            bad = int((~ok).sum())
            i = int(np.argmax(~ok.ravel()))
            return (f"{where}: {bad} of {w.size} values differ beyond rtol={RTOL}, atol={ATOL} "
                    f"(first at flat index {i}: {g.ravel()[i]!r} vs {w.ravel()[i]!r})")
        return None
    if not np.array_equal(got, want):
        i = int(np.argmax((got != want).ravel())) if got.size else 0
        return f"{where}: values differ (first at flat index {i}: {got.ravel()[i]!r} vs {want.ravel()[i]!r})"
    return None


def data_sets(case_dir):
    return sorted(d for d in os.listdir(case_dir) if d.startswith("test_data_set_"))


def check_outputs(case_dir, out_dir, model):
    for ds in data_sets(case_dir):
        for j, vi in enumerate(model.graph.output):
            want_p = os.path.join(case_dir, ds, f"output_{j}.pb")
            got_p = os.path.join(out_dir, ds, f"output_{j}.pb")
            if not os.path.exists(want_p):
                continue
            if not os.path.exists(got_p):
                return f"{ds}: output #{j} was not written"
            try:
                got = read_value(got_p, vi.type)
            except Exception as ex:  # noqa: BLE001 - an unreadable output is a failure
                return f"{ds}: output #{j} cannot be read: {ex}"
            r = compare(got, read_value(want_p, vi.type), f"{ds}: output #{j} '{vi.name}'")
            if r:
                return r
    return None


# ----- running nart -----

def run_chunk(nart, dirs, out_root, timeout):
    """Runs `nart run-tests` on some test folders; returns {name: (status, message)}."""
    try:
        p = subprocess.run([nart, "run-tests", "--outputs", out_root, *dirs],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as ex:
        out = ex.stdout.decode() if isinstance(ex.stdout, bytes) else (ex.stdout or "")
        res = parse_lines(out)
        return res, False
    res = parse_lines(p.stdout)
    return res, p.returncode == 0 and len(res) == len(dirs)


def parse_lines(text):
    res = {}
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) >= 2:
            res[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return res


def run_nart(nart, rows, tests_dir, out_root, jobs, chunk=64, timeout=120):
    dirs = [os.path.join(tests_dir, "node", r["name"]) for r in rows]
    chunks = [dirs[i:i + chunk] for i in range(0, len(dirs), chunk)]
    results = {}
    with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_chunk, nart, c, out_root, timeout): c for c in chunks}
        for fut in cf.as_completed(futs):
            res, complete = fut.result()
            results.update(res)
            if not complete:
                # Rerun what is missing one test per process, so one crash or hang costs one test.
                for d in futs[fut]:
                    name = os.path.basename(d)
                    if name in results:
                        continue
                    r, done = run_chunk(nart, [d], out_root, 20)
                    results[name] = r.get(name, ("crash", "nart crashed or ran past 20 s"))
    return results


def nart_results(nart, rows, tests_dir, jobs):
    out_root = tempfile.mkdtemp(prefix="nart-conformance-")
    try:
        ran = run_nart(nart, rows, tests_dir, out_root, jobs)
        res = {}
        for r in rows:
            name = r["name"]
            status, msg = ran.get(name, ("crash", "no result"))
            if status != "ok":
                res[name] = ("fail", f"{status}: {msg}".replace(tests_dir.rstrip("/") + "/", ""))
                continue
            model = onnx.load(os.path.join(tests_dir, "node", name, "model.onnx"), load_external_data=False)
            reason = check_outputs(os.path.join(tests_dir, "node", name), os.path.join(out_root, name), model)
            res[name] = ("fail", f"mismatch: {reason}") if reason else ("pass", "")
        return res
    finally:
        shutil.rmtree(out_root, ignore_errors=True)


# ----- the other runtimes -----

def ort_results(rows, tests_dir):
    import onnxruntime as ort

    ort.set_default_logger_severity(4)
    res = {}
    for r in rows:
        case = os.path.join(tests_dir, "node", r["name"])
        try:
            model = onnx.load(os.path.join(case, "model.onnx"))
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = 1
            opts.log_severity_level = 4
            sess = ort.InferenceSession(os.path.join(case, "model.onnx"), opts,
                                        providers=["CPUExecutionProvider"])
            reason = None
            for ds in data_sets(case):
                feeds = {vi.name: read_value(os.path.join(case, ds, f"input_{j}.pb"), vi.type)
                         for j, vi in enumerate(model.graph.input)}
                got = sess.run(None, feeds)
                for j, vi in enumerate(model.graph.output):
                    want = read_value(os.path.join(case, ds, f"output_{j}.pb"), vi.type)
                    reason = compare(got[j], want, f"{ds}: output #{j}")
                    if reason:
                        break
                if reason:
                    break
            res[r["name"]] = ("fail", reason) if reason else ("pass", "")
        except Exception as ex:  # noqa: BLE001 - any ORT failure is a result here
            res[r["name"]] = ("fail", (str(ex).splitlines() or ["error"])[0][:200])
    return res


TRACT_WORKER = r"""
import json, os, sys
import numpy as np
import onnx
from onnx import numpy_helper
import tract

def read(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)

onnx_ = tract.onnx()
for case in sys.argv[1:]:
    try:
        m = onnx.load(os.path.join(case, "model.onnx"))
        if any(v.type.WhichOneof("value") != "tensor_type" for v in list(m.graph.input) + list(m.graph.output)):
            print(json.dumps({"name": os.path.basename(case), "error": "non-tensor input or output"}), flush=True)
            continue
        ds = os.path.join(case, "test_data_set_0")
        ins = [read(os.path.join(ds, f"input_{j}.pb")) for j in range(len(m.graph.input))]
        model = onnx_.load(os.path.join(case, "model.onnx"))
        for j, a in enumerate(ins):
            dt = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "int8": "i8", "uint8": "u8",
                  "int16": "i16", "uint16": "u16", "bool": "bool", "float16": "f16", "uint32": "u32", "uint64": "u64"}.get(str(a.dtype))
            if dt is None:
                raise RuntimeError(f"input dtype {a.dtype}")
            model.set_input_fact(j, ",".join([str(d) for d in a.shape] + [dt]))
        runnable = model.into_model().into_runnable()
        outs = runnable.run(ins)
        got = [o.to_numpy() for o in outs]
        np.savez(os.path.join(os.environ["TRACT_OUT"], os.path.basename(case) + ".npz"), *got)
        print(json.dumps({"name": os.path.basename(case), "ok": len(got)}), flush=True)
    except BaseException as ex:
        print(json.dumps({"name": os.path.basename(case), "error": (str(ex).splitlines() or ["error"])[0][:200]}), flush=True)
"""


def tract_python():
    try:
        import tract  # noqa: F401
        return sys.executable
    except ImportError:
        p = "/tmp/tractvenv/bin/python"
        return p if os.path.exists(p) else None


def tract_results(rows, tests_dir, jobs):
    py = tract_python()
    if py is None:
        return None
    out = tempfile.mkdtemp(prefix="nart-tract-")
    worker = os.path.join(out, "worker.py")
    with open(worker, "w") as f:
        f.write(TRACT_WORKER)
    env = dict(os.environ, TRACT_OUT=out)
    dirs = [os.path.join(tests_dir, "node", r["name"]) for r in rows]
    chunks = [dirs[i:i + 64] for i in range(0, len(dirs), 64)]
    lines = {}

    def one(chunk):
        got = {}
        todo = list(chunk)
        while todo:
            try:
                p = subprocess.run([py, worker, *todo], capture_output=True, text=True, env=env, timeout=300)
                text = p.stdout
            except subprocess.TimeoutExpired as ex:
                text = ex.stdout.decode() if isinstance(ex.stdout, bytes) else (ex.stdout or "")
            for line in text.splitlines():
                try:
                    d = json.loads(line)
                    got[d["name"]] = d
                except ValueError:
                    pass
            # A crash ends the process: record the next test as crashed and go on after it.
            rest = [d for d in todo if os.path.basename(d) not in got]
            if rest and len(rest) == len(todo):
                got[os.path.basename(rest[0])] = {"name": os.path.basename(rest[0]), "error": "tract crashed"}
                rest = rest[1:]
            todo = rest
        return got

    try:
        with cf.ThreadPoolExecutor(max_workers=jobs) as ex:
            for got in ex.map(one, chunks):
                lines.update(got)
        res = {}
        for r in rows:
            d = lines.get(r["name"], {"error": "no result"})
            if "error" in d:
                res[r["name"]] = ("fail", d["error"])
                continue
            case = os.path.join(tests_dir, "node", r["name"])
            model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
            z = np.load(os.path.join(out, r["name"] + ".npz"), allow_pickle=True)
            reason = None
            for j, vi in enumerate(model.graph.output):
                want = read_value(os.path.join(case, "test_data_set_0", f"output_{j}.pb"), vi.type)
                reason = compare(z[f"arr_{j}"], want, f"output #{j}")
                if reason:
                    break
            res[r["name"]] = ("fail", reason) if reason else ("pass", "")
        return res
    finally:
        shutil.rmtree(out, ignore_errors=True)


# ----- report -----

def write_results(path, rows, res, others):
    others = {k: v for k, v in others.items() if v is not None}
    with open(path, "w") as f:
        f.write("# name\tkind\tops\tstatus\treason" + "".join(f"\t{k}" for k in others) + "\n")
        for r in rows:
            status, reason = res[r["name"]]
            cols = [r["name"], r["kind"], ",".join(r["ops"]), status,
                    reason.replace("\t", " ").replace("\n", " ")]
            cols += [v[r["name"]][0] for v in others.values()]
            f.write("\t".join(cols) + "\n")


def read_results(path):
    res = {}
    if not os.path.exists(path):
        return res
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 4:
                res[parts[0]] = parts[3]
    return res


def read_gaps(path):
    """Key-op tests known to fail, with why: `name<TAB>reason` lines."""
    gaps = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    name, _, reason = line.rstrip("\n").partition("\t")
                    gaps[name] = reason
    return gaps


def write_gaps(path, rows, res):
    with open(path, "w") as f:
        f.write("# Key-op node tests that fail today (name<TAB>reason); `run_suite.py --check` fails on any\n")
        f.write("# other key-op failure. Regenerate with `run_suite.py --write-gaps`; the goal is an empty file.\n")
        for r in rows:
            if is_key_test(r) and res[r["name"]][0] != "pass":
                f.write(f"{r['name']}\t{res[r['name']][1][:300]}\n")


def count(rows, res):
    return sum(res[r["name"]][0] == "pass" for r in rows)


def write_report(path, rows, res, others, meta):
    total = len(rows)
    node_rows = [r for r in rows if r["kind"] == "node"]
    key_rows = [r for r in rows if is_key_test(r)]
    lines = ["# ONNX backend node tests", ""]
    lines.append(f"Generated by `python3 scripts/conformance/run_suite.py{' --compare' if others else ''}` "
                 f"with onnx {onnx.__version__} ({meta['tests']} tests: node tests and their "
                 "function-expanded variants); do not edit by hand.")
    lines.append(f"Outputs are compared as ONNX's backend runner does: rtol={RTOL}, atol={ATOL}, "
                 "NaN equal to NaN, exact for strings and booleans, same shape and element type.")
    lines.append("")
    lines.append("| runtime | passed | total | rate | node tests passed | key-op tests passed |")
    lines.append("|---|---|---|---|---|---|")
    table = [("nart", res)] + [(k, v) for k, v in others.items() if v is not None]
    for name, rr in table:
        p = count(rows, rr)
        lines.append(f"| {name} | {p} | {total} | {100.0 * p / total:.1f}% | "
                     f"{count(node_rows, rr)}/{len(node_rows)} | {count(key_rows, rr)}/{len(key_rows)} |")
    lines.append("")
    lines.append("Key-op tests are node tests (not expanded) whose graph uses only the operators issue #4 "
                 "lists (`KEY_OPS` in the script).")
    lines.append(f"nart ran the suite in {meta['nart_s']:.1f} s.")
    for name, rr in table[1:]:
        only = [r["name"] for r in rows if rr[r["name"]][0] == "pass" and res[r["name"]][0] != "pass"]
        lines.append(f"Tests {name} passes and nart fails: {len(only)}.")
    lines.append("")
    lines.append("## Per operator")
    lines.append("")
    lines.append("A test counts for every operator its graph uses.")
    lines.append("")
    head = "| op | tests | nart |" + "".join(f" {k} |" for k, v in others.items() if v is not None)
    lines.append(head)
    lines.append("|---" * (head.count("|") - 1) + "|")
    per_op = defaultdict(list)
    for r in rows:
        for o in r["ops"]:
            per_op[o].append(r)
    for op in sorted(per_op):
        rs = per_op[op]
        cells = [f"{count(rs, rr)}" for _, rr in table]
        lines.append(f"| {op} | {len(rs)} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("## Failures (nart)")
    lines.append("")
    fails = [r for r in rows if res[r["name"]][0] != "pass"]
    if not fails:
        lines.append("None.")
    for r in fails:
        reason = res[r["name"]][1].replace("|", "\\|")
        lines.append(f"- `{r['name']}` ({','.join(r['ops'])}): {reason}")
    lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nart", default=os.path.join(ROOT, "target", "release", "nart"))
    ap.add_argument("--tests", default=os.path.expanduser(f"~/.cache/nart/node-tests-{onnx.__version__}"))
    ap.add_argument("--compare", action="store_true", help="also run ONNX Runtime and tract")
    ap.add_argument("--check", action="store_true", help="ratchet: fail on regressions and key-op failures")
    ap.add_argument("--no-write", action="store_true", help="do not rewrite results.tsv and report.md")
    ap.add_argument("--write-gaps", action="store_true", help="rewrite key_op_gaps.tsv from this run")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    generate(args.tests)
    rows = load_manifest(args.tests)
    t1 = time.perf_counter()
    res = nart_results(args.nart, rows, args.tests, args.jobs)
    nart_s = time.perf_counter() - t1
    others = {}
    if args.compare:
        others["onnxruntime"] = ort_results(rows, args.tests)
        others["tract"] = tract_results(rows, args.tests, args.jobs)
    passed = count(rows, res)
    print(f"nart: {passed}/{len(rows)} passed ({nart_s:.1f} s running, {time.perf_counter() - t0:.1f} s total)")
    for k, v in others.items():
        print(f"{k}: " + (f"{count(rows, v)}/{len(rows)} passed" if v is not None else "not available"))

    status = 0
    if args.check:
        before = read_results(RESULTS)
        regressed = [r["name"] for r in rows if before.get(r["name"]) == "pass" and res[r["name"]][0] != "pass"]
        gaps = read_gaps(KEY_GAPS)
        key_fail = [r["name"] for r in rows
                    if is_key_test(r) and res[r["name"]][0] != "pass" and r["name"] not in gaps]
        for name in regressed:
            print(f"REGRESSION {name}: {res[name][1]}")
        for name in key_fail:
            print(f"KEY-OP FAILURE {name}: {res[name][1]}")
        for name in sorted(gaps):
            if name in res and res[name][0] == "pass":
                print(f"note: {name} passes now; remove it from {os.path.relpath(KEY_GAPS, ROOT)}")
        if regressed or key_fail:
            status = 1
    if not args.no_write:
        os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
        write_results(RESULTS, rows, res, others)
        write_report(REPORT, rows, res, others, {"tests": len(rows), "nart_s": nart_s})
    if args.write_gaps:
        write_gaps(KEY_GAPS, rows, res)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
