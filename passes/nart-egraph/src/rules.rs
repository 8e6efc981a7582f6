//! The rewrite rules, grouped by topic, each under its identity.
//!
//! A rule searches with an egg pattern (a multi-pattern for the merges) and applies with a
//! Rust function that checks types, properties and constants and returns the e-classes to
//! union. Every new e-node gets its result type here: a rule never unions classes of different
//! types (a broadcast that would change a shape stops the rule), and rules only see e-nodes,
//! which the translation makes only of float and integer tensors, so quantized values are
//! never touched.

use egg::{Applier, Id, MultiPattern, Pattern, PatternAst, Rewrite, Searcher, Subst, Symbol, Var};
use nart_ir::{Attr, NamedAttr};
use nart_tensor::Tensor;

use crate::lang::{class_const, class_ty, GNode, Graph, GraphAnalysis, Kind, Ty};
use crate::translate::proj;

/// What a rule's function returns: pairs of e-classes to union.
type Unions = Vec<(Id, Id)>;

/// A rule's applier: a function of the e-graph, the matched class and the substitution.
struct Apply(fn(&mut Graph, Id, &Subst) -> Unions);

impl Applier<GNode, GraphAnalysis> for Apply {
    fn apply_one(
        &self,
        g: &mut Graph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<GNode>>,
        _rule: Symbol,
    ) -> Vec<Id> {
        let mut changed = Vec::new();
        for (a, b) in (self.0)(g, eclass, subst) {
            if g.union(a, b) {
                changed.push(g.find(a));
            }
        }
        changed
    }
}

/// A rule as the pass lists it.
pub struct Rule {
    /// The rule's name (also its statistic).
    pub name: &'static str,
    /// The identity it applies, for the docs.
    pub identity: &'static str,
    searcher: &'static str,
    apply: fn(&mut Graph, Id, &Subst) -> Unions,
}

fn var(name: &str) -> Var {
    name.parse().expect("a pattern variable")
}

fn s(subst: &Subst, name: &str) -> Id {
    subst[var(name)]
}

