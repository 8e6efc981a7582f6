//! Types and attributes defined by dialects (MLIR's `TypeDef`/`AttrDef`): typed Rust storage,
//! interned like builtin ones, with parse, print and verify hooks owned by the dialect.
//!
//! # Defining a type
//!
//! A dialect type is a plain Rust struct holding its parameters (handles to other types and
//! attributes, numbers, strings) that derives `Clone, PartialEq, Eq, Hash, Debug` and
//! implements [`DialectType`]. Its [`DialectTypeDef`] (mnemonic, docs, parser) is listed in the
//! dialect's [`DialectDef`](crate::DialectDef), so text `!graph.seq<tensor<f32>>` reaches the
//! graph dialect's parser with the parser standing after `!graph.seq`:
//!
//! ```
//! use nart_ir::extensible::{AsmPrinter, DialectType, DialectTypeDef};
//! use nart_ir::parser::AsmParser;
//! use nart_ir::{Diagnostic, Type};
//!
//! /// `!demo.box<T>`.
//! #[derive(Clone, PartialEq, Eq, Hash, Debug)]
//! pub struct BoxType {
//!     pub elem: Type,
//! }
//!
//! pub static BOX: DialectTypeDef = DialectTypeDef {
//!     dialect: "demo",
//!     mnemonic: "box",
//!     summary: "a box holding one value",
//!     syntax: "!demo.box<T>",
//!     parse: parse_box,
//! };
//!
//! fn parse_box(p: &mut AsmParser<'_, '_>) -> Result<Type, Diagnostic> {
//!     p.parse_less()?;
//!     let elem = p.parse_type()?;
//!     p.parse_greater()?;
//!     Ok(p.ctx().dialect_type(BoxType { elem }))
//! }
//!
//! impl DialectType for BoxType {
//!     fn def(&self) -> &'static DialectTypeDef {
//!         &BOX
//!     }
//!     fn print(&self, p: &mut AsmPrinter<'_>) {
//!         p.write_str("<");
//!         p.print_type(self.elem);
//!         p.write_str(">");
//!     }
//! }
//! ```
//!
//! `ctx.type_data(t).downcast::<BoxType>()` gives the typed storage back, so no crate parses
//! another dialect's text.
//! Attributes work the same way with [`DialectAttr`] and [`DialectAttrDef`]; enum attributes
//! need no code at all (see [`crate::enums`]).
//!
//! A type or attribute of a dialect that is not registered stays text
//! ([`TypeData::Unregistered`], [`AttrData::Unregistered`]), as MLIR's opaque types do.

use std::any::Any;
use std::fmt::Debug;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::parser::AsmParser;
use crate::printer::text::{write_attr, write_type, AttrOpts};
use crate::{Attr, AttrData, Context, Diagnostic, Type, TypeData, Uniquer};

/// Object-safe equality, hashing and downcasting, implemented for every `Eq + Hash` type.
pub trait DynStorage: Any + Debug + Send + Sync {
    /// `self` as `Any`, for downcasting.
    fn as_any(&self) -> &dyn Any;
    /// Equality with a value of any storage type.
    fn dyn_eq(&self, other: &dyn DynStorage) -> bool;
    /// Hashes the value.
    fn dyn_hash(&self, state: &mut dyn Hasher);
}

impl<T: Any + Debug + Eq + Hash + Send + Sync> DynStorage for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn dyn_eq(&self, other: &dyn DynStorage) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
    fn dyn_hash(&self, mut state: &mut dyn Hasher) {
        self.hash(&mut state);
    }
}

/// Parses a dialect type after its `!dialect.mnemonic`.
pub type TypeParseFn = fn(&mut AsmParser<'_, '_>) -> Result<Type, Diagnostic>;

/// Parses a dialect attribute after its `#dialect.mnemonic` (or in a declarative format, where
/// the attribute kind is known and only the parameters are written). The definition is passed
/// so that one function can parse several kinds (every enum attribute shares one).
pub type AttrParseFn =
    fn(&mut AsmParser<'_, '_>, &'static DialectAttrDef) -> Result<Attr, Diagnostic>;

/// The declaration of a dialect type: what the registry, the parser and the docs need.
#[derive(Clone, Copy)]
pub struct DialectTypeDef {
    /// The dialect's namespace (`graph`).
    pub dialect: &'static str,
    /// The mnemonic after the dot (`seq`).
    pub mnemonic: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    /// The syntax, for the docs (`!graph.seq<T>`).
    pub syntax: &'static str,
    /// Parses the parameters.
    pub parse: TypeParseFn,
}

impl Debug for DialectTypeDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "!{}.{}", self.dialect, self.mnemonic)
    }
}

/// The declaration of a dialect attribute.
#[derive(Clone, Copy)]
pub struct DialectAttrDef {
    /// The dialect's namespace (`arith`).
    pub dialect: &'static str,
    /// The mnemonic after the dot (`overflow`).
    pub mnemonic: &'static str,
    /// One line for the docs.
    pub summary: &'static str,
    /// The syntax, for the docs (`#arith.overflow<nsw, nuw>`).
    pub syntax: &'static str,
    /// Parses the parameters.
    pub parse: AttrParseFn,
    /// For an enum attribute, its enum (parsed and printed by [`crate::enums`]).
    pub enum_def: Option<&'static crate::enums::EnumDef>,
}

impl Debug for DialectAttrDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}.{}", self.dialect, self.mnemonic)
    }
}

