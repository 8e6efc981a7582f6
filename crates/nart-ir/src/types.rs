//! Builtin types, interned in the [`Context`](crate::Context).
//!
//! A [`Type`] is a `u32` handle; two handles are equal exactly when the types are equal, because
//! every type is interned once.
//! The spelling follows MLIR's builtin dialect: `i32`, `si8`, `ui4`, `index`, `f16`, `bf16`,
//! `tensor<1x?x3xf32>`, `memref<4xi8, strided<[1]>>`, `vector<[4]x8xf32>`, `tuple<i32, f32>`,
//! `complex<f32>`, `(i32) -> f32`, `none`; dialect types (`!graph.seq<tensor<f32>>`) have
//! typed storage owned by their dialect (see [`crate::extensible`]).

use crate::Attr;

/// Handle to an interned type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Type(pub(crate) u32);

impl Type {
    /// The raw index of this type in its context's table.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// The marker MLIR uses for a dynamic dimension (`?`) in a shape.
pub const DYNAMIC: i64 = i64::MIN;

/// Signedness semantics of an integer type.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Signedness {
    /// `iN`: no sign semantics; operations decide.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`.
    Unsigned,
}

/// The floating-point formats MLIR's builtin dialect knows, spelled as MLIR spells them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum FloatKind {
    /// `f4E2M1FN`.
    F4E2M1FN,
    /// `f6E2M3FN`.
    F6E2M3FN,
    /// `f6E3M2FN`.
    F6E3M2FN,
    /// `f8E5M2`.
    F8E5M2,
    /// `f8E4M3`.
    F8E4M3,
    /// `f8E4M3FN`.
    F8E4M3FN,
    /// `f8E5M2FNUZ`.
    F8E5M2FNUZ,
    /// `f8E4M3FNUZ`.
    F8E4M3FNUZ,
    /// `f8E4M3B11FNUZ`.
    F8E4M3B11FNUZ,
    /// `f8E3M4`.
    F8E3M4,
    /// `f8E8M0FNU`.
    F8E8M0FNU,
    /// `bf16`.
    BF16,
    /// `f16`.
    F16,
    /// `tf32`.
    TF32,
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `f80`.
    F80,
    /// `f128`.
    F128,
}

impl FloatKind {
    /// All float kinds, for keyword lookup.
    pub const ALL: [FloatKind; 18] = [
        FloatKind::F4E2M1FN,
        FloatKind::F6E2M3FN,
        FloatKind::F6E3M2FN,
        FloatKind::F8E5M2,
        FloatKind::F8E4M3,
        FloatKind::F8E4M3FN,
        FloatKind::F8E5M2FNUZ,
        FloatKind::F8E4M3FNUZ,
        FloatKind::F8E4M3B11FNUZ,
        FloatKind::F8E3M4,
        FloatKind::F8E8M0FNU,
        FloatKind::BF16,
        FloatKind::F16,
        FloatKind::TF32,
        FloatKind::F32,
        FloatKind::F64,
        FloatKind::F80,
        FloatKind::F128,
    ];

    /// The keyword MLIR uses for this format.
    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F4E2M1FN => "f4E2M1FN",
            FloatKind::F6E2M3FN => "f6E2M3FN",
            FloatKind::F6E3M2FN => "f6E3M2FN",
            FloatKind::F8E5M2 => "f8E5M2",
            FloatKind::F8E4M3 => "f8E4M3",
            FloatKind::F8E4M3FN => "f8E4M3FN",
            FloatKind::F8E5M2FNUZ => "f8E5M2FNUZ",
            FloatKind::F8E4M3FNUZ => "f8E4M3FNUZ",
            FloatKind::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            FloatKind::F8E3M4 => "f8E3M4",
            FloatKind::F8E8M0FNU => "f8E8M0FNU",
            FloatKind::BF16 => "bf16",
            FloatKind::F16 => "f16",
            FloatKind::TF32 => "tf32",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F80 => "f80",
            FloatKind::F128 => "f128",
        }
    }

    /// Looks a float keyword up.
    pub fn from_keyword(s: &str) -> Option<FloatKind> {
        FloatKind::ALL.into_iter().find(|k| k.keyword() == s)
    }

    /// The storage width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F4E2M1FN => 4,
            FloatKind::F6E2M3FN | FloatKind::F6E3M2FN => 6,
            FloatKind::F8E5M2
            | FloatKind::F8E4M3
            | FloatKind::F8E4M3FN
            | FloatKind::F8E5M2FNUZ
            | FloatKind::F8E4M3FNUZ
            | FloatKind::F8E4M3B11FNUZ
            | FloatKind::F8E3M4
            | FloatKind::F8E8M0FNU => 8,
            FloatKind::BF16 | FloatKind::F16 => 16,
            FloatKind::TF32 => 19,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
            FloatKind::F80 => 80,
            FloatKind::F128 => 128,
        }
    }
}

