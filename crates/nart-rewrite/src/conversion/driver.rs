//! The conversion driver: [`apply_partial_conversion`] and [`apply_full_conversion`] (MLIR's
//! `applyPartialConversion` and `applyFullConversion`); the algorithm is described in the
//! documentation of [`crate::conversion`].

use indexmap::IndexMap;
use rustc_hash::FxHashSet;

use nart_ir::{Context, Diagnostic, Op, PatternRewriter, WalkOrder};

use super::pattern::ConversionPatternSet;
use super::rewriter::{is_live, CastKind, ConversionRewriter, ConversionState};
use super::target::{ConversionTarget, Legality, LegalityCx};
use super::type_converter::TypeConverter;

/// Which ops a conversion must legalize.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum ConversionMode {
    /// Only the ops the target marks illegal; the others are converted when a pattern can, and
    /// left alone otherwise.
    #[default]
    Partial,
    /// Every op: each must end legal.
    Full,
}

/// Configuration of [`apply_conversion`].
#[derive(Clone, Debug)]
pub struct ConversionConfig {
    /// Partial or full conversion.
    pub mode: ConversionMode,
    /// How deep legalizations may nest: a pattern's new ops are legalized one level deeper
    /// than the op it rewrote (default 16).
    pub max_depth: usize,
}

impl Default for ConversionConfig {
    fn default() -> Self {
        ConversionConfig {
            mode: ConversionMode::Partial,
            max_depth: 16,
        }
    }
}

/// What a successful conversion did.
#[derive(Clone, Debug, Default)]
pub struct ConversionResult {
    /// Successful applications per pattern name, in first-application order.
    pub pattern_applications: IndexMap<&'static str, usize>,
    /// Casts the conversion left in the IR because a user still needs an old type or a legal
    /// op still produces one (unrealized casts, or what the type converter built for them).
    pub num_materializations: usize,
    /// Ops a partial conversion left not legal (they were not marked illegal), in IR order.
    pub unlegalized: Vec<Op>,
}

impl ConversionResult {
    /// Total pattern applications.
    pub fn num_pattern_applications(&self) -> usize {
        self.pattern_applications.values().sum()
    }
}

/// Why a conversion failed; the IR is as it was before it.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("dialect conversion failed: {} operation(s) could not be legalized", .diagnostics.len())]
pub struct ConversionError {
    /// One error per op that failed to legalize, at its location and in IR order, with notes
    /// saying which patterns were tried and why each did not do.
    pub diagnostics: Vec<Diagnostic>,
}

/// Converts the ops nested under `root` (not `root` itself) so that every op the target marks
/// illegal is rewritten by `patterns`; other ops are converted when a pattern can, and left
/// alone otherwise. On failure nothing changes.
pub fn apply_partial_conversion(
    ctx: &mut Context,
    root: Op,
    target: &ConversionTarget,
    patterns: &ConversionPatternSet,
    converter: Option<&TypeConverter>,
) -> Result<ConversionResult, ConversionError> {
    let config = ConversionConfig {
        mode: ConversionMode::Partial,
        ..ConversionConfig::default()
    };
    apply_conversion(ctx, root, target, patterns, converter, &config)
}

/// Converts the ops nested under `root` (not `root` itself) so that every one ends legal for
/// the target. On failure nothing changes.
pub fn apply_full_conversion(
    ctx: &mut Context,
    root: Op,
    target: &ConversionTarget,
    patterns: &ConversionPatternSet,
    converter: Option<&TypeConverter>,
) -> Result<ConversionResult, ConversionError> {
    let config = ConversionConfig {
        mode: ConversionMode::Full,
        ..ConversionConfig::default()
    };
    apply_conversion(ctx, root, target, patterns, converter, &config)
}

/// Runs a conversion as `config` says; see [`apply_partial_conversion`] and
/// [`apply_full_conversion`].
pub fn apply_conversion(
    ctx: &mut Context,
    root: Op,
    target: &ConversionTarget,
    patterns: &ConversionPatternSet,
    converter: Option<&TypeConverter>,
    config: &ConversionConfig,
) -> Result<ConversionResult, ConversionError> {
    let mut driver = Driver {
        rw: PatternRewriter::new(ctx).with_journal(),
        state: ConversionState::new(root),
        target,
        patterns,
        converter,
        config,
        original: FxHashSet::default(),
        active: Vec::new(),
        applied: Vec::new(),
    };
    driver.run()
}

struct Driver<'a, 'c> {
    rw: PatternRewriter<'c>,
    state: ConversionState,
    target: &'a ConversionTarget,
    patterns: &'a ConversionPatternSet,
    converter: Option<&'a TypeConverter>,
    config: &'a ConversionConfig,
    /// The ops under the root when the conversion started: the walk legalizes them, so the
    /// legalization of a pattern's results leaves them alone even when the pattern moved them.
    original: FxHashSet<Op>,
    /// The patterns being applied, innermost last: a pattern is not applied to what it created.
    active: Vec<usize>,
    /// The pattern applications that stand, in order; cut back with every rollback.
    applied: Vec<&'static str>,
}

