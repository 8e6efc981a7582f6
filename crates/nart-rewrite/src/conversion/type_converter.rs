//! [`TypeConverter`]: how the types of a conversion change (1:1, 1:N, or removal), and how to
//! build the ops that cast between old and new types (MLIR's `TypeConverter`), with
//! [`SignatureConversion`] for block arguments and function signatures.

use nart_ir::{Location, PatternRewriter, Type, TypeData, Uniquer, Value};

/// A type conversion: `None` when the function does not handle the type (the next one is
/// tried); `Some(types)` with one type (1:1), several (1:N), or none (the value goes away).
pub type ConversionFn = Box<dyn Fn(&mut Uniquer, Type) -> Option<Vec<Type>> + Send + Sync>;

/// A materialization: builds ops at the rewriter's insertion point that turn `inputs` into
/// values of `types`, located at `loc`, and returns those values; `None` when it cannot (the next
/// one is tried, and whatever it created is rolled back).
pub type MaterializationFn = Box<
    dyn Fn(&mut PatternRewriter<'_>, &[Value], &[Type], Location) -> Option<Vec<Value>>
        + Send
        + Sync,
>;

/// The types of a conversion: a list of conversion functions and of materializations.
///
/// [`convert_type`](Self::convert_type) tries the conversion functions from the most recently
/// added to the first, and the first that answers `Some` wins (as MLIR's `addConversion`).
/// A type no function handles has no conversion; add an identity conversion first
/// ([`add_identity_conversion`](Self::add_identity_conversion)) so that the types a conversion
/// does not touch convert to themselves.
///
/// A type is *legal* when it converts to itself.
///
/// Materializations build the casts the conversion needs where old and new values meet: a
/// *source* materialization turns converted values back into one value of the original type (for
/// a user that was not converted), a *target* materialization turns a value of the original type
/// into the converted types (for an op being converted whose operand was not).
/// While the conversion runs, the driver uses `builtin.unrealized_conversion_cast` for both; the
/// casts still needed at the end are handed to these functions, and stay unrealized casts when no
/// function builds them (see the module documentation of [`crate::conversion`]).
///
/// ```
/// use nart_rewrite::conversion::TypeConverter;
///
/// let mut conv = TypeConverter::new();
/// conv.add_identity_conversion();
/// // `index` becomes `i64`.
/// conv.add_conversion(|uniq, ty| {
///     matches!(uniq.type_data(ty), nart_ir::TypeData::Index).then(|| vec![uniq.i64_type()])
/// });
/// let mut ctx = nart_ir::Context::new();
/// let index = ctx.index_type();
/// let i64 = ctx.i64_type();
/// assert_eq!(conv.convert_type(&mut ctx, index), Some(vec![i64]));
/// assert!(conv.is_legal(&mut ctx, i64));
/// assert!(!conv.is_legal(&mut ctx, index));
/// ```
#[derive(Default)]
pub struct TypeConverter {
    conversions: Vec<ConversionFn>,
    source_materializations: Vec<MaterializationFn>,
    target_materializations: Vec<MaterializationFn>,
}

impl std::fmt::Debug for TypeConverter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypeConverter")
            .field("conversions", &self.conversions.len())
            .field(
                "source_materializations",
                &self.source_materializations.len(),
            )
            .field(
                "target_materializations",
                &self.target_materializations.len(),
            )
            .finish()
    }
}

impl TypeConverter {
    /// A converter with no conversion: every type is unconvertible until one is added.
    pub fn new() -> TypeConverter {
        TypeConverter::default()
    }

    /// Adds a conversion function, tried before the ones added earlier.
    pub fn add_conversion(
        &mut self,
        f: impl Fn(&mut Uniquer, Type) -> Option<Vec<Type>> + Send + Sync + 'static,
    ) -> &mut Self {
        self.conversions.push(Box::new(f));
        self
    }

    /// Adds the conversion of every type to itself; add it first, so that it is tried last.
    pub fn add_identity_conversion(&mut self) -> &mut Self {
        self.add_conversion(|_, ty| Some(vec![ty]))
    }

