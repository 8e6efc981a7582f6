//! The e-graph language and its analysis.
//!
//! An e-node is an op of the graph (its name, a key for its properties, a key for its result
//! types, and its operand e-classes), a projection of one result of a multi-result op, or a
//! leaf: a block argument, a constant, or an opaque value (the result of an op the pass does
//! not model). Keys index tables held by the analysis ([`Tables`]), so e-nodes stay small,
//! `Copy`-cheap and totally ordered, which keeps the e-graph deterministic.
//!
//! The analysis gives every e-class its type ([`Ty`]: element type and static shape) and, for
//! constants, the constant's index; rules read both to check that a rewrite keeps the type.

use std::fmt;
use std::sync::Arc;

use egg::{Analysis, DidMerge, Id, Language, Symbol};
use indexmap::IndexSet;
use nart_ir::{Attr, NamedAttr, Type};
use nart_tensor::Tensor;

/// The key patterns use for "any value" (types and properties of pattern nodes).
pub const ANY: u32 = u32::MAX;

/// What an e-node is, apart from its children. Its order is the order of e-nodes within an
/// e-class, so it comes first in [`GNode`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The `n`th argument of the function's block.
    Arg(u32),
    /// The constant with this index in [`Tables::consts`].
    Const(u32),
    /// An opaque value: index into [`Tables::opaque`] (a result of an op not modelled).
    Opaque(u32),
    /// An op of this name.
    Op(Symbol),
    /// Result `i` of the multi-result op that is the only child.
    Proj(u32),
}

/// An e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GNode {
    /// What it is.
    pub kind: Kind,
    /// Its result types: index into [`Tables::types`] ([`ANY`] in patterns).
    pub ty: u32,
    /// Its properties: index into [`Tables::props`] ([`ANY`] in patterns).
    pub props: u32,
    /// Its operands.
    pub children: Vec<Id>,
}

impl GNode {
    /// A leaf.
    pub fn leaf(kind: Kind, ty: u32) -> GNode {
        GNode {
            kind,
            ty,
            props: 0,
            children: Vec::new(),
        }
    }

    /// The op name, for op nodes.
    pub fn op_name(&self) -> Option<&'static str> {
        match self.kind {
            Kind::Op(s) => Some(s.as_str()),
            _ => None,
        }
    }
}

impl Language for GNode {
    type Discriminant = Kind;

    fn discriminant(&self) -> Kind {
        self.kind
    }

    fn matches(&self, other: &Self) -> bool {
        self.kind == other.kind
            && self.children.len() == other.children.len()
            && (self.ty == ANY || other.ty == ANY || self.ty == other.ty)
            && (self.props == ANY || other.props == ANY || self.props == other.props)
    }

    fn children(&self) -> &[Id] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.children
    }
}

impl fmt::Display for GNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Arg(i) => write!(f, "arg{i}"),
            Kind::Const(i) => write!(f, "const{i}"),
            Kind::Opaque(i) => write!(f, "opaque{i}"),
            Kind::Op(s) => write!(f, "{s}"),
            Kind::Proj(i) => write!(f, "result{i}"),
        }
    }
}

impl egg::FromOp for GNode {
    type Error = String;

    /// Pattern nodes: `graph.Add` and the like, matching any types and properties.
    fn from_op(op: &str, children: Vec<Id>) -> Result<Self, Self::Error> {
        if !op.contains('.') {
            return Err(format!("'{op}' is not an op name"));
        }
        Ok(GNode {
            kind: Kind::Op(Symbol::from(op)),
            ty: ANY,
            props: ANY,
            children,
        })
    }
}

/// The type of a value as the e-graph sees it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ty {
    /// The element type of a ranked tensor, or the whole type of anything else (`none`).
    pub elem: Type,
    /// The static shape of a ranked tensor; `None` for other types.
    pub dims: Option<Vec<i64>>,
}

impl Ty {
    /// A tensor type.
    pub fn tensor(elem: Type, dims: Vec<i64>) -> Ty {
        Ty {
            elem,
            dims: Some(dims),
        }
    }

    /// The number of elements of a tensor, a dynamic dim counted as 1.
    pub fn numel(&self) -> Option<i64> {
        self.dims
            .as_ref()
            .map(|d| d.iter().map(|&x| if x < 0 { 1 } else { x }).product())
    }

    /// Whether every dim is static.
    pub fn is_static(&self) -> bool {
        self.dims
            .as_ref()
            .is_some_and(|d| d.iter().all(|&x| x >= 0))
    }

    /// The rank of a tensor.
    pub fn rank(&self) -> Option<usize> {
        self.dims.as_ref().map(Vec::len)
    }
}

/// A constant: the attribute it came from (absent for constants rules computed) and, when
/// small or computed, its value; or the concatenation of other constants, computed only when
/// the write-back needs it (merged weights, which can be large).
#[derive(Clone, Debug)]
pub struct ConstVal {
    /// The `value` attribute of the constant op it came from.
    pub attr: Option<Attr>,
    /// The decoded value.
    pub tensor: Option<Arc<Tensor>>,
    /// The constants (indices) it concatenates, and the axis.
    pub concat: Option<(Vec<u32>, i64)>,
    /// Its type.
    pub ty: u32,
}

