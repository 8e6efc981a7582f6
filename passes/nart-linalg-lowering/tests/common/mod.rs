//! Helpers shared by the JIT tests: the memref descriptor of the C interface.

#![allow(dead_code)]

/// A memref descriptor of f32 elements as the C interface passes it (pointer to this struct).
#[repr(C)]
pub struct Desc<const R: usize> {
    pub allocated: *mut f32,
    pub aligned: *mut f32,
    pub offset: i64,
    pub sizes: [i64; R],
    pub strides: [i64; R],
}

/// A row-major descriptor of `buf` with `sizes`.
pub fn desc<const R: usize>(buf: &mut [f32], sizes: [usize; R]) -> Desc<R> {
    assert_eq!(sizes.iter().product::<usize>(), buf.len());
    let sizes = sizes.map(|s| s as i64);
    let mut strides = [1i64; R];
    for i in (0..R.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * sizes[i + 1];
    }
    Desc {
        allocated: buf.as_mut_ptr(),
        aligned: buf.as_mut_ptr(),
        offset: 0,
        sizes,
        strides,
    }
}
