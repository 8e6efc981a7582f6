//! [`FrozenPatternSet`]: an immutable set of rewrite patterns, indexed by the op name each one
//! matches and ordered by benefit, as MLIR's `FrozenRewritePatternSet`.

use rustc_hash::FxHashMap;

use nart_ir::{Context, Op, RewritePattern};

/// A pattern held by the set: declared statically (as op definitions list them) or owned.
enum Entry {
    Static(&'static dyn RewritePattern),
    Owned(Box<dyn RewritePattern>),
}

impl Entry {
    fn get(&self) -> &dyn RewritePattern {
        match self {
            Entry::Static(p) => *p,
            Entry::Owned(p) => p.as_ref(),
        }
    }
}

/// Patterns indexed by root op name; within a name, higher benefit first, then insertion order.
#[derive(Default)]
pub struct FrozenPatternSet {
    patterns: Vec<Entry>,
    /// Op name to the indices of the patterns rooted on it, ordered as they must be tried.
    by_root: FxHashMap<&'static str, Vec<usize>>,
    /// Patterns that match any op, ordered by benefit.
    any_root: Vec<usize>,
}

impl std::fmt::Debug for FrozenPatternSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.patterns.iter().map(|p| p.get().name()))
            .finish()
    }
}

impl FrozenPatternSet {
    /// A set of `statics` (e.g. every op's `canonicalize` list) and `owned` patterns.
    pub fn new(
        statics: impl IntoIterator<Item = &'static dyn RewritePattern>,
        owned: Vec<Box<dyn RewritePattern>>,
    ) -> FrozenPatternSet {
        Self::filtered(statics, owned, |_| true)
    }

    /// Like [`new`](Self::new), keeping only the patterns for which `keep(name)` holds
    /// (canonicalize's `enable-patterns` and `disable-patterns`).
    pub fn filtered(
        statics: impl IntoIterator<Item = &'static dyn RewritePattern>,
        owned: Vec<Box<dyn RewritePattern>>,
        keep: impl Fn(&str) -> bool,
    ) -> FrozenPatternSet {
        let mut patterns: Vec<Entry> = statics.into_iter().map(Entry::Static).collect();
        patterns.extend(owned.into_iter().map(Entry::Owned));
        patterns.retain(|p| keep(p.get().name()));
        let mut by_root: FxHashMap<&'static str, Vec<usize>> = FxHashMap::default();
        let mut any_root = Vec::new();
        for (i, p) in patterns.iter().enumerate() {
            match p.get().root() {
                Some(name) => by_root.entry(name).or_default().push(i),
                None => any_root.push(i),
            }
        }
        // Stable sorts keep insertion order among equal benefits, so runs are deterministic.
        let benefit = |i: &usize| std::cmp::Reverse(patterns[*i].get().benefit());
        for list in by_root.values_mut() {
            list.sort_by_key(benefit);
        }
        any_root.sort_by_key(benefit);
        FrozenPatternSet {
            patterns,
            by_root,
            any_root,
        }
    }

    /// Number of patterns.
    pub fn len(&self) -> usize {
        self.patterns.len()
    }

    /// Whether the set holds no pattern.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }

    /// The patterns to try on `op`, in order: the ones rooted on its name merged with the
    /// op-agnostic ones, by decreasing benefit.
    pub fn patterns_for(&self, ctx: &Context, op: Op) -> Vec<&dyn RewritePattern> {
        let rooted: &[usize] = self
            .by_root
            .get(ctx.op_name_str(op))
            .map_or(&[], |v| v.as_slice());
        let mut out = Vec::with_capacity(rooted.len() + self.any_root.len());
        let (mut i, mut j) = (0, 0);
        while i < rooted.len() || j < self.any_root.len() {
            let take_rooted = match (rooted.get(i), self.any_root.get(j)) {
                (Some(&a), Some(&b)) => {
                    self.patterns[a].get().benefit() >= self.patterns[b].get().benefit()
                }
                (Some(_), None) => true,
                _ => false,
            };
            if take_rooted {
                out.push(self.patterns[rooted[i]].get());
                i += 1;
            } else {
                out.push(self.patterns[self.any_root[j]].get());
                j += 1;
            }
        }
        out
    }

    /// Whether any pattern may match an op named `name`.
    pub fn has_patterns_for(&self, name: &str) -> bool {
        !self.any_root.is_empty() || self.by_root.contains_key(name)
    }
}
