//! The verifier: structural rules every op obeys, the constraints its [`OpDef`] declares,
//! dominance, symbol uniqueness, and the op's own verifier.
//!
//! It collects every error it finds instead of stopping at the first; ops are checked before
//! the ops nested in them, and an op whose own checks fail is not descended into.

use rustc_hash::FxHashMap;

use crate::printer::type_to_string;
use crate::registry::{Arity, OpDef, Trait, ValueDef as DefValue};
use crate::{AttrData, Block, Context, Diagnostic, Op, Region, Value, ValueDef};

/// Verifies `root` and everything nested in it; returns every error found.
pub fn verify(ctx: &Context, root: Op) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier {
        ctx,
        errors: Vec::new(),
        order: FxHashMap::default(),
        failed: false,
    };
    v.verify_op(root);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'a> {
    ctx: &'a Context,
    errors: Vec<Diagnostic>,
    /// Position of each op within its block, filled per block on demand.
    order: FxHashMap<Op, u32>,
    /// Whether the current isolated-from-above scope has failed: as in MLIR, verification of a
    /// scope stops at its first error, while sibling isolated ops (functions) go on.
    failed: bool,
}

/// Splits `n` values into the groups a definition declares, or explains why it cannot.
fn segment(
    ctx: &Context,
    op: Op,
    defs: &[DefValue],
    n: usize,
    segment_attr: Option<&str>,
    what: &str,
) -> Result<Vec<(usize, usize)>, String> {
    if let Some(name) = segment_attr {
        // As upstream, where the sizes are a property: a missing one counts as all zeros.
        let zeros = vec![0; defs.len()];
        let sizes = match ctx.attr(op, name).map(|a| ctx.attr_data(a)) {
            None => &zeros,
            Some(AttrData::DenseArray {
                elem,
                data: crate::DenseArrayData::Int(sizes),
            }) if matches!(
                ctx.type_data(*elem),
                crate::TypeData::Integer { width: 32, .. }
            ) =>
            {
                sizes
            }
            Some(_) => return Err(format!("requires dense i32 array attribute '{name}'")),
        };
        if sizes.iter().any(|&s| s < 0) {
            return Err(format!("'{name}' attribute cannot have negative elements"));
        }
        if sizes.len() != defs.len() {
            return Err(format!(
                "'{name}' attribute for specifying {what} segments must have {} elements, but got {}",
                defs.len(),
                sizes.len()
            ));
        }
        let total: i64 = sizes.iter().sum();
        if total != n as i64 {
            return Err(format!(
                "{what} count ({n}) does not match with the total size ({total}) specified in attribute '{name}'"
            ));
        }
        let mut out = Vec::new();
        let mut start = 0usize;
        for &s in sizes {
            out.push((start, s as usize));
            start += s as usize;
        }
        return Ok(out);
    }
    let fixed = defs.iter().filter(|d| d.arity == Arity::Single).count();
    let n_var = defs.iter().filter(|d| d.arity != Arity::Single).count();
    let ok = if n_var == 0 { n == fixed } else { n >= fixed };
    if !ok || n_var > 1 {
        if n_var > 1 && ok {
            return Err(format!(
                "has more than one variadic {what} group but no segment sizes"
            ));
        }
        // MLIR's trait messages (ZeroOperands, OneResult, NOperands, AtLeastNResults, ...).
        return Err(match (n_var, fixed, what) {
            (0, 0, _) => format!("requires zero {what}s"),
            (0, 1, "operand") => "requires a single operand".to_string(),
            (0, 1, _) => format!("requires one {what}"),
            (0, _, _) => format!("expected {fixed} {what}s, but found {n}"),
            _ => format!("expected {fixed} or more {what}s, but found {n}"),
        });
    }
    let extra = n - fixed;
    let mut out = Vec::new();
    let mut start = 0;
    for d in defs {
        let len = match d.arity {
            Arity::Single => 1,
            _ => extra,
        };
        if d.arity == Arity::Optional && len > 1 {
            return Err(format!(
                "expected at most {} {what}s, but found {n}",
                fixed + 1
            ));
        }
        out.push((start, len));
        start += len;
    }
    Ok(out)
}

impl<'a> Verifier<'a> {
    fn push(&mut self, d: Diagnostic) {
        self.errors.push(d);
        self.failed = true;
    }

    fn error(&mut self, op: Op, msg: impl std::fmt::Display) {
        self.push(self.ctx.op_error(op, msg));
    }