/// The rules, in the order the pass applies them.
pub static RULES: &[Rule] = &[
    // ----- neutral elements -----
    Rule {
        name: "add-zero",
        identity: "x + 0 = x",
        searcher: "(graph.Add ?x ?c)",
        apply: |g, e, st| neutral(g, e, s(st, "?x"), s(st, "?c"), 0.0),
    },
    Rule {
        name: "sub-zero",
        identity: "x - 0 = x",
        searcher: "(graph.Sub ?x ?c)",
        apply: |g, e, st| neutral(g, e, s(st, "?x"), s(st, "?c"), 0.0),
    },
    Rule {
        name: "mul-one",
        identity: "x * 1 = x",
        searcher: "(graph.Mul ?x ?c)",
        apply: |g, e, st| neutral(g, e, s(st, "?x"), s(st, "?c"), 1.0),
    },
    Rule {
        name: "div-one",
        identity: "x / 1 = x",
        searcher: "(graph.Div ?x ?c)",
        apply: |g, e, st| neutral(g, e, s(st, "?x"), s(st, "?c"), 1.0),
    },
    // ----- commutativity, and associativity with constants folded -----
    Rule {
        name: "add-commute",
        identity: "a + b = b + a",
        searcher: "(graph.Add ?a ?b)",
        apply: |g, e, st| commute(g, e, "graph.Add", s(st, "?a"), s(st, "?b")),
    },
    Rule {
        name: "mul-commute",
        identity: "a * b = b * a",
        searcher: "(graph.Mul ?a ?b)",
        apply: |g, e, st| commute(g, e, "graph.Mul", s(st, "?a"), s(st, "?b")),
    },
    Rule {
        name: "add-const-assoc",
        identity: "(x + c1) + c2 = x + (c1 + c2)",
        searcher: "(graph.Add (graph.Add ?x ?c1) ?c2)",
        apply: |g, e, st| {
            let (x, c1, c2) = (s(st, "?x"), s(st, "?c1"), s(st, "?c2"));
            const_assoc(g, e, "graph.Add", x, c1, c2)
        },
    },
    Rule {
        name: "mul-const-assoc",
        identity: "(x * c1) * c2 = x * (c1 * c2)",
        searcher: "(graph.Mul (graph.Mul ?x ?c1) ?c2)",
        apply: |g, e, st| {
            let (x, c1, c2) = (s(st, "?x"), s(st, "?c1"), s(st, "?c2"));
            const_assoc(g, e, "graph.Mul", x, c1, c2)
        },
    },
    // ----- distributivity of a constant factor -----
    Rule {
        name: "mul-factor",
        identity: "x * c + y * c = (x + y) * c",
        searcher: "(graph.Add (graph.Mul ?x ?c) (graph.Mul ?y ?c))",
        apply: |g, e, st| factor(g, e, s(st, "?x"), s(st, "?y"), s(st, "?c")),
    },
    Rule {
        name: "mul-distribute",
        identity: "(x + y) * c = x * c + y * c",
        searcher: "(graph.Mul (graph.Add ?x ?y) ?c)",
        apply: |g, e, st| distribute(g, e, s(st, "?x"), s(st, "?y"), s(st, "?c")),
    },
    // ----- involutions and idempotence -----
    Rule {
        name: "neg-neg",
        identity: "-(-x) = x",
        searcher: "(graph.Neg (graph.Neg ?x))",
        apply: |_, e, st| vec![(e, s(st, "?x"))],
    },
    Rule {
        name: "relu-relu",
        identity: "relu(relu(x)) = relu(x)",
        searcher: "(graph.Relu (graph.Relu ?x))",
        apply: |g, e, st| {
            let ty = g[e].data.ty;
            let inner = add_op(g, "graph.Relu", 0, ty, vec![s(st, "?x")]);
            vec![(e, inner)]
        },
    },
    // ----- transpose and reshape algebra -----
    Rule {
        name: "transpose-transpose",
        identity:
            "transpose(transpose(x, p), q) = transpose(x, p∘q), or x when p∘q is the identity",
        searcher: "(graph.Transpose (graph.Transpose ?x))",
        apply: transpose_transpose,
    },
    Rule {
        name: "reshape-reshape",
        identity: "reshape(reshape(x, s1), s2) = reshape(x, s2) (s2 constant, no zeros)",
        searcher: "(graph.Reshape (graph.Reshape ?x ?s1) ?s2)",
        apply: reshape_reshape,
    },
    Rule {
        name: "reshape-identity",
        identity: "reshape(x, s) = x when the (static) shape does not change",
        searcher: "(graph.Reshape ?x ?s)",
        apply: |g, e, st| {
            let x = s(st, "?x");
            let fixed = class_ty(g, x).is_some_and(Ty::is_static);
            (fixed && same_ty(g, e, x))
                .then_some((e, x))
                .into_iter()
                .collect()
        },
    },
    Rule {
        name: "transpose-unary",
        identity: "transpose(f(x), p) = f(transpose(x, p)) for elementwise unary f",
        searcher: "(graph.Transpose ?u)",
        apply: transpose_unary,
    },
    Rule {
        name: "transpose-binary",
        identity: "transpose(x ⊕ y, p) = transpose(x, p) ⊕ transpose(y, p) (no broadcast)",
        searcher: "(graph.Transpose ?b)",
        apply: transpose_binary,
    },
    Rule {
        name: "transpose-sink",
        identity: "transpose(x, p) ⊕ transpose(y, p) = transpose(x ⊕ y, p)",
        searcher: "(graph.Add ?a ?b)",
        apply: |g, e, st| transpose_sink(g, e, s(st, "?a"), s(st, "?b"), "graph.Add"),
    },
    Rule {
        name: "transpose-sink-mul",
        identity: "transpose(x, p) * transpose(y, p) = transpose(x * y, p)",
        searcher: "(graph.Mul ?a ?b)",
        apply: |g, e, st| transpose_sink(g, e, s(st, "?a"), s(st, "?b"), "graph.Mul"),
    },
    // ----- merging ops that share an input (Tensat's multi-pattern rules) -----
    Rule {
        name: "merge-matmul",
        identity: "x·W1, x·W2 = split(x·[W1 W2])",
        searcher: "?a = (graph.MatMul ?x ?w1), ?b = (graph.MatMul ?x ?w2)",
        apply: |g, _, st| {
            let (a, b) = (s(st, "?a"), s(st, "?b"));
            merge(
                g,
                a,
                b,
                s(st, "?x"),
                s(st, "?w1"),
                s(st, "?w2"),
                None,
                Merge::MatMul,
            )
        },
    },
    Rule {
        name: "merge-conv",
        identity: "conv(x, W1), conv(x, W2) = split(conv(x, [W1; W2]))",
        searcher: "?a = (graph.Conv ?x ?w1 ?b1), ?b = (graph.Conv ?x ?w2 ?b2)",
        apply: |g, _, st| {
            let (a, b) = (s(st, "?a"), s(st, "?b"));
            let bias = Some((s(st, "?b1"), s(st, "?b2")));
            if !is_none(g, s(st, "?b1")) || !is_none(g, s(st, "?b2")) {
                return Vec::new();
            }
            merge(
                g,
                a,
                b,
                s(st, "?x"),
                s(st, "?w1"),
                s(st, "?w2"),
                bias,
                Merge::Conv,
            )
        },
    },
    Rule {
        name: "merge-conv-bias",
        identity: "conv(x, W1, b1), conv(x, W2, b2) = split(conv(x, [W1; W2], [b1; b2]))",
        searcher: "?a = (graph.Conv ?x ?w1 ?b1), ?b = (graph.Conv ?x ?w2 ?b2)",
        apply: |g, _, st| {
            let (a, b) = (s(st, "?a"), s(st, "?b"));
            let bias = Some((s(st, "?b1"), s(st, "?b2")));
            if is_none(g, s(st, "?b1")) || is_none(g, s(st, "?b2")) {
                return Vec::new();
            }
            merge(
                g,
                a,
                b,
                s(st, "?x"),
                s(st, "?w1"),
                s(st, "?w2"),
                bias,
                Merge::Conv,
            )
        },
    },
    Rule {
        name: "merge-gemm",
        identity: "gemm(x, B1, C1), gemm(x, B2, C2) = split(gemm(x, [B1 B2], [C1 C2]))",
        searcher: "?a = (graph.Gemm ?x ?w1 ?b1), ?b = (graph.Gemm ?x ?w2 ?b2)",
        apply: |g, _, st| {
            let (a, b) = (s(st, "?a"), s(st, "?b"));
            let bias = Some((s(st, "?b1"), s(st, "?b2")));
            let (x, w1, w2) = (s(st, "?x"), s(st, "?w1"), s(st, "?w2"));
            merge(g, a, b, x, w1, w2, bias, Merge::Gemm)
        },
    },
];

