//! The ONNX exporter: a graph-dialect module (as the importer makes it) back to a `ModelProto`.
//!
//! `func.func @main_graph` becomes the graph: its arguments the inputs (named by their
//! `onnx.name` argument attribute; an `onnx.default` is also an initializer of the same name),
//! top-level `graph.constant`s the initializers, every
//! `graph.<OpType>` a node named after its name location, regions subgraphs, and the returned
//! values the outputs. The model imports opset 21 of the default domain, or the newer opset (up to 28) its ops need.

use std::collections::{HashMap, HashSet};

mod blocked;

use nart_dialect_graph::schema::{AttrKind, OnnxSchema};
use nart_ir::{
    Attr, AttrData, Block, Context, DenseArrayData, Diagnostic, LocData, Location, Op, Type,
    TypeData, Value, DYNAMIC,
};
use nart_onnx_proto::{
    tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, StringStringEntryProto, TensorShapeProto, TypeProto, ValueInfoProto,
};

/// Writes a graph-dialect module as the bytes of an `.onnx` file.
pub fn export_model(ctx: &Context, module: Op) -> Result<Vec<u8>, Diagnostic> {
    let func = find_main(ctx, module)?;
    let mut ex = Exporter {
        ctx,
        names: HashMap::new(),
        used: HashSet::new(),
        node_names: HashSet::new(),
        domains: Vec::new(),
        opset: BASE_OPSET,
    };
    let graph = ex.main_graph(func, module)?;
    let mut opset_import = vec![OperatorSetIdProto {
        domain: Some(String::new()),
        version: Some(ex.opset),
    }];
    for d in &ex.domains {
        let version = module_opset(ctx, module, d).unwrap_or(1);
        opset_import.push(OperatorSetIdProto {
            domain: Some(d.clone()),
            version: Some(version),
        });
    }
    let str_attr = |name: &str| {
        ctx.attr(module, name)
            .and_then(|a| ctx.attr_str(a))
            .map(str::to_string)
    };
    let mut metadata_props = Vec::new();
    if let Some(AttrData::Dictionary(entries)) = ctx
        .attr(module, "onnx.metadata_props")
        .map(|a| ctx.attr_data(a))
    {
        for e in entries {
            metadata_props.push(StringStringEntryProto {
                key: Some(ctx.str(e.name).to_string()),
                value: ctx.attr_str(e.value).map(str::to_string),
            });
        }
    }
    let model = ModelProto {
        ir_version: Some(ir_version_for(ex.opset)),
        opset_import,
        producer_name: Some("nart".into()),
        producer_version: Some(env!("CARGO_PKG_VERSION").into()),
        domain: str_attr("onnx.domain"),
        model_version: ctx
            .attr(module, "onnx.model_version")
            .and_then(|a| ctx.attr_int(a))
            .map(|v| v as i64),
        doc_string: str_attr("onnx.doc_string"),
        graph: Some(graph),
        metadata_props,
        ..Default::default()
    };
    Ok(nart_onnx_proto::encode_model(&model))
}

fn module_opset(ctx: &Context, module: Op, domain: &str) -> Option<i64> {
    let AttrData::Dictionary(entries) = ctx.attr_data(ctx.attr(module, "onnx.opset_import")?)
    else {
        return None;
    };
    entries
        .iter()
        .find(|e| ctx.str(e.name) == domain)
        .and_then(|e| ctx.attr_int(e.value))
        .map(|v| v as i64)
}

fn find_main(ctx: &Context, module: Op) -> Result<Op, Diagnostic> {
    if ctx.op_name_str(module) == "func.func" {
        return Ok(module);
    }
    let Some(&region) = ctx.regions(module).first() else {
        return Err(ctx.op_error(module, "has no body to export"));
    };
    let mut first = None;
    for &b in ctx.region_blocks(region) {
        for op in ctx.block_ops_iter(b) {
            if ctx.op_name_str(op) == "func.func" {
                let name = ctx.attr(op, "sym_name").and_then(|a| ctx.attr_str(a));
                if name == Some("main_graph") {
                    return Ok(op);
                }
                first.get_or_insert(op);
            }
        }
    }
    first.ok_or_else(|| ctx.op_error(module, "holds no func.func to export"))
}

struct Exporter<'c> {
    ctx: &'c Context,
    names: HashMap<Value, String>,
    used: HashSet<String>,
    node_names: HashSet<String>,
    domains: Vec<String>,
    /// The default-domain opset the model needs so far.
    opset: i64,
}

/// The opset exported models declare unless an op needs a newer one: the graph dialect's
/// meaning is the same from 21 to 28 for every op and attribute that opset 21 has, and far more
/// runtimes load opset 21 than 28.
const BASE_OPSET: i64 = 21;