    /// Verifies `op`; an isolated-from-above op is its own scope, whose first error does not
    /// stop the verification of its siblings.
    fn verify_op(&mut self, op: Op) {
        let scope = self.ctx.op_has_trait(op, Trait::IsolatedFromAbove);
        let saved = self.failed;
        if scope {
            self.failed = false;
        }
        self.verify_op_inner(op);
        if scope {
            self.failed = saved;
        }
    }

    fn verify_op_inner(&mut self, op: Op) {
        let ctx = self.ctx;
        let n_errors = self.errors.len();
        let def = ctx.op_def(op);
        match def {
            Some(def) => self.verify_against_def(op, def),
            None => {
                let name = ctx.op_name_str(op);
                let dialect = name.split_once('.').map_or(name, |(d, _)| d);
                if ctx.registry.has_dialect(dialect) {
                    // A loaded dialect never accepts unknown ops, whatever the flag says.
                    self.push(Diagnostic::error(
                        ctx.op_loc(op),
                        format!(
                            "unregistered operation '{name}' found in dialect ('{dialect}') \
                             that does not allow unknown operations"
                        ),
                    ));
                } else if !ctx.allow_unregistered {
                    {
                        self.push(Diagnostic::error(
                            ctx.op_loc(op),
                            format!(
                                "operation '{name}' is from an unregistered dialect ('{dialect}'); \
                                 use --allow-unregistered-dialect to accept it"
                            ),
                        ));
                    }
                }
            }
        }
        // Successors live in the same region as the op.
        let parent_region = ctx
            .op_parent_block(op)
            .and_then(|b| ctx.block_parent_region(b));
        for (i, &s) in ctx.successors(op).iter().enumerate() {
            if ctx.block_parent_region(s) != parent_region || parent_region.is_none() {
                self.error(
                    op,
                    format!("successor #{i} refers to a block defined in another region"),
                );
            }
        }
        if self.errors.len() != n_errors {
            return;
        }
        if let Some(f) = def.and_then(|d| d.verify) {
            if let Err(e) = f(ctx, op) {
                self.push(e);
                return;
            }
        }
        if ctx
            .op_interface::<dyn crate::interfaces::BranchOpInterface>(op)
            .is_some()
        {
            if let Err(e) = crate::interfaces::verify_branch_op(ctx, op) {
                self.push(e);
                return;
            }
        }
        // Regions.
        let graph = def.is_none_or(|d| d.has_trait(Trait::GraphRegion));
        let isolated = def.is_some_and(|d| d.has_trait(Trait::IsolatedFromAbove));
        for (ri, &r) in ctx.regions(op).iter().enumerate() {
            self.verify_region(op, ri, r, def, graph, isolated);
            if self.failed {
                return;
            }
        }
        if def.is_some_and(|d| d.has_trait(Trait::SymbolTable)) {
            self.verify_symbol_table(op);
        }
    }