/// The tables the e-node keys index, and the well-known types rules need.
#[derive(Clone, Debug)]
pub struct Tables {
    /// Result type lists.
    pub types: IndexSet<Vec<Ty>>,
    /// Property lists (sorted by name, as the IR keeps them).
    pub props: IndexSet<Vec<NamedAttr>>,
    /// Constants.
    pub consts: Vec<ConstVal>,
    /// Opaque values, by their index in the function (see the translation).
    pub opaque: Vec<nart_ir::Value>,
    /// `f32`.
    pub f32: Type,
    /// `i64`.
    pub i64: Type,
    /// The ident of the `axis` property.
    pub axis: nart_ir::Ident,
    /// The ident of the `perm` property.
    pub perm: nart_ir::Ident,
    /// The ident of the `group` property.
    pub group: nart_ir::Ident,
    /// The ident of Gemm's `transB` property.
    pub trans_b: nart_ir::Ident,
    /// Permutation attributes (`array<i64: ...>`) of ranks 1 to 5, interned before saturation
    /// because rules cannot intern.
    pub perms: rustc_hash::FxHashMap<Vec<i64>, Attr>,
    /// `i64` attributes from -8 to 8 (axes).
    pub ints: rustc_hash::FxHashMap<i64, Attr>,
    /// The constants rules computed, by content, so that a rule applied again finds the
    /// constant it made before (else every application would add a new e-class).
    pub computed: rustc_hash::FxHashMap<ConstKey, u32>,
}

/// What identifies a computed constant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstKey {
    /// Values: the type key and the elements' `f64` bit patterns.
    Data(u32, Vec<u64>),
    /// A concatenation of constants on an axis.
    Concat(Vec<u32>, i64),
}

/// What the analysis knows about an e-class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassData {
    /// Its result types (a single type, or a tuple for a multi-result op).
    pub ty: u32,
    /// The constant it equals, if known.
    pub konst: Option<u32>,
}

/// The analysis: the tables, and per e-class types and constants.
#[derive(Clone, Debug)]
pub struct GraphAnalysis {
    /// The tables keys index.
    pub tables: Tables,
}

impl GraphAnalysis {
    /// Interns a result-type list.
    pub fn intern_types(&mut self, tys: Vec<Ty>) -> u32 {
        self.tables.types.insert_full(tys).0 as u32
    }

    /// Interns a single type.
    pub fn intern_ty(&mut self, ty: Ty) -> u32 {
        self.intern_types(vec![ty])
    }

    /// Interns a property list.
    pub fn intern_props(&mut self, mut props: Vec<NamedAttr>) -> u32 {
        props.sort_by_key(|p| p.name);
        self.tables.props.insert_full(props).0 as u32
    }

    /// The single type of a key (`None` for a tuple).
    pub fn single(&self, key: u32) -> Option<&Ty> {
        match self.tables.types.get_index(key as usize) {
            Some(v) if v.len() == 1 => v.first(),
            _ => None,
        }
    }

    /// Adds a computed constant and returns its index.
    pub fn add_const(&mut self, tensor: Tensor, ty: u32) -> u32 {
        let key = tensor
            .to_f64_vec()
            .ok()
            .map(|v| ConstKey::Data(ty, v.iter().map(|x| x.to_bits()).collect()));
        if let Some(&k) = key.as_ref().and_then(|k| self.tables.computed.get(k)) {
            return k;
        }
        let k = self.tables.consts.len() as u32;
        if let Some(key) = key {
            self.tables.computed.insert(key, k);
        }
        self.tables.consts.push(ConstVal {
            attr: None,
            tensor: Some(Arc::new(tensor)),
            concat: None,
            ty,
        });
        (self.tables.consts.len() - 1) as u32
    }

    /// Adds the concatenation of constants `parts` on `axis` (of type `ty`), computed lazily.
    pub fn add_concat(&mut self, parts: Vec<u32>, axis: i64, ty: u32) -> u32 {
        let key = ConstKey::Concat(parts.clone(), axis);
        if let Some(&k) = self.tables.computed.get(&key) {
            return k;
        }
        self.tables
            .computed
            .insert(key, self.tables.consts.len() as u32);
        self.tables.consts.push(ConstVal {
            attr: None,
            tensor: None,
            concat: Some((parts, axis)),
            ty,
        });
        (self.tables.consts.len() - 1) as u32
    }
}

impl Analysis<GNode> for GraphAnalysis {
    type Data = ClassData;

    fn make(egraph: &mut egg::EGraph<GNode, Self>, enode: &GNode, _id: Id) -> ClassData {
        match enode.kind {
            Kind::Proj(i) => {
                let tuple = egraph[enode.children[0]].data.ty;
                let ty = egraph.analysis.tables.types[tuple as usize][i as usize].clone();
                ClassData {
                    ty: egraph.analysis.intern_ty(ty),
                    konst: None,
                }
            }
            Kind::Const(k) => ClassData {
                ty: enode.ty,
                konst: Some(k),
            },
            _ => ClassData {
                ty: enode.ty,
                konst: None,
            },
        }
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        // Rules only union classes of the same type, so only the constant can be new.
        if a.konst.is_none() && b.konst.is_some() {
            a.konst = b.konst;
            return DidMerge(true, false);
        }
        DidMerge(false, a.konst.is_some() && b.konst.is_none())
    }
}

/// The e-graph of a function.
pub type Graph = egg::EGraph<GNode, GraphAnalysis>;

/// The type of an e-class, when it is a single type.
pub fn class_ty(g: &Graph, id: Id) -> Option<&Ty> {
    g.analysis.single(g[id].data.ty)
}

/// The decoded value of an e-class that is a constant.
pub fn class_const(g: &Graph, id: Id) -> Option<Arc<Tensor>> {
    let k = g[id].data.konst?;
    g.analysis.tables.consts[k as usize].tensor.clone()
}
