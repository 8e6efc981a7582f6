//! [`ConversionTarget`]: which ops are legal after a conversion (MLIR's `ConversionTarget`), and
//! [`LegalityCx`], what a dynamic legality predicate sees.

use rustc_hash::FxHashMap;

use nart_ir::{Context, Op, PatternRewriter, Region, Type, TypeData, Uniquer};

use super::type_converter::TypeConverter;

/// A dynamic legality predicate: whether an op is legal, given the IR and the type converter.
pub type LegalityFn = Box<dyn Fn(&mut LegalityCx<'_, '_>, Op) -> bool + Send + Sync>;

/// What the target says about one op.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Legality {
    /// The op may stay.
    Legal,
    /// The op must be converted, in a partial conversion as in a full one.
    Illegal,
    /// The target says nothing about the op: a partial conversion may leave it, a full
    /// conversion must convert it.
    Unknown,
}

/// How the target treats an op or a dialect.
enum Rule {
    Legal,
    Illegal,
    Dynamic(LegalityFn),
}

/// Which ops may remain after a conversion: by op name, by dialect, or by a predicate.
///
/// A rule for an op name wins over a rule for its dialect, which wins over the rule for
/// unknown ops. A dynamically legal op is legal when its predicate holds and illegal otherwise;
/// the predicate for unknown ops makes them legal when it holds and leaves them unknown
/// otherwise.
///
/// ```
/// use nart_rewrite::conversion::ConversionTarget;
///
/// let mut target = ConversionTarget::new();
/// target
///     .add_legal_dialect("low")
///     .add_illegal_dialect("toy")
///     .add_legal_op("toy.debug")
///     .add_dynamically_legal_op("toy.call", |cx, op| cx.are_op_types_legal(op));
/// ```
#[derive(Default)]
pub struct ConversionTarget {
    ops: FxHashMap<String, Rule>,
    dialects: FxHashMap<String, Rule>,
    unknown: Option<LegalityFn>,
}

impl std::fmt::Debug for ConversionTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut ops: Vec<&str> = self.ops.keys().map(String::as_str).collect();
        ops.sort_unstable();
        let mut dialects: Vec<&str> = self.dialects.keys().map(String::as_str).collect();
        dialects.sort_unstable();
        f.debug_struct("ConversionTarget")
            .field("ops", &ops)
            .field("dialects", &dialects)
            .field("unknown_dynamic", &self.unknown.is_some())
            .finish()
    }
}

impl ConversionTarget {
    /// A target that says nothing about any op.
    pub fn new() -> ConversionTarget {
        ConversionTarget::default()
    }

    /// Ops named `name` (`low.add`) are legal.
    pub fn add_legal_op(&mut self, name: &str) -> &mut Self {
        self.ops.insert(name.to_string(), Rule::Legal);
        self
    }

    /// Ops named `name` must be converted.
    pub fn add_illegal_op(&mut self, name: &str) -> &mut Self {
        self.ops.insert(name.to_string(), Rule::Illegal);
        self
    }

    /// Ops named `name` are legal when `pred` holds, illegal otherwise.
    pub fn add_dynamically_legal_op(
        &mut self,
        name: &str,
        pred: impl Fn(&mut LegalityCx<'_, '_>, Op) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.ops
            .insert(name.to_string(), Rule::Dynamic(Box::new(pred)));
        self
    }

    /// Every op of dialect `name` (`low`) is legal, unless a rule for its name says otherwise.
    pub fn add_legal_dialect(&mut self, name: &str) -> &mut Self {
        self.dialects.insert(name.to_string(), Rule::Legal);
        self
    }

    /// Every op of dialect `name` must be converted, unless a rule for its name says otherwise.
    pub fn add_illegal_dialect(&mut self, name: &str) -> &mut Self {
        self.dialects.insert(name.to_string(), Rule::Illegal);
        self
    }

