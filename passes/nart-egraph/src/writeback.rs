//! From the extracted terms back to graph ops, through the rewriter.
//!
//! The block is walked in order. Before each op the e-graph does not model (the terminator
//! included), the terms of its operands (and of the block's values its regions use) are
//! materialized at that point, children first, so
//! the new ops are in topological order and every opaque value is used after its definition;
//! the op's operands are then set to the new values. At the end the modelled ops, now unused,
//! are erased, last first. Result types come from the analysis. The rewriter's journal is on,
//! so when a term cannot be written (an opaque value it needs is defined later, a constant that
//! cannot be encoded), everything is rolled back and the function stays as it was.

use std::sync::Arc;

use egg::Id;
use nart_ir::{
    Attr, AttrData, Context, DenseData, Location, Op, OperationState, PatternRewriter, Value,
};
use nart_tensor::Tensor;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::cost::ir_type;
use crate::lang::{GNode, Graph, Kind};
use crate::translate::Translation;
use std::collections::BTreeMap;

/// Encodes a tensor as a dense elements attribute of type `ty` (`f32` and `i64` only, which
/// is what rules compute).
pub fn tensor_attr(ctx: &mut nart_ir::Uniquer, t: &Tensor, ty: nart_ir::Type) -> Option<Attr> {
    let bytes: Vec<u8> = if let Some(v) = t.as_f32() {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    } else if let Some(v) = t.as_i64() {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    } else {
        return None;
    };
    Some(ctx.intern_attr(AttrData::DenseElements {
        ty,
        data: DenseData::Elements(bytes),
    }))
}

struct Writer<'a, 'c> {
    rw: PatternRewriter<'c>,
    g: &'a Graph,
    tr: &'a Translation,
    choice: &'a BTreeMap<Id, GNode>,
    values: FxHashMap<Id, Value>,
    multi: FxHashMap<Id, Op>,
    available: FxHashSet<Value>,
    anchor_loc: Location,
    /// Classes being materialized (a cycle among the choices is an error, not a hang).
    active: FxHashSet<Id>,
}

impl Writer<'_, '_> {
    fn loc(&self, id: Id) -> Location {
        self.tr.locs.get(&id).copied().unwrap_or(self.anchor_loc)
    }

    /// The value of constant `k`, decoded or computed.
    fn const_tensor(&mut self, k: u32) -> Result<Arc<Tensor>, String> {
        let c = self.g.analysis.tables.consts[k as usize].clone();
        if let Some(t) = c.tensor {
            return Ok(t);
        }
        if let Some(attr) = c.attr {
            return nart_interp::convert::tensor_from_attr(&self.rw, attr).map(Arc::new);
        }
        let (parts, axis) = c.concat.ok_or("a constant without a value")?;
        let mut tensors = Vec::new();
        for p in parts {
            tensors.push(self.const_tensor(p)?);
        }
        let refs: Vec<&Tensor> = tensors.iter().map(|t| t.as_ref()).collect();
        nart_tensor::shape_ops::concat(&refs, axis)
            .map(Arc::new)
            .map_err(|e| e.to_string())
    }

    fn op(&mut self, id: Id) -> Result<Op, String> {
        let id = self.g.find(id);
        if let Some(&op) = self.multi.get(&id) {
            return Ok(op);
        }
        self.value(id)?;
        self.multi
            .get(&id)
            .copied()
            .ok_or_else(|| "a projection of a single-result op".to_string())
    }

    fn value(&mut self, id: Id) -> Result<Value, String> {
        let id = self.g.find(id);
        if !self.active.insert(id) {
            return Err("the chosen terms form a cycle".into());
        }
        let v = self.value_inner(id);
        self.active.remove(&id);
        v
    }

