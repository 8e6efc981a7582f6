//! The [`Uniquer`]: interned strings, types, attributes and locations, the part of the
//! [`Context`](crate::Context) that is shared by all IR and never changes what exists.
//!
//! Every string, type and attribute is stored once and referred to by a `u32` handle
//! ([`Ident`], [`Type`], [`Attr`]), so equal handles mean equal values.
//! The context dereferences to its uniquer, so `ctx.i32_type()` works on a `&mut Context`;
//! code that may change the uniquer but not the IR (a rewrite pattern building an attribute
//! through its [`PatternRewriter`](crate::PatternRewriter)) gets only a `&mut Uniquer`.

use rustc_hash::FxHashMap;

use crate::attrs::{AttrData, DenseData, LocData, Location};
use crate::types::{FloatKind, Signedness, TypeData};
use crate::{Attr, Type};

/// Handle to an interned string (op names, attribute names, symbol names, file names).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Ident(pub(crate) u32);

/// A table of interned values, each stored once: the items live in a vector and a map from
/// hash to candidate indices finds them, so a large attribute (a weight tensor) is neither
/// copied nor stored twice.
#[derive(Debug)]
pub(crate) struct Interner<T> {
    items: Vec<T>,
    by_hash: FxHashMap<u64, smallvec::SmallVec<[u32; 1]>>,
}

fn fx_hash<Q: std::hash::Hash + ?Sized>(q: &Q) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(q)
}

impl<T: Eq + std::hash::Hash> Interner<T> {
    fn new() -> Self {
        Interner {
            items: Vec::new(),
            by_hash: FxHashMap::default(),
        }
    }

    /// The index of an item equal to `q`, if interned.
    fn lookup<Q>(&self, q: &Q) -> Option<u32>
    where
        T: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ?Sized,
    {
        let ids = self.by_hash.get(&fx_hash(q))?;
        ids.iter()
            .copied()
            .find(|&id| self.items[id as usize].borrow() == q)
    }

    fn intern(&mut self, item: T) -> u32 {
        let h = fx_hash(&item);
        if let Some(ids) = self.by_hash.get(&h) {
            if let Some(&id) = ids.iter().find(|&&id| self.items[id as usize] == item) {
                return id;
            }
        }
        let id = u32::try_from(self.items.len()).expect("interner holds fewer than 2^32 items");
        self.items.push(item);
        self.by_hash.entry(h).or_default().push(id);
        id
    }

    fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

/// Interned strings, types, attributes and locations.
pub struct Uniquer {
    strings: Interner<String>,
    types: Interner<TypeData>,
    attrs: Interner<AttrData>,
    unknown_loc: Location,
}

impl Default for Uniquer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Uniquer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Uniquer")
            .field("types", &self.types.items.len())
            .field("attrs", &self.attrs.items.len())
            .finish()
    }
}

impl Uniquer {
    /// An empty uniquer (holding only `loc(unknown)`).
    pub fn new() -> Uniquer {
        let mut attrs = Interner::new();
        let unknown = Location(Attr(attrs.intern(AttrData::Location(LocData::Unknown))));
        Uniquer {
            strings: Interner::new(),
            types: Interner::new(),
            attrs,
            unknown_loc: unknown,
        }
    }

    // ----- strings -----

    /// Interns a string.
    pub fn ident(&mut self, s: &str) -> Ident {
        if let Some(id) = self.strings.lookup(s) {
            return Ident(id);
        }
        Ident(self.strings.intern(s.to_string()))
    }

    /// Looks a string up without interning it.
    pub fn lookup_ident(&self, s: &str) -> Option<Ident> {
        self.strings.lookup(s).map(Ident)
    }

    /// The text of an interned string.
    pub fn str(&self, id: Ident) -> &str {
        self.strings.get(id.0)
    }

    // ----- types -----

    /// Interns a type.
    pub fn intern_type(&mut self, data: TypeData) -> Type {
        Type(self.types.intern(data))
    }

    /// The structure of a type.
    pub fn type_data(&self, ty: Type) -> &TypeData {
        self.types.get(ty.0)
    }

    /// `iN`.
    pub fn int_type(&mut self, width: u32) -> Type {
        self.intern_type(TypeData::int(width))
    }

