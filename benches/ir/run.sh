#!/usr/bin/env bash
# Benchmark: parse + verify + print of a generated module with at least 100,000 ops,
# nart-opt against upstream mlir-opt on the same file in the same run.
# Prints the median wall time of each tool over RUNS runs, ops/s, and the ratio.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
N="${N:-100000}"
RUNS="${RUNS:-5}"
MLIR_OPT="${MLIR_OPT:-/usr/lib/llvm-22/bin/mlir-opt}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nart/target}"
cargo build --release -q -p nart-opt
NART_OPT="$CARGO_TARGET_DIR/release/nart-opt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 benches/ir/gen_module.py "$N" "$work/in.mlir"
ops=$(grep -c '= \|return' "$work/in.mlir")
# Both tools must accept the file and agree on it before timing means anything.
"$NART_OPT" "$work/in.mlir" -o "$work/nart.mlir"
"$MLIR_OPT" "$work/in.mlir" -o "$work/upstream.mlir"
python3 - "$NART_OPT" "$MLIR_OPT" "$work/in.mlir" "$RUNS" "$ops" <<'PY'
import statistics, subprocess, sys, time
nart, mlir, path, runs, ops = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def t(cmd):
    xs = []
    for _ in range(runs):
        s = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        xs.append(time.perf_counter() - s)
    return statistics.median(xs)
tn = t([nart, path, "-o", "/dev/null"])
tm = t([mlir, path, "-o", "/dev/null"])
print(f"module: {ops} ops (plus funcs), median of {runs} runs, parse + verify + print")
print(f"nart-opt: {tn*1000:8.1f} ms  {ops/tn/1e6:6.2f} M ops/s")
print(f"mlir-opt: {tm*1000:8.1f} ms  {ops/tm/1e6:6.2f} M ops/s")
print(f"ratio mlir-opt/nart-opt time: {tm/tn:.2f}x ({'nart faster' if tn < tm else 'mlir-opt faster'})")
PY
