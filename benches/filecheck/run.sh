#!/usr/bin/env bash
# Benchmark: nart's filecheck vs LLVM's FileCheck on a 50 MB input with 10,000 check lines.
# Usage: benches/filecheck/run.sh [RUNS]   (from the repository root; builds filecheck in release)
# Prints the median wall time of each tool over RUNS runs (default 5) and the ratio.
set -euo pipefail
RUNS="${1:-5}"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LLVM="${LLVM_FILECHECK:-/usr/lib/llvm-22/bin/FileCheck}"
WORK="${TMPDIR:-/tmp}/nart-filecheck-bench"
mkdir -p "$WORK"
if [ -z "${NART_FILECHECK:-}" ]; then
  (cd "$ROOT" && cargo build --release -p nart-filecheck --bin filecheck >&2)
  TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
  NART_FILECHECK="$TARGET/release/filecheck"
fi
python3 - "$WORK" "$RUNS" "$NART_FILECHECK" "$LLVM" <<'PY'
import os, statistics, subprocess, sys, time
work, runs, nart, llvm = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
inp, chk = os.path.join(work, "input.txt"), os.path.join(work, "checks.txt")
TARGET = 50 * 1024 * 1024
NCHECKS = 10_000
# About 50 MB of MLIR-like text; every block has one distinctive line that a check matches.
lines_per_block = 0
block_lines = []
size = 0
with open(inp, "w") as f, open(chk, "w") as c:
    n = 0
    per_block = TARGET // NCHECKS
    for k in range(NCHECKS):
        written = 0
        j = 0
        while written < per_block - 200:
            s = f"  %v{n} = arith.addi %a{j}, %b{j} : i32 loc(#loc{n % 977})\n"
            f.write(s); written += len(s); n += 1; j += 1
        mark = f"func.func @kernel_{k}(%arg0: tensor<{k % 64}x{(k * 7) % 128}xf32>) -> i32 attributes {{id = {k}}}\n"
        f.write(mark)
        nxt = f"  return %r{k} : i32\n"
        f.write(nxt)
        kind = k % 4
        if kind == 0:
            c.write(f"CHECK: func.func @kernel_{k}(\n")
        elif kind == 1:
            c.write(f"CHECK-LABEL: @kernel_{k}(\n")
        elif kind == 2:
            c.write(f"CHECK: @kernel_{k}(%arg0: tensor<{{{{[0-9]+}}}}x{{{{[0-9]+}}}}xf32>)\n")
        else:
            c.write(f"CHECK: attributes {{id = [[#ID{k}:]]}}\n")
        if k % 10 == 0:
            c.write(f"CHECK-NEXT: return %r{k} : i32\n")
print(f"input: {os.path.getsize(inp) / 1e6:.1f} MB, check lines: {sum(1 for l in open(chk) if 'CHECK' in l)}")

def timed(tool):
    t = time.perf_counter()
    r = subprocess.run([tool, chk, "--input-file", inp], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{tool} failed ({r.returncode}): {r.stderr[:2000].decode(errors='replace')}")
    return dt

res = {"nart": [], "llvm": []}
for _ in range(runs):  # interleaved, so both see the same machine load
    res["llvm"].append(timed(llvm))
    res["nart"].append(timed(nart))
ml, mn = statistics.median(res["llvm"]), statistics.median(res["nart"])
print(f"LLVM FileCheck : median {ml:.3f} s over {runs} runs ({', '.join(f'{x:.3f}' for x in res['llvm'])})")
print(f"nart filecheck : median {mn:.3f} s over {runs} runs ({', '.join(f'{x:.3f}' for x in res['nart'])})")
print(f"ratio LLVM/nart: {ml / mn:.2f}x ({'nart faster' if mn < ml else 'nart slower'})")
PY