/// The typed storage of a dialect type.
pub trait DialectType: DynStorage {
    /// The type's declaration.
    fn def(&self) -> &'static DialectTypeDef;
    /// Prints the parameters, everything after `!dialect.mnemonic` (`<tensor<f32>>`).
    fn print(&self, p: &mut AsmPrinter<'_>);
    /// Checks the parameters; the parser calls it after the parse hook.
    fn verify(&self, _ctx: &Context) -> Result<(), String> {
        Ok(())
    }
}

/// The typed storage of a dialect attribute.
pub trait DialectAttr: DynStorage {
    /// The attribute's declaration.
    fn def(&self) -> &'static DialectAttrDef;
    /// Prints the parameters, everything after `#dialect.mnemonic` (`<nsw, nuw>`).
    fn print(&self, p: &mut AsmPrinter<'_>);
    /// The type of a typed attribute (MLIR's `TypedAttr`), if it has one.
    fn ty(&self) -> Option<Type> {
        None
    }
    /// Checks the parameters; the parser calls it after the parse hook.
    fn verify(&self, _ctx: &Context) -> Result<(), String> {
        Ok(())
    }
}

/// A dialect type inside [`TypeData::Dialect`]: shared, compared and hashed by value.
#[derive(Clone)]
pub struct DialectTypeBox(pub(crate) Arc<dyn DialectType>);

/// A dialect attribute inside [`AttrData::Dialect`].
#[derive(Clone)]
pub struct DialectAttrBox(pub(crate) Arc<dyn DialectAttr>);

macro_rules! boxed_storage {
    ($box:ident, $tr:ident) => {
        impl $box {
            /// The storage as its trait.
            pub fn get(&self) -> &dyn $tr {
                &*self.0
            }
            /// The storage as a concrete type, if it is one.
            pub fn downcast<T: $tr>(&self) -> Option<&T> {
                self.0.as_any().downcast_ref::<T>()
            }
        }
        impl PartialEq for $box {
            fn eq(&self, other: &$box) -> bool {
                self.0.dyn_eq(other.0.as_ref())
            }
        }
        impl Eq for $box {}
        impl Hash for $box {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.0.as_any().type_id().hash(state);
                self.0.dyn_hash(state);
            }
        }
        impl Debug for $box {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

boxed_storage!(DialectTypeBox, DialectType);
boxed_storage!(DialectAttrBox, DialectAttr);

impl TypeData {
    /// The structure of a dialect type (intern it with `intern_type`, or use
    /// [`Uniquer::dialect_type`]).
    pub fn dialect<T: DialectType>(value: T) -> TypeData {
        TypeData::Dialect(DialectTypeBox(Arc::new(value)))
    }

    /// The typed storage of a dialect type, if this is one of type `T`.
    pub fn downcast<T: DialectType>(&self) -> Option<&T> {
        match self {
            TypeData::Dialect(b) => b.downcast::<T>(),
            _ => None,
        }
    }
}

impl AttrData {
    /// The structure of a dialect attribute.
    pub fn dialect<T: DialectAttr>(value: T) -> AttrData {
        AttrData::Dialect(DialectAttrBox(Arc::new(value)))
    }

    /// The typed storage of a dialect attribute, if this is one of type `T`.
    pub fn downcast<T: DialectAttr>(&self) -> Option<&T> {
        match self {
            AttrData::Dialect(b) => b.downcast::<T>(),
            _ => None,
        }
    }
}

impl Uniquer {
    /// Interns a dialect type.
    pub fn dialect_type<T: DialectType>(&mut self, value: T) -> Type {
        self.intern_type(TypeData::Dialect(DialectTypeBox(Arc::new(value))))
    }

    /// Interns a dialect attribute.
    pub fn dialect_attr<T: DialectAttr>(&mut self, value: T) -> Attr {
        self.intern_attr(AttrData::Dialect(DialectAttrBox(Arc::new(value))))
    }

    /// The typed storage of type `ty`, if it is a dialect type of type `T`.
    pub fn type_as<T: DialectType>(&self, ty: Type) -> Option<&T> {
        self.type_data(ty).downcast::<T>()
    }

    /// The typed storage of attribute `attr`, if it is a dialect attribute of type `T`.
    pub fn attr_as<T: DialectAttr>(&self, attr: Attr) -> Option<&T> {
        self.attr_data(attr).downcast::<T>()
    }
}

/// What a dialect's print hook writes to: text, with the context to print nested types and
/// attributes.
pub struct AsmPrinter<'a> {
    ctx: &'a Context,
    out: &'a mut String,
    opts: Option<AttrOpts<'a>>,
}

impl<'a> AsmPrinter<'a> {
    pub(crate) fn new(ctx: &'a Context, out: &'a mut String, opts: Option<AttrOpts<'a>>) -> Self {
        AsmPrinter { ctx, out, opts }
    }

    /// The context.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    /// Writes text as is.
    pub fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Writes a keyword.
    pub fn print_keyword(&mut self, kw: &str) {
        self.out.push_str(kw);
    }

    /// Writes a nested type.
    pub fn print_type(&mut self, ty: Type) {
        write_type(self.ctx, self.out, ty, self.opts);
    }

    /// Writes a nested attribute.
    pub fn print_attribute(&mut self, attr: Attr) {
        write_attr(self.ctx, self.out, attr, self.opts);
    }

    /// Writes a quoted string literal.
    pub fn print_string(&mut self, s: &str) {
        crate::printer::text::write_escaped(self.out, s.as_bytes());
    }

    /// Writes a float the way MLIR prints an `f64` attribute value (shortest form that reads
    /// back exactly: `0.0125`, `1.000000e-03`).
    pub fn print_float(&mut self, v: f64) {
        crate::printer::text::write_f64(self.out, v);
    }

    /// Writes a float of format `kind` as MLIR prints an attribute of that type.
    pub fn print_float_of(&mut self, kind: crate::FloatKind, v: f64) {
        crate::printer::text::write_float(self.out, kind, v);
    }
}

impl std::fmt::Write for AsmPrinter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}
