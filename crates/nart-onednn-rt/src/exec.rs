//! A loaded program: the oneDNN engine, stream, memory objects and primitives, all created
//! once by [`Loaded::new`]; [`Loaded::run`] copies the inputs in, executes the primitives in
//! order and copies the results out.
//!
//! Every value has a buffer that lives as long as the executable (a view shares its operand's),
//! and every memory object points into one, so that a run creates nothing. Layouts are chosen
//! at load: convolutions and pooling pick theirs (oneDNN's blocked layouts, `nChw16c` and the
//! like), element-wise ops, batch normalization and binary ops keep their operand's, and the
//! ops that need row-major data (matmul, softmax, layer normalization, transposes, views) and
//! the segment's results get a row-major copy, made by a reorder where the layout differs.
//! Constant weights are reordered once, at load, into the layout the primitive prefers.

use std::ffi::{c_int, c_void};
use std::ptr;

use nart_target_rt::RtError;
use nart_tensor::qnn::FixedMultiplier;
use nart_tensor::{DType, Tensor};

use crate::ffi::{self, Api, Dims, ExecArg, MemoryDesc, OpDesc, MAX_NDIMS};
use crate::int8::{self, ConvWindow, Requantize};
use crate::program::{
    AddQuant, BinaryAlg, Elem, Eltwise, OpKind, Operand, PoolAlg, PostOp, Program, ValueKind,
};
use crate::NAME;

type H = *mut c_void;

/// `DNNL_MEMORY_ALLOCATE`: let oneDNN allocate the memory.
const ALLOCATE: *mut c_void = usize::MAX as *mut c_void;
/// `dnnl_query_src_md`.
const QUERY_SRC_MD: c_int = 129;
/// `dnnl_query_dst_md`.
const QUERY_DST_MD: c_int = 133;

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

/// The dims oneDNN sees for `dims` (a scalar is `[1]`).
fn seen(dims: &[i64]) -> Vec<i64> {
    if dims.is_empty() {
        vec![1]
    } else {
        dims.to_vec()
    }
}

/// oneDNN's element-wise algorithm for `alg`.
fn eltwise_alg(alg: Eltwise) -> c_int {
    use ffi::eltwise as e;
    match alg {
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
    }
}

/// oneDNN's binary algorithm for `alg`.
fn binary_alg(alg: BinaryAlg) -> c_int {
    use ffi::binary as b;
    match alg {
        BinaryAlg::Add => b::ADD,
        BinaryAlg::Sub => b::SUB,
        BinaryAlg::Mul => b::MUL,
        BinaryAlg::Div => b::DIV,
        BinaryAlg::Max => b::MAX,
        BinaryAlg::Min => b::MIN,
    }
}

/// One step of a run.
enum Step {
    /// A primitive and what it runs on.
    Prim { prim: H, args: Vec<ExecArg> },
    /// The runtime's requantization of an integer op's sums.
    Requant(Box<Requantize>),
    /// The runtime's exact integer addition.
    Add(Box<int8::Add>),
    /// The runtime's quantization or dequantization.
    Cast(Box<int8::Cast>),
}

/// oneDNN's data type for `e`.
fn dnnl_type(e: Elem) -> c_int {
    match e {
        Elem::F32 => ffi::F32,
        Elem::U8 => ffi::U8,
        Elem::S8 => ffi::S8,
    }
}

/// Strides with the channels (dim 1) innermost: `nhwc` for `[N, C, H, W]`.
fn channels_last(dims: &[i64]) -> Vec<i64> {
    let mut s = vec![1; dims.len()];
    if dims.len() < 3 {
        return row_major(dims);
    }
    let mut stride = dims[1];
    for d in (2..dims.len()).rev() {
        s[d] = stride;
        stride *= dims[d];
    }
    s[0] = stride;
    s
}

/// The bytes of a buffer.
fn bytes_mut(b: &mut [f32]) -> &mut [u8] {
    // SAFETY: any bytes are valid `u8`s, and `u8`'s alignment is 1; the length covers the
    // same memory.
    unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<u8>(), b.len() * 4) }
}

/// The bytes of a buffer, read-only.
fn bytes_of(b: &[f32]) -> &[u8] {
    // SAFETY: as for `bytes_mut`.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len() * 4) }
}

/// A buffer's memory as `i32`s.
fn as_i32(b: &[f32]) -> &[i32] {
    // SAFETY: `i32` has the size and alignment of `f32`, and any bits are a valid `i32`.
    unsafe { std::slice::from_raw_parts(b.as_ptr().cast::<i32>(), b.len()) }
}

/// Where a value lives while the program loads.
#[derive(Clone, Copy)]
struct Place {
    /// Its buffer.
    buf: usize,
    /// Its layout; `None` is row-major.
    md: Option<MemoryDesc>,
    /// The buffer of its row-major copy, once one is made.
    plain: Option<usize>,
}

/// Everything a run needs, created at load.
pub struct Loaded {
    api: &'static Api,
    engine: H,
    stream: H,
    /// Primitive attributes: the scratchpad is the caller's (each primitive gets its own, so
    /// a run from any thread touches no thread-local state of oneDNN's).
    attr: H,
    /// The buffers values live in (`f32` elements, or the bytes of other types).
    buffers: Vec<Vec<f32>>,
    /// The element type of each value.
    elems: Vec<Elem>,
    memories: Vec<H>,
    prims: Vec<H>,
    steps: Vec<Step>,
    inputs: Vec<(usize, Vec<usize>, Elem)>,
    outputs: Vec<(usize, Vec<usize>, Elem)>,
    /// What each step does, for the profile (`op 3 matmul`, `op 3 matmul: operand reorder`).
    labels: Vec<String>,
    /// The label the next steps get.
    current: String,
    /// With `NART_PROFILE` set at load: each step's total time and run count, printed to
    /// standard error when the executable is dropped.
    profile: Option<Vec<(std::time::Duration, u64, std::time::Duration)>>,
}

/// Whether `NART_PROFILE` asks for profiles (set, and neither empty nor `0`).
pub fn profiling() -> bool {
    std::env::var_os("NART_PROFILE").is_some_and(|v| !v.is_empty() && v != "0")
}

// SAFETY: the handles are only used under the executable's mutex; oneDNN objects may be used
// from any thread, one at a time.
unsafe impl Send for Loaded {}