/// The smallest IR version that allows `opset` (onnx's version table).
fn ir_version_for(opset: i64) -> i64 {
    match opset {
        ..=22 => 10,
        23..=24 => 11,
        25..=27 => 13,
        _ => 14,
    }
}

/// The default-domain opset `op` needs: 21 if the op, every attribute it sets and its element
/// types existed then, else the version of its schema.
fn needed_opset(ctx: &Context, op: Op, schema: &OnnxSchema) -> i64 {
    if schema.since_version <= BASE_OPSET {
        return BASE_OPSET;
    }
    let Some(old_attrs) = schema.attrs_at_21 else {
        return schema.since_version;
    };
    let new_attr = ctx
        .props(op)
        .iter()
        .chain(ctx.attrs(op))
        // Attributes that are not ONNX's (`quant.calibrated`) are not written, so need nothing.
        .filter(|na| schema.attr(ctx.str(na.name)).is_some())
        .any(|na| !old_attrs.contains(&ctx.str(na.name)));
    let new_type = ctx
        .operands(op)
        .iter()
        .chain(ctx.results(op))
        .filter_map(|v| match ctx.type_data(ctx.value_type(*v)) {
            TypeData::RankedTensor { elem, .. } | TypeData::UnrankedTensor { elem } => {
                nart_dialect_graph::constraints::onnx_code(ctx, *elem)
            }
            _ => None,
        })
        .any(|c| matches!(c, 16 | 23..=26));
    if new_attr || new_type {
        schema.since_version
    } else {
        BASE_OPSET
    }
}

/// The text of a name location (the ONNX node or tensor name), if `loc` has one.
fn loc_name(ctx: &Context, loc: Location) -> Option<String> {
    match ctx.loc_data(loc) {
        LocData::Name { name, .. } => Some(ctx.str(*name).to_string()),
        LocData::Fused { locs, .. } => locs.iter().find_map(|l| loc_name(ctx, *l)),
        LocData::CallSite { callee, .. } => loc_name(ctx, *callee),
        _ => None,
    }
}

/// The per-argument dictionaries of a function's `arg_attrs`/`res_attrs`.
fn io_dicts(ctx: &Context, func: Op, key: &str) -> Vec<Option<Attr>> {
    match ctx.attr(func, key).map(|a| ctx.attr_data(a)) {
        Some(AttrData::Array(items)) => items.iter().map(|a| Some(*a)).collect(),
        _ => Vec::new(),
    }
}

fn dict_get(ctx: &Context, dict: Option<Attr>, key: &str) -> Option<Attr> {
    match ctx.attr_data(dict?) {
        AttrData::Dictionary(entries) => entries
            .iter()
            .find(|e| ctx.str(e.name) == key)
            .map(|e| e.value),
        _ => None,
    }
}

impl<'c> Exporter<'c> {
    fn err(&self, op: Op, msg: impl std::fmt::Display) -> Diagnostic {
        self.ctx.op_error(op, msg)
    }

