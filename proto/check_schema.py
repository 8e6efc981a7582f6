#!/usr/bin/env python3
"""Checks nart's `proto/onnx.proto` against the installed `onnx` package.

Usage: `python3 proto/check_schema.py [PATH_TO_ONNX_PROTO]`.

The schema in this crate is written for nart, so this script guards the one
thing that must match upstream exactly: every message, field, field number,
label, type, enum and enum value of the `onnx` package that the installed
Python wheel was built from (`onnx.onnx_ml_pb2`).
It parses nart's file with a small tokenizer (enough for this schema, not a
general protobuf parser) and exits non-zero listing every difference.
"""

import os
import re
import sys

from google.protobuf import descriptor as d
import onnx
from onnx import onnx_ml_pb2

HERE = os.path.dirname(os.path.abspath(__file__))

SCALARS = {
    d.FieldDescriptor.TYPE_DOUBLE: "double",
    d.FieldDescriptor.TYPE_FLOAT: "float",
    d.FieldDescriptor.TYPE_INT64: "int64",
    d.FieldDescriptor.TYPE_UINT64: "uint64",
    d.FieldDescriptor.TYPE_INT32: "int32",
    d.FieldDescriptor.TYPE_BOOL: "bool",
    d.FieldDescriptor.TYPE_STRING: "string",
    d.FieldDescriptor.TYPE_BYTES: "bytes",
}


def upstream() -> dict:
    """Returns {qualified name: description} from the installed package."""
    out = {}

    def enum(e, prefix):
        for v in e.values:
            out[f"{prefix}{e.name}.{v.name}"] = f"= {v.number}"

    def message(m, prefix):
        name = f"{prefix}{m.name}"
        out[name] = "message"
        for f in m.fields:
            if f.type in SCALARS:
                ty = SCALARS[f.type]
            else:
                ty = (f.message_type or f.enum_type).name
            label = "repeated" if f.is_repeated else "single"
            packed = " packed" if f.is_packed else ""
            out[f"{name}.{f.name}"] = f"{label} {ty} = {f.number}{packed}"
        for e in m.enum_types:
            enum(e, name + ".")
        for n in m.nested_types:
            message(n, name + ".")

    fd = onnx_ml_pb2.DESCRIPTOR
    for m in fd.message_types_by_name.values():
        message(m, "")
    for e in fd.enum_types_by_name.values():
        enum(e, "")
    return out


def ours(path: str) -> dict:
    """Returns {qualified name: description} parsed from nart's schema."""
    text = open(path).read()
    text = re.sub(r"//[^\n]*", "", text)
    tokens = re.findall(r"[A-Za-z_][\w.]*|0x[0-9A-Fa-f]+|-?\d+|\"[^\"]*\"|[{}=;\[\]]", text)
    out = {}
    stack = []  # (kind, name)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in ("message", "enum") and i + 2 < len(tokens) and tokens[i + 2] == "{":
            stack.append((tok, tokens[i + 1]))
            if tok == "message":
                out[".".join(n for _, n in stack)] = "message"
            i += 3
            continue
        if tok == "oneof":
            stack.append(("oneof", None))
            i += 3
            continue
        if tok == "}":
            stack.pop()
            i += 1
            continue
        if tok in ("reserved", "syntax", "package", "option"):
            while tokens[i] != ";":
                i += 1
            i += 1
            continue
        names = [n for k, n in stack if k != "oneof"]
        kind = stack[-1][0] if stack else None
        if kind == "enum" and tokens[i + 1] == "=":
            out[".".join(names + [tok])] = f"= {int(tokens[i + 2], 0)}"
            while tokens[i] != ";":
                i += 1
            i += 1
            continue
        if tok in ("optional", "repeated"):
            label = "repeated" if tok == "repeated" else "single"
            ty, name, num = tokens[i + 1], tokens[i + 2], tokens[i + 4]
        else:  # a oneof member
            label = "single"
            ty, name, num = tok, tokens[i + 1], tokens[i + 3]
        end = tokens.index(";", i)
        packed = " packed" if "packed" in tokens[i:end] else ""
        out[".".join(names + [name])] = f"{label} {ty.split('.')[-1]} = {int(num, 0)}{packed}"
        i = end + 1
    return out


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "onnx.proto")
    up, mine = upstream(), ours(path)
    bad = 0
    for key in sorted(up.keys() | mine.keys()):
        if up.get(key) != mine.get(key):
            bad += 1
            print(f"{key}: upstream {up.get(key)!r}, nart {mine.get(key)!r}")
    print(f"onnx {onnx.__version__}: {len(up)} schema items compared, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
