#!/usr/bin/env bash
# nart's code-level cpu target against ONNX Runtime, in one run: a 512x512x512 GEMM and the
# model zoo compiled with `nart compile --targets cpu --dim N=1` (timed: compile time), run with
# `nart bench --package`, and run in ONNX Runtime on one thread on the same shapes; prints the
# medians and the ratios. These are the starting figures of code generation (plain loop nests,
# no tiling or vectorization yet), recorded in docs/performance.md.
#
# Usage: benches/codegen/run.sh [--runs N] [--models a,b,...] [--threads 1,2]
# (--threads: a list of thread counts; each model runs with each, nart with --cpu-threads T and
# ONNX Runtime with intra_op_num_threads T, and the table gains nart's T=1 / T=N ratio.)
# Skips (exit 0, with a message) without python3, onnx, onnxruntime or numpy. Builds `nart` in
# release mode first.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
if ! python3 -c 'import numpy, onnx, onnxruntime' >/dev/null 2>&1; then
  echo "skip: numpy, onnx and onnxruntime are needed for python3"
  exit 0
fi
(cd "$ROOT" && cargo build --release -q -p nart-cli)
exec python3 "$ROOT/benches/codegen/bench.py" --nart "$TARGET/release/nart" --root "$ROOT" "$@"