    /// The ops of dialect `name` are legal when `pred` holds, illegal otherwise.
    pub fn add_dynamically_legal_dialect(
        &mut self,
        name: &str,
        pred: impl Fn(&mut LegalityCx<'_, '_>, Op) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.dialects
            .insert(name.to_string(), Rule::Dynamic(Box::new(pred)));
        self
    }

    /// Ops no rule names are legal (so a full conversion leaves them alone).
    pub fn mark_unknown_ops_legal(&mut self) -> &mut Self {
        self.unknown = Some(Box::new(|_, _| true));
        self
    }

    /// Ops no rule names are legal when `pred` holds, and stay unknown otherwise.
    pub fn mark_unknown_ops_dynamically_legal(
        &mut self,
        pred: impl Fn(&mut LegalityCx<'_, '_>, Op) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        self.unknown = Some(Box::new(pred));
        self
    }

    /// What the target says about `op`.
    pub fn legality(&self, cx: &mut LegalityCx<'_, '_>, op: Op) -> Legality {
        let name = cx.op_name_str(op);
        let dialect = name.split_once('.').map_or(name, |(d, _)| d);
        let rule = self.ops.get(name).or_else(|| self.dialects.get(dialect));
        match rule {
            Some(Rule::Legal) => Legality::Legal,
            Some(Rule::Illegal) => Legality::Illegal,
            Some(Rule::Dynamic(pred)) => {
                if pred(cx, op) {
                    Legality::Legal
                } else {
                    Legality::Illegal
                }
            }
            None => match &self.unknown {
                Some(pred) if pred(cx, op) => Legality::Legal,
                _ => Legality::Unknown,
            },
        }
    }
}

/// What a legality predicate sees: the IR to read (it dereferences to the [`Context`]), the
/// uniquer to build types to compare with, and the type converter of the conversion, if any.
pub struct LegalityCx<'r, 'c> {
    rw: &'r mut PatternRewriter<'c>,
    converter: Option<&'r TypeConverter>,
}

impl std::ops::Deref for LegalityCx<'_, '_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.rw
    }
}

impl<'r, 'c> LegalityCx<'r, 'c> {
    /// A view of `rw` for legality queries with `converter`.
    pub fn new(rw: &'r mut PatternRewriter<'c>, converter: Option<&'r TypeConverter>) -> Self {
        LegalityCx { rw, converter }
    }

    /// The uniquer, to build types and attributes.
    pub fn uniq(&mut self) -> &mut Uniquer {
        self.rw.uniq()
    }

    /// The type converter of the conversion, if it has one.
    pub fn type_converter(&self) -> Option<&'r TypeConverter> {
        self.converter
    }

    /// Whether `ty` is legal for the type converter (true without one).
    pub fn is_type_legal(&mut self, ty: Type) -> bool {
        match self.converter {
            Some(conv) => conv.is_legal(self.rw.uniq(), ty),
            None => true,
        }
    }

    /// Whether every operand and result type of `op` is legal (MLIR's
    /// `TypeConverter::isLegal(Operation *)`).
    pub fn are_op_types_legal(&mut self, op: Op) -> bool {
        let tys: Vec<Type> = self
            .operands(op)
            .iter()
            .chain(self.results(op))
            .map(|&v| self.value_type(v))
            .collect();
        tys.into_iter().all(|t| self.is_type_legal(t))
    }

    /// Whether every argument type of every block of `region` is legal.
    pub fn is_region_legal(&mut self, region: Region) -> bool {
        let tys: Vec<Type> = self
            .region_blocks(region)
            .iter()
            .flat_map(|&b| self.block_args(b))
            .map(|&v| self.value_type(v))
            .collect();
        tys.into_iter().all(|t| self.is_type_legal(t))
    }

    /// Whether the inputs and results of the function type `fn_type` are legal (false for a
    /// type that is not a function type).
    pub fn is_signature_legal(&mut self, fn_type: Type) -> bool {
        let TypeData::Function { inputs, results } = self.type_data(fn_type) else {
            return false;
        };
        let tys: Vec<Type> = inputs.iter().chain(results).copied().collect();
        tys.into_iter().all(|t| self.is_type_legal(t))
    }
}
