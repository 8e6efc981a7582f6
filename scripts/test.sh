#!/usr/bin/env bash
# Runs every test of the project: the cargo workspace tests (unit, snapshot, differential,
# fuzz-style), then the lit suite through nart-lit. Used by CI (.ci/run) and by developers.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Keep build outputs outside the clone so that repeated runs (and fresh clones) reuse them.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nart/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

echo "== cargo fmt --check"
cargo fmt --all --check

echo "== cargo build (workspace, with binaries used by the lit suite)"
cargo build --workspace --bins --quiet

echo "== cargo tests"
if cargo nextest --version >/dev/null 2>&1; then
  cargo nextest run --workspace --no-fail-fast --status-level fail --final-status-level fail
else
  cargo test --workspace --no-fail-fast --quiet
fi

echo "== doc tests (examples in the docs, and compile_fail checks of #[op])"
cargo test --doc --workspace --quiet

echo "== lit suite"
"$CARGO_TARGET_DIR/debug/nart-lit" tests/lit
