//! The ONNX importer: a `ModelProto` becomes a `builtin.module` holding
//! `func.func @main_graph`, whose body holds one `graph.*` op per ONNX node.
//!
//! Errors never panic: a truncated or garbled file, a missing initializer, a dangling name, a
//! cycle, an unknown op, a missing or mistyped attribute each give a [`Diagnostic`] that names
//! the node, its op type and the name concerned; the importer goes on after an error to report as
//! many as it can at once.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use nart_dialect_graph::infer;
use nart_dialect_graph::schema::{AttrKind, Form, OnnxSchema};
use nart_ir::{
    Attr, AttrData, Block, Context, DenseArrayData, DenseData, Diagnostic, LocData, Location,
    NamedAttr, Op, OperationState, Type, TypeData, Value, DYNAMIC,
};
use nart_onnx_proto::{
    attribute_proto::AttributeType, tensor_shape_proto, type_proto, AttributeProto, FunctionProto,
    GraphProto, ModelProto, NodeProto, TensorProto, TypeProto,
};

use crate::upgrade;

/// Options of [`import_model_with`].
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Keep unknown ops as placeholder `onnx.<OpType>` ops instead of failing
    /// (`--allow-unregistered-dialect`).
    pub allow_unknown_ops: bool,
}

/// Reads and imports an `.onnx` file; external data is looked up beside it.
pub fn import_file(ctx: &mut Context, path: &Path) -> Result<Op, Vec<Diagnostic>> {
    import_file_with(ctx, path, &ImportOptions::default())
}

/// [`import_file`] with options.
pub fn import_file_with(
    ctx: &mut Context,
    path: &Path,
    opts: &ImportOptions,
) -> Result<Op, Vec<Diagnostic>> {
    let bytes = std::fs::read(path).map_err(|e| {
        let loc = ctx.file_loc(&path.display().to_string(), 0, 0);
        vec![Diagnostic::error(
            loc,
            format!("cannot read '{}': {e}", path.display()),
        )]
    })?;
    // Decoding from the slice copies each tensor's bytes through a temporary (prost's
    // `copy_to_bytes`), which decoding from an owned `Bytes` buffer would skip. Measured, the
    // skip costs more than it saves: `nart quantize` on ResNet-18 with 64 calibration samples
    // took 200k page faults and 0.2 s more system time than with the temporaries (90k),
    // most likely because freeing large temporaries raises glibc's threshold for serving
    // large blocks from mmap, so that later runs reuse freed memory.
    import_model_with(ctx, &bytes, Some(path), opts)
}

fn undecodable(file_loc: Location, e: nart_onnx_proto::DecodeError) -> Vec<Diagnostic> {
    vec![Diagnostic::error(
        file_loc,
        format!("cannot decode the ONNX model: {e}"),
    )]
}

/// Imports the bytes of an `.onnx` file. `model_path` names the file in locations and locates
/// external data files.
pub fn import_model(
    ctx: &mut Context,
    bytes: &[u8],
    model_path: Option<&Path>,
) -> Result<Op, Vec<Diagnostic>> {
    import_model_with(ctx, bytes, model_path, &ImportOptions::default())
}

/// [`import_model`] with options.
pub fn import_model_with(
    ctx: &mut Context,
    bytes: &[u8],
    model_path: Option<&Path>,
    opts: &ImportOptions,
) -> Result<Op, Vec<Diagnostic>> {
    crate::register_dialects(ctx);
    let file = model_path.map_or_else(|| "<onnx>".to_string(), |p| p.display().to_string());
    let file_loc = ctx.file_loc(&file, 0, 0);
    let model = nart_onnx_proto::decode_model(bytes).map_err(|e| undecodable(file_loc, e))?;
    import_decoded(ctx, model, file_loc, model_path, opts)
}

/// Imports a decoded model into a context with the graph and func dialects registered;
/// `file_loc` is the model file's location.
fn import_decoded(
    ctx: &mut Context,
    mut model: ModelProto,
    file_loc: Location,
    model_path: Option<&Path>,
    opts: &ImportOptions,
) -> Result<Op, Vec<Diagnostic>> {
    // The main graph's initializer bytes move into the constants (Importer::taken).
    let taken = model.graph.as_mut().map_or_else(Vec::new, |g| {
        g.initializer
            .iter_mut()
            .map(|t| t.raw_data.take())
            .collect()
    });
    let mut imp = Importer {
        file_loc,
        model_dir: model_path.map(|p| p.parent().map(Path::to_path_buf).unwrap_or_default()),
        functions: HashMap::new(),
        errors: Vec::new(),
        unknown: Vec::new(),
        none_cache: HashMap::new(),
        value_info: HashMap::new(),
        depth: 0,
        poisoned: HashSet::new(),
        guessed: HashSet::new(),
        taken,
    };
    let module = imp.import(ctx, &model);
    let mut errors = imp.errors;
    if !opts.allow_unknown_ops {
        errors.extend(imp.unknown);
    }
    if let (Some(m), true) = (module, errors.is_empty()) {
        let saved = ctx.allow_unregistered;
        ctx.allow_unregistered = saved || opts.allow_unknown_ops;
        let res = nart_ir::verify::verify(ctx, m);
        ctx.allow_unregistered = saved;
        res?;
        return Ok(m);
    }
    if errors.is_empty() {
        errors.push(Diagnostic::error(file_loc, "the ONNX model has no graph"));
    }
    Err(errors)
}

/// Names visible while importing a graph: innermost scope last.
type Scopes = Vec<HashMap<String, Value>>;

/// Attributes a function body's `ref_attr_name`s resolve against.
type AttrEnv = HashMap<String, AttributeProto>;

struct Importer<'m> {
    file_loc: Location,
    model_dir: Option<PathBuf>,
    functions: HashMap<(String, String), &'m FunctionProto>,
    errors: Vec<Diagnostic>,
    unknown: Vec<Diagnostic>,
    none_cache: HashMap<Block, Value>,
    value_info: HashMap<String, TypeProto>,
    depth: usize,
    /// Names whose producer failed to import: their users fail silently.
    poisoned: HashSet<String>,
    /// Values whose type is a guess (no inference rule, no value_info): declared types win.
    guessed: HashSet<Value>,
    /// The `raw_data` of the main graph's initializers, by position, taken out of the decoded
    /// model so that each moves into its constant without a copy; the main graph's
    /// initializers are read through [`Importer::raw_of`].
    taken: Vec<Option<Vec<u8>>>,
}

/// How a graph's nodes are being imported.
struct GraphCx<'a> {
    opset: i64,
    attr_env: Option<&'a AttrEnv>,
    /// Prefix for node names in locations (inlined functions).
    prefix: String,
}

fn lookup(scopes: &Scopes, name: &str) -> Option<Value> {
    scopes.iter().rev().find_map(|s| s.get(name).copied())
}

fn attr_kind_name(k: AttrKind) -> &'static str {
    match k {
        AttrKind::Int => "INT",
        AttrKind::Float => "FLOAT",
        AttrKind::String => "STRING",
        AttrKind::Ints => "INTS",
        AttrKind::Floats => "FLOATS",
        AttrKind::Strings => "STRINGS",
        AttrKind::Tensor => "TENSOR",
        AttrKind::SparseTensor => "SPARSE_TENSOR",
        AttrKind::TypeProto => "TYPE_PROTO",
        AttrKind::TypeProtos => "TYPE_PROTOS",
        AttrKind::Tensors => "TENSORS",
        AttrKind::SparseTensors => "SPARSE_TENSORS",
        AttrKind::Graph => "GRAPH",
        AttrKind::Graphs => "GRAPHS",
    }
}