/// The original constants constant `k` is made of (itself, unless it is a concatenation).
fn const_leaves(g: &Graph, k: u32) -> Vec<u32> {
    match &g.analysis.tables.consts[k as usize].concat {
        None => vec![k],
        Some((parts, _)) => parts.iter().flat_map(|&p| const_leaves(g, p)).collect(),
    }
}

/// A constant leaf for the concatenation of the constant classes `a` and `b`.
fn concat_consts(g: &mut Graph, a: Id, b: Id, axis: i64, ty: u32) -> Id {
    let parts = vec![
        g[a].data.konst.expect("a constant"),
        g[b].data.konst.expect("a constant"),
    ];
    let k = g.analysis.add_concat(parts, axis, ty);
    g.add(GNode::leaf(Kind::Const(k), ty))
}

/// Whether class `id` is an absent optional operand (a value of type `none`).
fn is_none(g: &Graph, id: Id) -> bool {
    class_ty(g, id).is_some_and(|t| t.dims.is_none())
}

/// The egg rewrites of [`RULES`].
pub fn rewrites() -> Vec<Rewrite<GNode, GraphAnalysis>> {
    RULES
        .iter()
        .map(|r| {
            let apply = Apply(r.apply);
            if r.searcher.starts_with('?') {
                let p: MultiPattern<GNode> = r.searcher.parse().expect("a valid multi-pattern");
                Rewrite::new(r.name, p, apply).expect("a valid rule")
            } else {
                let p: Pattern<GNode> = r.searcher.parse().expect("a valid pattern");
                Rewrite::new(r.name, p, apply).expect("a valid rule")
            }
        })
        .collect()
}