impl Driver<'_, '_> {
    fn run(&mut self) -> Result<ConversionResult, ConversionError> {
        let root = self.state.root;
        let start = self.rw.checkpoint();
        let mut ops = self.rw.collect_ops(root, WalkOrder::PreOrder);
        ops.retain(|&o| o != root);
        self.original = ops.iter().copied().collect();
        let mut failures = Vec::new();
        let mut failed = FxHashSet::default();
        for op in ops {
            if !self.is_live(op) {
                continue;
            }
            if let Err(notes) = self.legalize(op, 0) {
                failures.push(self.failure(op, &notes));
                failed.insert(op);
            }
        }
        // What the walk did not see, or saw legal and a later pattern changed, must be legal
        // too.
        let mut unlegalized = Vec::new();
        for op in self.rw.collect_ops(root, WalkOrder::PreOrder) {
            if op == root || failed.contains(&op) || self.state.cast_kind(op).is_some() {
                continue;
            }
            let legality = self.legality(op);
            if self.required(legality) {
                let note = "it is not legal when the conversion ends".to_string();
                failures.push(self.failure(op, &[note]));
            } else if legality != Legality::Legal {
                unlegalized.push(op);
            }
        }
        if !failures.is_empty() {
            self.rw.rollback(start);
            return Err(ConversionError {
                diagnostics: failures,
            });
        }
        let num_materializations = self.finalize_casts();
        self.rw.commit();
        let mut pattern_applications = IndexMap::new();
        for name in &self.applied {
            *pattern_applications.entry(*name).or_insert(0) += 1;
        }
        Ok(ConversionResult {
            pattern_applications,
            num_materializations,
            unlegalized,
        })
    }

    fn is_live(&self, op: Op) -> bool {
        is_live(&self.rw, self.state.root, op)
    }

    fn legality(&mut self, op: Op) -> Legality {
        let mut cx = LegalityCx::new(&mut self.rw, self.converter);
        self.target.legality(&mut cx, op)
    }

    /// Whether an op of this legality must be converted.
    fn required(&self, legality: Legality) -> bool {
        match self.config.mode {
            ConversionMode::Full => legality != Legality::Legal,
            ConversionMode::Partial => legality == Legality::Illegal,
        }
    }

    /// The error for an op that failed to legalize, with `notes` at its location.
    fn failure(&mut self, op: Op, notes: &[String]) -> Diagnostic {
        let name = self.rw.op_name_str(op).to_string();
        let message = if self.legality(op) == Legality::Illegal {
            format!("failed to legalize operation '{name}' that was explicitly marked illegal")
        } else {
            format!("failed to legalize operation '{name}'")
        };
        let loc = self.rw.op_loc(op);
        notes
            .iter()
            .fold(Diagnostic::error(loc, message), |d, n| d.with_note(loc, n))
    }

    /// Makes `op` legal, or leaves it when it need not be; on failure, says why for each
    /// pattern tried.
    fn legalize(&mut self, op: Op, depth: usize) -> Result<(), Vec<String>> {
        if self.state.cast_kind(op).is_some() {
            return Ok(());
        }
        let legality = self.legality(op);
        if legality == Legality::Legal {
            return Ok(());
        }
        match self.apply_patterns(op, depth) {
            Ok(()) => Ok(()),
            Err(notes) if self.required(legality) => Err(notes),
            Err(_) => Ok(()),
        }
    }

    /// Tries the patterns for `op` by benefit until one applies and what it made is legal.
    fn apply_patterns(&mut self, op: Op, depth: usize) -> Result<(), Vec<String>> {
        if depth > self.config.max_depth {
            return Err(vec![format!(
                "legalizations nest deeper than {} levels: the patterns keep creating ops that \
                 need converting",
                self.config.max_depth
            )]);
        }
        let name = self.rw.op_name_str(op).to_string();
        let indices = self.patterns.indices_for(&name);
        if indices.is_empty() {
            return Err(vec![format!("no conversion pattern matches '{name}'")]);
        }
        let mut notes = Vec::new();
        for i in indices {
            let pat = self.patterns.get(i);
            if self.active.contains(&i) {
                notes.push(format!(
                    "pattern '{}' was not tried: it is converting the op that created this one",
                    pat.name()
                ));
                continue;
            }
            let cp = self.rw.checkpoint();
            let n_applied = self.applied.len();
            // Start a clean record, so that what the pattern creates is all that is reported.
            self.rw.take_changes();
            self.rw.take_match_failure();
            let outcome = {
                let mut crw =
                    ConversionRewriter::new(&mut self.rw, &mut self.state, self.converter);
                match crw.build_adaptor(op) {
                    Err(why) => Err(why),
                    Ok(adaptor) => {
                        crw.set_insertion_point_before(op);
                        if pat.match_and_rewrite(&mut crw, op, &adaptor) {
                            Ok(())
                        } else {
                            Err(crw
                                .take_match_failure()
                                .unwrap_or_else(|| "it does not match".to_string()))
                        }
                    }
                }
            };
            if let Err(why) = outcome {
                self.rw.rollback(cp);
                notes.push(format!("pattern '{}' does not apply: {why}", pat.name()));
                continue;
            }
            self.active.push(i);
            let legal = self.legalize_results(op, depth);
            self.active.pop();
            match legal {
                Ok(()) => {
                    self.applied.push(pat.name());
                    return Ok(());
                }
                Err(why) => {
                    self.rw.rollback(cp);
                    self.applied.truncate(n_applied);
                    notes.push(format!("pattern '{}' applied, but {why}", pat.name()));
                }
            }
        }
        Err(notes)
    }