/// The kind of an attribute as written: its `type` field, or the field that is set.
fn proto_kind(a: &AttributeProto) -> Option<AttrKind> {
    let by_type = match a.r#type.and_then(|t| AttributeType::try_from(t).ok()) {
        Some(AttributeType::Float) => Some(AttrKind::Float),
        Some(AttributeType::Int) => Some(AttrKind::Int),
        Some(AttributeType::String) => Some(AttrKind::String),
        Some(AttributeType::Tensor) => Some(AttrKind::Tensor),
        Some(AttributeType::Graph) => Some(AttrKind::Graph),
        Some(AttributeType::SparseTensor) => Some(AttrKind::SparseTensor),
        Some(AttributeType::TypeProto) => Some(AttrKind::TypeProto),
        Some(AttributeType::Floats) => Some(AttrKind::Floats),
        Some(AttributeType::Ints) => Some(AttrKind::Ints),
        Some(AttributeType::Strings) => Some(AttrKind::Strings),
        Some(AttributeType::Tensors) => Some(AttrKind::Tensors),
        Some(AttributeType::Graphs) => Some(AttrKind::Graphs),
        Some(AttributeType::SparseTensors) => Some(AttrKind::SparseTensors),
        Some(AttributeType::TypeProtos) => Some(AttrKind::TypeProtos),
        _ => None,
    };
    if by_type.is_some() {
        return by_type;
    }
    if a.f.is_some() {
        Some(AttrKind::Float)
    } else if a.i.is_some() {
        Some(AttrKind::Int)
    } else if a.s.is_some() {
        Some(AttrKind::String)
    } else if a.t.is_some() {
        Some(AttrKind::Tensor)
    } else if a.g.is_some() {
        Some(AttrKind::Graph)
    } else if !a.floats.is_empty() {
        Some(AttrKind::Floats)
    } else if !a.ints.is_empty() {
        Some(AttrKind::Ints)
    } else if !a.strings.is_empty() {
        Some(AttrKind::Strings)
    } else {
        None
    }
}

/// Names a subgraph uses but does not define (they come from enclosing scopes).
fn free_names(g: &GraphProto, out: &mut HashSet<String>) {
    let mut defined: HashSet<&str> = HashSet::new();
    for i in &g.input {
        defined.insert(i.name());
    }
    for t in &g.initializer {
        defined.insert(t.name());
    }
    for n in &g.node {
        for o in &n.output {
            defined.insert(o);
        }
    }
    for n in &g.node {
        for i in &n.input {
            if !i.is_empty() && !defined.contains(i.as_str()) {
                out.insert(i.clone());
            }
        }
        for a in &n.attribute {
            let mut inner = HashSet::new();
            for sub in a.g.iter().chain(a.graphs.iter()) {
                free_names(sub, &mut inner);
            }
            out.extend(inner.into_iter().filter(|x| !defined.contains(x.as_str())));
        }
    }
    for o in &g.output {
        if !defined.contains(o.name()) {
            out.insert(o.name().to_string());
        }
    }
}

