#!/usr/bin/env bash
# Installs what nart needs on a Debian machine (12 "bookworm" or newer). Idempotent: only
# missing packages are installed, so running it again is cheap.
set -euo pipefail

apt_pkgs=(
  build-essential pkg-config
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libdnnl-dev
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  python3 python3-pip
)

missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Python oracles (ONNX, ONNX Runtime), upstream lit and OpenVINO (whose C library the openvino
# target loads at run time), pinned.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py=python3
if ! $py -c 'import onnx, onnxruntime, numpy, lit, openvino' 2>/dev/null \
   || [ "$($py -c 'import onnx; print(onnx.__version__)' 2>/dev/null)" != "1.23.2" ]; then
  echo "install-deps: installing Python packages"
  $py -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
fi

# Rust toolchain: stable with rustfmt/clippy; cargo-nextest is optional (scripts/test.sh falls
# back to cargo test).
if ! command -v cargo >/dev/null 2>&1; then
  echo "install-deps: cargo not found; install Rust with rustup first" >&2
  exit 1
fi
echo "install-deps: ok"