impl Loaded {
    /// The profile as a table: one line per step (its label, the least and the mean time
    /// of a run, the total and its share), the slowest in total first; `None` without
    /// profiling or before any run. On a loaded machine the least time is the one to read.
    pub fn profile_table(&self) -> Option<String> {
        let times = self.profile.as_ref()?;
        let runs = times.iter().map(|&(_, n, _)| n).max().filter(|&n| n > 0)?;
        Some(table(
            &format!("onednn profile: {} steps, {runs} runs", times.len()),
            "(each step waited for)",
            times
                .iter()
                .zip(&self.labels)
                .map(|(&(t, n, m), l)| (l.clone(), t, n, m))
                .collect(),
            true,
        ))
    }
}

/// A profile table: `title`, then one line per `(label, total, runs, least)`, the slowest
/// first when `sort`.
fn table(
    title: &str,
    note: &str,
    rows: Vec<(String, std::time::Duration, u64, std::time::Duration)>,
    sort: bool,
) -> String {
    let total: f64 = rows.iter().map(|r| r.1.as_secs_f64()).sum();
    let least: f64 = rows
        .iter()
        .filter(|r| r.2 > 0)
        .map(|r| r.3.as_secs_f64())
        .sum();
    let runs = rows.iter().map(|r| r.2).max().unwrap_or(0).max(1);
    let mut rows: Vec<(
        usize,
        (String, std::time::Duration, u64, std::time::Duration),
    )> = rows.into_iter().enumerate().collect();
    if sort {
        rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(&b.0)));
    }
    let mut out = format!(
        "{title}: {:.3} ms a run on average, {:.3} ms adding up the least times {note}\n\
         {:>4}  {:<48} {:>9} {:>9} {:>10} {:>6}\n",
        total * 1e3 / runs as f64,
        least * 1e3,
        "step",
        "what",
        "least us",
        "mean us",
        "total ms",
        "share"
    );
    for (i, (label, t, n, m)) in rows {
        let t = t.as_secs_f64();
        let m = if n > 0 { m.as_secs_f64() } else { 0.0 };
        out.push_str(&format!(
            "{i:>4}  {label:<48} {:>9.2} {:>9.2} {:>10.3} {:>5.1}%\n",
            m * 1e6,
            t * 1e6 / n.max(1) as f64,
            t * 1e3,
            if total > 0.0 { 100.0 * t / total } else { 0.0 }
        ));
    }
    out
}

impl Drop for Loaded {
    fn drop(&mut self) {
        if let Some(table) = self.profile_table() {
            eprint!("{table}");
        }
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

/// Waits until the primitives queued on `stream` have finished.
///
/// # Safety
/// `stream` must be a live stream of `api`.
unsafe fn wait(api: &Api, stream: H) -> Result<(), RtError> {
    // SAFETY: the caller guarantees the stream is live.
    let st = unsafe { (api.stream_wait)(stream) };
    if st != ffi::SUCCESS {
        return Err(RtError::run(format!(
            "onednn: stream failed: {}",
            ffi::status_name(st)
        )));
    }
    Ok(())
}

/// Adds the time since `started` to step `k`'s profile (total, count, least), when profiling.
fn record(
    profile: &mut Option<Vec<(std::time::Duration, u64, std::time::Duration)>>,
    k: usize,
    started: Option<std::time::Instant>,
) {
    if let (Some(t0), Some(p)) = (started, profile.as_mut()) {
        let t = t0.elapsed();
        p[k].0 += t;
        p[k].1 += 1;
        p[k].2 = p[k].2.min(t);
    }
}

/// Turns a failed oneDNN call into an error about `what`.
fn check(status: ffi::Status, what: impl FnOnce() -> String) -> Result<(), RtError> {
    if status == ffi::SUCCESS {
        Ok(())
    } else {
        Err(RtError::corrupt(
            NAME,
            format!("oneDNN cannot {}: {}", what(), ffi::status_name(status)),
        ))
    }
}

/// The values' places while loading.
struct Places<'p> {
    program: &'p Program,
    at: Vec<Option<Place>>,
}

impl Places<'_> {
    fn get(&self, v: u32) -> Result<Place, RtError> {
        self.at
            .get(v as usize)
            .copied()
            .flatten()
            .ok_or_else(|| RtError::corrupt(NAME, format!("value {v} is read before it is set")))
    }

    fn dims(&self, v: u32) -> Vec<i64> {
        seen(&self.program.values[v as usize].dims)
    }

    /// Whether an op reads `o` as the value itself (its own dims, no strides), so that any
    /// layout will do.
    fn whole(&self, o: &Operand) -> bool {
        o.strides.is_none() && seen(&o.dims) == self.dims(o.value)
    }
}

