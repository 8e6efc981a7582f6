//! A loaded program: the oneDNN engine, stream, memory objects and primitives, all created
//! once by [`Loaded::new`]; [`Loaded::run`] copies the inputs in, executes the primitives in
//! order and copies the results out.
//!
//! Every value has a buffer that lives as long as the executable (a view shares its operand's),
//! and every memory object points into one, so that a run creates nothing. Constant weights
//! are reordered once, at load, into the layout the primitive prefers.

use std::ffi::{c_int, c_void};
use std::ptr;

use nart_target_rt::RtError;
use nart_tensor::{DType, Tensor};

use crate::ffi::{self, Api, Dims, ExecArg, MemoryDesc, OpDesc, MAX_NDIMS};
use crate::program::{BinaryAlg, Eltwise, OpKind, Operand, PoolAlg, Program, ValueKind};
use crate::NAME;

type H = *mut c_void;

/// `DNNL_MEMORY_ALLOCATE`: let oneDNN allocate the memory.
const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;

fn dims_array(v: &[i64]) -> Dims {
    let mut d = [0; MAX_NDIMS];
    d[..v.len()].copy_from_slice(v);
    d
}

/// Row-major strides of `dims`.
fn row_major(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// One primitive and what it runs on.
struct Step {
    prim: H,
    args: Vec<ExecArg>,
}

/// Everything a run needs, created at load.
pub struct Loaded {
    api: &'static Api,
    engine: H,
    stream: H,
    /// Primitive attributes: the scratchpad is the caller's (each primitive gets its own, so
    /// a run from any thread touches no thread-local state of oneDNN's).
    attr: H,
    /// One buffer per value that owns memory (views share their operand's).
    buffers: Vec<Vec<f32>>,
    /// The buffer of each value.
    value_buffer: Vec<usize>,
    memories: Vec<H>,
    prims: Vec<H>,
    steps: Vec<Step>,
    inputs: Vec<(usize, Vec<usize>)>,
    outputs: Vec<(usize, Vec<usize>)>,
}

// SAFETY: the handles are only used under the executable's mutex; oneDNN objects may be used
// from any thread, one at a time.
unsafe impl Send for Loaded {}

impl Drop for Loaded {
    fn drop(&mut self) {
        // SAFETY: each handle was created by this struct and is destroyed once.
        unsafe {
            for &p in &self.prims {
                (self.api.primitive_destroy)(p);
            }
            for &m in &self.memories {
                (self.api.memory_destroy)(m);
            }
            if !self.attr.is_null() {
                (self.api.primitive_attr_destroy)(self.attr);
            }
            if !self.stream.is_null() {
                (self.api.stream_destroy)(self.stream);
            }
            if !self.engine.is_null() {
                (self.api.engine_destroy)(self.engine);
            }
        }
    }
}

fn fail(what: impl std::fmt::Display, status: ffi::Status) -> RtError {
    RtError::corrupt(
        NAME,
        format!("oneDNN cannot {what}: {}", ffi::status_name(status)),
    )
}

/// Runs `f` (a oneDNN call) and turns a failure into an error about `what`.
fn check(status: ffi::Status, what: impl FnOnce() -> String) -> Result<(), RtError> {
    if status == ffi::SUCCESS {
        Ok(())
    } else {
        Err(fail(what(), status))
    }
}

impl Loaded {
    /// Creates the engine, the stream, the buffers, the memory objects and the primitives of
    /// `program`.
    pub fn new(api: &'static Api, program: &Program) -> Result<Loaded, RtError> {
        program
            .check_static()
            .map_err(|e| RtError::corrupt(NAME, e.to_string()))?;
        let mut l = Loaded {
            api,
            engine: ptr::null_mut(),
            stream: ptr::null_mut(),
            attr: ptr::null_mut(),
            buffers: Vec::new(),
            value_buffer: Vec::new(),
            memories: Vec::new(),
            prims: Vec::new(),
            steps: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
        };
        // SAFETY: out-pointers to handles owned by `l`, destroyed by its Drop.
        unsafe {
            check((api.engine_create)(&mut l.engine, ffi::ENGINE_CPU, 0), || {
                "create a CPU engine".into()
            })?;
            check(
                (api.stream_create)(&mut l.stream, l.engine, ffi::STREAM_DEFAULT),
                || "create a stream".into(),
            )?;
            check((api.primitive_attr_create)(&mut l.attr), || {
                "create primitive attributes".into()
            })?;
            check(
                (api.primitive_attr_set_scratchpad_mode)(l.attr, ffi::SCRATCHPAD_USER),
                || "set the scratchpad mode".into(),
            )?;
        }
        // Buffers: views alias their operand's.
        let mut produced_by_view = vec![None; program.values.len()];
        for op in &program.ops {
            if op.kind == OpKind::View {
                if op.inputs[0].strides.is_some() {
                    return Err(RtError::corrupt(NAME, "a view reads through strides"));
                }
                produced_by_view[op.outputs[0].value as usize] = Some(op.inputs[0].value);
            }
        }
        l.value_buffer = vec![usize::MAX; program.values.len()];
        // Values are numbered so that a view's operand may come after it only if the program
        // is malformed; resolve in op order instead.
        for (i, v) in program.values.iter().enumerate() {
            if produced_by_view[i].is_some() {
                continue;
            }
            l.value_buffer[i] = l.buffers.len();
            l.buffers.push(match &v.kind {
                ValueKind::Constant(data) => data.clone(),
                _ => vec![0.0; v.numel() as usize],
            });
        }
        for op in &program.ops {
            if op.kind == OpKind::View {
                let src = l.value_buffer[op.inputs[0].value as usize];
                l.value_buffer[op.outputs[0].value as usize] = src;
            }
        }
        for (k, op) in program.ops.iter().enumerate() {
            l.add_op(program, k, &op.kind, &op.inputs, &op.outputs)?;
        }
        let dims = |v: u32| -> Vec<usize> {
            program.values[v as usize]
                .dims
                .iter()
                .map(|&d| d as usize)
                .collect()
        };
        l.inputs = program
            .inputs
            .iter()
            .map(|&v| (l.value_buffer[v as usize], dims(v)))
            .collect();
        l.outputs = program
            .outputs
            .iter()
            .map(|&v| (l.value_buffer[v as usize], dims(v)))
            .collect();
        Ok(l)
    }

    /// A memory descriptor for `o`: its dims and strides (row-major when absent); a scalar
    /// is seen as `[1]`.
    fn md(&self, o: &Operand) -> Result<MemoryDesc, RtError> {
        let (dims, strides) = if o.dims.is_empty() {
            (vec![1], vec![1])
        } else {
            let s = o.strides.clone().unwrap_or_else(|| row_major(&o.dims));
            (o.dims.clone(), s)
        };
        self.md_strides(&dims, &strides)
    }

    fn md_strides(&self, dims: &[i64], strides: &[i64]) -> Result<MemoryDesc, RtError> {
        let mut md = MemoryDesc::zeroed();
        let (d, s) = (dims_array(dims), dims_array(strides));
        // SAFETY: `md` is a valid out-pointer; the arrays hold MAX_NDIMS entries.
        let st = unsafe {
            (self.api.memory_desc_init_by_strides)(
                &mut md,
                dims.len() as c_int,
                d.as_ptr(),
                ffi::F32,
                s.as_ptr(),
            )
        };
        check(st, || format!("describe an f32 tensor of dims {dims:?}"))?;
        Ok(md)
    }

    /// A descriptor of `dims` in whatever layout the primitive prefers.
    fn md_any(&self, dims: &[i64]) -> Result<MemoryDesc, RtError> {
        let mut md = MemoryDesc::zeroed();
        let d = dims_array(dims);
        // SAFETY: as in `md_strides`.
        let st = unsafe {
            (self.api.memory_desc_init_by_tag)(
                &mut md,
                dims.len() as c_int,
                d.as_ptr(),
                ffi::F32,
                ffi::FORMAT_ANY,
            )
        };
        check(st, || format!("describe a tensor of dims {dims:?}"))?;
        Ok(md)
    }

    /// A memory object over `handle` (or allocated by oneDNN for [`ALLOCATE`]).
    fn memory(&mut self, md: &MemoryDesc, handle: *mut c_void) -> Result<H, RtError> {
        let mut m = ptr::null_mut();
        // SAFETY: `md` is initialised; `handle` points to a buffer of at least the
        // descriptor's size that outlives the memory object (both are owned by `self`).
        let st = unsafe { (self.api.memory_create)(&mut m, md, self.engine, handle) };
        check(st, || "create a memory object".into())?;
        self.memories.push(m);
        Ok(m)
    }

    /// A memory object over the buffer of operand `o`, described by `md`.
    fn memory_of(&mut self, o: &Operand, md: &MemoryDesc) -> Result<H, RtError> {
        let b = self.value_buffer[o.value as usize];
        let p = self.buffers[b].as_mut_ptr().cast::<c_void>();
        self.memory(md, p)
    }

    /// Creates the primitive of a descriptor and returns it with its primitive descriptor
    /// (which the caller destroys).
    fn primitive_desc(&self, desc: &OpDesc, what: &str) -> Result<H, RtError> {
        let mut pd = ptr::null_mut();
        // SAFETY: `desc` was initialised by a `_desc_init` function.
        let st = unsafe {
            (self.api.primitive_desc_create)(
                &mut pd,
                desc,
                self.attr.cast_const(),
                self.engine,
                ptr::null(),
            )
        };
        check(st, || format!("create a {what} primitive"))?;
        Ok(pd)
    }

    /// Creates the primitive of `pd` (and destroys `pd`), with its scratchpad memory when it
    /// needs one.
    fn primitive(&mut self, pd: H, what: &str) -> Result<(H, Option<H>), RtError> {
        // SAFETY: `pd` is valid; the returned descriptor lives as long as `pd`.
        let scratch_md = unsafe { (self.api.primitive_desc_query_md)(pd, ffi::QUERY_SCRATCHPAD_MD, 0) };
        let scratch = if scratch_md.is_null()
            // SAFETY: a non-null descriptor from the query is initialised.
            || unsafe { (self.api.memory_desc_get_size)(scratch_md) } == 0
        {
            None
        } else {
            // SAFETY: as above; copied before `pd` is destroyed.
            let md = unsafe { *scratch_md };
            Some(self.memory(&md, ALLOCATE)?)
        };
        let mut p = ptr::null_mut();
        // SAFETY: `pd` is a valid primitive descriptor.
        let st = unsafe { (self.api.primitive_create)(&mut p, pd) };
        // SAFETY: the descriptor is no longer needed once the primitive exists.
        unsafe { (self.api.primitive_desc_destroy)(pd) };
        check(st, || format!("create a {what} primitive"))?;
        self.prims.push(p);
        Ok((p, scratch))
    }

    /// The memory the primitive described by `pd` reads constant weights `w` from: the
    /// weights' own buffer when the primitive takes that layout, else a copy reordered once,
    /// now.
    fn weights(&mut self, pd: H, w: &Operand, user: &MemoryDesc) -> Result<H, RtError> {
        // SAFETY: `pd` is valid; the returned descriptor lives as long as `pd`.
        let want = unsafe { (self.api.primitive_desc_query_md)(pd, ffi::QUERY_WEIGHTS_MD, 0) };
        if want.is_null() {
            return Err(RtError::corrupt(NAME, "a primitive has no weights"));
        }
        // SAFETY: both descriptors are initialised.
        if unsafe { (self.api.memory_desc_equal)(want, user) } != 0 {
            return self.memory_of(w, user);
        }
        // SAFETY: `want` is valid while `pd` is.
        let want = unsafe { *want };
        let src = self.memory_of(w, user)?;
        let dst = self.memory(&want, ALLOCATE)?;
        let mut rpd = ptr::null_mut();
        // SAFETY: both descriptors are initialised; the engine is valid.
        let st = unsafe {
            (self.api.reorder_primitive_desc_create)(
                &mut rpd,
                user,
                self.engine,
                &want,
                self.engine,
                self.attr.cast_const(),
            )
        };
        check(st, || "reorder weights".into())?;
        let (prim, scratch) = self.primitive(rpd, "reorder")?;
        let mut args = vec![
            ExecArg {
                arg: ffi::ARG_SRC,
                memory: src,
            },
            ExecArg {
                arg: ffi::ARG_DST,
                memory: dst,
            },
        ];
        if let Some(m) = scratch {
            args.push(ExecArg {
                arg: ffi::ARG_SCRATCHPAD,
                memory: m,
            });
        }
        // SAFETY: the primitive and memories are valid; we wait for completion.
        unsafe {
            check(
                (self.api.primitive_execute)(prim, self.stream, args.len() as c_int, args.as_ptr()),
                || "reorder weights".into(),
            )?;
            check((self.api.stream_wait)(self.stream), || {
                "reorder weights".into()
            })?;
        }
        Ok(dst)
    }

    fn is_constant(program: &Program, o: &Operand) -> bool {
        matches!(
            program.values[o.value as usize].kind,
            ValueKind::Constant(_)
        )
    }

    fn add_op(
        &mut self,
        program: &Program,
        k: usize,
        kind: &OpKind,
        ins: &[Operand],
        outs: &[Operand],
    ) -> Result<(), RtError> {
        let api = self.api;
        let what = format!("{} (op {k})", kind.name());
        let bad = |m: &str| RtError::corrupt(NAME, format!("op {k} ({}): {m}", kind.name()));
        let mut desc = OpDesc::zeroed();
        let out = &outs[0];
        let dst_md = self.md(out)?;
        let mut args: Vec<(c_int, H)> = Vec::new();
        let pd;
        match kind {
            OpKind::View => return Ok(()),
            OpKind::Conv {
                groups,
                strides,
                dilations,
                pads_begin,
                pads_end,
            } => {
                let n = strides.len();
                let rank = ins[0].dims.len();
                if rank != n + 2
                    || [dilations, pads_begin, pads_end].iter().any(|v| v.len() != n)
                    || *groups < 1
                    || ins[1].dims.len() != n + 2 + usize::from(*groups > 1)
                {
                    return Err(bad("inconsistent ranks"));
                }
                let src = self.md(&ins[0])?;
                let w_user = self.md(&ins[1])?;
                let w_const = Self::is_constant(program, &ins[1]);
                let w_md = if w_const {
                    self.md_any(&ins[1].dims)?
                } else {
                    w_user
                };
                let bias = match ins.get(2) {
                    Some(b) => self.md(b)?,
                    None => MemoryDesc::zeroed(),
                };
                let dil: Vec<i64> = dilations.iter().map(|d| d - 1).collect();
                // SAFETY: every descriptor is initialised; the arrays hold MAX_NDIMS entries.
                let st = unsafe {
                    (api.dilated_convolution_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        ffi::CONVOLUTION_DIRECT,
                        &src,
                        &w_md,
                        &bias,
                        &dst_md,
                        dims_array(strides).as_ptr(),
                        dims_array(&dil).as_ptr(),
                        dims_array(pads_begin).as_ptr(),
                        dims_array(pads_end).as_ptr(),
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
                let w = if w_const {
                    self.weights(pd, &ins[1], &w_user)?
                } else {
                    self.memory_of(&ins[1], &w_user)?
                };
                args.push((ffi::ARG_WEIGHTS, w));
                if let Some(b) = ins.get(2) {
                    args.push((ffi::ARG_BIAS, self.memory_of(b, &bias)?));
                }
            }
            OpKind::MatMul => {
                let src = self.md(&ins[0])?;
                let w_user = self.md(&ins[1])?;
                let w_const = Self::is_constant(program, &ins[1]);
                let w_md = if w_const {
                    self.md_any(&ins[1].dims)?
                } else {
                    w_user
                };
                let bias = match ins.get(2) {
                    Some(b) => self.md(b)?,
                    None => MemoryDesc::zeroed(),
                };
                // SAFETY: as above.
                let st = unsafe {
                    (api.matmul_desc_init)(&mut *desc, &src, &w_md, &bias, &dst_md)
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
                let w = if w_const {
                    self.weights(pd, &ins[1], &w_user)?
                } else {
                    self.memory_of(&ins[1], &w_user)?
                };
                args.push((ffi::ARG_WEIGHTS, w));
                if let Some(b) = ins.get(2) {
                    args.push((ffi::ARG_BIAS, self.memory_of(b, &bias)?));
                }
            }
            OpKind::Pool {
                alg,
                kernel,
                strides,
                dilations,
                pads_begin,
                pads_end,
            } => {
                let n = kernel.len();
                if ins[0].dims.len() != n + 2
                    || [strides, dilations, pads_begin, pads_end]
                        .iter()
                        .any(|v| v.len() != n)
                {
                    return Err(bad("inconsistent ranks"));
                }
                let src = self.md(&ins[0])?;
                let alg = match alg {
                    PoolAlg::Max => ffi::POOLING_MAX,
                    PoolAlg::AvgIncludePad => ffi::POOLING_AVG_INCLUDE,
                    PoolAlg::AvgExcludePad => ffi::POOLING_AVG_EXCLUDE,
                };
                let dil: Vec<i64> = dilations.iter().map(|d| d - 1).collect();
                // SAFETY: as above.
                let st = unsafe {
                    (api.pooling_v2_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        alg,
                        &src,
                        &dst_md,
                        dims_array(strides).as_ptr(),
                        dims_array(kernel).as_ptr(),
                        dims_array(&dil).as_ptr(),
                        dims_array(pads_begin).as_ptr(),
                        dims_array(pads_end).as_ptr(),
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
            }
            OpKind::Eltwise { alg, alpha, beta } => {
                if ins[0].dims != out.dims {
                    return Err(bad("operand and result differ in dims"));
                }
                let src = self.md(&ins[0])?;
                use ffi::eltwise as e;
                let alg = match alg {
                    Eltwise::Relu => e::RELU,
                    Eltwise::Tanh => e::TANH,
                    Eltwise::Elu => e::ELU,
                    Eltwise::Abs => e::ABS,
                    Eltwise::Sqrt => e::SQRT,
                    Eltwise::Linear => e::LINEAR,
                    Eltwise::Logistic => e::LOGISTIC,
                    Eltwise::Exp => e::EXP,
                    Eltwise::Log => e::LOG,
                    Eltwise::Clip => e::CLIP_V2,
                    Eltwise::GeluErf => e::GELU_ERF,
                    Eltwise::GeluTanh => e::GELU_TANH,
                    Eltwise::HardSwish => e::HARDSWISH,
                    Eltwise::Mish => e::MISH,
                };
                // SAFETY: as above.
                let st = unsafe {
                    (api.eltwise_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        alg,
                        &src,
                        *alpha,
                        *beta,
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
            }
            OpKind::Softmax { axis, log } => {
                let src = self.md(&ins[0])?;
                if *axis < 0 || *axis as usize >= ins[0].dims.len().max(1) {
                    return Err(bad("axis out of range"));
                }
                let alg = if *log {
                    ffi::SOFTMAX_LOG
                } else {
                    ffi::SOFTMAX_ACCURATE
                };
                // SAFETY: as above.
                let st = unsafe {
                    (api.softmax_v2_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        alg,
                        &src,
                        &dst_md,
                        *axis,
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
            }
            OpKind::BatchNorm { epsilon } => {
                let src = self.md(&ins[0])?;
                // SAFETY: as above.
                let st = unsafe {
                    (api.batch_normalization_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        &src,
                        *epsilon,
                        ffi::USE_GLOBAL_STATS | ffi::USE_SCALE | ffi::USE_SHIFT,
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
                for (o, arg) in ins[1..].iter().zip([
                    ffi::ARG_SCALE,
                    ffi::ARG_SHIFT,
                    ffi::ARG_MEAN,
                    ffi::ARG_VARIANCE,
                ]) {
                    let md = self.md(o)?;
                    args.push((arg, self.memory_of(o, &md)?));
                }
            }
            OpKind::LayerNorm { epsilon } => {
                let src = self.md(&ins[0])?;
                let flags = ffi::USE_SCALE | if ins.len() > 2 { ffi::USE_SHIFT } else { 0 };
                // SAFETY: as above; a null statistics descriptor means the default one.
                let st = unsafe {
                    (api.layer_normalization_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        &src,
                        ptr::null(),
                        *epsilon,
                        flags,
                    )
                };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
                for (o, arg) in ins[1..].iter().zip([ffi::ARG_SCALE, ffi::ARG_SHIFT]) {
                    let md = self.md(o)?;
                    args.push((arg, self.memory_of(o, &md)?));
                }
            }
            OpKind::Binary { alg } => {
                let a = self.md(&ins[0])?;
                let b = self.md(&ins[1])?;
                use ffi::binary as b_;
                let alg = match alg {
                    BinaryAlg::Add => b_::ADD,
                    BinaryAlg::Sub => b_::SUB,
                    BinaryAlg::Mul => b_::MUL,
                    BinaryAlg::Div => b_::DIV,
                    BinaryAlg::Max => b_::MAX,
                    BinaryAlg::Min => b_::MIN,
                };
                // SAFETY: as above.
                let st = unsafe { (api.binary_desc_init)(&mut *desc, alg, &a, &b, &dst_md) };
                check(st, || format!("describe {what}"))?;
                pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &a)?));
                args.push((ffi::ARG_SRC_1, self.memory_of(&ins[1], &b)?));
            }
            OpKind::Reorder => {
                if ins[0].dims != out.dims {
                    return Err(bad("operand and result differ in dims"));
                }
                let src = self.md(&ins[0])?;
                let mut rpd = ptr::null_mut();
                // SAFETY: as above.
                let st = unsafe {
                    (api.reorder_primitive_desc_create)(
                        &mut rpd,
                        &src,
                        self.engine,
                        &dst_md,
                        self.engine,
                        self.attr.cast_const(),
                    )
                };
                check(st, || format!("create {what}"))?;
                pd = rpd;
                args.push((ffi::ARG_SRC, self.memory_of(&ins[0], &src)?));
            }
        }
        args.push((ffi::ARG_DST, self.memory_of(out, &dst_md)?));
        let (prim, scratch) = self.primitive(pd, &what)?;
        if let Some(m) = scratch {
            args.push((ffi::ARG_SCRATCHPAD, m));
        }
        self.steps.push(Step {
            prim,
            args: args
                .into_iter()
                .map(|(arg, memory)| ExecArg { arg, memory })
                .collect(),
        });
        Ok(())
    }

    /// Runs the program on `inputs`.
    pub fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        if inputs.len() != self.inputs.len() {
            return Err(RtError::inputs(format!(
                "expected {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            )));
        }
        for (i, (t, (b, dims))) in inputs.iter().zip(&self.inputs).enumerate() {
            if t.dtype() != DType::F32 {
                return Err(RtError::inputs(format!(
                    "input #{i}: expected element type f32, got {}",
                    t.dtype().name()
                )));
            }
            if t.shape() != dims.as_slice() {
                return Err(RtError::inputs(format!(
                    "input #{i}: expected shape {dims:?}, got {:?}",
                    t.shape()
                )));
            }
            let src = t
                .as_f32()
                .ok_or_else(|| RtError::inputs(format!("input #{i} is not f32")))?;
            self.buffers[*b].copy_from_slice(src);
        }
        // SAFETY: every primitive and memory object was created at load and points into
        // buffers owned by `self`; `&mut self` (under the executable's mutex) makes this run
        // the only user.
        unsafe {
            for (k, s) in self.steps.iter().enumerate() {
                let st = (self.api.primitive_execute)(
                    s.prim,
                    self.stream,
                    s.args.len() as c_int,
                    s.args.as_ptr(),
                );
                if st != ffi::SUCCESS {
                    return Err(RtError::run(format!(
                        "onednn: primitive {k} failed: {}",
                        ffi::status_name(st)
                    )));
                }
            }
            let st = (self.api.stream_wait)(self.stream);
            if st != ffi::SUCCESS {
                return Err(RtError::run(format!(
                    "onednn: stream failed: {}",
                    ffi::status_name(st)
                )));
            }
        }
        self.outputs
            .iter()
            .map(|(b, dims)| {
                Tensor::from_vec(dims.clone(), self.buffers[*b].clone())
                    .map_err(|e| RtError::run(e.to_string()))
            })
            .collect()
    }
}
