//! The [`Context`]: owner of the [`Uniquer`] (interned strings, types and attributes), of all IR
//! objects, and of the registry of dialects.
//!
//! Architecture invariant: IR objects are referred to by typed `u32` handles ([`Op`], [`Block`],
//! [`Region`], [`Value`]) into arenas owned by the context; nothing holds Rust references into the
//! context, so mutation needs only `&mut Context` and there is no interior mutability.
//!
//! [`Op`]: crate::Op
//! [`Block`]: crate::Block
//! [`Region`]: crate::Region
//! [`Value`]: crate::Value

use crate::ir::{BlockData, OpData, RegionData, ValueData};
use crate::registry::Registry;
use crate::uniquer::Uniquer;

/// Blobs of a dialect resource section (`{-# dialect_resources: { builtin: { k: "0x..." } } #-}`),
/// and external resources kept as text so that they print back unchanged.
#[derive(Debug, Default, Clone)]
pub struct Resources {
    /// `dialect_resources`: dialect name to (key, value) entries in file order.
    pub dialect: indexmap::IndexMap<String, indexmap::IndexMap<String, ResourceValue>>,
    /// `external_resources`: kept the same way.
    pub external: indexmap::IndexMap<String, indexmap::IndexMap<String, ResourceValue>>,
}

/// The value of one resource entry.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceValue {
    /// A hex blob `"0x..."`: the first four bytes are the alignment, the rest the data.
    Blob {
        /// Alignment in bytes.
        alignment: u32,
        /// Data bytes.
        data: Vec<u8>,
    },
    /// A string value.
    String(String),
    /// A boolean value.
    Bool(bool),
}

/// Owner of everything: the uniquer (interned strings, types, attributes), the IR arenas, the
/// dialect registry.
///
/// A context dereferences to its [`Uniquer`], so every interning helper (`ctx.i32_type()`,
/// `ctx.int_attr(..)`) is available on it directly.
pub struct Context {
    uniq: Uniquer,
    pub(crate) ops: Vec<OpData>,
    pub(crate) blocks: Vec<BlockData>,
    pub(crate) regions: Vec<RegionData>,
    pub(crate) values: Vec<ValueData>,
    /// Registered dialects and their ops.
    pub registry: Registry,
    /// Whether ops of unregistered dialects are accepted (`--allow-unregistered-dialect`).
    pub allow_unregistered: bool,
    /// Resource blobs referenced by `dense_resource` attributes.
    pub resources: Resources,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("ops", &self.ops.len())
            .field("uniquer", &self.uniq)
            .finish()
    }
}

impl Context {
    /// A context with only the `builtin` dialect registered.
    pub fn new() -> Context {
        let mut ctx = Context {
            uniq: Uniquer::new(),
            ops: Vec::new(),
            blocks: Vec::new(),
            regions: Vec::new(),
            values: Vec::new(),
            registry: Registry::default(),
            allow_unregistered: false,
            resources: Resources::default(),
        };
        crate::builtin::register(&mut ctx);
        ctx
    }

    /// The uniquer, for code that builds types and attributes but must not touch the IR.
    pub fn uniquer(&mut self) -> &mut Uniquer {
        &mut self.uniq
    }

    /// Number of operation slots ever created (live or erased), for statistics.
    pub fn num_op_slots(&self) -> usize {
        self.ops.len()
    }
}

impl std::ops::Deref for Context {
    type Target = Uniquer;
    fn deref(&self) -> &Uniquer {
        &self.uniq
    }
}

impl std::ops::DerefMut for Context {
    fn deref_mut(&mut self) -> &mut Uniquer {
        &mut self.uniq
    }
}