/// The structure of a type. Build one and intern it with [`Context::intern_type`](crate::Context::intern_type),
/// or use the shorthand constructors on the context (`ctx.i32_type()`, `ctx.tensor_type(..)`).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeData {
    /// `iN`, `siN`, `uiN`.
    Integer {
        /// Bit width (0 to 16,777,215, as upstream allows).
        width: u32,
        /// Sign semantics.
        signedness: Signedness,
    },
    /// `index`.
    Index,
    /// A floating-point type.
    Float(FloatKind),
    /// `none`.
    None,
    /// `(inputs) -> results`.
    Function {
        /// Argument types.
        inputs: Vec<Type>,
        /// Result types.
        results: Vec<Type>,
    },
    /// `tensor<2x?xf32, #enc>`. Dynamic dimensions are [`DYNAMIC`].
    RankedTensor {
        /// Dimensions.
        shape: Vec<i64>,
        /// Element type.
        elem: Type,
        /// Optional encoding attribute.
        encoding: Option<Attr>,
    },
    /// `tensor<*xf32>`.
    UnrankedTensor {
        /// Element type.
        elem: Type,
    },
    /// `memref<2x?xf32, #layout, memspace>`.
    MemRef {
        /// Dimensions.
        shape: Vec<i64>,
        /// Element type.
        elem: Type,
        /// Layout attribute (affine map or strided layout); `None` means the identity layout.
        layout: Option<Attr>,
        /// Memory space attribute.
        memory_space: Option<Attr>,
    },
    /// `memref<*xf32, memspace>`.
    UnrankedMemRef {
        /// Element type.
        elem: Type,
        /// Memory space attribute.
        memory_space: Option<Attr>,
    },
    /// `vector<[4]x8xf32>`.
    Vector {
        /// Dimensions (all static).
        shape: Vec<i64>,
        /// Which dimensions are scalable (`[4]`); same length as `shape`.
        scalable: Vec<bool>,
        /// Element type.
        elem: Type,
    },
    /// `tuple<i32, f32>`.
    Tuple(Vec<Type>),
    /// `complex<f32>`.
    Complex(Type),
    /// A type defined by a registered dialect, with typed storage (see
    /// [`crate::extensible`]).
    Dialect(crate::extensible::DialectTypeBox),
    /// A type of a dialect that is not registered, kept as text: `!dialect.body` or
    /// `!dialect<body>` (MLIR's opaque type).
    ///
    /// `body` is the exact text after `dialect.` (for `!foo.bar<i8:f32, 0.5>` it is
    /// `bar<i8:f32, 0.5>`), or for the `!dialect<...>` form the text between the angle
    /// brackets with `pretty` false.
    Unregistered {
        /// Dialect namespace.
        dialect: String,
        /// Body text.
        body: String,
        /// Whether the pretty form `!dialect.body` was used (otherwise `!dialect<body>`).
        pretty: bool,
    },
}

impl TypeData {
    /// A signless integer type of `width` bits.
    pub fn int(width: u32) -> TypeData {
        TypeData::Integer {
            width,
            signedness: Signedness::Signless,
        }
    }
}
