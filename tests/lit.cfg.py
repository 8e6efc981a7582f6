# -*- Python -*-
# Configuration for upstream `lit` (PyPI `lit`), so that an engineer's usual command works:
#   lit -v tests/lit            (from the repository root, after `cargo build`)
# It runs the same suite as `nart-lit tests/lit`, with nart's tools: `nart-opt`, `filecheck` and
# `FileCheck` resolve to the binaries of the cargo build.
# The binary directory is $NART_BIN_DIR, else $CARGO_TARGET_DIR/debug, else <root>/target/debug.

import os

import lit.formats

config.name = "nart"
# lit's internal shell: it provides `not`, pipes, `&&` and pipefail the way LLVM's suites use them.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "filecheck", "lit.cfg.py"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = config.test_source_root
config.pipefail = True

root = os.path.dirname(config.test_source_root)
bin_dir = os.environ.get("NART_BIN_DIR")
if not bin_dir:
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    bin_dir = os.path.join(target, "debug")
bin_dir = os.path.abspath(bin_dir)

# Put the build's binaries first on PATH, and substitute tool names by whole word like LLVM's
# tool substitutions do (not inside paths or longer names).
config.environment["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
tools = {"nart-opt": "nart-opt", "nart": "nart", "nart-translate": "nart-translate", "filecheck": "filecheck", "FileCheck": "filecheck"}
for name, binary in sorted(tools.items(), key=lambda kv: -len(kv[0])):
    path = os.path.join(bin_dir, binary)
    if os.path.exists(path):
        config.substitutions.append((r"(?<![\w/.-])" + name + r"(?![\w-])", path))
config.available_features.add("nart")