    /// `iN`, `siN` or `uiN`.
    pub fn int_type_signed(&mut self, width: u32, signedness: Signedness) -> Type {
        self.intern_type(TypeData::Integer { width, signedness })
    }

    /// `i1`.
    pub fn i1_type(&mut self) -> Type {
        self.int_type(1)
    }

    /// `i32`.
    pub fn i32_type(&mut self) -> Type {
        self.int_type(32)
    }

    /// `i64`.
    pub fn i64_type(&mut self) -> Type {
        self.int_type(64)
    }

    /// `index`.
    pub fn index_type(&mut self) -> Type {
        self.intern_type(TypeData::Index)
    }

    /// A float type.
    pub fn float_type(&mut self, kind: FloatKind) -> Type {
        self.intern_type(TypeData::Float(kind))
    }

    /// `f32`.
    pub fn f32_type(&mut self) -> Type {
        self.float_type(FloatKind::F32)
    }

    /// `none`.
    pub fn none_type(&mut self) -> Type {
        self.intern_type(TypeData::None)
    }

    /// `(inputs) -> results`.
    pub fn function_type(&mut self, inputs: Vec<Type>, results: Vec<Type>) -> Type {
        self.intern_type(TypeData::Function { inputs, results })
    }

    /// `tensor<shape x elem>` without encoding.
    pub fn tensor_type(&mut self, shape: Vec<i64>, elem: Type) -> Type {
        self.intern_type(TypeData::RankedTensor {
            shape,
            elem,
            encoding: None,
        })
    }

    // ----- attributes -----

    /// Interns an attribute. Dense elements whose elements are all equal are stored as a
    /// splat, as MLIR does, so that `dense<[7, 7]>` and `dense<7>` are one attribute.
    pub fn intern_attr(&mut self, data: AttrData) -> Attr {
        let data = self.canonical_dense(data);
        Attr(self.attrs.intern(data))
    }

    /// Bytes per element of a dense elements attribute of shaped type `ty`.
    pub fn dense_elem_bytes(&self, ty: Type) -> Option<usize> {
        fn scalar(ctx: &Uniquer, t: Type) -> Option<usize> {
            match ctx.type_data(t) {
                TypeData::Integer { width, .. } => Some((*width as usize).div_ceil(8)),
                TypeData::Index => Some(8),
                TypeData::Float(k) => Some((k.width() as usize).div_ceil(8)),
                TypeData::Complex(e) => scalar(ctx, *e).map(|n| 2 * n),
                _ => None,
            }
        }
        scalar(self, self.element_type(ty))
    }

    fn canonical_dense(&self, data: AttrData) -> AttrData {
        match data {
            AttrData::DenseElements {
                ty,
                data: DenseData::Elements(bytes),
            } => {
                let splat = self.dense_elem_bytes(ty).and_then(|n| {
                    if n == 0 || bytes.len() < n || bytes.len() % n != 0 {
                        return None;
                    }
                    let first = &bytes[..n];
                    bytes
                        .chunks_exact(n)
                        .all(|c| c == first)
                        .then(|| first.to_vec())
                });
                let data = match splat {
                    Some(one) => DenseData::Splat(one),
                    None => DenseData::Elements(bytes),
                };
                AttrData::DenseElements { ty, data }
            }
            AttrData::DenseElements {
                ty,
                data:
                    DenseData::Strings {
                        splat: false,
                        values,
                    },
            } if !values.is_empty() && values.iter().all(|v| *v == values[0]) => {
                AttrData::DenseElements {
                    ty,
                    data: DenseData::Strings {
                        splat: true,
                        values: vec![values[0].clone()],
                    },
                }
            }
            other => other,
        }
    }

    /// The structure of an attribute.
    pub fn attr_data(&self, attr: Attr) -> &AttrData {
        self.attrs.get(attr.0)
    }

    /// `unit`.
    pub fn unit_attr(&mut self) -> Attr {
        self.intern_attr(AttrData::Unit)
    }

    /// `true`/`false`: as in MLIR, an `i1` integer attribute (so `true` and `1 : i1` are the
    /// same attribute).
    pub fn bool_attr(&mut self, b: bool) -> Attr {
        let i1 = self.i1_type();
        self.int_attr(i1, i128::from(b))
    }