/// Whether `searcher` is usable: a test parses every rule's pattern.
pub fn check_searcher(r: &Rule) -> bool {
    if r.searcher.starts_with('?') {
        r.searcher.parse::<MultiPattern<GNode>>().is_ok()
    } else {
        r.searcher
            .parse::<Pattern<GNode>>()
            .is_ok_and(|p| !Searcher::<GNode, GraphAnalysis>::vars(&p).is_empty())
    }
}

// ----- helpers -----

/// Adds an op e-node.
fn add_op(g: &mut Graph, name: &str, props: u32, ty: u32, children: Vec<Id>) -> Id {
    g.add(GNode {
        kind: Kind::Op(Symbol::from(name)),
        ty,
        props,
        children,
    })
}

fn same_ty(g: &Graph, a: Id, b: Id) -> bool {
    match (class_ty(g, a), class_ty(g, b)) {
        (Some(x), Some(y)) => x.dims.is_some() && x == y,
        _ => false,
    }
}

/// The dims of a tensor class.
fn dims(g: &Graph, id: Id) -> Option<Vec<i64>> {
    class_ty(g, id)?.dims.clone()
}

/// ONNX (numpy) broadcasting of two shapes.
fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => return None,
        };
    }
    Some(out)
}

/// The type key of a tensor of `elem` and `dims`.
fn tensor_ty(g: &mut Graph, elem: nart_ir::Type, dims: Vec<i64>) -> u32 {
    g.analysis.intern_ty(Ty::tensor(elem, dims))
}

/// Whether the constant class `c` is `value` everywhere (float tensors only).
fn all_equal(g: &Graph, c: Id, value: f64) -> bool {
    class_const(g, c).is_some_and(|t| {
        t.dtype().is_float()
            && t.to_f64_vec()
                .is_ok_and(|v| !v.is_empty() && v.iter().all(|&x| x == value))
    })
}

/// The `e = x ⊕ c` with `c` neutral: `e = x` when the types agree.
fn neutral(g: &mut Graph, e: Id, x: Id, c: Id, value: f64) -> Unions {
    if same_ty(g, e, x) && all_equal(g, c, value) {
        vec![(e, x)]
    } else {
        Vec::new()
    }
}

fn commute(g: &mut Graph, e: Id, op: &str, a: Id, b: Id) -> Unions {
    if g.find(a) == g.find(b) {
        return Vec::new();
    }
    let ty = g[e].data.ty;
    let n = add_op(g, op, 0, ty, vec![b, a]);
    vec![(e, n)]
}

/// `(x ⊕ c1) ⊕ c2 = x ⊕ (c1 ⊕ c2)`, folding `c1 ⊕ c2` (f32 constants).
fn const_assoc(g: &mut Graph, e: Id, op: &str, x: Id, c1: Id, c2: Id) -> Unions {
    let (Some(t1), Some(t2)) = (class_const(g, c1), class_const(g, c2)) else {
        return Vec::new();
    };
    if class_const(g, x).is_some() || t1.as_f32().is_none() || t2.as_f32().is_none() {
        return Vec::new();
    }
    let folded = match op {
        "graph.Add" => nart_tensor::elementwise::add(&t1, &t2),
        _ => nart_tensor::elementwise::mul(&t1, &t2),
    };
    let Ok(folded) = folded else {
        return Vec::new();
    };
    let (Some(xd), Some(ed)) = (dims(g, x), dims(g, e)) else {
        return Vec::new();
    };
    let cd: Vec<i64> = folded.shape().iter().map(|&d| d as i64).collect();
    if broadcast(&xd, &cd).as_ref() != Some(&ed) {
        return Vec::new();
    }
    let elem = class_ty(g, e).expect("typed").elem;
    let cty = tensor_ty(g, elem, cd);
    let k = g.analysis.add_const(folded, cty);
    let c = g.add(GNode::leaf(Kind::Const(k), cty));
    let ty = g[e].data.ty;
    let n = add_op(g, op, 0, ty, vec![x, c]);
    vec![(e, n)]
}