    fn fresh(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "t" } else { base };
        if self.used.insert(base.to_string()) {
            return base.to_string();
        }
        let mut k = 1;
        loop {
            let n = format!("{base}_{k}");
            if self.used.insert(n.clone()) {
                return n;
            }
            k += 1;
        }
    }

    fn fresh_node(&mut self, base: &str) -> String {
        let base = if base.is_empty() { "node" } else { base };
        if self.node_names.insert(base.to_string()) {
            return base.to_string();
        }
        let mut k = 1;
        loop {
            let n = format!("{base}_{k}");
            if self.node_names.insert(n.clone()) {
                return n;
            }
            k += 1;
        }
    }

    fn name_of(&mut self, v: Value) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let base = match self.ctx.defining_op(v) {
            Some(op) => {
                let base = loc_name(self.ctx, self.ctx.op_loc(op)).unwrap_or_default();
                let n = self.ctx.results(op).len();
                let idx = self
                    .ctx
                    .results(op)
                    .iter()
                    .position(|r| *r == v)
                    .unwrap_or(0);
                if n > 1 {
                    format!("{base}:{idx}")
                } else {
                    base
                }
            }
            None => "arg".into(),
        };
        let name = self.fresh(&base);
        self.names.insert(v, name.clone());
        name
    }

    fn type_proto(&self, ty: Type, dim_names: Option<Attr>) -> Option<TypeProto> {
        let ctx = self.ctx;
        let names: Vec<String> = match dim_names.map(|a| ctx.attr_data(a)) {
            Some(AttrData::Array(items)) => items
                .iter()
                .map(|a| ctx.attr_str(*a).unwrap_or("").to_string())
                .collect(),
            _ => Vec::new(),
        };
        let (elem, shape) = match ctx.type_data(ty) {
            TypeData::RankedTensor { shape, elem, .. } => (*elem, Some(shape.clone())),
            TypeData::UnrankedTensor { elem } => (*elem, None),
            _ => return None,
        };
        let code = nart_dialect_graph::constraints::onnx_code(ctx, elem)?;
        let shape = shape.map(|s| TensorShapeProto {
            dim: s
                .iter()
                .enumerate()
                .map(|(k, &d)| tensor_shape_proto::Dimension {
                    value: if d == DYNAMIC {
                        names
                            .get(k)
                            .filter(|n| !n.is_empty())
                            .map(|n| tensor_shape_proto::dimension::Value::DimParam(n.clone()))
                    } else {
                        Some(tensor_shape_proto::dimension::Value::DimValue(d))
                    },
                    denotation: None,
                })
                .collect(),
        });
        Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(code),
                shape,
            })),
            denotation: None,
        })
    }

    fn value_info(&self, name: &str, ty: Type, dim_names: Option<Attr>) -> ValueInfoProto {
        ValueInfoProto {
            name: Some(name.to_string()),
            r#type: self.type_proto(ty, dim_names),
            ..Default::default()
        }
    }

    fn main_graph(&mut self, func: Op, module: Op) -> Result<GraphProto, Diagnostic> {
        let ctx = self.ctx;
        let Some(&region) = ctx.regions(func).first() else {
            return Err(self.err(func, "has no body"));
        };
        let blocks = ctx.region_blocks(region);
        if blocks.len() != 1 {
            return Err(self.err(
                func,
                "must have exactly one block to export as an ONNX graph",
            ));
        }
        let block = blocks[0];
        let arg_attrs = io_dicts(ctx, func, "arg_attrs");
        let res_attrs = io_dicts(ctx, func, "res_attrs");
        let mut graph = GraphProto {
            name: Some(
                ctx.attr(module, "onnx.graph_name")
                    .and_then(|a| ctx.attr_str(a))
                    .unwrap_or("main_graph")
                    .to_string(),
            ),
            ..Default::default()
        };
        for (k, &arg) in ctx.block_args(block).iter().enumerate() {
            let d = arg_attrs.get(k).copied().flatten();
            let base = dict_get(ctx, d, "onnx.name")
                .and_then(|a| ctx.attr_str(a))
                .map_or_else(|| format!("input_{k}"), str::to_string);
            let name = self.fresh(&base);
            self.names.insert(arg, name.clone());
            graph.input.push(self.value_info(
                &name,
                ctx.value_type(arg),
                dict_get(ctx, d, "graph.dim_names"),
            ));
            // A default value is an initializer of the same name, which the input overrides.
            if let Some(value) = dict_get(ctx, d, "onnx.default") {
                let Some(t) = crate::tensor::dense_to_tensor(ctx, value, &name) else {
                    return Err(self.err(func, "has a default value that ONNX cannot store"));
                };
                graph.initializer.push(t);
            }
        }
        // Name returned op results after the outputs, so the outputs keep their names.
        let term = ctx.block_last_op(block);
        let returned: Vec<Value> = term.map(|t| ctx.operands(t).to_vec()).unwrap_or_default();
        let mut out_names = Vec::new();
        for (k, &v) in returned.iter().enumerate() {
            let d = res_attrs.get(k).copied().flatten();
            let base = dict_get(ctx, d, "onnx.name")
                .and_then(|a| ctx.attr_str(a))
                .map_or_else(|| format!("output_{k}"), str::to_string);
            let is_plain_result = ctx
                .defining_op(v)
                .is_some_and(|op| ctx.op_name_str(op) != "graph.constant")
                && !self.names.contains_key(&v);
            if is_plain_result {
                let name = self.fresh(&base);
                self.names.insert(v, name.clone());
                out_names.push((name, None));
            } else {
                out_names.push((self.fresh(&base), Some(v)));
            }
        }
        self.export_block(block, &mut graph, true)?;
        for (k, (name, via_identity)) in out_names.into_iter().enumerate() {
            let v = returned[k];
            if via_identity.is_some() {
                let input = self.name_of(v);
                let node_name = self.fresh_node(&format!("{name}_identity"));
                graph.node.push(NodeProto {
                    input: vec![input],
                    output: vec![name.clone()],
                    name: Some(node_name),
                    op_type: Some("Identity".into()),
                    ..Default::default()
                });
            }
            let d = res_attrs.get(k).copied().flatten();
            graph.output.push(self.value_info(
                &name,
                ctx.value_type(v),
                dict_get(ctx, d, "graph.dim_names"),
            ));
        }
        Ok(graph)
    }

    /// Appends the ops of `block` (but its terminator) to `graph`.
    fn export_block(
        &mut self,
        block: Block,
        graph: &mut GraphProto,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for op in ctx.block_ops_iter(block) {
            let name = ctx.op_name_str(op);
            match name {
                "func.return" | "graph.yield" | "graph.none" => {}
                "graph.constant" => {
                    let Some(value) = ctx.attr(op, "value") else {
                        return Err(self.err(op, "has no value"));
                    };
                    let out = self.name_of(ctx.result(op, 0));
                    let Some(t) = crate::tensor::dense_to_tensor(ctx, value, &out) else {
                        return Err(self.err(op, "holds a value that ONNX cannot store"));
                    };
                    if top_level {
                        graph.initializer.push(t);
                    } else {
                        let node_name = self.fresh_node(&out);
                        graph.node.push(NodeProto {
                            output: vec![out],
                            name: Some(node_name),
                            op_type: Some("Constant".into()),
                            attribute: vec![AttributeProto {
                                name: Some("value".into()),
                                r#type: Some(4),
                                t: Some(nart_onnx_proto::TensorProto { name: None, ..t }),
                                ..Default::default()
                            }],
                            ..Default::default()
                        });
                    }
                }
                "graph.fused_conv" | "graph.fused_gemm" | "graph.fused_matmul" => {
                    self.export_fused(op, graph)?;
                }
                "graph.pool" => self.export_layout_pool(op, graph)?,
                "graph.reorder" => self.export_reorder(op, graph)?,
                _ => {
                    let node = self.export_op(op)?;
                    graph.node.push(node);
                }
            }
        }
        Ok(())
    }

    fn operand_names(&mut self, op: Op) -> Vec<String> {
        let ctx = self.ctx;
        let mut inputs: Vec<String> = ctx
            .operands(op)
            .to_vec()
            .into_iter()
            .map(|v| {
                if matches!(ctx.type_data(ctx.value_type(v)), TypeData::None) {
                    String::new()
                } else {
                    self.name_of(v)
                }
            })
            .collect();
        while inputs.last().is_some_and(String::is_empty) {
            inputs.pop();
        }
        inputs
    }

    fn result_names(&mut self, op: Op) -> Vec<String> {
        let ctx = self.ctx;
        let mut outputs: Vec<String> = ctx
            .results(op)
            .to_vec()
            .into_iter()
            .map(|v| {
                if matches!(ctx.type_data(ctx.value_type(v)), TypeData::None) {
                    String::new()
                } else {
                    self.name_of(v)
                }
            })
            .collect();
        while outputs.last().is_some_and(String::is_empty) {
            outputs.pop();
        }
        outputs
    }

    fn export_op(&mut self, op: Op) -> Result<NodeProto, Diagnostic> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(op);
        let base = loc_name(ctx, ctx.op_loc(op)).unwrap_or_default();
        if let Some(schema) = nart_dialect_graph::schema_of_op(name) {
            self.opset = self.opset.max(needed_opset(ctx, op, schema));
            let input = self.operand_names(op);
            let output = self.result_names(op);
            let mut attribute = Vec::new();
            for na in ctx.props(op).iter().chain(ctx.attrs(op)) {
                let an = ctx.str(na.name);
                let Some(sa) = schema.attr(an) else { continue };
                attribute.push(self.export_attr(op, an, sa.kind, na.value)?);
            }
            for (rd, &region) in schema.def.regions.iter().zip(ctx.regions(op)) {
                if ctx.region_blocks(region).is_empty() {
                    continue;
                }
                let g = self.export_region(op, schema, rd.name, region)?;
                attribute.push(AttributeProto {
                    name: Some(rd.name.into()),
                    r#type: Some(5),
                    g: Some(g),
                    ..Default::default()
                });
            }
            let node_name = self.fresh_node(&base);
            return Ok(NodeProto {
                input,
                output,
                name: Some(node_name),
                op_type: Some(schema.name.into()),
                attribute,
                ..Default::default()
            });
        }
        if let Some(op_type) = name.strip_prefix("onnx.") {
            let domain = ctx
                .attr(op, "onnx.domain")
                .and_then(|a| ctx.attr_str(a))
                .unwrap_or("")
                .to_string();
            if !domain.is_empty() && !self.domains.contains(&domain) {
                self.domains.push(domain.clone());
            }
            let input = self.operand_names(op);
            let output = self.result_names(op);
            let mut attribute = Vec::new();
            for na in ctx.attrs(op) {
                let an = ctx.str(na.name);
                if an == "onnx.domain" {
                    continue;
                }
                if let Some(kind) = generic_kind(ctx, na.value) {
                    attribute.push(self.export_attr(op, an, kind, na.value)?);
                }
            }
            let node_name = self.fresh_node(&base);
            return Ok(NodeProto {
                input,
                output,
                name: Some(node_name),
                op_type: Some(op_type.into()),
                domain: Some(domain),
                attribute,
                ..Default::default()
            });
        }
        Err(self.err(
            op,
            "has no ONNX equivalent; only graph dialect ops can be exported",
        ))
    }

    /// A fused op (`graph.fused_*`): ONNX Runtime's `com.microsoft.FusedConv` or `FusedGemm`
    /// where it runs that activation, else the base op, the `fused_matmul` bias `Add` and the
    /// activation as standard nodes.
    fn export_fused(&mut self, op: Op, graph: &mut GraphProto) -> Result<(), Diagnostic> {
        use nart_dialect_graph::fused::Activation;
        let ctx = self.ctx;
        let act = Activation::of(ctx, op).map_err(|m| self.err(op, m))?;
        let (base, contrib) = match ctx.op_name_str(op) {
            "graph.fused_conv" => ("Conv", "FusedConv"),
            "graph.fused_gemm" => ("Gemm", "FusedGemm"),
            _ => ("MatMul", ""),
        };
        let schema = nart_dialect_graph::schema(base)
            .ok_or_else(|| self.err(op, format!("has no ONNX schema for {base}")))?;
        self.opset = self.opset.max(needed_opset(ctx, op, schema));
        let mut input = self.operand_names(op);
        let mut output = self.result_names(op);
        let base_name = loc_name(ctx, ctx.op_loc(op)).unwrap_or_default();
        // A channels-last `fused_conv` is written as its channels-first op between Transposes:
        // `X` and `W` moved to channels-first, the result moved back to the op's result name.
        let layout =
            nart_dialect_graph::fused::ConvLayout::of(ctx, op).map_err(|m| self.err(op, m))?;
        let mut back_to_nhwc = None;
        if layout == nart_dialect_graph::fused::ConvLayout::Nhwc {
            let rank = ctx
                .shape_of(ctx.value_type(ctx.operands(op)[0]))
                .map(|s| s.len() as i64)
                .filter(|&r| r >= 3)
                .ok_or_else(|| self.err(op, "has a channels-last input of unknown rank"))?;
            let mut first = vec![0, rank - 1];
            first.extend(1..rank - 1);
            let mut last = vec![0];
            last.extend(2..rank);
            last.push(1);
            for (k, what) in [(0, "x"), (1, "w")] {
                let to = self.fresh(&format!("{base_name}_{what}_nchw"));
                let from = std::mem::replace(&mut input[k], to.clone());
                self.push_transpose(graph, from, to, &first);
            }
            let y = self.fresh(&format!("{base_name}_y_nchw"));
            let name = std::mem::replace(&mut output[0], y.clone());
            back_to_nhwc = Some((y, name, last));
        }
        // A blocked one: `X` and `W` unblocked, the result blocked again.
        let mut reblock = None;
        if let Some(b) = layout.block() {
            reblock = Some(self.unblock_io(op, graph, b, true, &mut input, &mut output)?);
        }
        self.export_fused_nodes(op, graph, act, (base, contrib), input, output)?;
        if let Some((from, to, perm)) = back_to_nhwc {
            self.push_transpose(graph, from, to, &perm);
        }
        if let Some(r) = reblock {
            self.push_reblock(graph, r);
        }
        Ok(())
    }

    /// A `graph.pool`: its base op (`MaxPool` or `AveragePool`) with the base op's attributes;
    /// a channels-last one between Transposes (the input moved to channels-first, the result
    /// moved back to the op's result name).
    fn export_layout_pool(&mut self, op: Op, graph: &mut GraphProto) -> Result<(), Diagnostic> {
        use nart_dialect_graph::fused::ConvLayout;
        let ctx = self.ctx;
        let kind = nart_dialect_graph::pool::PoolKind::of(ctx, op).map_err(|m| self.err(op, m))?;
        let base = kind.onnx_name();
        let schema = nart_dialect_graph::schema(base)
            .ok_or_else(|| self.err(op, format!("has no ONNX schema for {base}")))?;
        self.opset = self.opset.max(needed_opset(ctx, op, schema));
        let mut input = self.operand_names(op);
        let mut output = self.result_names(op);
        let base_name = loc_name(ctx, ctx.op_loc(op)).unwrap_or_default();
        let mut back_to_nhwc = None;
        if ConvLayout::of(ctx, op).map_err(|m| self.err(op, m))? == ConvLayout::Nhwc {
            let rank = ctx
                .shape_of(ctx.value_type(ctx.operands(op)[0]))
                .map(|s| s.len() as i64)
                .filter(|&r| r >= 3)
                .ok_or_else(|| self.err(op, "has a channels-last input of unknown rank"))?;
            let mut first = vec![0, rank - 1];
            first.extend(1..rank - 1);
            let mut last = vec![0];
            last.extend(2..rank);
            last.push(1);
            let to = self.fresh(&format!("{base_name}_x_nchw"));
            let from = std::mem::replace(&mut input[0], to.clone());
            self.push_transpose(graph, from, to, &first);
            let y = self.fresh(&format!("{base_name}_y_nchw"));
            let name = std::mem::replace(&mut output[0], y.clone());
            back_to_nhwc = Some((y, name, last));
        }
        let mut reblock = None;
        if let Some(b) = ConvLayout::of(ctx, op)
            .map_err(|m| self.err(op, m))?
            .block()
        {
            reblock = Some(self.unblock_io(op, graph, b, false, &mut input, &mut output)?);
        }
        let mut attribute = Vec::new();
        for na in ctx.props(op).iter().chain(ctx.attrs(op)) {
            let an = ctx.str(na.name);
            let Some(sa) = schema.attr(an) else { continue };
            attribute.push(self.export_attr(op, an, sa.kind, na.value)?);
        }
        let node_name = self.fresh_node(&base_name);
        graph.node.push(NodeProto {
            input,
            output,
            name: Some(node_name),
            op_type: Some(base.into()),
            attribute,
            ..Default::default()
        });
        if let Some((from, to, perm)) = back_to_nhwc {
            self.push_transpose(graph, from, to, &perm);
        }
        if let Some(r) = reblock {
            self.push_reblock(graph, r);
        }
        Ok(())
    }

    /// A `Transpose` node from `from` to `to` with permutation `perm`.
    fn push_transpose(&mut self, graph: &mut GraphProto, from: String, to: String, perm: &[i64]) {
        graph.node.push(NodeProto {
            input: vec![from],
            output: vec![to.clone()],
            name: Some(self.fresh_node(&to)),
            op_type: Some("Transpose".into()),
            attribute: vec![AttributeProto {
                name: Some("perm".into()),
                r#type: Some(7),
                ints: perm.to_vec(),
                ..Default::default()
            }],
            ..Default::default()
        });
    }

    /// The nodes of a fused op in `Conv`'s layout, reading `input` and writing `output`.
    fn export_fused_nodes(
        &mut self,
        op: Op,
        graph: &mut GraphProto,
        act: nart_dialect_graph::fused::Activation,
        (base, contrib): (&'static str, &'static str),
        mut input: Vec<String>,
        output: Vec<String>,
    ) -> Result<(), Diagnostic> {
        use nart_dialect_graph::fused::Activation;
        let ctx = self.ctx;
        let schema = nart_dialect_graph::schema(base)
            .ok_or_else(|| self.err(op, format!("has no ONNX schema for {base}")))?;
        let mut attribute = Vec::new();
        for na in ctx.props(op).iter().chain(ctx.attrs(op)) {
            let an = ctx.str(na.name);
            let Some(sa) = schema.attr(an) else { continue };
            attribute.push(self.export_attr(op, an, sa.kind, na.value)?);
        }
        let base_name = loc_name(ctx, ctx.op_loc(op)).unwrap_or_default();
        // ONNX Runtime's FusedGemm has no Clip (its kernel rejects it), and FusedMatMul no
        // activation at all.
        let contrib_runs = !matches!(
            (contrib, act),
            ("", _) | (_, Activation::None) | ("FusedGemm", Activation::Clip { .. })
        );
        if contrib_runs {
            let float = |name: &str, v: f32| AttributeProto {
                name: Some(name.into()),
                r#type: Some(1),
                f: Some(v),
                ..Default::default()
            };
            let act_name = act.onnx_name().unwrap_or("Identity");
            attribute.push(AttributeProto {
                name: Some("activation".into()),
                r#type: Some(3),
                s: Some(act_name.as_bytes().to_vec()),
                ..Default::default()
            });
            let params = act.params();
            if contrib == "FusedConv" && !params.is_empty() {
                attribute.push(AttributeProto {
                    name: Some("activation_params".into()),
                    r#type: Some(6),
                    floats: params,
                    ..Default::default()
                });
            } else {
                for (name, v) in ["activation_alpha", "activation_beta"].iter().zip(params) {
                    attribute.push(float(name, v));
                }
            }
            let domain = "com.microsoft".to_string();
            if !self.domains.contains(&domain) {
                self.domains.push(domain.clone());
            }
            graph.node.push(NodeProto {
                input,
                output,
                name: Some(self.fresh_node(&base_name)),
                op_type: Some(contrib.into()),
                domain: Some(domain),
                attribute,
                ..Default::default()
            });
            return Ok(());
        }
        // Standard nodes: base, (bias Add), activation; the last one writes the op's result.
        let bias = if base == "MatMul" && input.len() > 2 {
            input.pop()
        } else {
            None
        };
        let mut steps: Vec<(&str, Vec<String>, Vec<AttributeProto>)> =
            vec![(base, input, attribute)];
        if let Some(b) = bias {
            steps.push(("Add", vec![b], Vec::new()));
        }
        if let Some(name) = act.onnx_name() {
            let mut attrs = Vec::new();
            let mut extra = Vec::new();
            let float = |name: &str, v: f32| AttributeProto {
                name: Some(name.into()),
                r#type: Some(1),
                f: Some(v),
                ..Default::default()
            };
            match act {
                Activation::LeakyRelu { alpha } => attrs.push(float("alpha", alpha)),
                Activation::HardSigmoid { alpha, beta } => {
                    attrs.push(float("alpha", alpha));
                    attrs.push(float("beta", beta));
                }
                Activation::Clip { min, max } => {
                    for (k, v) in [("min", min), ("max", max)] {
                        let out = self.fresh(&format!("{base_name}_clip_{k}"));
                        let elem = ctx.element_type(ctx.value_type(ctx.result(op, 0)));
                        let code = nart_dialect_graph::constraints::onnx_code(ctx, elem)
                            .ok_or_else(|| self.err(op, "has a result ONNX cannot type"))?;
                        let t = scalar_tensor(code, v as f64).ok_or_else(|| {
                            self.err(op, "has a Clip bound ONNX cannot store in its type")
                        })?;
                        graph.node.push(NodeProto {
                            output: vec![out.clone()],
                            name: Some(self.fresh_node(&out)),
                            op_type: Some("Constant".into()),
                            attribute: vec![AttributeProto {
                                name: Some("value".into()),
                                r#type: Some(4),
                                t: Some(t),
                                ..Default::default()
                            }],
                            ..Default::default()
                        });
                        extra.push(out);
                    }
                }
                _ => {}
            }
            steps.push((name, extra, attrs));
        }
        let n = steps.len();
        let mut prev = String::new();
        for (k, (op_type, ins, attrs)) in steps.into_iter().enumerate() {
            let out = if k + 1 == n {
                output.first().cloned().unwrap_or_default()
            } else {
                self.fresh(&format!("{base_name}_{}", op_type.to_lowercase()))
            };
            let input = if k == 0 {
                ins
            } else {
                std::iter::once(prev.clone()).chain(ins).collect()
            };
            graph.node.push(NodeProto {
                input,
                output: vec![out.clone()],
                name: Some(self.fresh_node(&format!("{base_name}_{}", op_type.to_lowercase()))),
                op_type: Some(op_type.into()),
                attribute: attrs,
                ..Default::default()
            });
            prev = out;
        }
        Ok(())
    }

    fn export_region(
        &mut self,
        op: Op,
        schema: &OnnxSchema,
        attr: &str,
        region: nart_ir::Region,
    ) -> Result<GraphProto, Diagnostic> {
        let ctx = self.ctx;
        let block = ctx.region_blocks(region)[0];
        let mut g = GraphProto {
            name: Some(self.fresh(&format!("{}_{attr}", schema.name))),
            ..Default::default()
        };
        for &arg in ctx.block_args(block) {
            let name = self.fresh("arg");
            self.names.insert(arg, name.clone());
            g.input
                .push(self.value_info(&name, ctx.value_type(arg), None));
        }
        self.export_block(block, &mut g, false)?;
        let Some(term) = ctx.block_last_op(block) else {
            return Err(self.err(op, format!("region '{attr}' has no terminator")));
        };
        let mut seen = HashSet::new();
        for v in ctx.operands(term).to_vec() {
            let inner = self.name_of(v);
            let defined_here = ctx
                .defining_op(v)
                .is_some_and(|d| ctx.op_parent_block(d) == Some(block))
                && ctx
                    .defining_op(v)
                    .is_some_and(|d| ctx.op_name_str(d) != "graph.constant");
            let name = if defined_here && seen.insert(inner.clone()) {
                inner
            } else {
                let out = self.fresh(&format!("{inner}_out"));
                let node_name = self.fresh_node(&format!("{out}_identity"));
                g.node.push(NodeProto {
                    input: vec![inner],
                    output: vec![out.clone()],
                    name: Some(node_name),
                    op_type: Some("Identity".into()),
                    ..Default::default()
                });
                out
            };
            g.output
                .push(self.value_info(&name, ctx.value_type(v), None));
        }
        Ok(g)
    }

    fn export_attr(
        &mut self,
        op: Op,
        name: &str,
        kind: AttrKind,
        value: Attr,
    ) -> Result<AttributeProto, Diagnostic> {
        let ctx = self.ctx;
        let mut a = AttributeProto {
            name: Some(name.to_string()),
            ..Default::default()
        };
        let bad = || self.err(op, format!("attribute '{name}' cannot be written as ONNX"));
        match (kind, ctx.attr_data(value)) {
            (AttrKind::Int, AttrData::Integer { value, .. }) => {
                a.r#type = Some(2);
                a.i = Some(*value as i64);
            }
            (AttrKind::Float, AttrData::Float { bits, .. }) => {
                a.r#type = Some(1);
                a.f = Some(f64::from_bits(*bits) as f32);
            }
            (AttrKind::String, AttrData::String { value, .. }) => {
                a.r#type = Some(3);
                a.s = Some(value.clone());
            }
            (
                AttrKind::Ints,
                AttrData::DenseArray {
                    data: DenseArrayData::Int(v),
                    ..
                },
            ) => {
                a.r#type = Some(7);
                a.ints = v.clone();
            }
            (
                AttrKind::Floats,
                AttrData::DenseArray {
                    data: DenseArrayData::Float(v),
                    ..
                },
            ) => {
                a.r#type = Some(6);
                a.floats = v.iter().map(|b| f64::from_bits(*b) as f32).collect();
            }
            (AttrKind::Strings, AttrData::Array(items)) => {
                a.r#type = Some(8);
                for i in items {
                    match ctx.attr_data(*i) {
                        AttrData::String { value, .. } => a.strings.push(value.clone()),
                        _ => return Err(bad()),
                    }
                }
            }
            (AttrKind::Tensor | AttrKind::SparseTensor, AttrData::DenseElements { .. }) => {
                a.r#type = Some(4);
                a.t = Some(crate::tensor::dense_to_tensor(ctx, value, "").ok_or_else(bad)?);
                if let Some(t) = a.t.as_mut() {
                    t.name = None;
                }
                if kind == AttrKind::SparseTensor {
                    return Err(bad());
                }
            }
            (AttrKind::Tensors, AttrData::Array(items)) => {
                a.r#type = Some(9);
                for i in items {
                    let mut t = crate::tensor::dense_to_tensor(ctx, *i, "").ok_or_else(bad)?;
                    t.name = None;
                    a.tensors.push(t);
                }
            }
            (AttrKind::TypeProto, AttrData::Type(t)) => {
                a.r#type = Some(13);
                a.tp = Some(self.type_proto(*t, None).ok_or_else(bad)?);
            }
            (AttrKind::TypeProtos, AttrData::Array(items)) => {
                a.r#type = Some(14);
                for i in items {
                    let t = ctx.attr_type(*i).ok_or_else(bad)?;
                    a.type_protos
                        .push(self.type_proto(t, None).ok_or_else(bad)?);
                }
            }
            _ => return Err(bad()),
        }
        Ok(a)
    }
}