    /// If `attr` is a boolean (an `i1` integer attribute), its value.
    pub fn attr_bool(&self, attr: Attr) -> Option<bool> {
        match self.attr_data(attr) {
            AttrData::Integer { value, ty }
                if matches!(
                    self.type_data(*ty),
                    TypeData::Integer {
                        width: 1,
                        signedness: Signedness::Signless
                    }
                ) =>
            {
                Some(*value != 0)
            }
            _ => None,
        }
    }

    /// An integer attribute of type `ty`; the value is truncated and sign-extended to the
    /// type's width so that equal values intern equally.
    pub fn int_attr(&mut self, ty: Type, value: i128) -> Attr {
        let value = match self.type_data(ty) {
            TypeData::Integer { width, signedness } => {
                crate::util::normalize_int(value, *width, *signedness)
            }
            _ => value,
        };
        self.intern_attr(AttrData::Integer { value, ty })
    }

    /// An integer attribute of the integer or `index` type `ty` holding `value` (truncated or
    /// extended to the type's width): [`AttrData::Integer`] up to 128 bits, and
    /// [`AttrData::WideInteger`] above.
    pub fn apint_attr(&mut self, ty: Type, value: crate::apint::ApInt) -> Attr {
        match self.type_data(ty) {
            TypeData::Integer { width, .. } if *width > 128 => {
                let value = value.zext(*width);
                self.intern_attr(AttrData::WideInteger { value, ty })
            }
            TypeData::Integer { width, .. } => {
                let v = value.zext(*width).to_i128();
                self.int_attr(ty, v)
            }
            _ => {
                let v = value.sext(64).to_i128();
                self.int_attr(ty, v)
            }
        }
    }

    /// The value of an integer attribute at its type's width (`index` as 64 bits), whatever its
    /// representation.
    pub fn attr_apint(&self, attr: Attr) -> Option<crate::apint::ApInt> {
        match self.attr_data(attr) {
            AttrData::Integer { value, ty } => {
                let width = match self.type_data(*ty) {
                    TypeData::Integer { width, .. } => *width,
                    _ => 64,
                };
                Some(crate::apint::ApInt::from_i128(width, *value))
            }
            AttrData::WideInteger { value, .. } => Some(value.clone()),
            _ => None,
        }
    }

    /// An `i64` attribute.
    pub fn i64_attr(&mut self, value: i64) -> Attr {
        let ty = self.i64_type();
        self.int_attr(ty, value as i128)
    }

    /// A float attribute of type `ty`, rounded to that type's precision where it is `f32` or
    /// narrower than `f64`.
    pub fn float_attr(&mut self, ty: Type, value: f64) -> Attr {
        let value = match self.type_data(ty) {
            TypeData::Float(kind) => crate::util::round_to_float_kind(value, *kind),
            _ => value,
        };
        self.intern_attr(AttrData::Float {
            bits: value.to_bits(),
            ty,
        })
    }

    /// A string attribute.
    pub fn string_attr(&mut self, s: &str) -> Attr {
        self.intern_attr(AttrData::String {
            value: s.as_bytes().to_vec(),
            ty: None,
        })
    }

    /// A type attribute.
    pub fn type_attr(&mut self, ty: Type) -> Attr {
        self.intern_attr(AttrData::Type(ty))
    }

    /// An array attribute.
    pub fn array_attr(&mut self, items: Vec<Attr>) -> Attr {
        self.intern_attr(AttrData::Array(items))
    }

    /// A dictionary attribute; entries are sorted by name and later duplicates win.
    pub fn dict_attr(&mut self, mut entries: Vec<crate::NamedAttr>) -> Attr {
        self.sort_named(&mut entries);
        entries.dedup_by(|later, earlier| {
            if later.name == earlier.name {
                earlier.value = later.value;
                true
            } else {
                false
            }
        });
        self.intern_attr(AttrData::Dictionary(entries))
    }

    /// `@name`.
    pub fn flat_symbol_ref(&mut self, name: &str) -> Attr {
        let root = self.ident(name);
        self.intern_attr(AttrData::SymbolRef {
            root,
            nested: Vec::new(),
        })
    }

    /// Sorts named attributes by the text of their names (MLIR's dictionary order).
    pub fn sort_named(&self, entries: &mut [crate::NamedAttr]) {
        entries.sort_by(|a, b| self.str(a.name).cmp(self.str(b.name)));
    }