    /// Legalizes what the pattern that rewrote `op` made: the ops it created (and the ops
    /// nested in them that the walk does not know, as in a clone), then `op` itself when it
    /// was updated in place rather than replaced.
    fn legalize_results(&mut self, op: Op, depth: usize) -> Result<(), String> {
        let (created, _, _) = self.rw.take_changes();
        let mut seen = FxHashSet::default();
        let mut todo = Vec::new();
        for c in created {
            if !self.is_live(c) || self.state.cast_kind(c).is_some() {
                continue;
            }
            for n in self.rw.collect_ops(c, WalkOrder::PreOrder) {
                if !self.original.contains(&n) && seen.insert(n) {
                    todo.push(n);
                }
            }
        }
        for n in todo {
            if !self.is_live(n) {
                continue;
            }
            if let Err(notes) = self.legalize(n, depth + 1) {
                let name = self.rw.op_name_str(n);
                return Err(format!(
                    "the '{name}' it created failed to legalize: {}",
                    notes.join("; ")
                ));
            }
        }
        if self.is_live(op) {
            if let Err(notes) = self.legalize(op, depth + 1) {
                return Err(format!(
                    "the op it updated in place is still not legal: {}",
                    notes.join("; ")
                ));
            }
        }
        Ok(())
    }

    /// Removes the casts nothing needs and the pairs that cast there and back, then builds the
    /// remaining ones with the type converter's materializations where it has some. Returns the
    /// number of casts left.
    fn finalize_casts(&mut self) -> usize {
        let casts = self.state.casts.clone();
        loop {
            let mut changed = false;
            for &c in casts.iter().rev() {
                if self.is_live(c) && self.rw.op_results_unused(c) {
                    self.rw.erase_op(c);
                    changed = true;
                }
            }
            for &c in &casts {
                if self.is_live(c) && self.fold_round_trip(c) {
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let left: Vec<Op> = casts.into_iter().filter(|&c| self.is_live(c)).collect();
        if let Some(conv) = self.converter {
            for &c in &left {
                self.materialize(conv, c);
            }
        }
        left.len()
    }

    /// Folds `c = cast(a's results)` when `a` is a cast of values of `c`'s result types: the
    /// users of `c` use `a`'s inputs. Returns whether it folded.
    fn fold_round_trip(&mut self, c: Op) -> bool {
        let ins = self.rw.operands(c).to_vec();
        let Some(a) = ins.first().and_then(|&v| self.rw.defining_op(v)) else {
            return false;
        };
        if self.state.cast_kind(a).is_none() || !self.is_live(a) || self.rw.results(a) != ins {
            return false;
        }
        let a_ins = self.rw.operands(a).to_vec();
        let outs = self.rw.results(c).to_vec();
        let same_types = a_ins.len() == outs.len()
            && a_ins
                .iter()
                .zip(&outs)
                .all(|(&x, &y)| self.rw.value_type(x) == self.rw.value_type(y));
        if !same_types {
            return false;
        }
        for (r, v) in outs.into_iter().zip(a_ins) {
            self.rw.replace_all_uses_with(r, v);
        }
        self.rw.erase_op(c);
        true
    }

    /// Replaces the cast `c` with what the type converter's materializations build, if one
    /// does.
    fn materialize(&mut self, conv: &TypeConverter, c: Op) {
        let inputs = self.rw.operands(c).to_vec();
        let outs = self.rw.results(c).to_vec();
        let types: Vec<_> = outs.iter().map(|&v| self.rw.value_type(v)).collect();
        let loc = self.rw.op_loc(c);
        self.rw.set_insertion_point_before(c);
        let built = match self.state.cast_kind(c) {
            Some(CastKind::Source) if types.len() == 1 => conv
                .materialize_source(&mut self.rw, &inputs, types[0], loc)
                .map(|v| vec![v]),
            Some(CastKind::Target) => conv.materialize_target(&mut self.rw, &inputs, &types, loc),
            _ => None,
        };
        if let Some(vals) = built {
            for (r, v) in outs.into_iter().zip(vals) {
                self.rw.replace_all_uses_with(r, v);
            }
            self.rw.erase_op(c);
        }
    }
}