    fn verify_against_def(&mut self, op: Op, def: &'static OpDef) {
        let ctx = self.ctx;
        let seg = if def.has_trait(Trait::AttrSizedOperandSegments) {
            Some("operandSegmentSizes")
        } else {
            None
        };
        // Operands.
        match segment(
            ctx,
            op,
            def.operands,
            ctx.operands(op).len(),
            seg,
            "operand",
        ) {
            Err(m) => return self.error(op, m),
            Ok(groups) => {
                for (d, (start, len)) in def.operands.iter().zip(groups) {
                    for i in start..start + len {
                        let ty = ctx.value_type(ctx.operand(op, i));
                        if !(d.constraint.check)(ctx, ty) {
                            return self.error(
                                op,
                                format!(
                                    "operand #{i} must be {}, but got '{}'",
                                    d.constraint.desc,
                                    type_to_string(ctx, ty)
                                ),
                            );
                        }
                    }
                }
            }
        }
        match segment(ctx, op, def.results, ctx.results(op).len(), None, "result") {
            Err(m) => return self.error(op, m),
            Ok(groups) => {
                for (d, (start, len)) in def.results.iter().zip(groups) {
                    for i in start..start + len {
                        let ty = ctx.value_type(ctx.result(op, i));
                        if !(d.constraint.check)(ctx, ty) {
                            return self.error(
                                op,
                                format!(
                                    "result #{i} must be {}, but got '{}'",
                                    d.constraint.desc,
                                    type_to_string(ctx, ty)
                                ),
                            );
                        }
                    }
                }
            }
        }
        // Attributes.
        for a in def.attrs {
            match ctx.attr(op, a.name) {
                None if !a.optional => {
                    return self.error(op, format!("requires attribute '{}'", a.name));
                }
                Some(v) if !a.constraint.satisfied(ctx, v) => {
                    return self.error(
                        op,
                        format!(
                            "attribute '{}' failed to satisfy constraint: {}",
                            a.name, a.constraint.desc
                        ),
                    );
                }
                _ => {}
            }
        }
        // Regions and successors.
        let n_regions = ctx.regions(op).len();
        let variadic_regions = def.has_trait(Trait::VariadicRegions);
        if variadic_regions {
            for (i, &r) in ctx.regions(op).iter().enumerate() {
                let Some(rd) = def.regions.get(i).or(def.regions.last()) else {
                    return self.error(op, "requires zero regions");
                };
                let nb = ctx.region_blocks(r).len();
                if (rd.single_block || def.has_trait(Trait::SingleBlock)) && nb > 1 {
                    return self.error(op, format!("expects region #{i} to have 0 or 1 blocks"));
                }
                if nb == 0 && !rd.may_be_empty {
                    return self.error(op, format!("region #{i} ('{}') failed to verify constraint: region with at least 1 blocks", rd.name));
                }
            }
        } else if n_regions != def.regions.len() {
            return self.error(
                op,
                match def.regions.len() {
                    0 => "requires zero regions".to_string(),
                    1 => "requires one region".to_string(),
                    k => format!("expected {k} regions"),
                },
            );
        } else {
            for (i, (rd, &r)) in def.regions.iter().zip(ctx.regions(op)).enumerate() {
                let nb = ctx.region_blocks(r).len();
                if (rd.single_block || def.has_trait(Trait::SingleBlock)) && nb > 1 {
                    return self.error(op, format!("expects region #{i} to have 0 or 1 blocks"));
                }
                if nb == 0 && !rd.may_be_empty {
                    return self.error(op, format!("region #{i} ('{}') failed to verify constraint: region with at least 1 blocks", rd.name));
                }
            }
        }
        if let Some(n) = def.num_successors {
            if ctx.successors(op).len() != n {
                return self.error(
                    op,
                    format!("requires {n} successor{}", if n == 1 { "" } else { "s" }),
                );
            }
        }
        // Traits.
        if def.has_trait(Trait::Terminator) {
            let is_last = ctx
                .op_parent_block(op)
                .is_some_and(|b| ctx.block_last_op(b) == Some(op));
            if !is_last {
                return self.error(op, "must be the last operation in the parent block");
            }
        }
        if !def.parents.is_empty() {
            let parent = ctx.op_parent_op(op).map(|p| ctx.op_name_str(p));
            if !parent.is_some_and(|p| def.parents.contains(&p)) {
                if def.parents.len() == 1 {
                    return self.error(op, format!("expects parent op '{}'", def.parents[0]));
                } else {
                    return self.error(
                        op,
                        format!(
                            "expects parent op to be one of '{}'",
                            def.parents.join(", ")
                        ),
                    );
                }
            }
        }
        for t in def.traits {
            if let Some(verify) = t.verify {
                if let Err(d) = verify(ctx, op) {
                    self.push(d);
                    return;
                }
            }
        }
        if def.has_trait(Trait::SameOperandsAndResultType) {
            if let Err(d) = verify_inferred_result_types(ctx, op) {
                self.push(d);
            }
        }
    }

