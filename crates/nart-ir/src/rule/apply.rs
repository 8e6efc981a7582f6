//! Matching a compiled rule against an op and rewriting it.
//!
//! Applying a rule has three phases, and only the last one changes the IR:
//!
//! 1. **Match** the source tree from the root down, binding captures; a capture seen twice
//!    must bind the same value or attribute.
//! 2. **Plan** the result: evaluate the constraints, then every native attribute builder and
//!    every result type, and check that each replacement has the type of the result it
//!    replaces. Anything that fails here is a match failure with a reason, and the IR is
//!    untouched.
//! 3. **Build** the planned ops before the root, at the fused location of the matched ops,
//!    and replace the root.

use crate::{Attr, Context, LocData, Location, Op, OperationState, PatternRewriter, Type, Uniquer};
use crate::{Value, ValueDef};

use super::syntax::{
    ArgExpr, AttrExpr, Call, CapRef, CaptureKind, Compiled, ResNode, ResOp, Results, SrcOp,
    SrcOperand,
};
use super::{Arg, NativeKind};

/// What a capture holds after matching.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    Value(Value),
    Op { op: Op, result: usize },
    Attr(Attr),
}

/// A new op (or an existing value) to put in place of the root.
enum Plan {
    Value(Value),
    Op {
        name: &'static str,
        operands: Vec<Plan>,
        attrs: Vec<(&'static str, Attr)>,
        types: Vec<Type>,
    },
}

struct Matcher<'r> {
    rule: &'r Compiled,
    binds: Vec<Option<Bound>>,
    /// The matched ops, root first, in the order the source lists them.
    ops: Vec<Op>,
}

/// The attribute of the constant-like op defining `v`.
pub(super) fn constant_attr(ctx: &Context, v: Value) -> Option<Attr> {
    crate::interfaces::constant_of(ctx, v)
}