impl Loaded {
    /// Creates the engine, the stream, the buffers, the memory objects and the primitives of
    /// `program` (which has no dynamic dims).
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
            elems: program.values.iter().map(|v| v.elem).collect(),
            memories: Vec::new(),
            prims: Vec::new(),
            steps: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            labels: Vec::new(),
            current: String::new(),
            profile: None,
        };
        // SAFETY: out-pointers to handles owned by `l`, destroyed by its Drop.
        unsafe {
            check(
                (api.engine_create)(&mut l.engine, ffi::ENGINE_CPU, 0),
                || "create a CPU engine".into(),
            )?;
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
        let mut places = Places {
            program,
            at: vec![None; program.values.len()],
        };
        for (i, v) in program.values.iter().enumerate() {
            let data = match &v.kind {
                ValueKind::Computed => continue,
                ValueKind::Input => vec![0.0; (v.numel() as usize * v.elem.size()).div_ceil(4)],
                ValueKind::Constant(d) => d.to_vec(),
            };
            places.at[i] = Some(Place {
                buf: l.buffer(data),
                md: None,
                plain: None,
            });
        }
        for (k, op) in program.ops.iter().enumerate() {
            let own = op.own_inputs();
            l.current = format!("op {k} {}", op.kind.name());
            if !op.post.is_empty() {
                let post: Vec<&str> = op.post.iter().map(PostOp::name).collect();
                l.current = format!("{} + {}", l.current, post.join(" + "));
            }
            l.add_op(
                &mut places,
                k,
                &op.kind,
                &op.inputs[..own],
                &op.outputs[0],
                (&op.post, &op.inputs[own..]),
            )?;
        }
        let dims = |v: u32| -> Vec<usize> {
            program.values[v as usize]
                .dims
                .iter()
                .map(|&d| d as usize)
                .collect()
        };
        for &v in &program.inputs {
            let p = places.get(v)?;
            l.inputs.push((p.buf, dims(v), l.elems[v as usize]));
        }
        l.current = "segment results".into();
        for &v in &program.outputs {
            let b = l.plain(&mut places, v)?;
            l.outputs.push((b, dims(v), l.elems[v as usize]));
        }
        if profiling() {
            l.profile = Some(vec![
                (std::time::Duration::ZERO, 0, std::time::Duration::MAX);
                l.steps.len()
            ]);
        }
        Ok(l)
    }

    fn buffer(&mut self, data: Vec<f32>) -> usize {
        self.buffers.push(data);
        self.buffers.len() - 1
    }

    /// A buffer holding `bytes`.
    fn buffer_bytes(&mut self, bytes: &[u8]) -> usize {
        let mut b = vec![0.0f32; bytes.len().div_ceil(4).max(1)];
        bytes_mut(&mut b)[..bytes.len()].copy_from_slice(bytes);
        self.buffer(b)
    }

    /// A zeroed buffer large enough for `md`.
    fn buffer_for(&mut self, md: &MemoryDesc) -> usize {
        // SAFETY: `md` is initialised.
        let bytes = unsafe { (self.api.memory_desc_get_size)(md) };
        self.buffer(vec![0.0; bytes.div_ceil(4).max(1)])
    }

    /// A memory descriptor for `o`: its dims and strides (row-major when absent), of its
    /// value's element type.
    fn md(&self, o: &Operand) -> Result<MemoryDesc, RtError> {
        let dims = seen(&o.dims);
        let s = match &o.strides {
            Some(s) if !o.dims.is_empty() => s.clone(),
            _ => row_major(&dims),
        };
        self.md_strides(&dims, &s, dnnl_type(self.elems[o.value as usize]))
    }

    /// Value `v` row-major.
    fn md_plain(&self, places: &Places<'_>, v: u32) -> Result<MemoryDesc, RtError> {
        let dims = places.dims(v);
        self.md_strides(&dims, &row_major(&dims), dnnl_type(self.elems[v as usize]))
    }

    fn md_strides(&self, dims: &[i64], strides: &[i64], dt: c_int) -> Result<MemoryDesc, RtError> {
        let mut md = MemoryDesc::zeroed();
        let (d, s) = (dims_array(dims), dims_array(strides));
        // SAFETY: `md` is a valid out-pointer; the arrays hold MAX_NDIMS entries.
        let st = unsafe {
            (self.api.memory_desc_init_by_strides)(
                &mut md,
                dims.len() as c_int,
                d.as_ptr(),
                dt,
                s.as_ptr(),
            )
        };
        check(st, || format!("describe a tensor of dims {dims:?}"))?;
        Ok(md)
    }

    /// A descriptor of `dims` in whatever layout the primitive prefers.
    fn md_any(&self, dims: &[i64], dt: c_int) -> Result<MemoryDesc, RtError> {
        let mut md = MemoryDesc::zeroed();
        let d = dims_array(dims);
        // SAFETY: as in `md_strides`.
        let st = unsafe {
            (self.api.memory_desc_init_by_tag)(
                &mut md,
                dims.len() as c_int,
                d.as_ptr(),
                dt,
                ffi::FORMAT_ANY,
            )
        };
        check(st, || format!("describe a tensor of dims {dims:?}"))?;
        Ok(md)
    }

    fn same(&self, a: &MemoryDesc, b: &MemoryDesc) -> bool {
        // SAFETY: both descriptors are initialised.
        unsafe { (self.api.memory_desc_equal)(a, b) != 0 }
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

    /// A memory object over buffer `b`, described by `md`.
    fn memory_in(&mut self, b: usize, md: &MemoryDesc) -> Result<H, RtError> {
        // SAFETY: `buffer_for` sized the buffer for its descriptor; row-major buffers hold
        // the value's elements, which every view of it spans at most.
        let size = unsafe { (self.api.memory_desc_get_size)(md) };
        if size > self.buffers[b].len() * 4 {
            return Err(RtError::corrupt(NAME, "a view is larger than its value"));
        }
        let p = self.buffers[b].as_mut_ptr().cast::<c_void>();
        self.memory(md, p)
    }

    fn primitive_desc(&self, desc: &OpDesc, what: &str) -> Result<H, RtError> {
        self.primitive_desc_with(desc, what, self.attr)
    }

    fn primitive_desc_with(&self, desc: &OpDesc, what: &str, attr: H) -> Result<H, RtError> {
        let mut pd = ptr::null_mut();
        // SAFETY: `desc` was initialised by a `_desc_init` function.
        let st = unsafe {
            (self.api.primitive_desc_create)(
                &mut pd,
                desc,
                attr.cast_const(),
                self.engine,
                ptr::null(),
            )
        };
        check(st, || format!("create a {what} primitive"))?;
        Ok(pd)
    }

    /// A descriptor `pd` holds (`QUERY_*_MD`).
    fn query(&self, pd: H, what: c_int) -> Result<MemoryDesc, RtError> {
        // SAFETY: `pd` is valid; the result lives as long as `pd` and is copied here.
        let md = unsafe { (self.api.primitive_desc_query_md)(pd, what, 0) };
        if md.is_null() {
            return Err(RtError::corrupt(NAME, "a primitive lacks a descriptor"));
        }
        // SAFETY: non-null, initialised by oneDNN.
        Ok(unsafe { *md })
    }

    /// Creates the primitive of `pd` (and destroys `pd`), with its scratchpad memory when it
    /// needs one.
    fn primitive(&mut self, pd: H, what: &str) -> Result<(H, Option<H>), RtError> {
        // SAFETY: `pd` is valid; the returned descriptor lives as long as `pd`.
        let scratch_md =
            unsafe { (self.api.primitive_desc_query_md)(pd, ffi::QUERY_SCRATCHPAD_MD, 0) };
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

    /// Adds a step running `prim` on `args` (and its scratchpad).
    fn step(&mut self, prim: H, scratch: Option<H>, mut args: Vec<(c_int, H)>) {
        if let Some(m) = scratch {
            args.push((ffi::ARG_SCRATCHPAD, m));
        }
        self.labels.push(self.current.clone());
        self.steps.push(Step::Prim {
            prim,
            args: args
                .into_iter()
                .map(|(arg, memory)| ExecArg { arg, memory })
                .collect(),
        });
    }

    /// A reorder primitive from `src` to `dst`.
    fn reorder(&mut self, src: &MemoryDesc, dst: &MemoryDesc) -> Result<(H, Option<H>), RtError> {
        let mut rpd = ptr::null_mut();
        // SAFETY: both descriptors are initialised; the engine is valid.
        let st = unsafe {
            (self.api.reorder_primitive_desc_create)(
                &mut rpd,
                src,
                self.engine,
                dst,
                self.engine,
                self.attr.cast_const(),
            )
        };
        check(st, || "create a reorder".into())?;
        self.primitive(rpd, "reorder")
    }

    /// Adds a step copying buffer `from` (laid out as `src`) into a new buffer laid out as
    /// `dst`, and returns that buffer.
    fn reorder_step(
        &mut self,
        from: usize,
        src: &MemoryDesc,
        dst: &MemoryDesc,
    ) -> Result<usize, RtError> {
        let to = self.buffer_for(dst);
        let (prim, scratch) = self.reorder(src, dst)?;
        let a = self.memory_in(from, src)?;
        let b = self.memory_in(to, dst)?;
        let op = std::mem::take(&mut self.current);
        self.current = format!("{op}: layout reorder");
        self.step(prim, scratch, vec![(ffi::ARG_SRC, a), (ffi::ARG_DST, b)]);
        self.current = op;
        Ok(to)
    }

    /// The buffer holding value `v` row-major, adding a reorder the first time it is not.
    fn plain(&mut self, places: &mut Places<'_>, v: u32) -> Result<usize, RtError> {
        let p = places.get(v)?;
        let Some(md) = p.md else {
            return Ok(p.buf);
        };
        if let Some(b) = p.plain {
            return Ok(b);
        }
        let want = self.md_plain(places, v)?;
        let b = self.reorder_step(p.buf, &md, &want)?;
        places.at[v as usize] = Some(Place {
            plain: Some(b),
            ..p
        });
        Ok(b)
    }

    /// The layout of value `v` as it is.
    fn current(&self, places: &Places<'_>, v: u32) -> Result<MemoryDesc, RtError> {
        match places.get(v)?.md {
            Some(md) => Ok(md),
            None => self.md_plain(places, v),
        }
    }

    /// The buffer holding value `v` laid out as `want`, adding a reorder when it is not.
    fn laid_out(
        &mut self,
        places: &mut Places<'_>,
        v: u32,
        want: &MemoryDesc,
    ) -> Result<usize, RtError> {
        let p = places.get(v)?;
        let now = self.current(places, v)?;
        if self.same(&now, want) {
            return Ok(p.buf);
        }
        if self.same(want, &self.md_plain(places, v)?) {
            return self.plain(places, v);
        }
        self.reorder_step(p.buf, &now, want)
    }

    /// How an op reads operand `o`: its layout and buffer. An op that takes any layout
    /// (`any_layout`) reads the value as it is when it sees the whole value; everything else
    /// reads the row-major copy through the operand's dims and strides.
    fn operand(
        &mut self,
        places: &mut Places<'_>,
        o: &Operand,
        any_layout: bool,
    ) -> Result<(MemoryDesc, usize), RtError> {
        if any_layout && places.whole(o) {
            let md = self.current(places, o.value)?;
            Ok((md, places.get(o.value)?.buf))
        } else {
            let b = self.plain(places, o.value)?;
            Ok((self.md(o)?, b))
        }
    }

    /// Memory for constant weights `w` in the layout `want` the primitive prefers: the
    /// weights' own buffer when it is that layout, else a copy reordered once, now.
    fn weights(
        &mut self,
        places: &mut Places<'_>,
        w: &Operand,
        want: &MemoryDesc,
    ) -> Result<H, RtError> {
        let user = self.md(w)?;
        let b = self.plain(places, w.value)?;
        self.weights_in(b, &user, want)
    }

    /// Memory for the weights in buffer `b`, laid out as `user`, in the layout `want`.
    fn weights_in(&mut self, b: usize, user: &MemoryDesc, want: &MemoryDesc) -> Result<H, RtError> {
        let user = *user;
        if self.same(want, &user) {
            return self.memory_in(b, &user);
        }
        let src = self.memory_in(b, &user)?;
        let dst = self.memory(want, ALLOCATE)?;
        let (prim, scratch) = self.reorder(&user, want)?;
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

    fn is_constant(places: &Places<'_>, o: &Operand) -> bool {
        matches!(
            places.program.values[o.value as usize].kind,
            ValueKind::Constant(_)
        )
    }

    /// Sets the place of the op's result: a new buffer laid out as `md` (row-major when it is).
    fn result(
        &mut self,
        places: &mut Places<'_>,
        out: &Operand,
        md: &MemoryDesc,
    ) -> Result<usize, RtError> {
        let buf = self.buffer_for(md);
        let plain = self.md_plain(places, out.value)?;
        let seen_plain = self.md(out)?;
        let md = (!self.same(md, &plain) && !self.same(md, &seen_plain)).then_some(*md);
        places.at[out.value as usize] = Some(Place {
            buf,
            md,
            plain: None,
        });
        Ok(buf)
    }

    /// Primitive attributes holding `post` (with the scratchpad the caller's), the arguments
    /// of its binary post-ops (`extra`, in order), and the layout a full-size one has (the
    /// result then takes that layout, which every implementation reads).
    #[allow(clippy::type_complexity)]
    fn post_ops(
        &mut self,
        places: &mut Places<'_>,
        post: &[PostOp],
        extra: &[Operand],
        out: &Operand,
        any_layout: bool,
    ) -> Result<(H, Vec<(c_int, H)>, Option<MemoryDesc>), RtError> {
        let api = self.api;
        let mut attr = ptr::null_mut();
        let mut po = ptr::null_mut();
        // SAFETY: out-pointers; the attributes are destroyed by the caller, the post-ops list
        // below once the attributes hold a copy.
        unsafe {
            check((api.primitive_attr_create)(&mut attr), || {
                "create attributes".into()
            })?;
            check(
                (api.primitive_attr_set_scratchpad_mode)(attr, ffi::SCRATCHPAD_USER),
                || "set the scratchpad mode".into(),
            )?;
            check((api.post_ops_create)(&mut po), || "create post-ops".into())?;
        }
        let mut args = Vec::new();
        let mut hint = None;
        let mut operands = extra.iter();
        let mut result = Ok(());
        for (i, p) in post.iter().enumerate() {
            let st = match p {
                // SAFETY: `po` is valid.
                PostOp::Eltwise { alg, alpha, beta } => unsafe {
                    (api.post_ops_append_eltwise)(po, 1.0, eltwise_alg(*alg), *alpha, *beta)
                },
                PostOp::Binary { alg } => {
                    let Some(o) = operands.next() else {
                        result = Err(RtError::corrupt(NAME, "a binary post-op lacks its operand"));
                        break;
                    };
                    let full = any_layout && places.whole(o) && seen(&o.dims) == seen(&out.dims);
                    let (md, b) = match self.operand(places, o, full) {
                        Ok(x) => x,
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    };
                    if full && hint.is_none() {
                        hint = Some(md);
                    }
                    match self.memory_in(b, &md) {
                        Ok(m) => args.push((ffi::arg_post_op(i) | ffi::ARG_SRC_1, m)),
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                    // SAFETY: `po` is valid, `md` initialised.
                    unsafe { (api.post_ops_append_binary)(po, binary_alg(*alg), &md) }
                }
            };
            if st != ffi::SUCCESS {
                result = check(st, || "append a post-op".into());
                break;
            }
        }
        // SAFETY: `attr` and `po` are valid; the attributes copy the list.
        unsafe {
            if result.is_ok() {
                result = check((api.primitive_attr_set_post_ops)(attr, po), || {
                    "set post-ops".into()
                });
            }
            (api.post_ops_destroy)(po);
        }
        if let Err(e) = result {
            // SAFETY: created above, not used again.
            unsafe { (api.primitive_attr_destroy)(attr) };
            return Err(e);
        }
        Ok((attr, args, hint))
    }

    fn add_op(
        &mut self,
        places: &mut Places<'_>,
        k: usize,
        kind: &OpKind,
        ins: &[Operand],
        out: &Operand,
        (post, extra): (&[PostOp], &[Operand]),
    ) -> Result<(), RtError> {
        let api = self.api;
        if let OpKind::QAdd { q } = kind {
            return self.add_qadd(places, k, q, ins, out);
        }
        if matches!(
            kind,
            OpKind::Quantize { .. } | OpKind::Dequantize { .. } | OpKind::QRequantize { .. }
        ) {
            return self.add_cast(places, k, kind, &ins[0], out);
        }
        if matches!(
            kind,
            OpKind::QConv { .. } | OpKind::QMatMul { .. } | OpKind::QAvgPool { .. }
        ) {
            return self.add_int8(places, k, kind, &ins[0], out);
        }
        // Fused post-ops (convolutions and matmuls) go in attributes of their own.
        let (op_attr, post_args, dst_hint) = if post.is_empty() {
            (self.attr, Vec::new(), None)
        } else {
            self.post_ops(
                places,
                post,
                extra,
                out,
                matches!(kind, OpKind::Conv { .. }),
            )?
        };
        let r = self.add_op_with(places, k, kind, ins, out, op_attr, dst_hint, post_args);
        if op_attr != self.attr {
            // SAFETY: created by `post_ops`; the primitive descriptor keeps its own copy.
            unsafe { (api.primitive_attr_destroy)(op_attr) };
        }
        r
    }

    /// Adds an integer convolution or matmul: a primitive writing the exact `s32` sums
    /// `Σ x·w` (no bias, no scales), then the runtime's requantization into the 8-bit
    /// result ([`crate::int8`]). A convolution's sums and result are channels-last (the
    /// layout oneDNN's int8 kernels use), a matmul's row-major.
    fn add_int8(
        &mut self,
        places: &mut Places<'_>,
        k: usize,
        kind: &OpKind,
        x: &Operand,
        out: &Operand,
    ) -> Result<(), RtError> {
        let api = self.api;
        let what = format!("{} (op {k})", kind.name());
        let bad = |m: String| RtError::corrupt(NAME, format!("op {k} ({}): {m}", kind.name()));
        let src_elem = self.elems[x.value as usize];
        let out_elem = self.elems[out.value as usize];
        let mut desc = OpDesc::zeroed();
        let no_bias = MemoryDesc::zeroed();
        let (q, columns) = match kind {
            OpKind::QConv { q, .. } | OpKind::QAvgPool { q, .. } => (q, false),
            OpKind::QMatMul { q } => (q, true),
            _ => return Err(bad("not an integer op".into())),
        };
        int8::exactness(q, src_elem, columns, api.has_vnni())
            .map_err(|e| bad(format!("oneDNN's int8 sums would not be exact here: {e}")))?;
        let w_user = self.md_strides(&q.weight_dims, &row_major(&q.weight_dims), ffi::S8)?;
        let w_any = self.md_any(&q.weight_dims, ffi::S8)?;
        // An average pooling's window sums: a depthwise convolution with weights of 1.
        let window = match kind {
            OpKind::QConv {
                strides,
                dilations,
                pads_begin,
                pads_end,
                ..
            } => Some((
                strides.clone(),
                dilations.clone(),
                pads_begin.clone(),
                pads_end.clone(),
                None,
            )),
            OpKind::QAvgPool {
                strides,
                pads_begin,
                pads_end,
                count_include_pad,
                ..
            } => Some((
                strides.clone(),
                vec![1; strides.len()],
                pads_begin.clone(),
                pads_end.clone(),
                Some(*count_include_pad),
            )),
            _ => None,
        };
        let mut position_mults = Vec::new();
        let (acc_md, y_md, x_buf, src_md, pd, spatial, corr) = match window {
            Some((strides, dilations, pads_begin, pads_end, pool)) => {
                let sp = strides.len();
                let grouped = q.weight_dims.len() - sp - 2;
                let cl = channels_last(&out.dims);
                let acc_md = self.md_strides(&out.dims, &cl, ffi::S32)?;
                let y_md = self.md_strides(&out.dims, &cl, dnnl_type(out_elem))?;
                let src_any = self.md_any(&x.dims, dnnl_type(src_elem))?;
                let dil: Vec<i64> = dilations.iter().map(|d| d - 1).collect();
                // SAFETY: every descriptor is initialised; the arrays hold MAX_NDIMS entries.
                let st = unsafe {
                    (api.dilated_convolution_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        ffi::CONVOLUTION_DIRECT,
                        &src_any,
                        &w_any,
                        &no_bias,
                        &acc_md,
                        dims_array(&strides).as_ptr(),
                        dims_array(&dil).as_ptr(),
                        dims_array(&pads_begin).as_ptr(),
                        dims_array(&pads_end).as_ptr(),
                    )
                };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc(&desc, &what)?;
                let src_md = self.query(pd, QUERY_SRC_MD)?;
                let xb = self.laid_out(places, x.value, &src_md)?;
                let win = ConvWindow {
                    input: &x.dims[2..],
                    output: &out.dims[2..],
                    kernel: &q.weight_dims[grouped + 2..],
                    strides: &strides,
                    dilations: &dilations,
                    pads_begin: &pads_begin,
                    pads_end: &pads_end,
                };
                let (mut spatial, mut corr) = int8::conv_corrections(q, &win);
                if pool == Some(false) {
                    // Each window's divisor is its count of positions inside the input.
                    let counts = int8::window_counts(&win);
                    if counts.iter().any(|&n| n == 0 || n > q.multipliers.len()) {
                        return Err(bad("a window covers only padding".into()));
                    }
                    if spatial == 1 && counts.len() > 1 {
                        corr = corr.repeat(counts.len());
                        spatial = counts.len();
                    }
                    position_mults = counts.iter().map(|&n| (n - 1) as u32).collect();
                } else if pool == Some(true) && q.multipliers.len() > 1 {
                    // Every window counts all its positions: the last multiplier.
                    position_mults = vec![(q.multipliers.len() - 1) as u32; spatial];
                }
                (acc_md, y_md, xb, src_md, pd, spatial, corr)
            }
            _ => {
                let (src_md, xb) = self.operand(places, x, false)?;
                let acc_md = self.md_strides(&out.dims, &row_major(&out.dims), ffi::S32)?;
                let y_md = self.md(out)?;
                // SAFETY: as above.
                let st = unsafe {
                    (api.matmul_desc_init)(&mut *desc, &src_md, &w_any, &no_bias, &acc_md)
                };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc(&desc, &what)?;
                (acc_md, y_md, xb, src_md, pd, 1, int8::matmul_corrections(q))
            }
        };
        let bytes: Vec<u8> = q.weights.iter().map(|&w| w as u8).collect();
        let wb = self.buffer_bytes(&bytes);
        let want = self.query(pd, ffi::QUERY_WEIGHTS_MD)?;
        let w = self.weights_in(wb, &w_user, &want)?;
        let acc = self.buffer_for(&acc_md);
        let args = vec![
            (ffi::ARG_SRC, self.memory_in(x_buf, &src_md)?),
            (ffi::ARG_WEIGHTS, w),
            (ffi::ARG_DST, self.memory_in(acc, &acc_md)?),
        ];
        let (prim, scratch) = self.primitive(pd, &what)?;
        self.step(prim, scratch, args);
        let y = self.result(places, out, &y_md)?;
        let n: usize = out.dims.iter().map(|&d| d as usize).product();
        self.labels
            .push(format!("{}: requantization", self.current));
        self.steps.push(Step::Requant(Box::new(Requantize {
            acc,
            out: y,
            n,
            channels: q.channels(),
            spatial,
            corr,
            mults: int8::multipliers(q),
            position_mults,
            zero_point: q.zero_point,
            lo: q.lo,
            hi: q.hi,
            rounding: q.rounding,
            signed: out_elem == Elem::S8,
        })));
        Ok(())
    }

    /// Adds an integer addition: the runtime's exact rule ([`int8::Add`]) on the operands'
    /// row-major copies, into a row-major result (no oneDNN primitive computes it exactly).
    fn add_qadd(
        &mut self,
        places: &mut Places<'_>,
        k: usize,
        q: &AddQuant,
        ins: &[Operand],
        out: &Operand,
    ) -> Result<(), RtError> {
        let bad = |m: &str| RtError::corrupt(NAME, format!("op {k} (integer addition): {m}"));
        let (a, b) = (&ins[0], &ins[1]);
        if !places.whole(a) || !places.whole(b) || seen(&a.dims) != seen(&out.dims) {
            return Err(bad("the operands are not the result's size"));
        }
        let (fa, fb, shift) = q
            .common_shift()
            .ok_or_else(|| bad("the multipliers' exponents differ by more than 64"))?;
        let (ab, bb) = (self.plain(places, a.value)?, self.plain(places, b.value)?);
        let md = self.md_plain(places, out.value)?;
        let y = self.result(places, out, &md)?;
        if y == ab || y == bb {
            return Err(bad("an addition in place"));
        }
        let signed = |e: Elem| e == Elem::S8;
        self.labels.push(self.current.clone());
        self.steps.push(Step::Add(Box::new(int8::Add {
            inputs: [ab, bb],
            out: y,
            n: out.dims.iter().map(|&d| d as usize).product(),
            signed: [
                signed(self.elems[a.value as usize]),
                signed(self.elems[b.value as usize]),
                signed(self.elems[out.value as usize]),
            ],
            zero_points: q.zero_points,
            factors: [fa, fb],
            shift,
            zero_point: q.zero_point,
            lo: q.lo,
            hi: q.hi,
            rounding: q.rounding,
        })));
        Ok(())
    }

    /// Adds a quantization, dequantization or requantization computed by the runtime
    /// ([`int8::Cast`]) from the operand's row-major copy into a row-major result.
    fn add_cast(
        &mut self,
        places: &mut Places<'_>,
        k: usize,
        kind: &OpKind,
        x: &Operand,
        out: &Operand,
    ) -> Result<(), RtError> {
        if !places.whole(x) || seen(&x.dims) != seen(&out.dims) {
            return Err(RtError::corrupt(
                NAME,
                format!(
                    "op {k} ({}): the operand is not the result's size",
                    kind.name()
                ),
            ));
        }
        let input = self.plain(places, x.value)?;
        let md = self.md_plain(places, out.value)?;
        let y = self.result(places, out, &md)?;
        let cast = match *kind {
            OpKind::Quantize {
                scale,
                zero_point,
                lo,
                hi,
            } => int8::CastKind::Quantize {
                scale,
                zero_point,
                lo,
                hi,
                signed: self.elems[out.value as usize] == Elem::S8,
            },
            OpKind::Dequantize { scale, zero_point } => int8::CastKind::Dequantize {
                scale,
                zero_point,
                signed: self.elems[x.value as usize] == Elem::S8,
            },
            OpKind::QRequantize {
                src_zero_point,
                multiplier: (m, shift),
                zero_point,
                lo,
                hi,
                rounding,
            } => int8::CastKind::Requantize {
                src_zero_point,
                multiplier: FixedMultiplier { m, shift },
                zero_point,
                lo,
                hi,
                rounding,
                signed: [
                    self.elems[x.value as usize] == Elem::S8,
                    self.elems[out.value as usize] == Elem::S8,
                ],
            },
            _ => return Err(RtError::corrupt(NAME, format!("op {k} is not a cast"))),
        };
        self.labels.push(self.current.clone());
        self.steps.push(Step::Cast(Box::new(int8::Cast {
            input,
            out: y,
            n: out.dims.iter().map(|&d| d as usize).product(),
            kind: cast,
        })));
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_op_with(
        &mut self,
        places: &mut Places<'_>,
        k: usize,
        kind: &OpKind,
        ins: &[Operand],
        out: &Operand,
        op_attr: H,
        dst_hint: Option<MemoryDesc>,
        post_args: Vec<(c_int, H)>,
    ) -> Result<(), RtError> {
        let api = self.api;
        let what = format!("{} (op {k})", kind.name());
        let bad = |m: &str| RtError::corrupt(NAME, format!("op {k} ({}): {m}", kind.name()));
        let mut desc = OpDesc::zeroed();
        let mut args: Vec<(c_int, H)> = Vec::new();
        // The result's layout and the primitive's descriptor.
        let (dst_md, pd) = match kind {
            OpKind::QConv { .. }
            | OpKind::QMatMul { .. }
            | OpKind::QAvgPool { .. }
            | OpKind::QAdd { .. }
            | OpKind::Quantize { .. }
            | OpKind::Dequantize { .. }
            | OpKind::QRequantize { .. } => {
                return Err(bad("an integer op takes no post-ops"));
            }
            OpKind::View => {
                let b = self.plain(places, ins[0].value)?;
                places.at[out.value as usize] = Some(Place {
                    buf: b,
                    md: None,
                    plain: None,
                });
                return Ok(());
            }
            OpKind::Conv {
                groups,
                strides,
                dilations,
                pads_begin,
                pads_end,
            } => {
                let n = strides.len();
                if ins[0].dims.len() != n + 2
                    || [dilations, pads_begin, pads_end]
                        .iter()
                        .any(|v| v.len() != n)
                    || *groups < 1
                    || ins[1].dims.len() != n + 2 + usize::from(*groups > 1)
                {
                    return Err(bad("inconsistent ranks"));
                }
                let w_const = Self::is_constant(places, &ins[1]);
                let src_any = self.md_any(&ins[0].dims, ffi::F32)?;
                let w_md = if w_const {
                    self.md_any(&ins[1].dims, ffi::F32)?
                } else {
                    self.md(&ins[1])?
                };
                let bias = match ins.get(2) {
                    Some(b) => self.md(b)?,
                    None => MemoryDesc::zeroed(),
                };
                let dst_any = match dst_hint {
                    Some(md) => md,
                    None => self.md_any(&out.dims, ffi::F32)?,
                };
                let dil: Vec<i64> = dilations.iter().map(|d| d - 1).collect();
                // SAFETY: every descriptor is initialised; the arrays hold MAX_NDIMS entries.
                let st = unsafe {
                    (api.dilated_convolution_forward_desc_init)(
                        &mut *desc,
                        ffi::FORWARD_INFERENCE,
                        ffi::CONVOLUTION_DIRECT,
                        &src_any,
                        &w_md,
                        &bias,
                        &dst_any,
                        dims_array(strides).as_ptr(),
                        dims_array(&dil).as_ptr(),
                        dims_array(pads_begin).as_ptr(),
                        dims_array(pads_end).as_ptr(),
                    )
                };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc_with(&desc, &what, op_attr)?;
                let src_md = self.query(pd, QUERY_SRC_MD)?;
                let x = self.laid_out(places, ins[0].value, &src_md)?;
                args.push((ffi::ARG_SRC, self.memory_in(x, &src_md)?));
                let w = if w_const {
                    let want = self.query(pd, ffi::QUERY_WEIGHTS_MD)?;
                    self.weights(places, &ins[1], &want)?
                } else {
                    let b = self.plain(places, ins[1].value)?;
                    self.memory_in(b, &w_md)?
                };
                args.push((ffi::ARG_WEIGHTS, w));
                if let Some(b) = ins.get(2) {
                    let buf = self.plain(places, b.value)?;
                    args.push((ffi::ARG_BIAS, self.memory_in(buf, &bias)?));
                }
                (self.query(pd, QUERY_DST_MD)?, pd)
            }
            OpKind::MatMul => {
                let (src, xb) = self.operand(places, &ins[0], false)?;
                let w_const = Self::is_constant(places, &ins[1]);
                let w_md = if w_const {
                    self.md_any(&ins[1].dims, ffi::F32)?
                } else {
                    self.md(&ins[1])?
                };
                let bias = match ins.get(2) {
                    Some(b) => self.md(b)?,
                    None => MemoryDesc::zeroed(),
                };
                let dst = self.md(out)?;
                // SAFETY: as above.
                let st = unsafe { (api.matmul_desc_init)(&mut *desc, &src, &w_md, &bias, &dst) };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc_with(&desc, &what, op_attr)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                let w = if w_const {
                    let want = self.query(pd, ffi::QUERY_WEIGHTS_MD)?;
                    self.weights(places, &ins[1], &want)?
                } else {
                    let b = self.plain(places, ins[1].value)?;
                    self.memory_in(b, &w_md)?
                };
                args.push((ffi::ARG_WEIGHTS, w));
                if let Some(b) = ins.get(2) {
                    let buf = self.plain(places, b.value)?;
                    args.push((ffi::ARG_BIAS, self.memory_in(buf, &bias)?));
                }
                (dst, pd)
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
                let (src, xb) = self.operand(places, &ins[0], true)?;
                // Max pooling of 8-bit integers writes their type (exact); the rest is f32.
                let dst_any = self.md_any(&out.dims, dnnl_type(self.elems[out.value as usize]))?;
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
                        &dst_any,
                        dims_array(strides).as_ptr(),
                        dims_array(kernel).as_ptr(),
                        dims_array(&dil).as_ptr(),
                        dims_array(pads_begin).as_ptr(),
                        dims_array(pads_end).as_ptr(),
                    )
                };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                (self.query(pd, QUERY_DST_MD)?, pd)
            }
            OpKind::Eltwise { alg, alpha, beta } => {
                if ins[0].dims != out.dims {
                    return Err(bad("operand and result differ in dims"));
                }
                let (src, xb) = self.operand(places, &ins[0], true)?;
                let alg = eltwise_alg(*alg);
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
                let pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                (src, pd)
            }
            OpKind::Softmax { axis, log } => {
                let (src, xb) = self.operand(places, &ins[0], false)?;
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
                        &src,
                        *axis,
                    )
                };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                (src, pd)
            }
            OpKind::BatchNorm { epsilon } => {
                let (src, xb) = self.operand(places, &ins[0], true)?;
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
                let pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                for (o, arg) in ins[1..].iter().zip([
                    ffi::ARG_SCALE,
                    ffi::ARG_SHIFT,
                    ffi::ARG_MEAN,
                    ffi::ARG_VARIANCE,
                ]) {
                    let (md, b) = self.operand(places, o, false)?;
                    args.push((arg, self.memory_in(b, &md)?));
                }
                (src, pd)
            }
            OpKind::LayerNorm { epsilon } => {
                let (src, xb) = self.operand(places, &ins[0], false)?;
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
                let pd = self.primitive_desc(&desc, &what)?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                for (o, arg) in ins[1..].iter().zip([ffi::ARG_SCALE, ffi::ARG_SHIFT]) {
                    let (md, b) = self.operand(places, o, false)?;
                    args.push((arg, self.memory_in(b, &md)?));
                }
                (src, pd)
            }
            OpKind::Binary { alg } => {
                let (a, ab) = self.operand(places, &ins[0], true)?;
                // The second operand in the first's layout when it is the same size; a
                // broadcast one row-major.
                let (b, bb) =
                    if places.whole(&ins[1]) && ins[1].dims == ins[0].dims && places.whole(&ins[0])
                    {
                        let bb = self.laid_out(places, ins[1].value, &a)?;
                        (a, bb)
                    } else {
                        self.operand(places, &ins[1], false)?
                    };
                let dst = if ins[0].dims == out.dims {
                    a
                } else {
                    self.md(out)?
                };
                let alg = binary_alg(*alg);
                // SAFETY: as above.
                let st = unsafe { (api.binary_desc_init)(&mut *desc, alg, &a, &b, &dst) };
                check(st, || format!("describe {what}"))?;
                let pd = self.primitive_desc_with(&desc, &what, op_attr)?;
                args.push((ffi::ARG_SRC, self.memory_in(ab, &a)?));
                args.push((ffi::ARG_SRC_1, self.memory_in(bb, &b)?));
                (dst, pd)
            }
            OpKind::Reorder => {
                if ins[0].dims != out.dims {
                    return Err(bad("operand and result differ in dims"));
                }
                let (src, xb) = self.operand(places, &ins[0], false)?;
                let dst = self.md(out)?;
                let mut rpd = ptr::null_mut();
                // SAFETY: as above.
                let st = unsafe {
                    (api.reorder_primitive_desc_create)(
                        &mut rpd,
                        &src,
                        self.engine,
                        &dst,
                        self.engine,
                        self.attr.cast_const(),
                    )
                };
                check(st, || format!("create {what}"))?;
                args.push((ffi::ARG_SRC, self.memory_in(xb, &src)?));
                (dst, rpd)
            }
        };
        let buf = self.result(places, out, &dst_md)?;
        args.push((ffi::ARG_DST, self.memory_in(buf, &dst_md)?));
        args.extend(post_args);
        let (prim, scratch) = self.primitive(pd, &what)?;
        self.step(prim, scratch, args);
        Ok(())
    }

    pub fn run(&mut self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        if inputs.len() != self.inputs.len() {
            return Err(RtError::inputs(format!(
                "expected {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            )));
        }
        for (i, (t, (b, dims, elem))) in inputs.iter().zip(&self.inputs).enumerate() {
            let want = match elem {
                Elem::F32 => DType::F32,
                Elem::U8 => DType::U8,
                Elem::S8 => DType::I8,
            };
            if t.dtype() != want {
                return Err(RtError::inputs(format!(
                    "input #{i}: expected element type {}, got {}",
                    want.name(),
                    t.dtype().name()
                )));
            }
            if t.shape() != dims.as_slice() {
                return Err(RtError::inputs(format!(
                    "input #{i}: expected shape {dims:?}, got {:?}",
                    t.shape()
                )));
            }
            let not = || RtError::inputs(format!("input #{i} is not {}", want.name()));
            let buf = &mut self.buffers[*b];
            match elem {
                Elem::F32 => buf[..t.len()].copy_from_slice(t.as_f32().ok_or_else(not)?),
                Elem::U8 => {
                    bytes_mut(buf)[..t.len()].copy_from_slice(t.as_slice::<u8>().ok_or_else(not)?)
                }
                Elem::S8 => {
                    let src = t.as_slice::<i8>().ok_or_else(not)?;
                    for (d, &x) in bytes_mut(buf).iter_mut().zip(src) {
                        *d = x as u8;
                    }
                }
            }
        }
        // SAFETY: every primitive and memory object was created at load and points into
        // buffers owned by `self`; `&mut self` (under the executable's mutex) makes this run
        // the only user.
        unsafe {
            for (k, s) in self.steps.iter().enumerate() {
                let started = self.profile.is_some().then(std::time::Instant::now);
                let (prim, args) = match s {
                    Step::Prim { prim, args } => (*prim, args),
                    // A step the runtime computes itself: the primitives before it have
                    // finished writing its operands.
                    Step::Cast(c) => {
                        wait(self.api, self.stream)?;
                        if c.input == c.out {
                            return Err(RtError::run("onednn: a cast in place"));
                        }
                        let mut y = std::mem::take(&mut self.buffers[c.out]);
                        let x = &self.buffers[c.input];
                        match c.kind {
                            int8::CastKind::Quantize { .. } => c.quantize(x, bytes_mut(&mut y)),
                            int8::CastKind::Dequantize { .. } => c.dequantize(bytes_of(x), &mut y),
                            int8::CastKind::Requantize { .. } => {
                                c.requantize(bytes_of(x), bytes_mut(&mut y))
                            }
                        }
                        self.buffers[c.out] = y;
                        record(&mut self.profile, k, started);
                        continue;
                    }
                    Step::Add(a) => {
                        wait(self.api, self.stream)?;
                        let mut y = std::mem::take(&mut self.buffers[a.out]);
                        {
                            let (x0, x1) = (&self.buffers[a.inputs[0]], &self.buffers[a.inputs[1]]);
                            a.apply(bytes_of(x0), bytes_of(x1), bytes_mut(&mut y));
                        }
                        self.buffers[a.out] = y;
                        record(&mut self.profile, k, started);
                        continue;
                    }
                    Step::Requant(r) => {
                        wait(self.api, self.stream)?;
                        if r.acc == r.out {
                            return Err(RtError::run("onednn: a requantization in place"));
                        }
                        let acc = std::mem::take(&mut self.buffers[r.acc]);
                        r.apply(as_i32(&acc), bytes_mut(&mut self.buffers[r.out]));
                        self.buffers[r.acc] = acc;
                        record(&mut self.profile, k, started);
                        continue;
                    }
                };
                let st = (self.api.primitive_execute)(
                    prim,
                    self.stream,
                    args.len() as c_int,
                    args.as_ptr(),
                );
                if st != ffi::SUCCESS {
                    return Err(RtError::run(format!(
                        "onednn: primitive {k} failed: {}",
                        ffi::status_name(st)
                    )));
                }
                if started.is_some() {
                    // Waiting for each step puts its time on it, not on a later one.
                    wait(self.api, self.stream)?;
                    record(&mut self.profile, k, started);
                }
            }
            wait(self.api, self.stream)?;
        }
        self.outputs
            .iter_mut()
            .map(|(b, dims, elem)| {
                let n: usize = dims.iter().product();
                let buf = &mut self.buffers[*b];
                match elem {
                    Elem::F32 => Tensor::from_vec(dims.clone(), buf[..n].to_vec()),
                    Elem::U8 => Tensor::from_vec(dims.clone(), bytes_mut(buf)[..n].to_vec()),
                    Elem::S8 => Tensor::from_vec(
                        dims.clone(),
                        bytes_mut(buf)[..n]
                            .iter()
                            .map(|&x| x as i8)
                            .collect::<Vec<_>>(),
                    ),
                }
                .map_err(|e| RtError::run(e.to_string()))
            })
            .collect()
    }
}