    fn value_inner(&mut self, id: Id) -> Result<Value, String> {
        if let Some(&v) = self.values.get(&id) {
            return Ok(v);
        }
        if let Some(&op) = self.multi.get(&id) {
            return Ok(self.rw.result(op, 0));
        }
        let node = self
            .choice
            .get(&id)
            .ok_or_else(|| format!("e-class {id} has no term"))?
            .clone();
        let loc = self.loc(id);
        let tables = &self.g.analysis.tables;
        let v = match node.kind {
            Kind::Arg(i) => self.rw.block_args(self.tr.block)[i as usize],
            Kind::Opaque(k) => {
                let v = tables.opaque[k as usize];
                if !self.available.contains(&v) {
                    return Err("a term uses an opaque value before its definition".into());
                }
                v
            }
            Kind::Const(k) => {
                let c = tables.consts[k as usize].clone();
                let ty = ir_type(self.rw.uniq(), &tables.types[c.ty as usize][0]);
                let attr = match c.attr {
                    Some(a) => a,
                    None => {
                        let t = self.const_tensor(k)?;
                        tensor_attr(self.rw.uniq(), &t, ty)
                            .ok_or("a computed constant of an unsupported element type")?
                    }
                };
                let name = match self.tr.const_ops.get(&k) {
                    Some(&n) => self.rw.str(n).to_string(),
                    None => "graph.constant".to_string(),
                };
                let state = OperationState::new(self.rw.uniq(), &name, loc)
                    .results(&[ty])
                    .prop(self.rw.uniq(), "value", attr);
                let op = self.rw.create(state);
                self.rw.result(op, 0)
            }
            Kind::Proj(i) => {
                let op = self.op(node.children[0])?;
                self.rw.result(op, i as usize)
            }
            Kind::Op(name) => {
                let mut operands = Vec::with_capacity(node.children.len());
                for &c in &node.children {
                    operands.push(self.value(c)?);
                }
                let tables = &self.g.analysis.tables;
                let tys: Vec<_> = tables.types[node.ty as usize].clone();
                let props = tables.props[node.props as usize].clone();
                let result_tys: Vec<_> = tys.iter().map(|t| ir_type(self.rw.uniq(), t)).collect();
                let mut state = OperationState::new(self.rw.uniq(), name.as_str(), loc)
                    .operands(&operands)
                    .results(&result_tys);
                for p in props {
                    let pname = self.rw.str(p.name).to_string();
                    state = state.prop(self.rw.uniq(), &pname, p.value);
                }
                let op = self.rw.create(state);
                if result_tys.len() != 1 {
                    self.multi.insert(id, op);
                    return Ok(self.rw.result(op, 0));
                }
                self.rw.result(op, 0)
            }
        };
        self.values.insert(id, v);
        Ok(v)
    }
}

/// Writes the chosen terms back into the function's block. On failure nothing has changed and
/// the reason is returned.
pub fn write_back(
    ctx: &mut Context,
    g: &Graph,
    tr: &Translation,
    choice: &BTreeMap<Id, GNode>,
) -> Result<(), String> {
    let modelled: FxHashSet<Op> = tr.modelled.iter().copied().collect();
    let ops = ctx.block_ops(tr.block);
    let mut available: FxHashSet<Value> = ctx.block_args(tr.block).iter().copied().collect();
    let anchor_loc = ctx.unknown_loc();
    let mut w = Writer {
        rw: PatternRewriter::new(ctx).with_journal(),
        g,
        tr,
        choice,
        values: FxHashMap::default(),
        multi: FxHashMap::default(),
        available: FxHashSet::default(),
        anchor_loc,
        active: FxHashSet::default(),
    };
    std::mem::swap(&mut w.available, &mut available);
    let cp = w.rw.checkpoint();
    let res = (|| {
        for &op in &ops {
            if modelled.contains(&op) {
                continue;
            }
            w.anchor_loc = w.rw.op_loc(op);
            w.rw.set_insertion_point_before(op);
            let uses = crate::translate::outside_uses(&w.rw, op);
            for (user, i, v) in uses {
                let Some(&c) = tr.class_of.get(&v) else {
                    continue;
                };
                let nv = w.value(c)?;
                if nv != v {
                    w.rw.set_operand(user, i, nv);
                }
            }
            let results = w.rw.results(op).to_vec();
            w.available.extend(results);
        }
        for &op in tr.modelled.iter().rev() {
            if w.rw.op_results_unused(op) {
                w.rw.erase_op(op);
            } else {
                return Err("a modelled op still has uses".to_string());
            }
        }
        Ok(())
    })();
    match res {
        Ok(()) => {
            w.rw.commit();
            Ok(())
        }
        Err(e) => {
            w.rw.rollback(cp);
            w.rw.commit();
            Err(e)
        }
    }
}