/// `x * c + y * c = (x + y) * c` when `x` and `y` have one type.
fn factor(g: &mut Graph, e: Id, x: Id, y: Id, c: Id) -> Unions {
    if g[c].data.konst.is_none() || !same_ty(g, x, y) {
        return Vec::new();
    }
    let (Some(xd), Some(cd), Some(ed)) = (dims(g, x), dims(g, c), dims(g, e)) else {
        return Vec::new();
    };
    if broadcast(&xd, &cd).as_ref() != Some(&ed) {
        return Vec::new();
    }
    let xty = g[x].data.ty;
    let sum = add_op(g, "graph.Add", 0, xty, vec![x, y]);
    let ty = g[e].data.ty;
    let n = add_op(g, "graph.Mul", 0, ty, vec![sum, c]);
    vec![(e, n)]
}

/// `(x + y) * c = x * c + y * c` when `x` and `y` have one type.
fn distribute(g: &mut Graph, e: Id, x: Id, y: Id, c: Id) -> Unions {
    if g[c].data.konst.is_none() || !same_ty(g, x, y) {
        return Vec::new();
    }
    let (Some(xd), Some(cd), Some(ed)) = (dims(g, x), dims(g, c), dims(g, e)) else {
        return Vec::new();
    };
    if broadcast(&xd, &cd).as_ref() != Some(&ed) {
        return Vec::new();
    }
    let ty = g[e].data.ty;
    let xc = add_op(g, "graph.Mul", 0, ty, vec![x, c]);
    let yc = add_op(g, "graph.Mul", 0, ty, vec![y, c]);
    let n = add_op(g, "graph.Add", 0, ty, vec![xc, yc]);
    vec![(e, n)]
}

/// The permutation of a Transpose e-node (ONNX's default reverses the axes).
fn perm_of(g: &Graph, node: &GNode, rank: usize) -> Option<Vec<i64>> {
    let t = &g.analysis.tables;
    match t.props[node.props as usize]
        .iter()
        .find(|p| p.name == t.perm)
    {
        None => Some((0..rank as i64).rev().collect()),
        Some(p) => match perm_data(g, p.value) {
            Some(v) if v.len() == rank => Some(v),
            _ => None,
        },
    }
}

fn perm_data(g: &Graph, attr: Attr) -> Option<Vec<i64>> {
    // The tables hold every permutation attribute rules create; an imported one is looked up
    // by value there too.
    g.analysis
        .tables
        .perms
        .iter()
        .find(|(_, &a)| a == attr)
        .map(|(p, _)| p.clone())
}

/// The property list of a Transpose with permutation `p`, if that attribute exists.
fn perm_props(g: &mut Graph, p: &[i64]) -> Option<u32> {
    let attr = *g.analysis.tables.perms.get(p)?;
    let name = g.analysis.tables.perm;
    Some(
        g.analysis
            .intern_props(vec![NamedAttr { name, value: attr }]),
    )
}

/// The nodes of class `id` that are `name` ops, cloned.
fn ops_named(g: &Graph, id: Id, name: &str) -> Vec<GNode> {
    let sym = Symbol::from(name);
    g[id]
        .nodes
        .iter()
        .filter(|n| n.kind == Kind::Op(sym))
        .cloned()
        .collect()
}

/// Transposes of class `e` whose operand is class `inner`, with their permutations.
fn transposes_of(g: &Graph, e: Id, inner: Id) -> Vec<(GNode, Vec<i64>)> {
    let inner = g.find(inner);
    let Some(rank) = dims(g, inner).map(|d| d.len()) else {
        return Vec::new();
    };
    ops_named(g, e, "graph.Transpose")
        .into_iter()
        .filter(|n| g.find(n.children[0]) == inner)
        .filter_map(|n| perm_of(g, &n, rank).map(|p| (n, p)))
        .collect()
}