    /// If `attr` is a string attribute holding UTF-8 text, that text.
    pub fn attr_str(&self, attr: Attr) -> Option<&str> {
        match self.attr_data(attr) {
            AttrData::String { value, .. } => std::str::from_utf8(value).ok(),
            _ => None,
        }
    }

    /// If `attr` is an integer attribute, its value.
    pub fn attr_int(&self, attr: Attr) -> Option<i128> {
        match self.attr_data(attr) {
            AttrData::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// If `attr` is a float attribute, its value.
    pub fn attr_float(&self, attr: Attr) -> Option<f64> {
        match self.attr_data(attr) {
            AttrData::Float { bits, .. } => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// If `attr` is a type attribute, the type.
    pub fn attr_type(&self, attr: Attr) -> Option<Type> {
        match self.attr_data(attr) {
            AttrData::Type(t) => Some(*t),
            _ => None,
        }
    }

    /// If `attr` is a flat symbol reference `@name`, the name.
    pub fn attr_flat_symbol(&self, attr: Attr) -> Option<&str> {
        match self.attr_data(attr) {
            AttrData::SymbolRef { root, nested } if nested.is_empty() => Some(self.str(*root)),
            _ => None,
        }
    }

    // ----- locations -----

    /// `loc(unknown)`.
    pub fn unknown_loc(&self) -> Location {
        self.unknown_loc
    }

    /// Interns a location.
    pub fn loc(&mut self, data: LocData) -> Location {
        Location(self.intern_attr(AttrData::Location(data)))
    }

    /// `loc("file":line:col)`.
    pub fn file_loc(&mut self, file: &str, line: u32, col: u32) -> Location {
        let file = self.ident(file);
        self.loc(LocData::FileLineCol {
            file,
            line,
            col,
            end: None,
        })
    }

    /// The structure of a location.
    pub fn loc_data(&self, loc: Location) -> &LocData {
        match self.attr_data(loc.0) {
            AttrData::Location(l) => l,
            _ => unreachable!("Location handles always point at location attributes"),
        }
    }

    /// Turns an attribute into a location if it is one.
    pub fn as_location(&self, attr: Attr) -> Option<Location> {
        match self.attr_data(attr) {
            AttrData::Location(_) => Some(Location(attr)),
            _ => None,
        }
    }

    /// The first file:line:col position inside a location, for diagnostics.
    pub fn loc_file_line_col(&self, loc: Location) -> Option<(&str, u32, u32)> {
        match self.loc_data(loc) {
            LocData::Unknown => None,
            LocData::FileLineCol {
                file, line, col, ..
            } => Some((self.str(*file), *line, *col)),
            LocData::Name { child, .. } => child.and_then(|c| self.loc_file_line_col(c)),
            LocData::CallSite { callee, .. } => self.loc_file_line_col(*callee),
            LocData::Fused { locs, .. } => locs.iter().find_map(|l| self.loc_file_line_col(*l)),
        }
    }

    /// The shape of a shaped type (`None` for unranked or non-shaped types).
    pub fn shape_of(&self, ty: crate::Type) -> Option<&[i64]> {
        match self.type_data(ty) {
            crate::TypeData::RankedTensor { shape, .. }
            | crate::TypeData::MemRef { shape, .. }
            | crate::TypeData::Vector { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The element type of a shaped type, or the type itself.
    pub fn element_type(&self, ty: crate::Type) -> crate::Type {
        match self.type_data(ty) {
            crate::TypeData::RankedTensor { elem, .. }
            | crate::TypeData::UnrankedTensor { elem }
            | crate::TypeData::MemRef { elem, .. }
            | crate::TypeData::UnrankedMemRef { elem, .. }
            | crate::TypeData::Vector { elem, .. } => *elem,
            _ => ty,
        }
    }

    /// The type carried by a typed attribute (integer, float, typed string, dense elements).
    pub fn typed_attr_type(&self, attr: Attr) -> Option<Type> {
        use crate::AttrData;
        match self.attr_data(attr) {
            AttrData::Integer { ty, .. }
            | AttrData::WideInteger { ty, .. }
            | AttrData::Float { ty, .. } => Some(*ty),
            AttrData::String { ty, .. } => *ty,
            AttrData::DenseElements { ty, .. } | AttrData::DenseResource { ty, .. } => Some(*ty),
            _ => None,
        }
    }
}
