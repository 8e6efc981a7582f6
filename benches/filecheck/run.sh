#!/usr/bin/env bash
# Benchmark: nart's filecheck vs LLVM's FileCheck on two input shapes of about 50 MB each
# (see gen.py): "dense" (10,000 positive checks, each finding one line in ~5 KB) and "filler"
# (2,000 CHECK-LABEL blocks of ~25 KB scanned by CHECK-NOT directives that match nothing).
# Usage: benches/filecheck/run.sh [RUNS] [SHAPE...]   (from anywhere; builds filecheck in release)
# Runs are interleaved (LLVM, nart, LLVM, nart, ...) so both tools see the same machine load.
# Prints, per shape, the median wall time of each tool over RUNS runs (default 5) and the ratio
# nart/LLVM (below 1 means nart is faster), and the load average before and after.
set -euo pipefail
RUNS="${1:-5}"
shift || true
SHAPES=("$@")
[ ${#SHAPES[@]} -eq 0 ] && SHAPES=(dense filler)
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
LLVM="${LLVM_FILECHECK:-/usr/lib/llvm-22/bin/FileCheck}"
WORK="${TMPDIR:-/tmp}/nart-filecheck-bench"
mkdir -p "$WORK"
if [ -z "${NART_FILECHECK:-}" ]; then
  (cd "$ROOT" && cargo build --release -p nart-filecheck --bin filecheck >&2)
  TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
  NART_FILECHECK="$TARGET/release/filecheck"
fi
python3 "$ROOT/benches/filecheck/gen.py" "$WORK" "${SHAPES[@]}"
python3 - "$WORK" "$RUNS" "$NART_FILECHECK" "$LLVM" "${SHAPES[@]}" <<'PY'
import os, statistics, subprocess, sys, time
work, runs, nart, llvm, shapes = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]

def timed(tool, shape):
    chk, inp = os.path.join(work, f"{shape}.check"), os.path.join(work, f"{shape}.input")
    t = time.perf_counter()
    r = subprocess.run([tool, chk, "--input-file", inp], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"{tool} failed on {shape} ({r.returncode}): {r.stderr[:2000].decode(errors='replace')}")
    return dt

print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} ({os.cpu_count()} CPUs)")
res = {s: {"llvm": [], "nart": []} for s in shapes}
for _ in range(runs):
    for s in shapes:
        res[s]["llvm"].append(timed(llvm, s))
        res[s]["nart"].append(timed(nart, s))
print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
for s in shapes:
    ml, mn = statistics.median(res[s]["llvm"]), statistics.median(res[s]["nart"])
    fmt = lambda xs: ", ".join(f"{x:.3f}" for x in xs)
    print(f"{s}:")
    print(f"  LLVM FileCheck : median {ml:.3f} s over {runs} runs ({fmt(res[s]['llvm'])})")
    print(f"  nart filecheck : median {mn:.3f} s over {runs} runs ({fmt(res[s]['nart'])})")
    print(f"  ratio nart/LLVM: {mn / ml:.2f} ({'nart faster' if mn < ml else 'nart slower'})")
PY