fn transpose_transpose(g: &mut Graph, e: Id, st: &Subst) -> Unions {
    let x = s(st, "?x");
    let mut out = Vec::new();
    let inners: Vec<Id> = g[e]
        .nodes
        .iter()
        .filter(|n| n.kind == Kind::Op(Symbol::from("graph.Transpose")))
        .map(|n| n.children[0])
        .collect();
    for mid in inners {
        for (_, q) in transposes_of(g, e, mid) {
            for (_, p) in transposes_of(g, mid, x) {
                // out[j] = mid[q[j]] = x[p[q[j]]]
                let composed: Vec<i64> = q.iter().map(|&j| p[j as usize]).collect();
                if composed.iter().enumerate().all(|(i, &v)| v == i as i64) {
                    if same_ty(g, e, x) {
                        out.push((e, x));
                    }
                } else if let Some(props) = perm_props(g, &composed) {
                    let ty = g[e].data.ty;
                    let n = add_op(g, "graph.Transpose", props, ty, vec![x]);
                    out.push((e, n));
                }
            }
        }
    }
    out
}

fn reshape_reshape(g: &mut Graph, e: Id, st: &Subst) -> Unions {
    let (x, s2) = (s(st, "?x"), s(st, "?s2"));
    let Some(shape) = class_const(g, s2) else {
        return Vec::new();
    };
    match shape.to_i64_vec() {
        Ok(v) if !v.contains(&0) => {}
        _ => return Vec::new(),
    }
    let ty = g[e].data.ty;
    let n = add_op(g, "graph.Reshape", 0, ty, vec![x, s2]);
    vec![(e, n)]
}

/// Elementwise unary ops transposes commute with.
const UNARY: &[&str] = &[
    "graph.Relu",
    "graph.Neg",
    "graph.Sigmoid",
    "graph.Tanh",
    "graph.Exp",
    "graph.Abs",
    "graph.Sqrt",
    "graph.Erf",
];

/// Elementwise binary ops transposes commute with.
const BINARY: &[&str] = &["graph.Add", "graph.Sub", "graph.Mul", "graph.Div"];

fn transpose_unary(g: &mut Graph, e: Id, st: &Subst) -> Unions {
    let u = s(st, "?u");
    let mut out = Vec::new();
    for &name in UNARY {
        for f in ops_named(g, u, name) {
            let x = f.children[0];
            if !same_ty(g, x, u) {
                continue;
            }
            for (t, _) in transposes_of(g, e, u) {
                let ty = g[e].data.ty;
                let tx = add_op(g, "graph.Transpose", t.props, ty, vec![x]);
                let n = add_op(g, name, f.props, ty, vec![tx]);
                out.push((e, n));
            }
        }
    }
    out
}

fn transpose_binary(g: &mut Graph, e: Id, st: &Subst) -> Unions {
    let b = s(st, "?b");
    let mut out = Vec::new();
    for &name in BINARY {
        for f in ops_named(g, b, name) {
            let (x, y) = (f.children[0], f.children[1]);
            if !same_ty(g, x, b) || !same_ty(g, y, b) {
                continue;
            }
            for (t, _) in transposes_of(g, e, b) {
                let ty = g[e].data.ty;
                let tx = add_op(g, "graph.Transpose", t.props, ty, vec![x]);
                let ty2 = add_op(g, "graph.Transpose", t.props, ty, vec![y]);
                let n = add_op(g, name, f.props, ty, vec![tx, ty2]);
                out.push((e, n));
            }
        }
    }
    out
}