    /// Adds a source materialization (converted values to one value of the original type),
    /// tried before the ones added earlier.
    pub fn add_source_materialization(
        &mut self,
        f: impl Fn(&mut PatternRewriter<'_>, &[Value], &[Type], Location) -> Option<Vec<Value>>
            + Send
            + Sync
            + 'static,
    ) -> &mut Self {
        self.source_materializations.push(Box::new(f));
        self
    }

    /// Adds a target materialization (a value of the original type to the converted types),
    /// tried before the ones added earlier.
    pub fn add_target_materialization(
        &mut self,
        f: impl Fn(&mut PatternRewriter<'_>, &[Value], &[Type], Location) -> Option<Vec<Value>>
            + Send
            + Sync
            + 'static,
    ) -> &mut Self {
        self.target_materializations.push(Box::new(f));
        self
    }

    /// The types `ty` converts to, or `None` when it has no conversion.
    pub fn convert_type(&self, uniq: &mut Uniquer, ty: Type) -> Option<Vec<Type>> {
        self.conversions.iter().rev().find_map(|f| f(uniq, ty))
    }

    /// The one type `ty` converts to, or `None` when it has no conversion or converts to
    /// several types or none.
    pub fn convert_single_type(&self, uniq: &mut Uniquer, ty: Type) -> Option<Type> {
        match self.convert_type(uniq, ty)?.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// The conversions of `types`, concatenated, or `None` when one has no conversion.
    pub fn convert_types(&self, uniq: &mut Uniquer, types: &[Type]) -> Option<Vec<Type>> {
        let mut out = Vec::with_capacity(types.len());
        for &ty in types {
            out.extend(self.convert_type(uniq, ty)?);
        }
        Some(out)
    }

    /// Whether `ty` converts to itself.
    pub fn is_legal(&self, uniq: &mut Uniquer, ty: Type) -> bool {
        self.convert_type(uniq, ty).as_deref() == Some(&[ty])
    }

    /// How the inputs of a block or function of `inputs` types convert, or `None` when one has
    /// no conversion.
    pub fn convert_signature(
        &self,
        uniq: &mut Uniquer,
        inputs: &[Type],
    ) -> Option<SignatureConversion> {
        let mut sig = SignatureConversion::new(inputs.len());
        for (i, &ty) in inputs.iter().enumerate() {
            sig.add_inputs(i, self.convert_type(uniq, ty)?);
        }
        Some(sig)
    }

    /// The function type `fn_type` with its inputs and results converted, or `None` when it is
    /// not a function type or one of its types has no conversion.
    pub fn convert_function_type(&self, uniq: &mut Uniquer, fn_type: Type) -> Option<Type> {
        let TypeData::Function { inputs, results } = uniq.type_data(fn_type).clone() else {
            return None;
        };
        let inputs = self.convert_types(uniq, &inputs)?;
        let results = self.convert_types(uniq, &results)?;
        Some(uniq.function_type(inputs, results))
    }

    /// Whether the converter has source materializations.
    pub fn has_source_materializations(&self) -> bool {
        !self.source_materializations.is_empty()
    }

    /// Whether the converter has target materializations.
    pub fn has_target_materializations(&self) -> bool {
        !self.target_materializations.is_empty()
    }

    /// Builds a source materialization of `inputs` to the one type `ty` at the insertion point,
    /// with the functions added by [`add_source_materialization`](Self::add_source_materialization);
    /// `None` (and nothing built) when none of them does.
    pub fn materialize_source(
        &self,
        rw: &mut PatternRewriter<'_>,
        inputs: &[Value],
        ty: Type,
        loc: Location,
    ) -> Option<Value> {
        let vals = materialize(&self.source_materializations, rw, inputs, &[ty], loc)?;
        Some(vals[0])
    }

    /// Builds a target materialization of `inputs` to `types` at the insertion point, with the
    /// functions added by [`add_target_materialization`](Self::add_target_materialization);
    /// `None` (and nothing built) when none of them does.
    pub fn materialize_target(
        &self,
        rw: &mut PatternRewriter<'_>,
        inputs: &[Value],
        types: &[Type],
        loc: Location,
    ) -> Option<Vec<Value>> {
        materialize(&self.target_materializations, rw, inputs, types, loc)
    }
}

/// Tries `fns` from the newest; a function that answers values of the wrong types counts as a
/// failure. What a failing function built is rolled back when the journal is on.
fn materialize(
    fns: &[MaterializationFn],
    rw: &mut PatternRewriter<'_>,
    inputs: &[Value],
    types: &[Type],
    loc: Location,
) -> Option<Vec<Value>> {
    for f in fns.iter().rev() {
        let cp = rw.has_journal().then(|| rw.checkpoint());
        if let Some(vals) = f(rw, inputs, types, loc) {
            if vals.len() == types.len()
                && vals.iter().zip(types).all(|(&v, &t)| rw.value_type(v) == t)
            {
                return Some(vals);
            }
        }
        if let Some(cp) = cp {
            rw.rollback(cp);
        }
    }
    None
}

/// How the inputs of a block or function convert: for each original input, the types that
/// replace it (MLIR's `TypeConverter::SignatureConversion`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SignatureConversion {
    inputs: Vec<Option<Vec<Type>>>,
}

impl SignatureConversion {
    /// A conversion of `n` inputs, none of them mapped yet.
    pub fn new(n: usize) -> SignatureConversion {
        SignatureConversion {
            inputs: vec![None; n],
        }
    }

    /// Maps input `index` to `types` (one for 1:1, several for 1:N, none to remove it).
    pub fn add_inputs(&mut self, index: usize, types: Vec<Type>) {
        self.inputs[index] = Some(types);
    }

    /// Number of original inputs.
    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// The types that replace input `index`, if it is mapped.
    pub fn input_types(&self, index: usize) -> Option<&[Type]> {
        self.inputs[index].as_deref()
    }

    /// Whether every input is mapped.
    pub fn is_complete(&self) -> bool {
        self.inputs.iter().all(Option::is_some)
    }

    /// Every new input type, in order (unmapped inputs contribute nothing).
    pub fn converted_types(&self) -> Vec<Type> {
        self.inputs.iter().flatten().flatten().copied().collect()
    }
}