impl Matcher<'_> {
    fn cap_name(&self, id: usize) -> &'static str {
        self.rule.captures[id].name
    }

    fn bind(&mut self, id: usize, b: Bound) -> Result<(), String> {
        match self.binds[id] {
            None => {
                self.binds[id] = Some(b);
                Ok(())
            }
            Some(old) if old == b => Ok(()),
            Some(Bound::Attr(_)) => Err(format!(
                "`${}` stands for two different attributes",
                self.cap_name(id)
            )),
            Some(_) => Err(format!(
                "`${}` stands for two different values",
                self.cap_name(id)
            )),
        }
    }

    fn match_op(&mut self, ctx: &Context, p: &SrcOp, op: Op, result: usize) -> Result<(), String> {
        let n = ctx.operands(op).len();
        if n != p.operands.len() {
            return Err(format!(
                "`{}` has {n} operands, the rule expects {}",
                p.name,
                p.operands.len()
            ));
        }
        self.ops.push(op);
        if let Some(id) = p.bind {
            self.bind(id, Bound::Op { op, result })?;
        }
        for (name, cap, _) in &p.attrs {
            let Some(a) = ctx.attr(op, name) else {
                return Err(format!("`{}` has no attribute `{name}`", p.name));
            };
            if let Some(id) = cap {
                self.bind(*id, Bound::Attr(a))?;
            }
        }
        for (i, sub) in p.operands.iter().enumerate() {
            let v = ctx.operand(op, i);
            match sub {
                SrcOperand::Capture(id) => self.bind(*id, Bound::Value(v))?,
                SrcOperand::Any => {}
                SrcOperand::Op(q) => match ctx.value_def(v) {
                    ValueDef::OpResult { op: d, index } if ctx.op_name_str(d) == q.name => {
                        self.match_op(ctx, q, d, index as usize)?
                    }
                    _ => {
                        return Err(format!(
                            "operand #{i} of `{}` is not defined by `{}`",
                            p.name, q.name
                        ))
                    }
                },
                SrcOperand::Constant { value, attr } => {
                    let Some(a) = constant_attr(ctx, v) else {
                        return Err(format!("operand #{i} of `{}` is not a constant", p.name));
                    };
                    if let Some(id) = value {
                        self.bind(*id, Bound::Value(v))?;
                    }
                    if let Some(id) = attr {
                        self.bind(*id, Bound::Attr(a))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The value a capture stands for (an op capture: the matched result, or result `#n`).
    fn value(&self, ctx: &Context, r: &CapRef) -> Result<Value, String> {
        match self.binds[r.id] {
            Some(Bound::Value(v)) => Ok(v),
            Some(Bound::Op { op, result }) => {
                let i = r.result.unwrap_or(result);
                ctx.results(op).get(i).copied().ok_or_else(|| {
                    format!(
                        "`${}#{i}`: `{}` has {} results",
                        self.cap_name(r.id),
                        ctx.op_name_str(op),
                        ctx.results(op).len()
                    )
                })
            }
            // The parser only lets value captures reach here, and all of them are bound.
            _ => Err(format!("`${}` holds no value", self.cap_name(r.id))),
        }
    }

    fn arg(&self, rw: &mut PatternRewriter<'_>, e: &ArgExpr) -> Result<Arg, String> {
        match e {
            ArgExpr::Int(v) => Ok(Arg::Int(*v)),
            ArgExpr::Call(c) => Ok(Arg::Attr(self.attr_call(rw, c)?)),
            ArgExpr::Capture(r) => match (self.rule.captures[r.id].kind, self.binds[r.id]) {
                (CaptureKind::Attr, Some(Bound::Attr(a))) => Ok(Arg::Attr(a)),
                _ => {
                    let v = self.value(rw, r)?;
                    Ok(Arg::Value(v, rw.value_type(v)))
                }
            },
        }
    }

    fn args(&self, rw: &mut PatternRewriter<'_>, c: &Call) -> Result<Vec<Arg>, String> {
        c.args.iter().map(|a| self.arg(rw, a)).collect()
    }

    fn call_text(&self, c: &Call) -> &'static str {
        &self.rule.text[c.span.clone()]
    }

    fn attr_call(&self, rw: &mut PatternRewriter<'_>, c: &Call) -> Result<Attr, String> {
        let args = self.args(rw, c)?;
        let NativeKind::Attr(f) = c.native.kind else {
            return Err(format!("`{}` is not an attribute builder", c.native.name));
        };
        f(rw.uniq(), &args).ok_or_else(|| format!("`{}` gives no attribute", self.call_text(c)))
    }

    fn constraint(&self, rw: &mut PatternRewriter<'_>, c: &Call) -> Result<(), String> {
        let args = self.args(rw, c)?;
        let NativeKind::Constraint(f) = c.native.kind else {
            return Err(format!("`{}` is not a constraint", c.native.name));
        };
        if f(rw, &args) {
            Ok(())
        } else {
            Err(format!("constraint `{}` does not hold", self.call_text(c)))
        }
    }

    fn plan(
        &self,
        rw: &mut PatternRewriter<'_>,
        node: &ResNode,
        default: &[Type],
    ) -> Result<Plan, String> {
        match node {
            ResNode::Capture(r) => Ok(Plan::Value(self.value(rw, r)?)),
            ResNode::Op(o) => self.plan_op(rw, o, default),
        }
    }

    fn plan_op(
        &self,
        rw: &mut PatternRewriter<'_>,
        o: &ResOp,
        default: &[Type],
    ) -> Result<Plan, String> {
        let types = match &o.ty {
            Some(r) => {
                let v = self.value(rw, r)?;
                vec![rw.value_type(v)]
            }
            None => default.to_vec(),
        };
        let inner_default = &types[..types.len().min(1)];
        let operands = o
            .operands
            .iter()
            .map(|n| self.plan(rw, n, inner_default))
            .collect::<Result<Vec<_>, _>>()?;
        let mut attrs = Vec::with_capacity(o.attrs.len());
        for (name, e, _) in &o.attrs {
            let a = match e {
                AttrExpr::Capture(r) => match self.binds[r.id] {
                    Some(Bound::Attr(a)) => a,
                    _ => return Err(format!("`${}` holds no attribute", self.cap_name(r.id))),
                },
                AttrExpr::Call(c) => self.attr_call(rw, c)?,
            };
            attrs.push((*name, a));
        }
        Ok(Plan::Op {
            name: o.name,
            operands,
            attrs,
            types,
        })
    }
}

fn plan_types(ctx: &Context, p: &Plan) -> Vec<Type> {
    match p {
        Plan::Value(v) => vec![ctx.value_type(*v)],
        Plan::Op { types, .. } => types.clone(),
    }
}

fn type_text(ctx: &Context, tys: &[Type]) -> String {
    let parts: Vec<String> = tys
        .iter()
        .map(|&t| crate::printer::type_to_string(ctx, t))
        .collect();
    match parts.len() {
        1 => parts[0].clone(),
        _ => format!("({})", parts.join(", ")),
    }
}

/// MLIR's `FusedLoc::get` without metadata: nested fused locations are flattened, unknown
/// ones dropped and duplicates removed; one location left is returned as is.
pub(super) fn fuse_locs(u: &mut Uniquer, locs: &[Location]) -> Location {
    fn add(u: &Uniquer, l: Location, out: &mut Vec<Location>) {
        match u.loc_data(l) {
            LocData::Unknown => {}
            LocData::Fused {
                metadata: None,
                locs,
            } => {
                for &inner in locs {
                    add(u, inner, out);
                }
            }
            _ => {
                if !out.contains(&l) {
                    out.push(l);
                }
            }
        }
    }
    let mut flat = Vec::new();
    for &l in locs {
        add(u, l, &mut flat);
    }
    match flat.len() {
        0 => u.unknown_loc(),
        1 => flat[0],
        _ => u.loc(LocData::Fused {
            metadata: None,
            locs: flat,
        }),
    }
}

fn build(rw: &mut PatternRewriter<'_>, p: Plan, loc: Location) -> Vec<Value> {
    match p {
        Plan::Value(v) => vec![v],
        Plan::Op {
            name,
            operands,
            attrs,
            types,
        } => {
            let operands: Vec<Value> = operands.into_iter().map(|o| build(rw, o, loc)[0]).collect();
            let def = rw.lookup_ident(name).and_then(|id| rw.op_def_by_name(id));
            let mut state = OperationState::new(rw.uniq(), name, loc)
                .operands(&operands)
                .results(&types);
            for (aname, a) in attrs {
                state = if def.is_some_and(|d| d.is_inherent(aname)) {
                    state.prop(rw.uniq(), aname, a)
                } else {
                    state.attr(rw.uniq(), aname, a)
                };
            }
            let op = rw.create(state);
            rw.results(op).to_vec()
        }
    }
}

/// Applies `rule` to `root`: `Ok` when the IR was rewritten, `Err(reason)` (with the IR
/// untouched) when the rule does not apply.
pub(super) fn apply(rule: &Compiled, rw: &mut PatternRewriter<'_>, root: Op) -> Result<(), String> {
    if rw.op_name_str(root) != rule.root {
        return Err(format!("the op is not `{}`", rule.root));
    }
    let mut m = Matcher {
        rule,
        binds: vec![None; rule.captures.len()],
        ops: Vec::new(),
    };
    m.match_op(rw, &rule.source, root, 0)?;
    for c in &rule.constraints {
        m.constraint(rw, c)?;
    }

    let root_types: Vec<Type> = rw.results(root).iter().map(|&r| rw.value_type(r)).collect();
    let plans = match &rule.results {
        Results::One(node) => vec![m.plan(rw, node, &root_types)?],
        Results::List(nodes) => {
            if nodes.len() != root_types.len() {
                return Err(format!(
                    "`{}` has {} results, the rule gives {} values",
                    rule.root,
                    root_types.len(),
                    nodes.len()
                ));
            }
            nodes
                .iter()
                .zip(&root_types)
                .map(|(n, t)| m.plan(rw, n, std::slice::from_ref(t)))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    let planned: Vec<Type> = match &rule.results {
        Results::One(_) => plan_types(rw, &plans[0]),
        Results::List(_) => plans
            .iter()
            .map(|p| match plan_types(rw, p).as_slice() {
                [t] => Ok(*t),
                tys => Err(format!(
                    "a replacement gives {} values where one is needed",
                    tys.len()
                )),
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    // A result without uses may be replaced by any value (DRR's `replaceWithValue` of an
    // unused result); every other replacement must have the type of what it replaces.
    let same = planned.len() == root_types.len()
        && planned
            .iter()
            .zip(&root_types)
            .enumerate()
            .all(|(i, (p, r))| p == r || rw.uses(rw.result(root, i)).is_empty());
    if !same {
        return Err(format!(
            "the replacement has type {}, the root {}",
            type_text(rw, &planned),
            type_text(rw, &root_types)
        ));
    }

    let locs: Vec<Location> = m.ops.iter().map(|&o| rw.op_loc(o)).collect();
    let loc = fuse_locs(rw.uniq(), &locs);
    rw.set_insertion_point_before(root);
    let mut values = Vec::with_capacity(root_types.len());
    for (i, p) in plans.into_iter().enumerate() {
        let vs = build(rw, p, loc);
        match &rule.results {
            Results::One(_) => values = vs,
            Results::List(_) => {
                debug_assert!(i < root_types.len());
                values.push(vs[0]);
            }
        }
    }
    rw.replace_op(root, &values);
    Ok(())
}