fn transpose_sink(g: &mut Graph, e: Id, a: Id, b: Id, name: &str) -> Unions {
    if !same_ty(g, a, b) || !same_ty(g, a, e) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for ta in ops_named(g, a, "graph.Transpose") {
        for tb in ops_named(g, b, "graph.Transpose") {
            let (x, y) = (ta.children[0], tb.children[0]);
            if !same_ty(g, x, y) {
                continue;
            }
            let rank = dims(g, x).map_or(0, |d| d.len());
            if perm_of(g, &ta, rank).is_none() || perm_of(g, &ta, rank) != perm_of(g, &tb, rank) {
                continue;
            }
            let xty = g[x].data.ty;
            let inner = add_op(g, name, 0, xty, vec![x, y]);
            let ty = g[e].data.ty;
            let n = add_op(g, "graph.Transpose", ta.props, ty, vec![inner]);
            out.push((e, n));
        }
    }
    out
}

/// Which op kind a merge is about.
#[derive(Clone, Copy, PartialEq)]
enum Merge {
    MatMul,
    Conv,
    Gemm,
}

/// The value of a 0/1 integer property (absent means 0); `None` for anything else.
fn flag(g: &Graph, node: &GNode, name: nart_ir::Ident) -> Option<bool> {
    let t = &g.analysis.tables;
    match t.props[node.props as usize].iter().find(|p| p.name == name) {
        None => Some(false),
        Some(p) => match int_attr_value(g, p.value) {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        },
    }
}

/// Whether a Conv node has `group` 1 (absent means 1).
fn group_one(g: &Graph, node: &GNode) -> bool {
    let t = &g.analysis.tables;
    match t.props[node.props as usize]
        .iter()
        .find(|p| p.name == t.group)
    {
        None => true,
        Some(p) => int_attr_value(g, p.value) == Some(1),
    }
}

fn int_attr_value(g: &Graph, attr: Attr) -> Option<i64> {
    g.analysis
        .tables
        .ints
        .iter()
        .find(|(_, &a)| a == attr)
        .map(|(&v, _)| v)
}

