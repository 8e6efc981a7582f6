#!/usr/bin/env python3
"""Generates dialects/graph/src/ops_generated.rs from ONNX's own operator schemas.

Every operator of the default ONNX domain gets one `OpDef` named `graph.<OnnxName>`, taken from
the newest schema whose `since_version` is at most the target opset (28), plus one entry of the
`SCHEMAS` table that the importer and exporter read (formal inputs and outputs, attribute kinds,
defaults).

The interfaces each op declares (`interfaces: &[interface_impl!(...)]`) come from the `RULES`
tables of the Rust files that implement them: `dialects/graph/src/infer/*.rs` for
`InferShapedTypeOpInterface` and `dialects/graph/src/cost.rs` for `OpCostInterface`. Each table
maps a unit struct of its file to the ONNX ops it covers, so the rule and its ops stay side by
side in Rust; this script only copies the table into the declarations.

Usage:
    python3 scripts/gen_graph_ops.py           # rewrite the file
    python3 scripts/gen_graph_ops.py --check   # exit 1 if the committed file is stale
"""

import argparse
import glob
import os
import re
import sys

TARGET_OPSET = 28
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dialects", "graph", "src")
OUT = os.path.join(SRC, "ops_generated.rs")

# (interface trait, Rust files with a RULES table); a file's module path follows its name.
INTERFACE_TABLES = [
    ("InferShapedTypeOpInterface", "infer/*.rs"),
    ("OpCostInterface", "cost.rs"),
]
RULES_RE = re.compile(r"pub const RULES: \w+ = &\[(.*?)\];", re.S)
ENTRY_RE = re.compile(r'\(\s*"(\w+)"\s*,\s*&\[(.*?)\]\s*,?\s*\)', re.S)
NAME_RE = re.compile(r'"(\w+)"')

# Ops whose folder lives in fold.rs.
FOLDABLE = {
    "Shape", "Size", "Reshape", "Squeeze", "Unsqueeze", "Cast", "Identity", "Flatten",
    "Add", "Sub", "Mul", "Div", "Neg", "Concat", "Gather", "Slice", "ConstantOfShape", "Range",
    "Equal", "Where", "Expand", "Transpose", "Sqrt", "Relu", "Abs",
}
COMMUTATIVE = {"Add", "Mul", "And", "Or", "Xor", "Equal", "BitwiseAnd", "BitwiseOr", "BitwiseXor"}
ELEMENTWISE_UNARY = {
    "Abs", "Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Ceil", "Cos", "Cosh", "Erf", "Exp",
    "Floor", "Log", "Neg", "Reciprocal", "Relu", "Round", "Sigmoid", "Sign", "Sin", "Sinh", "Sqrt",
    "Tan", "Tanh", "Softplus", "Softsign", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu",
    "Celu", "ThresholdedRelu", "Mish", "Gelu", "Not", "BitwiseNot", "IsNaN", "IsInf", "Shrink",
}


