//! Planning one arena for a function's intermediate buffers: every buffer gets an offset so
//! that two buffers alive at the same time never overlap, and the arena is as small as a greedy
//! plan makes it.
//!
//! The plan is "greedy by size", as TensorFlow Lite's arena planner does it: buffers are placed
//! largest first, each at the lowest aligned offset where it overlaps no placed buffer whose
//! lifetime it shares. Its result is never larger than the sum of the sizes, and never smaller
//! than the largest total of buffers alive at one point (the bound the tests check against).

/// One buffer to place: its size and alignment in bytes, and the first and last position
/// (op index in the function) where it is used, both inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// Size in bytes.
    pub size: u64,
    /// Alignment in bytes, a power of two.
    pub align: u64,
    /// First position where it is written or read.
    pub first: usize,
    /// Last position where it is read.
    pub last: usize,
}

impl Buffer {
    fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

/// Where each buffer goes, and the arena's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The offset of each buffer, in the order given.
    pub offsets: Vec<u64>,
    /// The arena's size in bytes: the end of the last buffer.
    pub size: u64,
}

fn align_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align) * align
}

/// Places `buffers` (see the module docs). The result depends only on the input, not on the
/// order of equal buffers' memory addresses or a hash seed: ties are broken by position.
pub fn plan(buffers: &[Buffer]) -> Plan {
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&buffers[a], &buffers[b]);
        y.size
            .cmp(&x.size)
            .then(x.first.cmp(&y.first))
            .then(a.cmp(&b))
    });
    let mut offsets = vec![0u64; buffers.len()];
    let mut placed: Vec<usize> = Vec::with_capacity(buffers.len());
    let mut size = 0u64;
    for i in order {
        let b = &buffers[i];
        let align = b.align.max(1);
        let mut conflicts: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| buffers[j].overlaps_in_time(b))
            .map(|&j| (offsets[j], offsets[j] + buffers[j].size))
            .collect();
        conflicts.sort_unstable();
        let mut at = 0u64;
        for (start, end) in conflicts {
            if at + b.size <= start {
                break;
            }
            at = at.max(align_up(end, align));
        }
        offsets[i] = at;
        size = size.max(at + b.size);
        placed.push(i);
    }
    Plan { offsets, size }
}

/// Places every `memref.alloc` of static shape in the entry block of `func` into one scratch
/// buffer: a new last argument of type `memref<Nxi8>`, of which each allocation becomes a
/// `memref.view` at its planned offset. A buffer lives from its allocation to the last use
/// of it or of any view of it (a use inside a region counts at the op holding the region).
/// Returns how many buffers were placed and the scratch size. The argument is added even
/// when nothing is placed, so that every function compiled this way has the same convention.
pub fn place_in_arena(
    ctx: &mut nart_ir::Context,
    func: nart_ir::Op,
) -> Result<(usize, u64), nart_ir::Diagnostic> {
    use nart_ir::{Op, PatternRewriter, TypeData};
    let Some(&entry) = ctx.region_blocks(ctx.region(func, 0)).first() else {
        return Ok((0, 0));
    };
    let Some((inputs, results)) = crate::out_params::function_type(ctx, func) else {
        return Ok((0, 0));
    };
    let ops = ctx.block_ops(entry).to_vec();
    let position: std::collections::HashMap<Op, usize> =
        ops.iter().enumerate().map(|(i, &op)| (op, i)).collect();
    // The op of the entry block that holds `op` (itself when it is there).
    let top = |ctx: &nart_ir::Context, mut op: Op| -> Option<usize> {
        loop {
            if let Some(&p) = position.get(&op) {
                return Some(p);
            }
            op = ctx.op_parent_op(op)?;
        }
    };
    let mut allocs = Vec::new();
    let mut buffers = Vec::new();
    for (p, &op) in ops.iter().enumerate() {
        if ctx.op_name_str(op) != "memref.alloc" || !ctx.operands(op).is_empty() {
            continue;
        }
        let ty = ctx.value_type(ctx.result(op, 0));
        let TypeData::MemRef {
            shape,
            elem,
            layout: None,
            memory_space: None,
        } = ctx.type_data(ty)
        else {
            continue;
        };
        let Some(bytes) = elem_bytes(ctx, *elem) else {
            continue;
        };
        let size = shape.iter().try_fold(bytes, |acc, &d| {
            u64::try_from(d).ok().and_then(|d| acc.checked_mul(d))
        });
        let Some(size) = size else {
            continue;
        };
        // The last position where the buffer or a view of it is used.
        let mut last = p;
        let mut work = vec![ctx.result(op, 0)];
        while let Some(v) = work.pop() {
            for u in ctx.uses(v).to_vec() {
                if let Some(q) = top(ctx, u.op) {
                    last = last.max(q);
                }
                if is_view(ctx.op_name_str(u.op)) {
                    work.extend(ctx.results(u.op).iter().copied());
                }
            }
        }
        allocs.push(op);
        buffers.push(Buffer {
            size,
            align: 64,
            first: p,
            last,
        });
    }
    let plan = plan(&buffers);
    let loc = ctx.op_loc(func);
    let i8t = ctx.int_type(8);
    let scratch_ty = ctx.intern_type(TypeData::MemRef {
        shape: vec![plan.size as i64],
        elem: i8t,
        layout: None,
        memory_space: None,
    });
    let scratch = ctx.add_block_arg(entry, scratch_ty, loc);
    let index = ctx.index_type();
    for (&op, &offset) in allocs.iter().zip(&plan.offsets) {
        let ty = ctx.value_type(ctx.result(op, 0));
        let oloc = ctx.op_loc(op);
        let mut rw = PatternRewriter::new(ctx);
        rw.set_insertion_point_before(op);
        let a = rw.uniq().int_attr(index, i128::from(offset));
        let st = nart_dialect_arith::constant_state(rw.uniq(), a, index, oloc);
        let c = rw.create(st);
        let off = rw.result(c, 0);
        let st = nart_ir::OperationState::new(rw.uniq(), "memref.view", oloc)
            .operands(&[scratch, off])
            .results(&[ty]);
        let view = rw.create(st);
        let v = rw.result(view, 0);
        rw.replace_op(op, &[v]);
        // A dealloc of a buffer in the arena frees nothing.
        for u in ctx.uses(v).to_vec() {
            if ctx.op_name_str(u.op) == "memref.dealloc" {
                ctx.erase_op(u.op);
            }
        }
    }
    let mut new_inputs = inputs;
    new_inputs.push(scratch_ty);
    let fty = ctx.intern_type(TypeData::Function {
        inputs: new_inputs,
        results,
    });
    let fattr = ctx.type_attr(fty);
    ctx.set_prop(func, "function_type", fattr);
    if let Some(args) = ctx.attr(func, "arg_attrs") {
        if let nart_ir::AttrData::Array(items) = ctx.attr_data(args).clone() {
            let mut items = items;
            items.push(ctx.dict_attr(Vec::new()));
            let a = ctx.array_attr(items);
            ctx.set_prop(func, "arg_attrs", a);
        }
    }
    Ok((allocs.len(), plan.size))
}