    fn verify_region(
        &mut self,
        op: Op,
        index: usize,
        r: Region,
        def: Option<&'static OpDef>,
        graph: bool,
        isolated: bool,
    ) {
        let _ = index;
        let ctx = self.ctx;
        let blocks = ctx.region_blocks(r).to_vec();
        if blocks.is_empty() {
            return;
        }
        let needs_terminator = def.is_some_and(|d| !d.has_trait(Trait::NoTerminator));
        // Nested ops first, then each block's terminator (the order MLIR reports them in).
        for &b in &blocks {
            for inner in ctx.block_ops_iter(b) {
                self.verify_op(inner);
                if self.failed {
                    return;
                }
            }
            if needs_terminator {
                match ctx.block_last_op(b) {
                    None => {
                        return self.push(Diagnostic::error(
                            ctx.op_loc(op),
                            "empty block: expect at least a terminator",
                        ));
                    }
                    Some(last) => {
                        let is_term = ctx
                            .op_def(last)
                            .is_none_or(|d| d.has_trait(Trait::Terminator));
                        if !is_term {
                            let text = op_one_line(ctx, last);
                            return self.push(Diagnostic::error(
                                ctx.op_loc(last),
                                format!("block with no terminator, has {text}"),
                            ));
                        }
                    }
                }
            }
        }
        // The entry block cannot be a branch target.
        let entry = blocks[0];
        for &b in &blocks {
            if let Some(t) = ctx.block_last_op(b) {
                if ctx.successors(t).contains(&entry) {
                    return self.push(Diagnostic::error(
                        ctx.op_loc(op),
                        "entry block of region may not have predecessors",
                    ));
                }
            }
        }
        // Values used inside must be visible: defined inside, or (unless isolated) above.
        let dom = if graph {
            None
        } else {
            Some(Dominance::compute(ctx, r))
        };
        for &b in &blocks {
            for inner in ctx.block_ops_iter(b) {
                self.check_uses(op, r, inner, isolated, dom.as_ref(), graph);
                if self.failed {
                    return;
                }
            }
        }
    }

    /// Checks every operand of `user` (and of ops nested in it) that is defined outside `user`;
    /// stops at the first bad one.
    fn check_uses(
        &mut self,
        region_op: Op,
        region: Region,
        user: Op,
        isolated: bool,
        dom: Option<&Dominance>,
        graph: bool,
    ) {
        let ctx = self.ctx;
        for nested in self.ops_seen_from_above(user) {
            for (i, &v) in ctx.operands(nested).iter().enumerate() {
                let Some(def_block) = ctx.value_parent_block(v) else {
                    return self.error(nested, format!("operand #{i} is not defined in any block"));
                };
                // Defined inside `user` itself: that op's own region check handles it.
                if nested != user && self.defined_inside(v, user) {
                    continue;
                }
                let def_region = ctx.block_parent_region(def_block);
                if def_region != Some(region) {
                    // Defined above this region (or elsewhere entirely).
                    if !self.region_is_ancestor(def_region, region) {
                        let d = self.dominance_error(nested, i, v);
                        return self.push(d);
                    } else if isolated {
                        return self.push(
                            ctx.op_error(nested, "using value defined outside the region")
                                .with_note(
                                    ctx.op_loc(region_op),
                                    "required by region isolation constraints",
                                ),
                        );
                    }
                    continue;
                }
                if graph {
                    continue;
                }
                // Defined in this region: must dominate `user` (the ancestor of `nested` here).
                if let Some(dom) = dom {
                    if !self.dominates_use(dom, v, def_block, user, nested) {
                        let d = self.dominance_error(nested, i, v);
                        return self.push(d);
                    }
                }
            }
        }
    }

    /// `op` and the ops nested in it whose operands may refer to values defined above `op`:
    /// the walk does not enter isolated-from-above ops, whose insides their own scope checks.
    fn ops_seen_from_above(&self, op: Op) -> Vec<Op> {
        let ctx = self.ctx;
        let mut out = Vec::new();
        let mut stack = vec![op];
        while let Some(o) = stack.pop() {
            out.push(o);
            if ctx.op_has_trait(o, Trait::IsolatedFromAbove) {
                continue;
            }
            for &r in ctx.regions(o).iter().rev() {
                for &b in ctx.region_blocks(r).iter().rev() {
                    let ops: Vec<Op> = ctx.block_ops_iter(b).collect();
                    stack.extend(ops.into_iter().rev());
                }
            }
        }
        out
    }