def fnv1a64(data: bytes) -> int:
    """The 64-bit FNV-1a hash; dialects/graph/src/lib.rs computes the same one."""
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def rust_str(s: str) -> str:
    """A Rust string literal for `s`."""
    out = ['"']
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 32:
            out.append("\\u{%x}" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def const_name(name: str) -> str:
    """CamelCase ONNX name to a SCREAMING_SNAKE Rust static name."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and (not name[i - 1].isupper() or
                                       (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.upper())
    return "".join(out)


def dedent_doc(doc: str) -> str:
    lines = (doc or "").strip("\n").split("\n")
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    return "\n".join(l[indent:].rstrip() for l in lines).strip()


def summary_of(doc: str, name: str) -> str:
    text = " ".join(dedent_doc(doc).split())
    if not text:
        return f"ONNX {name}"
    end = text.find(". ")
    first = text if end < 0 else text[: end + 1]
    if len(first) > 160:
        first = first[:157].rstrip() + "..."
    return first


def default_text(onnx, attr) -> str:
    """The default of an attribute in MLIR attribute syntax, or '' when it has none."""
    dv = attr.default_value
    if dv is None or not dv.name:
        return ""
    t = onnx.AttributeProto
    if dv.type == t.INT:
        return str(dv.i)
    if dv.type == t.FLOAT:
        return repr(float(dv.f))
    if dv.type == t.STRING:
        return '"' + dv.s.decode("utf-8", "replace") + '"'
    if dv.type == t.INTS:
        return "array<i64: " + ", ".join(str(x) for x in dv.ints) + ">"
    if dv.type == t.FLOATS:
        return "array<f32: " + ", ".join(repr(float(x)) for x in dv.floats) + ">"
    if dv.type == t.STRINGS:
        return "[" + ", ".join('"' + x.decode() + '"' for x in dv.strings) + "]"
    if dv.type == t.TENSOR:
        from onnx import numpy_helper
        arr = numpy_helper.to_array(dv.t)
        return "dense<" + str(arr.tolist()) + ">"
    return ""


ATTR_KIND = {
    "INT": ("Int", "c::I64_ATTR"),
    "FLOAT": ("Float", "c::F32_ATTR"),
    "STRING": ("String", "c::STR_ATTR"),
    "INTS": ("Ints", "c::I64_ARRAY_ATTR"),
    "FLOATS": ("Floats", "c::F32_ARRAY_ATTR"),
    "STRINGS": ("Strings", "c::STR_ARRAY_ATTR"),
    "TENSOR": ("Tensor", "c::ELEMENTS_ATTR"),
    "SPARSE_TENSOR": ("SparseTensor", "c::ELEMENTS_ATTR"),
    "TYPE_PROTO": ("TypeProto", "c::TYPE_ATTR"),
    "TYPE_PROTOS": ("TypeProtos", "c::TYPE_ARRAY_ATTR"),
    "TENSORS": ("Tensors", "c::ANY_ATTR"),
    "SPARSE_TENSORS": ("SparseTensors", "c::ANY_ATTR"),
    "GRAPH": ("Graph", None),
    "GRAPHS": ("Graphs", None),
}


def type_codes(onnx, allowed):
    """Splits allowed type strings into tensor element codes and sequence/optional flags."""
    codes, seq, opt = set(), False, False
    for s in allowed:
        if s.startswith("tensor(") and s.endswith(")"):
            name = s[len("tensor("):-1].upper()
            code = onnx.TensorProto.DataType.Value(name)
            codes.add(code)
        elif s.startswith("seq("):
            seq = True
        elif s.startswith("optional("):
            opt = True
        elif s.startswith("sparse_tensor("):
            opt = opt
    return tuple(sorted(codes)), seq, opt


def read_rules(names):
    """Per op, the interface implementations its RULES tables give: [(trait, Rust path)]."""
    impls = {}
    for trait, pattern in INTERFACE_TABLES:
        for path in sorted(glob.glob(os.path.join(SRC, pattern))):
            rel = os.path.relpath(path, SRC)
            module = "crate::" + rel[: -len(".rs")].replace(os.sep, "::")
            module = module[: -len("::mod")] if module.endswith("::mod") else module
            with open(path, encoding="utf-8") as f:
                m = RULES_RE.search(f.read())
            if m is None:
                continue
            for rule, ops in ENTRY_RE.findall(m.group(1)):
                for op in NAME_RE.findall(ops):
                    if op not in names:
                        sys.exit(f"{rel}: rule {rule} lists {op}, which is not an ONNX operator")
                    have = impls.setdefault(op, [])
                    if any(t == trait for t, _ in have):
                        sys.exit(f"{rel}: {op} has two {trait} rules")
                    have.append((trait, f"{module}::{rule}"))
    return impls


def old_attrs(schema) -> str:
    """The `attrs_at_21` field: the attribute names of the opset-21 schema, or None."""
    if schema is None:
        return "None"
    return "Some(&[" + ", ".join(rust_str(a) for a in sorted(schema.attributes)) + "])"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true", help="fail if the file is out of date")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    try:
        import onnx
        import onnx.defs as defs
    except ImportError:
        print("onnx is not installed; nothing to do", file=sys.stderr)
        return 0

    latest = {}
    at21 = {}
    for s in defs.get_all_schemas_with_history():
        if s.domain == "" and s.since_version <= 21:
            if s.name not in at21 or at21[s.name].since_version < s.since_version:
                at21[s.name] = s
        if s.domain != "" or s.since_version > TARGET_OPSET:
            continue
        if s.name not in latest or latest[s.name].since_version < s.since_version:
            latest[s.name] = s
    names = sorted(latest)
    impls = read_rules(set(names))
    F = defs.OpSchema.FormalParameterOption
    code_names = {v: k for k, v in onnx.TensorProto.DataType.items()}

    constraints = {}  # key -> (rust const name, desc, codes, seq, opt, none)

    def constraint_for(schema, param, optional):
        tcs = {tc.type_param_str: tc.allowed_type_strs for tc in schema.type_constraints}
        allowed = tcs.get(param.type_str, [param.type_str])
        codes, seq, opt = type_codes(onnx, allowed)
        key = (codes, seq, opt, optional)
        if key not in constraints:
            parts = []
            if codes:
                parts.append("tensor of " + ", ".join(code_names[c].lower() for c in codes) + " values")
            if seq:
                parts.append("sequence")
            if opt:
                parts.append("optional")
            if optional:
                parts.append("none")
            desc = " or ".join(parts) if parts else "any type"
            constraints[key] = (f"TC{len(constraints)}", desc, codes, seq, opt, optional)
        return "TC_" + constraints[key][0][2:]

    body = []
    schema_rows = []
    for name in names:
        s = latest[name]
        cname = const_name(name)
        operands, inputs = [], []
        for p in s.inputs:
            form = {F.Single: "Single", F.Optional: "Optional", F.Variadic: "Variadic"}[p.option]
            arity = "Variadic" if form == "Variadic" else "Single"
            cons = constraint_for(s, p, form == "Optional")
            operands.append(
                f"        ValueDef {{ name: {rust_str(p.name)}, constraint: {cons}, arity: Arity::{arity} }},")
            min_arity = p.min_arity if form == "Variadic" else (0 if form == "Optional" else 1)
            inputs.append(f"FormalParam {{ name: {rust_str(p.name)}, form: Form::{form}, "
                          f"min_arity: {min_arity} }}")
        results, outputs = [], []
        for p in s.outputs:
            form = {F.Single: "Single", F.Optional: "Optional", F.Variadic: "Variadic"}[p.option]
            arity = "Variadic" if form == "Variadic" else "Single"
            cons = constraint_for(s, p, form == "Optional")
            results.append(
                f"        ValueDef {{ name: {rust_str(p.name)}, constraint: {cons}, arity: Arity::{arity} }},")
            min_arity = p.min_arity if form == "Variadic" else (0 if form == "Optional" else 1)
            outputs.append(f"FormalParam {{ name: {rust_str(p.name)}, form: Form::{form}, "
                           f"min_arity: {min_arity} }}")
        attrs, regions, attr_rows = [], [], []
        for an in sorted(s.attributes):
            a = s.attributes[an]
            kind_name = str(a.type).split(".")[-1]
            kind, cons = ATTR_KIND[kind_name]
            dflt = default_text(onnx, a)
            doc = " ".join(dedent_doc(a.description).split())
            if dflt:
                doc += f" Default: `{dflt}`."
            if kind in ("Graph", "Graphs"):
                regions.append(f"        RegionDef {{ name: {rust_str(an)}, single_block: true, "
                               f"may_be_empty: {'true' if not a.required else 'false'} }},")
            else:
                attrs.append(
                    f"        AttrDef {{ name: {rust_str(an)}, constraint: {cons}, "
                    f"optional: {'false' if a.required else 'true'}, doc: {rust_str(doc)}, default: None }},")
            attr_rows.append(f"OnnxAttr {{ name: {rust_str(an)}, kind: AttrKind::{kind}, "
                             f"required: {'true' if a.required else 'false'}, "
                             f"default: {rust_str(dflt)} }}")
        traits = []
        if not getattr(s, "non_deterministic", False) and not regions:
            traits.append("Trait::Pure")
        if name in COMMUTATIVE:
            traits.append("Trait::Commutative")
        if name in ELEMENTWISE_UNARY:
            traits.append("Trait::Elementwise")
        doc = dedent_doc(s.doc)
        desc = (f"ONNX `{name}`, version {s.since_version} of the default domain"
                f"{' (deprecated)' if s.deprecated else ''}.\n\n{doc}")
        fold = "Some(crate::fold::fold_op)" if name in FOLDABLE else "None"
        body.append(f"/// `graph.{name}`: ONNX `{name}` (since opset {s.since_version}).")
        body.append(f"pub static {cname}: OpDef = OpDef {{")
        body.append(f"    name: \"graph.{name}\",")
        body.append(f"    summary: {rust_str(summary_of(s.doc, name))},")
        body.append(f"    description: {rust_str(desc)},")
        body.append("    operands: &[")
        body.extend(operands)
        body.append("    ],")
        body.append("    results: &[")
        body.extend(results)
        body.append("    ],")
        body.append("    attrs: &[")
        body.extend(attrs)
        body.append("    ],")
        body.append("    regions: &[")
        body.extend(regions)
        body.append("    ],")
        body.append(f"    traits: &[{', '.join(traits)}],")
        body.append("    interfaces: &[")
        for trait, path in impls.get(name, []):
            body.append(f"        interface_impl!({trait} => {path}),")
        body.append("    ],")
        body.append("    verify: Some(crate::infer::verify_op),")
        body.append(f"    fold: {fold},")
        body.append("    ..OpDef::DEFAULT")
        body.append("};")
        body.append("")
        schema_rows.append(
            f"    OnnxSchema {{\n        name: {rust_str(name)},\n        since_version: {s.since_version},\n"
            f"        def: &{cname},\n        inputs: &[{', '.join(inputs)}],\n"
            f"        outputs: &[{', '.join(outputs)}],\n        attrs: &[{', '.join(attr_rows)}],\n"
            f"        attrs_at_21: {old_attrs(at21.get(name))},\n    }},")

    cons_lines = []
    for key, (cn, desc, codes, seq, opt, none) in constraints.items():
        codes_txt = ", ".join(str(c) for c in codes)
        cons_lines.append(f"const TC_{cn[2:]}: TypeConstraint = TypeConstraint {{")
        cons_lines.append(f"    desc: {rust_str(desc)},")
        cons_lines.append("    buildable: None,")
        cons_lines.append(f"    check: |ctx, ty| c::onnx_type_allowed(ctx, ty, &[{codes_txt}], "
                          f"{'true' if seq else 'false'}, {'true' if opt else 'false'}, "
                          f"{'true' if none else 'false'}),")
        cons_lines.append("};")

    text = []
    text.append("use nart_ir::interface_impl;")
    used = sorted({t for v in impls.values() for t, _ in v})
    if used:
        listed = used[0] if len(used) == 1 else "{" + ", ".join(used) + "}"
        text.append(f"use nart_ir::interfaces::{listed};")
    text.append("use nart_ir::registry::{Arity, AttrDef, OpDef, RegionDef, Trait, TypeConstraint, ValueDef};")
    text.append("")
    text.append("use crate::constraints as c;")
    text.append("use crate::schema::{AttrKind, Form, FormalParam, OnnxAttr, OnnxSchema};")
    text.append("")
    text.append(f"/// The opset every imported model is normalized to.")
    text.append(f"pub const TARGET_OPSET: i64 = {TARGET_OPSET};")
    text.append("")
    text.extend(cons_lines)
    text.append("")
    text.extend(body)
    text.append(f"/// Every generated op, sorted by ONNX name.")
    text.append(f"pub static GENERATED_OPS: [&OpDef; {len(names)}] = [")
    for name in names:
        text.append(f"    &{const_name(name)},")
    text.append("];")
    text.append("")
    text.append("/// The ONNX schema of every generated op, sorted by ONNX name.")
    text.append(f"pub static SCHEMAS: [OnnxSchema; {len(names)}] = [")
    text.extend(schema_rows)
    text.append("];")
    content = "\n".join(text) + "\n"
    h = fnv1a64(content.encode("utf-8"))
    header = (
        "//! The graph dialect's ONNX ops, generated by `scripts/gen_graph_ops.py` from the schemas of\n"
        f"//! onnx {onnx.__version__} at opset {TARGET_OPSET}. Do not edit: run the script instead.\n"
        f"//! body-hash: {h:016x}\n\n"
        "#![allow(clippy::all)]\n\n"
    )
    full = header + content
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = ""
        if old != full:
            print(f"{args.out} is out of date; run scripts/gen_graph_ops.py", file=sys.stderr)
            return 1
        print("up to date")
        return 0
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(full)
    print(f"wrote {len(names)} ops to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