/// Merges `a = op(x, w1[, b1])` and `b = op(x, w2[, b2])` into one op on the concatenated
/// constant weights followed by a Split. MatMul: `w` of shape `[K, N]`, concatenated on axis
/// 1, the result split on its last axis. Conv: equal properties, `group` 1, weights
/// concatenated on axis 0 (output channels), the result split on axis 1.
#[allow(clippy::too_many_arguments)]
fn merge(
    g: &mut Graph,
    a: Id,
    b: Id,
    x: Id,
    w1: Id,
    w2: Id,
    bias: Option<(Id, Id)>,
    kind: Merge,
) -> Unions {
    let (a, b) = (g.find(a), g.find(b));
    let (Some(k1), Some(k2)) = (g[w1].data.konst, g[w2].data.konst) else {
        return Vec::new();
    };
    // Each set of original weights merges once, in one order: every constant of the first
    // comes before every constant of the second (this also rules out merging an op with a
    // merge that already holds it, which would repeat weights).
    let (l1, l2) = (const_leaves(g, k1), const_leaves(g, k2));
    if a == b || l1.iter().max() >= l2.iter().min() {
        return Vec::new();
    }
    // Biases are both constants (concatenated) or both absent (the first `none` is kept).
    let bias_none = bias.is_some_and(|(b1, _)| is_none(g, b1));
    if let Some((b1, b2)) = bias {
        let consts = g[b1].data.konst.is_some() && g[b2].data.konst.is_some();
        let both_none = bias_none && is_none(g, b2);
        if !(consts || both_none) {
            return Vec::new();
        }
    }
    let (Some(tw1), Some(tw2), Some(ta), Some(tb)) = (
        class_ty(g, w1).cloned(),
        class_ty(g, w2).cloned(),
        class_ty(g, a).cloned(),
        class_ty(g, b).cloned(),
    ) else {
        return Vec::new();
    };
    let (Some(d1), Some(d2), Some(da), Some(db)) = (&tw1.dims, &tw2.dims, &ta.dims, &tb.dims)
    else {
        return Vec::new();
    };
    if tw1.elem != tw2.elem || ta.elem != tb.elem || da.len() != db.len() || d1.len() != d2.len() {
        return Vec::new();
    }
    let (mut w_axis, y_axis) = match kind {
        Merge::MatMul => (1usize, da.len().saturating_sub(1)),
        Merge::Conv => (0usize, 1usize),
        Merge::Gemm => (1usize, 1usize),
    };
    if kind != Merge::Conv && (d1.len() != 2 || da.is_empty()) {
        return Vec::new();
    }
    if kind == Merge::Conv && da.len() < 3 {
        return Vec::new();
    }
    // Everything but the merged axis agrees, for the weights and for the results.
    let agree = |p: &[i64], q: &[i64], axis: usize| {
        p.iter()
            .zip(q)
            .enumerate()
            .all(|(i, (u, v))| i == axis || u == v)
    };
    if !agree(da, db, y_axis) || da[y_axis] < 0 || db[y_axis] < 0 {
        return Vec::new();
    }
    // The op nodes themselves: their properties must agree (Conv: group 1; Gemm: `transB`
    // says which axis of B the outputs are on).
    let name = match kind {
        Merge::MatMul => "graph.MatMul",
        Merge::Conv => "graph.Conv",
        Merge::Gemm => "graph.Gemm",
    };
    let arity = if bias.is_some() { 3 } else { 2 };
    let find = |g: &Graph, c: Id, w: Id| {
        ops_named(g, c, name).into_iter().find(|n| {
            n.children.len() == arity
                && g.find(n.children[0]) == g.find(x)
                && g.find(n.children[1]) == g.find(w)
        })
    };
    let (Some(na), Some(nb)) = (find(g, a, w1), find(g, b, w2)) else {
        return Vec::new();
    };
    if na.props != nb.props {
        return Vec::new();
    }
    if kind == Merge::Conv && !group_one(g, &na) {
        return Vec::new();
    }
    if kind == Merge::Gemm {
        match flag(g, &na, g.analysis.tables.trans_b) {
            Some(false) => w_axis = 1,
            Some(true) => w_axis = 0,
            None => return Vec::new(),
        }
    }
    if !agree(d1, d2, w_axis) {
        return Vec::new();
    }
    let Some(&axis_y) = g.analysis.tables.ints.get(&(y_axis as i64)) else {
        return Vec::new();
    };
    let axis = g.analysis.tables.axis;
    let split_props = g.analysis.intern_props(vec![NamedAttr {
        name: axis,
        value: axis_y,
    }]);
    let mut wd = d1.clone();
    wd[w_axis] += d2[w_axis];
    let wty = tensor_ty(g, tw1.elem, wd);
    let wc = concat_consts(g, w1, w2, w_axis as i64, wty);
    let mut yd = da.clone();
    yd[y_axis] += db[y_axis];
    let yty = tensor_ty(g, ta.elem, yd);
    let mut children = vec![x, wc];
    if let (true, Some((b1, _))) = (bias_none, bias) {
        children.push(b1);
    } else if let Some((b1, b2)) = bias {
        let (Some(e1), Some(e2)) = (dims(g, b1), dims(g, b2)) else {
            return Vec::new();
        };
        // One bias per output channel (not one broadcast over them).
        if e1 != [da[y_axis]] || e2 != [db[y_axis]] {
            return Vec::new();
        }
        let belem = class_ty(g, b1).expect("typed").elem;
        let bty = tensor_ty(g, belem, vec![e1[0] + e2[0]]);
        children.push(concat_consts(g, b1, b2, 0, bty));
    }
    let y = add_op(g, name, na.props, yty, children);
    let sizes = Tensor::from_vec(vec![2], vec![da[y_axis], db[y_axis]]).expect("two sizes");
    let i64_ty = g.analysis.tables.i64;
    let sty = tensor_ty(g, i64_ty, vec![2]);
    let k = g.analysis.add_const(sizes, sty);
    let sc = g.add(GNode::leaf(Kind::Const(k), sty));
    let tuple = g.analysis.intern_types(vec![ta, tb]);
    let split = add_op(g, "graph.Split", split_props, tuple, vec![y, sc]);
    let p0 = proj(g, split, 0);
    let p1 = proj(g, split, 1);
    vec![(a, p0), (b, p1)]
}
