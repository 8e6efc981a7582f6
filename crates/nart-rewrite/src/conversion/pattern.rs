//! [`ConversionPattern`]: a rewrite of one op that sees its operands already converted, in an
//! [`OpAdaptor`], and [`ConversionPatternSet`], the patterns of a conversion by root and
//! benefit.

use rustc_hash::FxHashMap;

use nart_ir::{Op, Value};

use super::rewriter::ConversionRewriter;

/// A rewrite used by a dialect conversion (MLIR's `ConversionPattern`).
///
/// The driver calls [`match_and_rewrite`](Self::match_and_rewrite) with the insertion point
/// before `op` and an adaptor holding `op`'s operands as the conversion sees them: each remapped
/// to the values that replaced it and, when there is a type converter, cast to the converted
/// types. A pattern that applies replaces or erases `op` (or updates it in place so that it
/// becomes legal) and returns `true`; one that does not returns `false`, ideally through
/// `rw.match_failure("why")`. Whatever a pattern changed before returning `false` is rolled
/// back, so a pattern may give up halfway.
pub trait ConversionPattern: Sync {
    /// Name, after the op it converts (`AddOpLowering`).
    fn name(&self) -> &'static str;
    /// The op name this pattern matches, or `None` for any op.
    fn root(&self) -> Option<&'static str>;
    /// Higher benefits are tried first.
    fn benefit(&self) -> u16 {
        1
    }
    /// Matches `op` and rewrites it through `rw`.
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        adaptor: &OpAdaptor,
    ) -> bool;
}

/// The operands of the op being converted, as the conversion sees them: for each original
/// operand, the values that stand for it (one for a 1:1 conversion, several for 1:N, none when
/// its type converts to nothing).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct OpAdaptor {
    operands: Vec<Vec<Value>>,
}

impl OpAdaptor {
    pub(crate) fn new(operands: Vec<Vec<Value>>) -> OpAdaptor {
        OpAdaptor { operands }
    }

    /// Number of original operands.
    pub fn len(&self) -> usize {
        self.operands.len()
    }

    /// Whether the op has no operands.
    pub fn is_empty(&self) -> bool {
        self.operands.is_empty()
    }

    /// The one value standing for operand `index`.
    ///
    /// A pattern that accepts 1:N conversions uses [`operand_values`](Self::operand_values);
    /// calling this on an operand converted to other than one value is a bug in the pattern.
    pub fn operand(&self, index: usize) -> Value {
        match self.operands[index].as_slice() {
            [v] => *v,
            vals => panic!(
                "invariant: operand #{index} was converted 1:1, but it stands for {} values",
                vals.len()
            ),
        }
    }

    /// The values standing for operand `index`.
    pub fn operand_values(&self, index: usize) -> &[Value] {
        &self.operands[index]
    }

    /// The one value standing for each operand, or `None` when one was not converted 1:1.
    pub fn single_operands(&self) -> Option<Vec<Value>> {
        self.operands
            .iter()
            .map(|vals| match vals.as_slice() {
                [v] => Some(*v),
                _ => None,
            })
            .collect()
    }

    /// Every value, operand after operand.
    pub fn flat_operands(&self) -> Vec<Value> {
        self.operands.iter().flatten().copied().collect()
    }
}

/// The patterns of a conversion, indexed by root op name; for an op, the patterns rooted on its
/// name and the op-agnostic ones are tried by decreasing benefit, then in insertion order.
#[derive(Default)]
pub struct ConversionPatternSet {
    patterns: Vec<Box<dyn ConversionPattern>>,
    by_root: FxHashMap<&'static str, Vec<usize>>,
    any_root: Vec<usize>,
}

impl std::fmt::Debug for ConversionPatternSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.patterns.iter().map(|p| p.name()))
            .finish()
    }
}

impl ConversionPatternSet {
    /// An empty set.
    pub fn new() -> ConversionPatternSet {
        ConversionPatternSet::default()
    }

    /// Adds a pattern.
    pub fn add(&mut self, pattern: impl ConversionPattern + 'static) -> &mut Self {
        self.add_boxed(Box::new(pattern))
    }

    /// Adds a boxed pattern.
    pub fn add_boxed(&mut self, pattern: Box<dyn ConversionPattern>) -> &mut Self {
        let i = self.patterns.len();
        let list = match pattern.root() {
            Some(name) => self.by_root.entry(name).or_default(),
            None => &mut self.any_root,
        };
        list.push(i);
        self.patterns.push(pattern);
        self
    }

    /// Number of patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether the set holds no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// Pattern `index`.
    pub(crate) fn get(&self, index: usize) -> &dyn ConversionPattern {
        self.patterns[index].as_ref()
    }

    /// The indices of the patterns to try on an op named `name`, in order.
    pub(crate) fn indices_for(&self, name: &str) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .by_root
            .get(name)
            .into_iter()
            .flatten()
            .chain(&self.any_root)
            .copied()
            .collect();
        out.sort_by_key(|&i| (std::cmp::Reverse(self.patterns[i].benefit()), i));
        out
    }
}