    /// MLIR's "operand #i does not dominate this use", with a note saying where the operand is
    /// defined relative to the user.
    fn dominance_error(&self, user: Op, i: usize, v: Value) -> Diagnostic {
        let ctx = self.ctx;
        let err = Diagnostic::error(
            ctx.op_loc(user),
            format!("operand #{i} does not dominate this use"),
        );
        let use_block = ctx.op_parent_block(user);
        let use_region = use_block.and_then(|b| ctx.block_parent_region(b));
        let relation = |def_region: Option<Region>| -> &'static str {
            if def_region == use_region {
                "the same region"
            } else if use_region
                .is_some_and(|u| self.region_is_ancestor(def_region, u) && def_region != Some(u))
            {
                "a parent region"
            } else if def_region.is_some_and(|d| self.region_is_ancestor(use_region, d)) {
                "a child region"
            } else {
                "neither a parent nor a child region"
            }
        };
        match ctx.value_def(v) {
            ValueDef::OpResult { op: d, .. } => {
                let def_block = ctx.op_parent_block(d);
                let where_ = if def_block == use_block {
                    "op in the same block".to_string()
                } else {
                    let r = def_block.and_then(|b| ctx.block_parent_region(b));
                    match relation(r) {
                        "neither a parent nor a child region" => {
                            "op is neither in a parent nor in a child region".to_string()
                        }
                        rel => format!("op in {rel}"),
                    }
                };
                err.with_note(ctx.op_loc(d), format!("operand defined here ({where_})"))
            }
            ValueDef::BlockArg { block, .. } => {
                let r = ctx.block_parent_region(block);
                let idx = r
                    .and_then(|r| ctx.region_blocks(r).iter().position(|&b| b == block))
                    .unwrap_or(0);
                let loc = ctx
                    .block_parent_op(block)
                    .map_or_else(|| ctx.unknown_loc(), |p| ctx.op_loc(p));
                let rel = match relation(r) {
                    "the same region" => "in the same region",
                    "a parent region" => "in a parent region",
                    "a child region" => "in a child region",
                    _ => "neither in a parent nor in a child region",
                };
                err.with_note(
                    loc,
                    format!("operand defined as a block argument (block #{idx} {rel})"),
                )
            }
        }
    }

    fn defined_inside(&self, v: Value, op: Op) -> bool {
        let ctx = self.ctx;
        match ctx.value_def(v) {
            ValueDef::OpResult { op: d, .. } => d != op && ctx.is_ancestor(op, d),
            ValueDef::BlockArg { block, .. } => ctx
                .block_parent_op(block)
                .is_some_and(|p| ctx.is_ancestor(op, p)),
        }
    }

    fn region_is_ancestor(&self, maybe: Option<Region>, region: Region) -> bool {
        let Some(anc) = maybe else { return false };
        let ctx = self.ctx;
        let mut cur = Some(region);
        while let Some(r) = cur {
            if r == anc {
                return true;
            }
            cur = ctx
                .region_parent_op(r)
                .and_then(|o| ctx.op_parent_block(o))
                .and_then(|b| ctx.block_parent_region(b));
        }
        false
    }

    fn position(&mut self, op: Op) -> u32 {
        if let Some(&p) = self.order.get(&op) {
            return p;
        }
        let ctx = self.ctx;
        if let Some(b) = ctx.op_parent_block(op) {
            for (i, o) in ctx.block_ops_iter(b).enumerate() {
                self.order.insert(o, i as u32);
            }
        }
        self.order.get(&op).copied().unwrap_or(0)
    }

    fn dominates_use(
        &mut self,
        dom: &Dominance,
        v: Value,
        def_block: Block,
        user: Op,
        nested: Op,
    ) -> bool {
        let ctx = self.ctx;
        let use_block = ctx
            .op_parent_block(user)
            .expect("a user in a region sits in a block");
        if def_block == use_block {
            return match ctx.value_def(v) {
                ValueDef::BlockArg { .. } => true,
                ValueDef::OpResult { op: d, .. } => {
                    if d == user {
                        // An op may use its own results only from inside its regions.
                        return nested != user;
                    }
                    self.position(d) < self.position(user)
                }
            };
        }
        dom.dominates(def_block, use_block)
    }

    fn verify_symbol_table(&mut self, op: Op) {
        let ctx = self.ctx;
        let mut seen: FxHashMap<&str, Op> = FxHashMap::default();
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for inner in ctx.block_ops_iter(b) {
                    if let Some(name) = crate::symbol::symbol_name(ctx, inner) {
                        if let Some(&prev) = seen.get(name) {
                            self.push(
                                ctx.op_error(
                                    inner,
                                    format!("redefinition of symbol named '{name}'"),
                                )
                                .with_note(ctx.op_loc(prev), "see existing symbol definition here"),
                            );
                        } else {
                            seen.insert(name, inner);
                        }
                    }
                }
            }
        }
    }
}