/// The ONNX kind of an attribute of an unknown op, judged from its structure.
fn generic_kind(ctx: &Context, a: Attr) -> Option<AttrKind> {
    Some(match ctx.attr_data(a) {
        AttrData::Integer { .. } => AttrKind::Int,
        AttrData::Float { .. } => AttrKind::Float,
        AttrData::String { .. } => AttrKind::String,
        AttrData::DenseArray {
            data: DenseArrayData::Int(_),
            ..
        } => AttrKind::Ints,
        AttrData::DenseArray {
            data: DenseArrayData::Float(_),
            ..
        } => AttrKind::Floats,
        AttrData::DenseElements { .. } => AttrKind::Tensor,
        AttrData::Type(_) => AttrKind::TypeProto,
        AttrData::Array(items)
            if items
                .iter()
                .all(|i| matches!(ctx.attr_data(*i), AttrData::String { .. })) =>
        {
            AttrKind::Strings
        }
        _ => return None,
    })
}

/// A rank-0 tensor of element type `code` (float, double or float16) holding `v`.
fn scalar_tensor(code: i32, v: f64) -> Option<nart_onnx_proto::TensorProto> {
    let raw = match code {
        1 => (v as f32).to_le_bytes().to_vec(),
        11 => v.to_le_bytes().to_vec(),
        _ => return None,
    };
    Some(nart_onnx_proto::TensorProto {
        data_type: Some(code),
        raw_data: Some(raw),
        ..Default::default()
    })
}
