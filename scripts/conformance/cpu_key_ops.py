#!/usr/bin/env python3
"""Runs the ONNX node tests of the key operators through nart's code-level `cpu` target.

Usage:
    python3 scripts/conformance/cpu_key_ops.py [--nart PATH] [--tests DIR] [--jobs N]
                                                [--only OP[,OP...]] [--no-write]

For every node test whose graph uses only key operators (`KEY_OPS` of run_suite.py), this
compiles the model with `nart compile --targets cpu,interp` (the interpreter is the fallback
for what the cpu target refuses), reads the placement table, runs the package with `nart run
--package` on each data set, and compares every data set's outputs with the expected ones under the
backend runner's rules (run_suite.compare: rtol 1e-3, atol 1e-7). Each test lands in one row:

- `cpu`: every op of the test ran in generated code, and the outputs match;
- `mixed`: some ops fell back to the interpreter (the cpu target's reasons are listed), and the
  outputs match;
- `fail`: the outputs do not match (with or without fallback), or compiling or running failed.

It writes `tests/conformance/cpu_key_ops.md` (per-operator counts, every fallback reason and
every failure) unless `--no-write`, and exits 1 if any test fails.
"""

import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_suite  # noqa: E402  (the same manifest, key-op list and comparison)

ROOT = run_suite.ROOT
REPORT = os.path.join(ROOT, "tests", "conformance", "cpu_key_ops.md")


def placement(report):
    """(ops on cpu, all ops, {op type: reason}) from `nart compile`'s placement table."""
    table = report.split("\n\n", 1)[0].splitlines()[1:]
    on_cpu, reasons = 0, {}
    for line in table:
        parts = line.split(None, 3)
        if len(parts) < 3:
            continue
        if parts[2] == "cpu":
            on_cpu += 1
        elif len(parts) == 4:
            reasons[parts[1]] = parts[3].strip()
    return on_cpu, len(table), reasons


def run_one(nart, case_dir, scratch):
    """(status, detail, {op: reason}) for one test folder."""
    name = os.path.basename(case_dir)
    pkg = os.path.join(scratch, name + ".nartpkg")
    out = os.path.join(scratch, name + ".out")
    try:
        p = subprocess.run([nart, "compile", os.path.join(case_dir, "model.onnx"),
                            "--targets", "cpu,interp", "-o", pkg],
                           capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return "fail", "compile timed out", {}
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["?"])[-1]
        return "fail", f"compile: {msg}", {}
    on_cpu, total, reasons = placement(p.stdout)
    for ds in run_suite.data_sets(case_dir):
        try:
            r = subprocess.run([nart, "run", "--package", pkg,
                                "--inputs", os.path.join(case_dir, ds),
                                "--outputs", os.path.join(out, ds)],
                               capture_output=True, text=True, timeout=600)
        except subprocess.TimeoutExpired:
            return "fail", f"{ds}: run timed out", reasons
        if r.returncode != 0:
            msg = " ".join(r.stderr.strip().splitlines()[:2]) or "?"
            return "fail", f"{ds}: run: {msg}", reasons
    model = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    why = run_suite.check_outputs(case_dir, out, model)
    if why:
        where = "cpu" if on_cpu == total else f"{on_cpu} of {total} ops on cpu"
        return "fail", f"{where}: {why}", reasons
    return ("cpu" if on_cpu == total and total > 0 else "mixed"), "", reasons


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nart", default=os.path.join(ROOT, "target", "release", "nart"))
    ap.add_argument("--tests", default=None)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--only", default="", help="comma-separated operator names")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    tests_dir = args.tests or os.path.expanduser(
        f"~/.cache/nart/node-tests-{onnx.__version__}")
    run_suite.generate(tests_dir)
    only = {o for o in args.only.split(",") if o}
    rows = [r for r in run_suite.load_manifest(tests_dir) if run_suite.is_key_test(r)]
    if only:
        rows = [r for r in rows if set(r["ops"]) & only]
    results = {}
    with tempfile.TemporaryDirectory(prefix="nart-cpu-key-") as scratch:
        with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            futs = {ex.submit(run_one, args.nart, os.path.join(tests_dir, "node", r["name"]),
                              scratch): r for r in rows}
            for k, f in enumerate(cf.as_completed(futs), 1):
                r = futs[f]
                results[r["name"]] = (r, *f.result())
                if k % 50 == 0:
                    print(f"{k}/{len(rows)}", file=sys.stderr)

    per_op = defaultdict(lambda: defaultdict(int))
    reasons = defaultdict(set)
    failures = []
    for name, (r, status, detail, why) in sorted(results.items()):
        for op in set(r["ops"]):
            per_op[op][status] += 1
        for op, reason in why.items():
            reasons[op.removeprefix("graph.")].add(re.sub(r"\s+", " ", reason))
        if status == "fail":
            failures.append((name, detail))
    totals = defaultdict(int)
    for name, (r, status, _, _) in results.items():
        totals[status] += 1

    lines = [
        "# Key-operator node tests on the cpu target",
        "",
        "Written by `python3 scripts/conformance/cpu_key_ops.py` (see its docstring): every ONNX",
        "node test whose graph uses only key operators, compiled with `nart compile --targets",
        "cpu,interp`, run with `nart run --package` on each data set, compared as the backend runner",
        "compares (rtol 1e-3, atol 1e-7).",
        "",
        f"{len(results)} tests: {totals['cpu']} entirely in generated code and correct, "
        f"{totals['mixed']} correct with some ops on the interpreter, {totals['fail']} failed.",
        "",
        "| operator | tests | all on cpu, correct | with fallback, correct | failed |",
        "|---|---|---|---|---|",
    ]
    for op in sorted(per_op):
        c = per_op[op]
        n = c["cpu"] + c["mixed"] + c["fail"]
        lines.append(f"| {op} | {n} | {c['cpu']} | {c['mixed']} | {c['fail']} |")
    lines += ["", "## Why ops fell back to the interpreter", ""]
    for op in sorted(reasons):
        for reason in sorted(reasons[op]):
            lines.append(f"- {op}: {reason}")
    lines += ["", "## Failures", ""]
    lines += [f"- {n}: {d}" for n, d in failures] or ["none"]
    text = "\n".join(lines) + "\n"
    if not args.no_write:
        with open(REPORT, "w") as f:
            f.write(text)
    print("\n".join(lines[7:9]))
    for n, d in failures:
        print(f"FAIL {n}: {d}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
