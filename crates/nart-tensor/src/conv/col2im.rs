//! Col2Im: the inverse of im2col, summing overlapping blocks back into an image.

use super::{col2im_add, geometry, AutoPad, Geom};
use crate::tensor::numel;
use crate::{KernelError, Result, Tensor};

/// ONNX Col2Im: `x [N, C * prod(block_shape), L]` blocks into `[N, C, *image_shape]`, overlaps
/// summed in f64; empty `dilations`, `pads` (begins then ends) and `strides` mean 1, 0 and 1.
pub fn col2im(
    x: &Tensor,
    image_shape: &[usize],
    block_shape: &[usize],
    dilations: &[usize],
    pads: &[usize],
    strides: &[usize],
) -> Result<Tensor> {
    const OP: &str = "Col2Im";
    let s = x.shape();
    let kprod = numel(block_shape);
    if s.len() != 3 || kprod == 0 || !s[1].is_multiple_of(kprod) {
        return Err(KernelError::shape(
            OP,
            format!("input {s:?} does not fit block {block_shape:?}"),
        ));
    }
    // The blocks slide over the padded image as a convolution's kernel does over its input.
    let g = geometry(
        OP,
        image_shape,
        block_shape,
        strides,
        dilations,
        pads,
        AutoPad::NotSet,
        false,
    )?;
    let (nb, c, l) = (s[0], s[1] / kprod, s[2]);
    if numel(&g.out) != l {
        return Err(KernelError::shape(
            OP,
            format!("{l} blocks do not tile image {image_shape:?}"),
        ));
    }
    // col2im_add scatters from the block grid (`input`) into the image (`out`).
    let g = Geom {
        input: g.out,
        out: image_shape.to_vec(),
        ..g
    };
    let xv = x.to_f64_vec()?;
    let isz = numel(image_shape);
    let mut y = vec![0f64; nb * c * isz];
    if c * isz > 0 && l > 0 {
        for (cols, img) in xv.chunks(c * kprod * l).zip(y.chunks_mut(c * isz)) {
            col2im_add(cols, c, &g, img);
        }
    }
    let mut shape = vec![nb, c];
    shape.extend_from_slice(image_shape);
    Tensor::from_f64(x.dtype(), shape, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::f;

    #[test]
    fn overlapping_blocks_add_up() {
        // A 1x3 image from two 1x2 blocks with stride 1: the middle pixel gets both.
        let x = f(&[1, 2, 2], [1.0, 10.0, 2.0, 20.0]);
        let y = col2im(&x, &[1, 3], &[1, 2], &[], &[], &[]).unwrap();
        assert_eq!(y.shape(), &[1, 1, 1, 3]);
        assert_eq!(y.as_f32().unwrap(), &[1.0, 12.0, 20.0]);
        assert!(col2im(&x, &[1, 4], &[1, 2], &[], &[], &[]).is_err());
    }
}