/// Orders nodes so that producers come before users; on a cycle, the index of a node in it.
fn topo_order(nodes: &[NodeProto]) -> Result<Vec<usize>, usize> {
    let mut producer: HashMap<&str, usize> = HashMap::new();
    for (k, n) in nodes.iter().enumerate() {
        for o in &n.output {
            if !o.is_empty() {
                producer.entry(o.as_str()).or_insert(k);
            }
        }
    }
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    let mut indeg = vec![0usize; nodes.len()];
    for (k, n) in nodes.iter().enumerate() {
        let mut names: HashSet<String> =
            n.input.iter().filter(|i| !i.is_empty()).cloned().collect();
        for a in &n.attribute {
            for g in a.g.iter().chain(a.graphs.iter()) {
                free_names(g, &mut names);
            }
        }
        let mut deps: Vec<usize> = names
            .iter()
            .filter_map(|i| producer.get(i.as_str()).copied())
            .collect();
        deps.sort_unstable();
        deps.dedup();
        for d in deps {
            users[d].push(k);
            indeg[k] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..nodes.len())
        .filter(|&k| indeg[k] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(nodes.len());
    while let Some(Reverse(k)) = ready.pop() {
        order.push(k);
        for &u in &users[k] {
            indeg[u] -= 1;
            if indeg[u] == 0 {
                ready.push(Reverse(u));
            }
        }
    }
    if order.len() != nodes.len() {
        let stuck = (0..nodes.len()).find(|k| indeg[*k] > 0).unwrap_or(0);
        return Err(stuck);
    }
    Ok(order)
}

/// Whether a value of the static type `ty` may stand where `declared` is expected: the same
/// element type, and the same dims where `declared` has a rank and static dims.
fn fits(ctx: &Context, ty: Type, declared: Type) -> bool {
    match (ctx.type_data(ty), ctx.type_data(declared)) {
        (
            TypeData::RankedTensor { shape, elem, .. },
            TypeData::RankedTensor {
                shape: want,
                elem: want_elem,
                ..
            },
        ) => {
            elem == want_elem
                && shape.len() == want.len()
                && shape
                    .iter()
                    .zip(want)
                    .all(|(&d, &w)| w == DYNAMIC || d == w)
        }
        (TypeData::RankedTensor { elem, .. }, TypeData::UnrankedTensor { elem: want }) => {
            elem == want
        }
        _ => false,
    }
}

/// The dictionary `dict` with `name = value` added.
fn with_entry(ctx: &mut Context, dict: Attr, name: &str, value: Attr) -> Attr {
    let mut entries = match ctx.attr_data(dict) {
        AttrData::Dictionary(e) => e.clone(),
        _ => Vec::new(),
    };
    let name = ctx.ident(name);
    entries.push(NamedAttr { name, value });
    ctx.dict_attr(entries)
}

fn node_label(n: &NodeProto) -> String {
    let name = if n.name().is_empty() {
        n.output.first().map_or("", |s| s.as_str())
    } else {
        n.name()
    };
    if n.domain().is_empty() || n.domain() == "ai.onnx" {
        format!("node '{name}' ({})", n.op_type())
    } else {
        format!("node '{name}' ({}, domain '{}')", n.op_type(), n.domain())
    }
}

impl<'m> Importer<'m> {
    fn error(&mut self, loc: Location, msg: impl Into<String>) {
        self.errors.push(Diagnostic::error(loc, msg));
    }

    fn name_loc(&self, ctx: &mut Context, name: &str) -> Location {
        if name.is_empty() {
            return self.file_loc;
        }
        let name = ctx.ident(name);
        ctx.loc(LocData::Name {
            name,
            child: Some(self.file_loc),
        })
    }

    fn import(&mut self, ctx: &mut Context, model: &'m ModelProto) -> Option<Op> {
        let graph = model.graph.as_ref()?;
        let mut opset = None;
        for o in &model.opset_import {
            if o.domain().is_empty() || o.domain() == "ai.onnx" {
                opset = Some(o.version());
            }
        }
        let opset = match opset {
            Some(v) => v,
            None if model.opset_import.is_empty() => {
                self.error(self.file_loc, "the model imports no opset");
                return None;
            }
            None => nart_dialect_graph::TARGET_OPSET,
        };
        // Opsets above the target are read with the target opset's semantics.
        for f in &model.functions {
            self.functions
                .insert((f.domain().to_string(), f.name().to_string()), f);
        }
        let module = nart_ir::builtin::create_module(ctx, self.file_loc);
        self.set_metadata(ctx, module, model, opset);

        // Types known for intermediate values.
        for vi in graph.value_info.iter().chain(graph.output.iter()) {
            if let Some(t) = &vi.r#type {
                self.value_info.insert(vi.name().to_string(), t.clone());
            }
        }

        self.check_unique_names(ctx, graph);
        let inits: HashMap<&str, (usize, &TensorProto)> = graph
            .initializer
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name(), (i, t)))
            .collect();
        // A graph input that is also an initializer overrides it, and the initializer is the
        // input's default value (ONNX IR version 4 and later; before, every initializer had to be
        // listed as an input, and ONNX Runtime reads them as constants, as nart does). Such
        // inputs come after the others, so that `input_N` test data numbers the others as ONNX
        // Runtime does, and they may be left out.
        let overridable = model.ir_version.is_none_or(|v| v >= 4);
        let (plain, defaulted): (Vec<_>, Vec<_>) = graph
            .input
            .iter()
            .filter(|vi| overridable || !inits.contains_key(vi.name()))
            .partition(|vi| !inits.contains_key(vi.name()));
        let mut overridden: HashSet<String> = HashSet::new();
        let mut arg_types = Vec::new();
        let mut arg_attrs = Vec::new();
        let mut arg_names = Vec::new();
        for vi in plain.into_iter().chain(defaulted) {
            let loc = self.name_loc(ctx, vi.name());
            let default = inits.get(vi.name()).copied();
            if default.is_some() {
                overridden.insert(vi.name().to_string());
            }
            let Some(tp) = vi.r#type.as_ref() else {
                self.error(loc, format!("graph input '{}' has no type", vi.name()));
                continue;
            };
            match self.convert_type(ctx, tp) {
                Ok((ty, dims)) => {
                    let mut attrs = self.io_attrs(ctx, vi.name(), &dims);
                    if let Some((i, t)) = default {
                        let raw = self.raw_of(Some(i), t);
                        match self.default_value(ctx, t, raw, ty) {
                            Ok(d) => attrs = with_entry(ctx, attrs, "onnx.default", d),
                            Err(m) => {
                                self.error(loc, format!("graph input '{}': {m}", vi.name()));
                                self.poisoned.insert(vi.name().to_string());
                                continue;
                            }
                        }
                    }
                    arg_types.push(ty);
                    arg_attrs.push(attrs);
                    arg_names.push(vi.name().to_string());
                }
                Err(m) => self.error(loc, format!("graph input '{}': {m}", vi.name())),
            }
        }
        let floc = self.name_loc(ctx, graph.name());
        let (func, entry) = nart_dialect_func::build_func(ctx, "main_graph", &arg_types, &[], floc);
        ctx.append_op(nart_ir::builtin::module_body(ctx, module), func);
        let mut scope = HashMap::new();
        for (k, name) in arg_names.iter().enumerate() {
            scope.insert(name.clone(), ctx.block_args(entry)[k]);
        }
        let mut scopes: Scopes = vec![scope];
        let gcx = GraphCx {
            opset,
            attr_env: None,
            prefix: String::new(),
        };
        self.import_initializers(ctx, graph, true, entry, &mut scopes, &overridden);
        self.import_nodes(ctx, &graph.node, entry, &mut scopes, &gcx);

        let mut results = Vec::new();
        let mut res_types = Vec::new();
        let mut res_attrs = Vec::new();
        for vi in &graph.output {
            let loc = self.name_loc(ctx, vi.name());
            let Some(v) = lookup(&scopes, vi.name()) else {
                if self.poisoned.contains(vi.name()) {
                    continue;
                }
                self.error(
                    loc,
                    format!("graph output '{}' is not produced by any node", vi.name()),
                );
                continue;
            };
            let mut dims = Vec::new();
            if let Some(tp) = vi.r#type.as_ref() {
                if let Ok((ty, d)) = self.convert_type(ctx, tp) {
                    self.refine_value(ctx, v, ty);
                    dims = d;
                }
            }
            results.push(v);
            res_types.push(ctx.value_type(v));
            res_attrs.push(self.io_attrs(ctx, vi.name(), &dims));
        }
        let ret = nart_dialect_func::build_return(ctx, &results, floc);
        ctx.append_op(entry, ret);
        let fty = ctx.function_type(arg_types, res_types);
        let fty = ctx.type_attr(fty);
        ctx.set_prop(func, "function_type", fty);
        let a = ctx.array_attr(arg_attrs);
        ctx.set_prop(func, "arg_attrs", a);
        let r = ctx.array_attr(res_attrs);
        ctx.set_prop(func, "res_attrs", r);
        Some(module)
    }

    /// Reports every name listed twice among a graph's inputs, or among its initializers, which
    /// ONNX Runtime rejects too (a node output defined twice is caught where it is defined).
    fn check_unique_names(&mut self, ctx: &mut Context, graph: &GraphProto) {
        let mut seen: HashSet<&str> = HashSet::new();
        for vi in &graph.input {
            if !seen.insert(vi.name()) {
                let loc = self.name_loc(ctx, vi.name());
                self.error(
                    loc,
                    format!(
                        "graph '{}' lists input '{}' more than once",
                        graph.name(),
                        vi.name()
                    ),
                );
            }
        }
        let mut seen: HashSet<&str> = HashSet::new();
        for t in &graph.initializer {
            if !seen.insert(t.name()) {
                let loc = self.name_loc(ctx, t.name());
                self.error(
                    loc,
                    format!(
                        "graph '{}' has more than one initializer named '{}'",
                        graph.name(),
                        t.name()
                    ),
                );
            }
        }
    }

    /// The default value of a graph input from the initializer of the same name, which must fit
    /// the input's declared type.
    fn default_value(
        &mut self,
        ctx: &mut Context,
        t: &TensorProto,
        raw: Option<Vec<u8>>,
        declared: Type,
    ) -> Result<Attr, String> {
        let (ty, data) = crate::tensor::tensor_to_dense_raw(ctx, t, raw, self.model_dir.as_deref())
            .map_err(|e| format!("its initializer: {e}"))?;
        if !fits(ctx, ty, declared) {
            return Err(format!(
                "its initializer has type {}, which does not fit the declared {}",
                nart_ir::printer::type_to_string(ctx, ty),
                nart_ir::printer::type_to_string(ctx, declared)
            ));
        }
        Ok(ctx.intern_attr(AttrData::DenseElements { ty, data }))
    }

    /// `{onnx.name = "x", graph.dim_names = ["N", "", ...]}` for a graph input or output.
    fn io_attrs(&self, ctx: &mut Context, name: &str, dims: &[String]) -> Attr {
        let mut entries = Vec::new();
        let n = ctx.ident("onnx.name");
        let v = ctx.string_attr(name);
        entries.push(NamedAttr { name: n, value: v });
        if dims.iter().any(|d| !d.is_empty()) {
            let items: Vec<Attr> = dims.iter().map(|d| ctx.string_attr(d)).collect();
            let n = ctx.ident("graph.dim_names");
            let v = ctx.array_attr(items);
            entries.push(NamedAttr { name: n, value: v });
        }
        ctx.dict_attr(entries)
    }

    fn set_metadata(&self, ctx: &mut Context, module: Op, model: &ModelProto, opset: i64) {
        let set_str = |ctx: &mut Context, key: &str, val: Option<&str>| {
            if let Some(v) = val.filter(|v| !v.is_empty()) {
                let a = ctx.string_attr(v);
                ctx.set_attr(module, key, a);
            }
        };
        set_str(ctx, "onnx.producer_name", model.producer_name.as_deref());
        set_str(
            ctx,
            "onnx.producer_version",
            model.producer_version.as_deref(),
        );
        set_str(ctx, "onnx.domain", model.domain.as_deref());
        set_str(ctx, "onnx.doc_string", model.doc_string.as_deref());
        if let Some(g) = &model.graph {
            set_str(ctx, "onnx.graph_name", g.name.as_deref());
        }
        if let Some(v) = model.ir_version {
            let a = ctx.i64_attr(v);
            ctx.set_attr(module, "onnx.ir_version", a);
        }
        if let Some(v) = model.model_version {
            let a = ctx.i64_attr(v);
            ctx.set_attr(module, "onnx.model_version", a);
        }
        let a = ctx.i64_attr(opset);
        ctx.set_attr(module, "onnx.source_opset", a);
        let mut opsets = Vec::new();
        for o in &model.opset_import {
            let name = ctx.ident(if o.domain().is_empty() {
                "ai.onnx"
            } else {
                o.domain()
            });
            let value = ctx.i64_attr(o.version());
            opsets.push(NamedAttr { name, value });
        }
        let d = ctx.dict_attr(opsets);
        ctx.set_attr(module, "onnx.opset_import", d);
        if !model.metadata_props.is_empty() {
            let mut props = Vec::new();
            for p in &model.metadata_props {
                let name = ctx.ident(p.key());
                let value = ctx.string_attr(p.value());
                props.push(NamedAttr { name, value });
            }
            let d = ctx.dict_attr(props);
            ctx.set_attr(module, "onnx.metadata_props", d);
        }
    }

    /// A type proto as a builtin type, with the symbolic dim names (empty for static dims).
    fn convert_type(
        &self,
        ctx: &mut Context,
        tp: &TypeProto,
    ) -> Result<(Type, Vec<String>), String> {
        match &tp.value {
            Some(type_proto::Value::TensorType(t)) => {
                let code = t.elem_type();
                let elem = nart_dialect_graph::constraints::elem_type(ctx, code)
                    .ok_or_else(|| format!("unknown element type code {code}"))?;
                let Some(shape) = &t.shape else {
                    return Ok((ctx.intern_type(TypeData::UnrankedTensor { elem }), vec![]));
                };
                let mut dims = Vec::new();
                let mut names = Vec::new();
                for d in &shape.dim {
                    match &d.value {
                        Some(tensor_shape_proto::dimension::Value::DimValue(v)) if *v >= 0 => {
                            dims.push(*v);
                            names.push(String::new());
                        }
                        Some(tensor_shape_proto::dimension::Value::DimValue(v)) => {
                            return Err(format!("negative dimension {v}"))
                        }
                        Some(tensor_shape_proto::dimension::Value::DimParam(p)) => {
                            dims.push(DYNAMIC);
                            names.push(p.clone());
                        }
                        None => {
                            dims.push(DYNAMIC);
                            names.push(String::new());
                        }
                    }
                }
                Ok((ctx.tensor_type(dims, elem), names))
            }
            Some(type_proto::Value::SequenceType(s)) => {
                let inner = match s.elem_type.as_ref() {
                    Some(e) => self.convert_type(ctx, e)?.0,
                    None => return Err("sequence type without element type".into()),
                };
                Ok((nart_dialect_graph::types::seq_type(ctx, inner), vec![]))
            }
            Some(type_proto::Value::OptionalType(s)) => {
                let inner = match s.elem_type.as_ref() {
                    Some(e) => self.convert_type(ctx, e)?.0,
                    None => return Err("optional type without element type".into()),
                };
                Ok((nart_dialect_graph::types::opt_type(ctx, inner), vec![]))
            }
            Some(type_proto::Value::SparseTensorType(t)) => {
                let code = t.elem_type();
                let elem = nart_dialect_graph::constraints::elem_type(ctx, code)
                    .ok_or_else(|| format!("unknown element type code {code}"))?;
                Ok((ctx.intern_type(TypeData::UnrankedTensor { elem }), vec![]))
            }
            Some(_) => Err("map and opaque types are not supported".into()),
            None => Err("the type is empty".into()),
        }
    }

    /// Makes `v`'s type at least as precise as `ty` (value_info and graph outputs).
    fn refine_value(&self, ctx: &mut Context, v: Value, ty: Type) {
        let cur = ctx.value_type(v);
        if cur == ty {
            return;
        }
        if self.guessed.contains(&v) {
            ctx.set_value_type(v, ty);
            return;
        }
        let shaped = match ctx.type_data(ty).clone() {
            TypeData::RankedTensor { shape, elem, .. } => infer::Shaped {
                elem: ctx.type_data(elem).clone(),
                shape: Some(shape),
            },
            TypeData::UnrankedTensor { elem } => infer::Shaped {
                elem: ctx.type_data(elem).clone(),
                shape: None,
            },
            _ => return,
        };
        if !infer::compatible(ctx, &shaped, cur) {
            // The declared type contradicts what the graph computes; keep the computed one.
            if !matches!(
                ctx.type_data(cur),
                TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
            ) {
                ctx.set_value_type(v, ty);
            }
            return;
        }
        let merged = infer::refine(ctx, cur, &shaped);
        ctx.set_value_type(v, merged);
    }

    fn none_value(&mut self, ctx: &mut Context, block: Block) -> Value {
        if let Some(&v) = self.none_cache.get(&block) {
            return v;
        }
        let ty = ctx.none_type();
        let st = OperationState::new(ctx, "graph.none", self.file_loc).results(&[ty]);
        let op = ctx.create_op(st);
        ctx.prepend_op(block, op);
        let v = ctx.result(op, 0);
        self.none_cache.insert(block, v);
        v
    }

    /// The `raw_data` of `t`: for initializer `main` of the main graph, the bytes taken out
    /// of it (once); for any other tensor, a copy of its field.
    fn raw_of(&mut self, main: Option<usize>, t: &TensorProto) -> Option<Vec<u8>> {
        match main {
            Some(i) => self.taken.get_mut(i).and_then(Option::take),
            None => t.raw_data.clone(),
        }
    }

    /// Imports the initializers of `graph` (the main graph when `main`) but those named in
    /// `overridden` (by graph inputs).
    fn import_initializers(
        &mut self,
        ctx: &mut Context,
        graph: &GraphProto,
        main: bool,
        block: Block,
        scopes: &mut Scopes,
        overridden: &HashSet<String>,
    ) {
        for (i, t) in graph.initializer.iter().enumerate() {
            if !overridden.contains(t.name()) {
                let raw = self.raw_of(main.then_some(i), t);
                self.add_constant_tensor(ctx, t, raw, t.name(), block, scopes);
            }
        }
        for st in &graph.sparse_initializer {
            let name = st.values.as_ref().map_or("", |v| v.name()).to_string();
            let loc = self.name_loc(ctx, &name);
            match self.densify(st) {
                Ok(mut t) => {
                    let raw = t.raw_data.take();
                    self.add_constant_tensor(ctx, &t, raw, &name, block, scopes)
                }
                Err(m) => self.error(loc, format!("sparse initializer '{name}': {m}")),
            }
        }
    }

    /// A `graph.constant` named `name` for `t`, whose `raw_data` is `raw` (see
    /// [`crate::tensor::tensor_to_dense_raw`]).
    fn add_constant_tensor(
        &mut self,
        ctx: &mut Context,
        t: &TensorProto,
        raw: Option<Vec<u8>>,
        name: &str,
        block: Block,
        scopes: &mut Scopes,
    ) {
        let loc = self.name_loc(ctx, name);
        match crate::tensor::tensor_to_dense_raw(ctx, t, raw, self.model_dir.as_deref()) {
            Ok((ty, data)) => {
                let attr = ctx.intern_attr(AttrData::DenseElements { ty, data });
                let st = OperationState::new(ctx, "graph.constant", loc)
                    .results(&[ty])
                    .prop(ctx, "value", attr);
                let op = ctx.create_op(st);
                ctx.append_op(block, op);
                if let Some(s) = scopes.last_mut() {
                    s.insert(name.to_string(), ctx.result(op, 0));
                }
            }
            Err(e) => self.error(loc, format!("initializer '{name}': {e}")),
        }
    }

    /// A sparse tensor as a dense `TensorProto` (raw data).
    fn densify(&self, st: &nart_onnx_proto::SparseTensorProto) -> Result<TensorProto, String> {
        let values = st.values.as_ref().ok_or("no values")?;
        let indices = st.indices.as_ref().ok_or("no indices")?;
        let code = values.data_type();
        let width = crate::tensor::code_bits(code)
            .filter(|b| *b >= 8)
            .ok_or("unsupported element type")? as usize
            / 8;
        let count = crate::tensor::element_count(&st.dims).map_err(|e| e.to_string())?;
        if count > (1 << 28) {
            return Err("the dense tensor is too large".into());
        }
        let mut ctx2 = Context::new();
        let (_, vdata) =
            crate::tensor::tensor_to_dense(&mut ctx2, values, self.model_dir.as_deref())
                .map_err(|e| e.to_string())?;
        let (_, idata) =
            crate::tensor::tensor_to_dense(&mut ctx2, indices, self.model_dir.as_deref())
                .map_err(|e| e.to_string())?;
        let (DenseData::Elements(vb), DenseData::Elements(ib)) = (vdata, idata) else {
            return Err("unsupported data".into());
        };
        if indices.data_type() != 7 {
            return Err("indices must be int64".into());
        }
        let idx: Vec<i64> = ib
            .chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        let nnz = vb.len() / width.max(1);
        let rank = st.dims.len();
        let mut out = vec![0u8; count * width];
        for k in 0..nnz {
            let lin = if indices.dims.len() == 2 {
                let mut lin = 0i64;
                for d in 0..rank {
                    let i = *idx.get(k * rank + d).ok_or("too few indices")?;
                    if i < 0 || i >= st.dims[d] {
                        return Err(format!("index {i} is out of range"));
                    }
                    lin = lin * st.dims[d] + i;
                }
                lin
            } else {
                *idx.get(k).ok_or("too few indices")?
            };
            if lin < 0 || lin as usize >= count {
                return Err(format!("index {lin} is out of range"));
            }
            let l = lin as usize;
            out[l * width..(l + 1) * width].copy_from_slice(&vb[k * width..(k + 1) * width]);
        }
        Ok(TensorProto {
            dims: st.dims.clone(),
            data_type: Some(code),
            raw_data: Some(out),
            ..Default::default()
        })
    }

    fn import_nodes(
        &mut self,
        ctx: &mut Context,
        nodes: &[NodeProto],
        block: Block,
        scopes: &mut Scopes,
        gcx: &GraphCx,
    ) {
        let order = match topo_order(nodes) {
            Ok(o) => o,
            Err(k) => {
                let n = &nodes[k];
                let loc = self.name_loc(ctx, &format!("{}{}", gcx.prefix, n.name()));
                self.error(
                    loc,
                    format!("the graph has a cycle through {}", node_label(n)),
                );
                for n in nodes {
                    self.poisoned.extend(n.output.iter().cloned());
                }
                return;
            }
        };
        for k in order {
            let n_errors = self.errors.len();
            self.import_node(ctx, &nodes[k], block, scopes, gcx);
            let failed = self.errors.len() != n_errors
                || nodes[k].input.iter().any(|i| self.poisoned.contains(i));
            if failed {
                for o in &nodes[k].output {
                    if lookup(scopes, o).is_none() {
                        self.poisoned.insert(o.clone());
                    }
                }
            }
        }
    }

    fn import_node(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        block: Block,
        scopes: &mut Scopes,
        gcx: &GraphCx,
    ) {
        let label = node_label(node);
        let loc_name = if node.name().is_empty() {
            node.output.first().cloned().unwrap_or_default()
        } else {
            node.name().to_string()
        };
        let loc = self.name_loc(ctx, &format!("{}{}", gcx.prefix, loc_name));
        // Inputs.
        let mut inputs: Vec<Option<Value>> = Vec::new();
        let mut ok = true;
        for name in &node.input {
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            match lookup(scopes, name) {
                Some(v) => inputs.push(Some(v)),
                None if self.poisoned.contains(name) => ok = false,
                None => {
                    self.error(
                        loc,
                        format!(
                            "{label}: input '{name}' is not defined (no graph input, initializer or node output has this name)"
                        ),
                    );
                    ok = false;
                }
            }
        }
        if !ok {
            return;
        }
        // Attributes, with function references resolved.
        let mut attrs: Vec<AttributeProto> = Vec::new();
        for a in &node.attribute {
            if a.ref_attr_name.as_deref().is_some_and(|r| !r.is_empty()) {
                let r = a.ref_attr_name();
                if let Some(v) = gcx.attr_env.and_then(|env| env.get(r)) {
                    let mut v = v.clone();
                    v.name = a.name.clone();
                    attrs.push(v);
                }
                continue;
            }
            attrs.push(a.clone());
        }
        let domain = node.domain();
        let default_domain = domain.is_empty() || domain == "ai.onnx";
        let local = self
            .functions
            .get(&(domain.to_string(), node.op_type().to_string()))
            .copied();
        if default_domain && node.op_type() == "Constant" {
            self.import_constant_node(ctx, node, &attrs, block, scopes, loc, &label);
            return;
        }
        if let (Some(f), false) = (
            local,
            default_domain && nart_dialect_graph::schema(node.op_type()).is_some(),
        ) {
            self.inline_function(ctx, f, node, &inputs, &attrs, block, scopes, gcx);
            return;
        }
        let schema = if default_domain {
            nart_dialect_graph::schema(node.op_type())
        } else {
            None
        };
        let Some(mut schema) = schema else {
            // ONNX Runtime's quantized contrib ops become the standard nodes they stand for.
            match crate::contrib::expand(node) {
                Some(Ok(nodes)) => {
                    for n in &nodes {
                        self.import_node(ctx, n, block, scopes, gcx);
                    }
                }
                Some(Err(m)) => self.error(loc, format!("{label}: {m}")),
                None => self.import_unknown(ctx, node, &inputs, &attrs, block, scopes, loc, &label),
            }
            return;
        };
        // Upgrade to the target opset.
        let mut view = upgrade::NodeView {
            op_type: node.op_type().to_string(),
            inputs,
            attrs,
            n_outputs: node.output.len(),
        };
        let mut mk = upgrade::ConstMaker { ctx, block, loc };
        if let Err(m) = upgrade::upgrade(&mut view, gcx.opset, &mut mk) {
            self.error(loc, format!("{label}: {m}"));
            return;
        }
        if view.op_type != schema.name {
            match nart_dialect_graph::schema(&view.op_type) {
                Some(s) => schema = s,
                None => return,
            }
        }
        if let Err(m) = crate::checks::check_node(&view.op_type, &view.attrs) {
            self.error(loc, format!("{label}: {m}"));
            return;
        }
        self.build_op(ctx, node, schema, view, block, scopes, gcx, loc, &label);
    }

    #[allow(clippy::too_many_arguments)]
    fn build_op(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        schema: &'static OnnxSchema,
        view: upgrade::NodeView,
        block: Block,
        scopes: &mut Scopes,
        gcx: &GraphCx,
        loc: Location,
        label: &str,
    ) {
        let mut errors = Vec::new();
        // Operands in schema order.
        let mut operands = Vec::new();
        let mut k = 0usize;
        for (fi, fp) in schema.inputs.iter().enumerate() {
            match fp.form {
                Form::Single => {
                    match view.inputs.get(k).copied().flatten() {
                        Some(v) => operands.push(v),
                        None => {
                            errors.push(format!("missing required input #{fi} ('{}')", fp.name))
                        }
                    }
                    k += 1;
                }
                Form::Optional => {
                    let v = match view.inputs.get(k).copied().flatten() {
                        Some(v) => v,
                        None => self.none_value(ctx, block),
                    };
                    operands.push(v);
                    k += 1;
                }
                Form::Variadic => {
                    let rest = view.inputs.get(k..).unwrap_or(&[]);
                    if (rest.len() as u32) < fp.min_arity {
                        errors.push(format!(
                            "needs at least {} '{}' inputs, but has {}",
                            fp.min_arity,
                            fp.name,
                            rest.len()
                        ));
                    }
                    for v in rest.iter().copied() {
                        let v = match v {
                            Some(v) => v,
                            None => self.none_value(ctx, block),
                        };
                        operands.push(v);
                    }
                    k = view.inputs.len();
                }
            }
        }
        let extra = view.inputs.get(k..).unwrap_or(&[]);
        if extra.iter().any(Option::is_some) {
            errors.push(format!(
                "has {} inputs, but '{}' takes at most {}",
                view.inputs.len(),
                schema.name,
                k
            ));
        }
        // Attributes and regions.
        let mut props = Vec::new();
        let mut graphs: HashMap<&str, &GraphProto> = HashMap::new();
        for a in &view.attrs {
            let name = a.name();
            let Some(sa) = schema.attr(name) else {
                errors.push(format!("unknown attribute '{name}'"));
                continue;
            };
            let got = proto_kind(a);
            if got != Some(sa.kind) {
                errors.push(format!(
                    "attribute '{name}' has type {} but {} expects {}",
                    got.map_or("UNDEFINED", attr_kind_name),
                    schema.name,
                    attr_kind_name(sa.kind)
                ));
                continue;
            }
            if sa.kind == AttrKind::Graph {
                if let Some(g) = &a.g {
                    graphs.insert(sa.name, g);
                }
                continue;
            }
            match self.convert_attr(ctx, a, sa.kind) {
                Ok(v) => props.push((sa.name, v)),
                Err(m) => errors.push(format!("attribute '{name}': {m}")),
            }
        }
        for sa in schema.attrs {
            if sa.required && !view.attrs.iter().any(|a| a.name() == sa.name) {
                errors.push(format!("missing required attribute '{}'", sa.name));
            }
        }
        // Results.
        let mut result_names: Vec<Option<String>> = Vec::new();
        let mut optional_result: Vec<bool> = Vec::new();
        let mut o = 0usize;
        for fp in schema.outputs {
            match fp.form {
                Form::Single | Form::Optional => {
                    let n = node.output.get(o).filter(|s| !s.is_empty()).cloned();
                    result_names.push(n);
                    optional_result.push(fp.form == Form::Optional);
                    o += 1;
                }
                Form::Variadic => {
                    for n in node.output.iter().skip(o) {
                        result_names.push(Some(n.clone()).filter(|s| !s.is_empty()));
                        optional_result.push(false);
                    }
                    o = node.output.len().max(o);
                }
            }
        }
        if node.output.len() > o {
            errors.push(format!(
                "has {} outputs, but '{}' produces at most {}",
                node.output.len(),
                schema.name,
                o
            ));
        }
        if !errors.is_empty() {
            for e in errors {
                self.error(loc, format!("{label}: {e}"));
            }
            return;
        }
        // Regions.
        let mut regions = Vec::new();
        for rd in schema.def.regions {
            let region = ctx.create_region();
            if let Some(g) = graphs.get(rd.name) {
                self.import_subgraph(ctx, g, region, &operands, schema.name, scopes, gcx);
            }
            regions.push(region);
        }
        let none_ty = ctx.none_type();
        let mut st = OperationState::new(ctx, schema.def.name, loc)
            .operands(&operands)
            .results(&vec![none_ty; result_names.len()])
            .regions(&regions);
        let container_props = props.clone();
        for (n, v) in props {
            st = st.prop(ctx, n, v);
        }
        let op = ctx.create_op(st);
        ctx.append_op(block, op);
        // Result types: inference, then value_info, then a fallback.
        let inferred = infer::infer(ctx, op).unwrap_or_else(|m| {
            self.error(loc, format!("{label}: {m}"));
            None
        });
        let region_types = self.region_result_types(ctx, op, schema.name, result_names.len());
        let container_types = crate::containers::result_types(
            ctx,
            schema.name,
            &operands,
            &container_props,
            result_names.len(),
        );
        for (r, name) in result_names.iter().enumerate() {
            let res = ctx.result(op, r);
            if name.is_none() && optional_result[r] {
                continue;
            }
            let mut ty = match inferred.as_ref().and_then(|v| v.get(r)).cloned().flatten() {
                Some(s) => infer::intern(ctx, &s),
                None => match container_types
                    .as_ref()
                    .and_then(|c| c.get(r).copied())
                    .or_else(|| region_types.get(r).copied().flatten())
                {
                    Some(t) => t,
                    None => {
                        self.guessed.insert(res);
                        let elem = operands
                            .iter()
                            .map(|v| ctx.value_type(*v))
                            .find_map(|t| match ctx.type_data(t) {
                                TypeData::RankedTensor { elem, .. }
                                | TypeData::UnrankedTensor { elem } => Some(*elem),
                                _ => None,
                            })
                            .unwrap_or_else(|| ctx.f32_type());
                        ctx.intern_type(TypeData::UnrankedTensor { elem })
                    }
                },
            };
            ctx.set_value_type(res, ty);
            if let Some(n) = name {
                if let Some(tp) = self.value_info.get(n).cloned() {
                    if let Ok((vt, _)) = self.convert_type(ctx, &tp) {
                        self.refine_value(ctx, res, vt);
                        ty = ctx.value_type(res);
                    }
                }
            }
            let _ = ty;
        }
        for (r, name) in result_names.iter().enumerate() {
            if let Some(n) = name {
                let v = ctx.result(op, r);
                self.define(ctx, scopes, n, v, loc, label);
            }
        }
    }

    fn define(
        &mut self,
        _ctx: &mut Context,
        scopes: &mut Scopes,
        name: &str,
        v: Value,
        loc: Location,
        label: &str,
    ) {
        let Some(s) = scopes.last_mut() else { return };
        if s.insert(name.to_string(), v).is_some() {
            self.error(
                loc,
                format!("{label}: output '{name}' is defined more than once"),
            );
        }
    }

    /// Result types of If/Loop/Scan taken from their bodies when inference has none.
    fn region_result_types(
        &self,
        ctx: &mut Context,
        op: Op,
        name: &str,
        n: usize,
    ) -> Vec<Option<Type>> {
        let yields = |ctx: &Context, r: usize| -> Vec<Type> {
            let Some(&region) = ctx.regions(op).get(r) else {
                return vec![];
            };
            let Some(&b) = ctx.region_blocks(region).first() else {
                return vec![];
            };
            match ctx.block_last_op(b) {
                Some(t) if ctx.op_name_str(t) == "graph.yield" => {
                    ctx.operands(t).iter().map(|v| ctx.value_type(*v)).collect()
                }
                _ => vec![],
            }
        };
        match name {
            "If" => {
                let y = yields(ctx, 1);
                (0..n).map(|k| y.get(k).copied()).collect()
            }
            "Loop" => {
                let y = yields(ctx, 0);
                let carried = ctx.operands(op).len().saturating_sub(2);
                (0..n)
                    .map(|k| {
                        if k < carried {
                            Some(ctx.value_type(ctx.operand(op, k + 2)))
                        } else {
                            let t = *y.get(k + 1)?;
                            match ctx.type_data(t).clone() {
                                TypeData::RankedTensor { shape, elem, .. } => {
                                    let mut s = vec![DYNAMIC];
                                    s.extend(shape);
                                    Some(ctx.tensor_type(s, elem))
                                }
                                _ => Some(t),
                            }
                        }
                    })
                    .collect()
            }
            _ => vec![None; n],
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn import_subgraph(
        &mut self,
        ctx: &mut Context,
        g: &GraphProto,
        region: nart_ir::Region,
        operands: &[Value],
        op_name: &str,
        scopes: &mut Scopes,
        gcx: &GraphCx,
    ) {
        let loc = self.name_loc(ctx, g.name());
        let mut types = Vec::new();
        for (k, vi) in g.input.iter().enumerate() {
            let declared = vi
                .r#type
                .as_ref()
                .and_then(|tp| self.convert_type(ctx, tp).ok())
                .map(|t| t.0)
                .filter(|t| !matches!(ctx.type_data(*t), TypeData::UnrankedTensor { .. }));
            let ty = match (declared, op_name) {
                (Some(t), _) => t,
                (None, "Loop") if k == 0 => {
                    let e = ctx.i64_type();
                    ctx.tensor_type(vec![], e)
                }
                (None, "Loop") if k == 1 => {
                    let e = ctx.i1_type();
                    ctx.tensor_type(vec![], e)
                }
                (None, "Loop") if k < operands.len() && k >= 2 => ctx.value_type(operands[k]),
                _ => {
                    let f = ctx.f32_type();
                    ctx.intern_type(TypeData::UnrankedTensor { elem: f })
                }
            };
            types.push(ty);
        }
        let block = ctx.create_block(&types, loc);
        ctx.append_block(region, block);
        let mut scope = HashMap::new();
        for (k, vi) in g.input.iter().enumerate() {
            scope.insert(vi.name().to_string(), ctx.block_args(block)[k]);
        }
        for vi in &g.value_info {
            if let Some(t) = &vi.r#type {
                self.value_info.insert(vi.name().to_string(), t.clone());
            }
        }
        scopes.push(scope);
        // A subgraph's inputs always get values from the op, so they override initializers.
        self.check_unique_names(ctx, g);
        let inputs: HashSet<String> = g.input.iter().map(|vi| vi.name().to_string()).collect();
        self.import_initializers(ctx, g, false, block, scopes, &inputs);
        self.import_nodes(ctx, &g.node, block, scopes, gcx);
        let mut outs = Vec::new();
        for vi in &g.output {
            match lookup(scopes, vi.name()) {
                Some(v) => outs.push(v),
                None => {
                    let l = self.name_loc(ctx, vi.name());
                    self.error(
                        l,
                        format!(
                            "subgraph '{}' output '{}' is not produced by any node",
                            g.name(),
                            vi.name()
                        ),
                    );
                }
            }
        }
        scopes.pop();
        let st = OperationState::new(ctx, "graph.yield", loc).operands(&outs);
        let y = ctx.create_op(st);
        ctx.append_op(block, y);
    }

    fn convert_attr(
        &mut self,
        ctx: &mut Context,
        a: &AttributeProto,
        kind: AttrKind,
    ) -> Result<Attr, String> {
        Ok(match kind {
            AttrKind::Int => ctx.i64_attr(a.i()),
            AttrKind::Float => {
                let f = ctx.f32_type();
                ctx.float_attr(f, a.f() as f64)
            }
            AttrKind::String => ctx.intern_attr(AttrData::String {
                value: a.s().to_vec(),
                ty: None,
            }),
            AttrKind::Ints => {
                let e = ctx.i64_type();
                ctx.intern_attr(AttrData::DenseArray {
                    elem: e,
                    data: DenseArrayData::Int(a.ints.clone()),
                })
            }
            AttrKind::Floats => {
                let e = ctx.f32_type();
                ctx.intern_attr(AttrData::DenseArray {
                    elem: e,
                    data: DenseArrayData::Float(
                        a.floats.iter().map(|f| (*f as f64).to_bits()).collect(),
                    ),
                })
            }
            AttrKind::Strings => {
                let items = a
                    .strings
                    .iter()
                    .map(|s| {
                        ctx.intern_attr(AttrData::String {
                            value: s.clone(),
                            ty: None,
                        })
                    })
                    .collect();
                ctx.array_attr(items)
            }
            AttrKind::Tensor => {
                let t = a.t.as_ref().ok_or("no tensor")?;
                let (ty, data) = crate::tensor::tensor_to_dense(ctx, t, self.model_dir.as_deref())
                    .map_err(|e| e.to_string())?;
                ctx.intern_attr(AttrData::DenseElements { ty, data })
            }
            AttrKind::SparseTensor => {
                let st = a.sparse_tensor.as_ref().ok_or("no sparse tensor")?;
                let t = self.densify(st)?;
                let (ty, data) =
                    crate::tensor::tensor_to_dense(ctx, &t, None).map_err(|e| e.to_string())?;
                ctx.intern_attr(AttrData::DenseElements { ty, data })
            }
            AttrKind::Tensors => {
                let mut items = Vec::new();
                for t in &a.tensors {
                    let (ty, data) =
                        crate::tensor::tensor_to_dense(ctx, t, self.model_dir.as_deref())
                            .map_err(|e| e.to_string())?;
                    items.push(ctx.intern_attr(AttrData::DenseElements { ty, data }));
                }
                ctx.array_attr(items)
            }
            AttrKind::TypeProto => {
                let tp = a.tp.as_ref().ok_or("no type")?;
                let ty = self.convert_type(ctx, tp)?.0;
                ctx.type_attr(ty)
            }
            AttrKind::TypeProtos => {
                let mut items = Vec::new();
                for tp in &a.type_protos {
                    let ty = self.convert_type(ctx, tp)?.0;
                    items.push(ctx.type_attr(ty));
                }
                ctx.array_attr(items)
            }
            AttrKind::SparseTensors | AttrKind::Graph | AttrKind::Graphs => {
                return Err("this attribute kind is not supported here".into())
            }
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn import_constant_node(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        attrs: &[AttributeProto],
        block: Block,
        scopes: &mut Scopes,
        loc: Location,
        label: &str,
    ) {
        let Some(a) = attrs.first() else {
            self.error(loc, format!("{label}: needs one value attribute"));
            return;
        };
        if attrs.len() != 1 {
            self.error(loc, format!("{label}: needs exactly one value attribute"));
            return;
        }
        let tensor = match a.name() {
            "value" => {
                a.t.clone()
                    .ok_or("attribute 'value' holds no tensor".to_string())
            }
            "sparse_value" => match a.sparse_tensor.as_ref() {
                Some(st) => self.densify(st),
                None => Err("attribute 'sparse_value' holds no tensor".into()),
            },
            "value_float" => Ok(TensorProto {
                data_type: Some(1),
                float_data: vec![a.f()],
                ..Default::default()
            }),
            "value_floats" => Ok(TensorProto {
                data_type: Some(1),
                dims: vec![a.floats.len() as i64],
                float_data: a.floats.clone(),
                ..Default::default()
            }),
            "value_int" => Ok(TensorProto {
                data_type: Some(7),
                int64_data: vec![a.i()],
                ..Default::default()
            }),
            "value_ints" => Ok(TensorProto {
                data_type: Some(7),
                dims: vec![a.ints.len() as i64],
                int64_data: a.ints.clone(),
                ..Default::default()
            }),
            "value_string" => Ok(TensorProto {
                data_type: Some(8),
                string_data: vec![a.s().to_vec()],
                ..Default::default()
            }),
            "value_strings" => Ok(TensorProto {
                data_type: Some(8),
                dims: vec![a.strings.len() as i64],
                string_data: a.strings.clone(),
                ..Default::default()
            }),
            other => Err(format!("unknown attribute '{other}'")),
        };
        let tensor = match tensor {
            Ok(t) => t,
            Err(m) => {
                self.error(loc, format!("{label}: {m}"));
                return;
            }
        };
        let Some(out) = node.output.first().filter(|s| !s.is_empty()) else {
            self.error(loc, format!("{label}: has no output"));
            return;
        };
        match crate::tensor::tensor_to_dense(ctx, &tensor, self.model_dir.as_deref()) {
            Ok((ty, data)) => {
                let attr = ctx.intern_attr(AttrData::DenseElements { ty, data });
                let st = OperationState::new(ctx, "graph.constant", loc)
                    .results(&[ty])
                    .prop(ctx, "value", attr);
                let op = ctx.create_op(st);
                ctx.append_op(block, op);
                let v = ctx.result(op, 0);
                self.define(ctx, scopes, out, v, loc, label);
            }
            Err(e) => self.error(loc, format!("{label}: attribute '{}': {e}", a.name())),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn import_unknown(
        &mut self,
        ctx: &mut Context,
        node: &NodeProto,
        inputs: &[Option<Value>],
        attrs: &[AttributeProto],
        block: Block,
        scopes: &mut Scopes,
        loc: Location,
        label: &str,
    ) {
        self.unknown.push(Diagnostic::error(
            loc,
            format!("{label}: unknown operator '{}'", node.op_type()),
        ));
        let none = self.none_value(ctx, block);
        let operands: Vec<Value> = inputs.iter().map(|v| v.unwrap_or(none)).collect();
        let mut types = Vec::new();
        for o in &node.output {
            let t = self
                .value_info
                .get(o)
                .cloned()
                .and_then(|tp| self.convert_type(ctx, &tp).ok())
                .map(|t| t.0);
            let t = t.unwrap_or_else(|| {
                let f = ctx.f32_type();
                ctx.intern_type(TypeData::UnrankedTensor { elem: f })
            });
            types.push(t);
        }
        let name = format!("onnx.{}", node.op_type());
        let mut st = OperationState::new(ctx, &name, loc)
            .operands(&operands)
            .results(&types);
        if !node.domain().is_empty() {
            let d = ctx.string_attr(node.domain());
            st = st.attr(ctx, "onnx.domain", d);
        }
        for a in attrs {
            if let Some(kind) = proto_kind(a) {
                if let Ok(v) = self.convert_attr(ctx, a, kind) {
                    st = st.attr(ctx, a.name(), v);
                }
            }
        }
        let op = ctx.create_op(st);
        ctx.append_op(block, op);
        for (r, o) in node.output.iter().enumerate() {
            if !o.is_empty() {
                let v = ctx.result(op, r);
                self.define(ctx, scopes, o, v, loc, label);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn inline_function(
        &mut self,
        ctx: &mut Context,
        f: &'m FunctionProto,
        node: &NodeProto,
        inputs: &[Option<Value>],
        attrs: &[AttributeProto],
        block: Block,
        scopes: &mut Scopes,
        gcx: &GraphCx,
    ) {
        let label = node_label(node);
        let loc = self.name_loc(ctx, node.name());
        if self.depth >= 32 {
            self.error(
                loc,
                format!("{label}: functions nest more than 32 deep (recursive function?)"),
            );
            return;
        }
        let mut env: AttrEnv = HashMap::new();
        for a in &f.attribute_proto {
            env.insert(a.name().to_string(), a.clone());
        }
        for a in attrs {
            env.insert(a.name().to_string(), a.clone());
        }
        let mut fscope = HashMap::new();
        for (k, name) in f.input.iter().enumerate() {
            if let Some(Some(v)) = inputs.get(k) {
                fscope.insert(name.clone(), *v);
            }
        }
        let opset = f
            .opset_import
            .iter()
            .find(|o| o.domain().is_empty() || o.domain() == "ai.onnx")
            .map_or(gcx.opset, |o| o.version());
        let prefix = format!(
            "{}{}/",
            gcx.prefix,
            if node.name().is_empty() {
                f.name()
            } else {
                node.name()
            }
        );
        let inner = GraphCx {
            opset,
            attr_env: Some(&env),
            prefix,
        };
        let mut fscopes: Scopes = vec![fscope];
        self.depth += 1;
        self.import_nodes(ctx, &f.node, block, &mut fscopes, &inner);
        self.depth -= 1;
        for (k, out) in node.output.iter().enumerate() {
            if out.is_empty() {
                continue;
            }
            let Some(inner_name) = f.output.get(k) else {
                self.error(
                    loc,
                    format!("{label}: function '{}' has no output #{k}", f.name()),
                );
                continue;
            };
            match lookup(&fscopes, inner_name) {
                Some(v) => self.define(ctx, scopes, out, v, loc, &label),
                None => self.error(
                    loc,
                    format!(
                        "{label}: function '{}' does not compute its output '{inner_name}'",
                        f.name()
                    ),
                ),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
        NodeProto {
            name: Some(name.into()),
            op_type: Some("Relu".into()),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: outputs.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn topological_order_sorts_and_finds_cycles() {
        let nodes = vec![node("b", &["t"], &["u"]), node("a", &["x"], &["t"])];
        assert_eq!(topo_order(&nodes), Ok(vec![1, 0]));
        let cyc = vec![node("a", &["u"], &["t"]), node("b", &["t"], &["u"])];
        assert_eq!(topo_order(&cyc), Err(0));
    }
}