/// Upstream gives an op with `SameOperandsAndResultType` an `InferTypeOpInterface` that infers
/// each result type as the first operand's, and checks it after the traits: while the trait
/// accepts compatible shapes (`tensor<?xi8>` and `tensor<4xi8>`), the results must have exactly
/// the first operand's type. Upstream reports two errors; the second rides along as a note
/// of error severity, so that it prints and is checked as upstream's.
fn verify_inferred_result_types(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(&first) = ctx.operands(op).first() else {
        return Ok(());
    };
    let inferred = ctx.value_type(first);
    let results: Vec<_> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
    if results.iter().all(|&t| t == inferred) {
        return Ok(());
    }
    let list = |types: &[crate::Type]| {
        types
            .iter()
            .map(|&t| format!("'{}'", type_to_string(ctx, t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut d = ctx.op_error(
        op,
        format!(
            "inferred type(s) {} are incompatible with return type(s) of operation {}",
            list(&vec![inferred; results.len()]),
            list(&results)
        ),
    );
    d.notes
        .push(ctx.op_error(op, "failed to infer returned types"));
    Err(d)
}

/// Block dominance within one region (Cooper, Harvey and Kennedy's iterative algorithm).
pub struct Dominance {
    blocks: Vec<Block>,
    index: FxHashMap<Block, usize>,
    /// Immediate dominator by block index in reverse post-order; `usize::MAX` = unreachable.
    idom: Vec<usize>,
    rpo_number: Vec<usize>,
}

impl Dominance {
    /// Computes dominance for the blocks of `region`, following the successors of each
    /// block's last op.
    pub fn compute(ctx: &Context, region: Region) -> Dominance {
        let blocks = ctx.region_blocks(region);
        let index: FxHashMap<Block, usize> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let n = blocks.len();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|&b| {
                ctx.block_last_op(b)
                    .map(|t| {
                        ctx.successors(t)
                            .iter()
                            .filter_map(|s| index.get(s).copied())
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        // Reverse post-order from the entry block.
        let mut order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        if n > 0 {
            let mut stack = vec![(0usize, 0usize)];
            visited[0] = true;
            while let Some(&mut (b, ref mut i)) = stack.last_mut() {
                if *i < succs[b].len() {
                    let s = succs[b][*i];
                    *i += 1;
                    if !visited[s] {
                        visited[s] = true;
                        stack.push((s, 0));
                    }
                } else {
                    order.push(b);
                    stack.pop();
                }
            }
        }
        order.reverse();
        let mut rpo_number = vec![usize::MAX; n];
        for (i, &b) in order.iter().enumerate() {
            rpo_number[b] = i;
        }
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        let mut idom = vec![usize::MAX; n];
        if n > 0 {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().skip(1) {
                let mut new_idom = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new_idom = if new_idom == usize::MAX {
                        p
                    } else {
                        Self::intersect(&idom, &rpo_number, p, new_idom)
                    };
                }
                if new_idom != usize::MAX && idom[b] != new_idom {
                    idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        Dominance {
            blocks: blocks.to_vec(),
            index,
            idom,
            rpo_number,
        }
    }

    fn intersect(idom: &[usize], rpo: &[usize], mut a: usize, mut b: usize) -> usize {
        while a != b {
            while rpo[a] > rpo[b] {
                a = idom[a];
            }
            while rpo[b] > rpo[a] {
                b = idom[b];
            }
        }
        a
    }

    /// The immediate dominator of `block`: `None` for the entry block, for unreachable blocks
    /// and for blocks of another region.
    pub fn immediate_dominator(&self, block: Block) -> Option<Block> {
        let &i = self.index.get(&block)?;
        let d = self.idom[i];
        (d != usize::MAX && d != i).then(|| self.blocks[d])
    }

    /// Whether block `a` dominates block `b`. Unreachable blocks are dominated by everything.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        let (Some(&ia), Some(&ib)) = (self.index.get(&a), self.index.get(&b)) else {
            return false;
        };
        if self.rpo_number[ib] == usize::MAX {
            return true;
        }
        if self.rpo_number[ia] == usize::MAX {
            return false;
        }
        let mut cur = ib;
        loop {
            if cur == ia {
                return true;
            }
            let next = self.idom[cur];
            if next == cur || next == usize::MAX {
                return false;
            }
            cur = next;
        }
    }
}

/// `op` in generic form on one line, as MLIR shows an op inside a message.
fn op_one_line(ctx: &Context, op: Op) -> String {
    let opts = crate::printer::PrintOptions {
        generic: true,
        ..Default::default()
    };
    let text = crate::printer::print_op(ctx, op, &opts);
    let mut out = String::new();
    for line in text.lines() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(line.trim());
    }
    out
}
