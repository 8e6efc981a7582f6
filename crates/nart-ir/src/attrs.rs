//! Builtin attributes, interned in the [`Context`](crate::Context).
//!
//! An [`Attr`] is a `u32` handle; equal handles mean equal attributes.
//! Locations are attributes too (as in MLIR), wrapped in [`Location`] for type safety.

use crate::{Ident, Type};

/// Handle to an interned attribute.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Attr(pub(crate) u32);

impl Attr {
    /// The raw index of this attribute in its context's table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Handle to an interned location attribute.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Location(pub(crate) Attr);

impl Location {
    /// The location as an attribute.
    pub fn attr(self) -> Attr {
        self.0
    }
}

/// A name and an attribute: one entry of an attribute dictionary.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct NamedAttr {
    /// The attribute's name.
    pub name: Ident,
    /// Its value.
    pub value: Attr,
}

/// The structure of a location (MLIR's location attributes).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum LocData {
    /// `loc(unknown)`.
    Unknown,
    /// `loc("file":line:col)`, optionally a range `loc("file":l:c to l2:c2)`.
    FileLineCol {
        /// File name.
        file: Ident,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        col: u32,
        /// End line and column for a range.
        end: Option<(u32, u32)>,
    },
    /// `loc("name")` or `loc("name"(child))`.
    Name {
        /// The name.
        name: Ident,
        /// Child location, if not unknown.
        child: Option<Location>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite {
        /// Callee location.
        callee: Location,
        /// Caller location.
        caller: Location,
    },
    /// `loc(fused<metadata>[a, b])`.
    Fused {
        /// Optional metadata attribute.
        metadata: Option<Attr>,
        /// The fused locations.
        locs: Vec<Location>,
    },
}

/// One term of an affine expression.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AffineExpr {
    /// `dN`.
    Dim(u32),
    /// `sN`.
    Symbol(u32),
    /// An integer constant.
    Const(i64),
    /// `a + b`.
    Add(Box<AffineExpr>, Box<AffineExpr>),
    /// `a * b`.
    Mul(Box<AffineExpr>, Box<AffineExpr>),
    /// `a mod b`.
    Mod(Box<AffineExpr>, Box<AffineExpr>),
    /// `a floordiv b`.
    FloorDiv(Box<AffineExpr>, Box<AffineExpr>),
    /// `a ceildiv b`.
    CeilDiv(Box<AffineExpr>, Box<AffineExpr>),
}

/// `affine_map<(d0, d1)[s0] -> (d0 + s0, d1)>`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct AffineMap {
    /// Number of dimensions.
    pub num_dims: u32,
    /// Number of symbols.
    pub num_symbols: u32,
    /// Result expressions.
    pub results: Vec<AffineExpr>,
}

/// Elements of a dense array attribute (`array<i64: 1, 2>`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DenseArrayData {
    /// Integer (and `i1`) elements.
    Int(Vec<i64>),
    /// Float elements as `f64` bit patterns.
    Float(Vec<u64>),
}

/// The payload of a dense elements attribute.
///
/// Numeric elements are stored as packed little-endian bytes of the element type's storage
/// width rounded up to whole bytes (`i1` takes one byte per element, `i4` one byte, `f16` two),
/// which is also how ONNX `raw_data` and MLIR's hex form lay them out. Complex elements store
/// the real then the imaginary part.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DenseData {
    /// One element repeated over the whole shape.
    Splat(Vec<u8>),
    /// Every element, in row-major order.
    Elements(Vec<u8>),
    /// String elements (`dense<["a", "b"]> : tensor<2x!some.string>`), one or all.
    Strings {
        /// Whether a single string is splatted.
        splat: bool,
        /// The strings.
        values: Vec<Vec<u8>>,
    },
}

/// The structure of an attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrData {
    /// `unit`: presence only.
    Unit,
    /// `42 : i32`, `7 : index`, and the booleans `true`/`false` (`i1`, as in MLIR), of an integer
    /// type of at most 128 bits or `index`. The value is stored sign-extended from the type's
    /// width (zero-extended for unsigned types below 128 bits).
    Integer {
        /// Value.
        value: i128,
        /// Integer or index type.
        ty: Type,
    },
    /// An integer of a type wider than 128 bits (`1 : i256`); see [`crate::apint`] for why it is
    /// a representation of its own. Build it with
    /// [`Uniquer::apint_attr`](crate::Uniquer::apint_attr).
    WideInteger {
        /// Value, of the type's width.
        value: crate::apint::ApInt,
        /// Integer type.
        ty: Type,
    },
    /// `1.5 : f32`. The value is kept as `f64` bits, exact for every format up to `f64`.
    Float {
        /// `f64` bit pattern of the value.
        bits: u64,
        /// Float type.
        ty: Type,
    },
    /// `"text"`, optionally typed (`"text" : i32`).
    String {
        /// The bytes (may be non-UTF-8 after escapes).
        value: Vec<u8>,
        /// Optional type.
        ty: Option<Type>,
    },
    /// `[a, b]`.
    Array(Vec<Attr>),
    /// `{a = 1, b}`: sorted by name, names unique.
    Dictionary(Vec<NamedAttr>),
    /// `i32`, `tensor<2xf32>` used as an attribute.
    Type(Type),
    /// `@root::@nested`.
    SymbolRef {
        /// The root symbol.
        root: Ident,
        /// Nested references.
        nested: Vec<Ident>,
    },
    /// `dense<...> : tensor<...>`.
    DenseElements {
        /// The shaped type (tensor or vector).
        ty: Type,
        /// The data.
        data: DenseData,
    },
    /// `dense_resource<name> : tensor<...>`: data held in the module's resource section.
    DenseResource {
        /// Resource key.
        key: String,
        /// The shaped type.
        ty: Type,
    },
    /// `array<i64: 1, 2>`.
    DenseArray {
        /// Element type.
        elem: Type,
        /// Elements.
        data: DenseArrayData,
    },
    /// `affine_map<...>`.
    AffineMap(AffineMap),
    /// `strided<[s0, s1], offset: o>`; dynamic entries are [`DYNAMIC`](crate::DYNAMIC).
    StridedLayout {
        /// Strides.
        strides: Vec<i64>,
        /// Offset.
        offset: i64,
    },
    /// A location.
    Location(LocData),
    /// An attribute defined by a registered dialect, with typed storage (see
    /// [`crate::extensible`]).
    Dialect(crate::extensible::DialectAttrBox),
    /// An attribute of a dialect that is not registered, kept as text: `#dialect.body` or
    /// `#dialect<body>`.
    Unregistered {
        /// Dialect namespace.
        dialect: String,
        /// Body text.
        body: String,
        /// Whether the pretty form `#dialect.body` was used.
        pretty: bool,
    },
    /// An attribute the parser kept verbatim because no structure is known for it
    /// (for example `affine_set<...>`): printed back as is.
    Opaque(String),
}