/// Ops whose result is a view of (aliases) their first operand.
fn is_view(name: &str) -> bool {
    matches!(
        name,
        "memref.subview"
            | "memref.reinterpret_cast"
            | "memref.cast"
            | "memref.view"
            | "bufferization.to_tensor"
    )
}

/// Bytes of one element of type `t` (`index` as 8), or `None` for types the arena does not
/// hold.
fn elem_bytes(ctx: &nart_ir::Context, t: nart_ir::Type) -> Option<u64> {
    use nart_ir::TypeData;
    match ctx.type_data(t) {
        TypeData::Integer { width, .. } => Some(u64::from(*width).div_ceil(8).max(1)),
        TypeData::Index => Some(8),
        TypeData::Float(k) => Some(u64::from(k.width()).div_ceil(8)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(size: u64, first: usize, last: usize) -> Buffer {
        Buffer {
            size,
            align: 64,
            first,
            last,
        }
    }

    /// A small deterministic generator (xorshift), so the property test needs no dependency.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn check(buffers: &[Buffer], p: &Plan) {
        for (i, a) in buffers.iter().enumerate() {
            assert_eq!(p.offsets[i] % a.align, 0, "buffer {i} misaligned");
            assert!(p.offsets[i] + a.size <= p.size);
            for (j, b) in buffers.iter().enumerate().skip(i + 1) {
                if a.overlaps_in_time(b) && a.size > 0 && b.size > 0 {
                    let (x0, x1) = (p.offsets[i], p.offsets[i] + a.size);
                    let (y0, y1) = (p.offsets[j], p.offsets[j] + b.size);
                    assert!(x1 <= y0 || y1 <= x0, "buffers {i} and {j} overlap: {p:?}");
                }
            }
        }
    }

    #[test]
    fn a_chain_reuses_memory() {
        // a → b → c → d: each buffer dies when the next one is written, so two slots suffice.
        let bufs = [
            buf(1000, 0, 1),
            buf(1000, 1, 2),
            buf(1000, 2, 3),
            buf(1000, 3, 4),
        ];
        let p = plan(&bufs);
        check(&bufs, &p);
        assert_eq!(p.size, 2024);
        assert_eq!(p.offsets[0], p.offsets[2]);
    }

    #[test]
    fn buffers_alive_together_get_their_own_space() {
        let bufs = [buf(100, 0, 5), buf(200, 1, 5), buf(300, 2, 5)];
        let p = plan(&bufs);
        check(&bufs, &p);
        // Largest first, each aligned to 64: 300 → [0, 300), 200 → [320, 520), 100 → [576, 676).
        assert_eq!(p.offsets, vec![576, 320, 0]);
        assert_eq!(p.size, 676);
    }

    #[test]
    fn empty_and_zero_sized() {
        assert_eq!(
            plan(&[]),
            Plan {
                offsets: vec![],
                size: 0
            }
        );
        let bufs = [buf(0, 0, 3), buf(64, 0, 3)];
        let p = plan(&bufs);
        check(&bufs, &p);
        assert_eq!(p.size, 64);
    }

    #[test]
    fn random_plans_are_valid_tight_enough_and_deterministic() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for case in 0..300 {
            let n = 1 + rng.below(40) as usize;
            let bufs: Vec<Buffer> = (0..n)
                .map(|_| {
                    let first = rng.below(50) as usize;
                    Buffer {
                        size: 1 + rng.below(5000),
                        align: 1 << rng.below(7),
                        first,
                        last: first + rng.below(10) as usize,
                    }
                })
                .collect();
            let p = plan(&bufs);
            check(&bufs, &p);
            assert_eq!(plan(&bufs), p, "case {case} is not deterministic");
            // Never worse than no reuse (plus alignment padding), never better than the
            // largest set of buffers alive at one position.
            let padded: u64 = bufs.iter().map(|b| b.size + b.align).sum();
            assert!(p.size <= padded, "case {case}: {} > {padded}", p.size);
            let peak = (0..60)
                .map(|t| {
                    bufs.iter()
                        .filter(|b| b.first <= t && t <= b.last)
                        .map(|b| b.size)
                        .sum::<u64>()
                })
                .max()
                .unwrap_or(0);
            assert!(p.size >= peak, "case {case}: {} < peak {peak}", p.size);
        }
    }
}
