//! The size checks of kernels whose output size comes from their inputs' values: under
//! `with_max_bytes` they fail with `KernelError::TooLarge` before allocating, shapes past
//! `MAX_ELEMENTS` fail without a limit, and the limit is per call and per thread.

use nart_tensor::elementwise::{binary, BinaryOp};
use nart_tensor::{einsum, matmul, shape_ops, with_max_bytes, KernelError, Tensor};

const MIB: usize = 1 << 20;

fn too_large(res: Result<Tensor, KernelError>, op: &str) {
    match res {
        Err(e @ KernelError::TooLarge { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.starts_with(&format!("{op}: a tensor of shape")),
                "{msg}"
            );
            assert!(
                msg.contains("more than the 1.0 MiB the memory limit allows"),
                "{msg}"
            );
        }
        other => panic!("{op}: expected TooLarge, got {other:?}"),
    }
}

/// Each kernel: a call over the limit and the same kernel well under it.
#[test]
fn kernels_check_sizes_against_the_limit() {
    let x = Tensor::vector(vec![1f32, 2.0]);
    let one = Tensor::vector(vec![1f32]);
    with_max_bytes(MIB, || {
        too_large(
            shape_ops::constant_of_shape(&[1 << 20], None),
            "ConstantOfShape",
        );
        assert!(shape_ops::constant_of_shape(&[1000], None).is_ok());
        too_large(shape_ops::expand(&one, &[1024, 1024]), "Expand");
        assert!(shape_ops::expand(&one, &[10, 10]).is_ok());
        too_large(shape_ops::tile(&x, &[1 << 20]), "Tile");
        assert!(shape_ops::tile(&x, &[100]).is_ok());
        let (a, b) = (Tensor::scalar(0f32), Tensor::scalar(1f32));
        too_large(shape_ops::range(&a, &Tensor::scalar(1e7f32), &b), "Range");
        too_large(
            shape_ops::range(
                &Tensor::scalar(0i64),
                &Tensor::scalar(1i64 << 30),
                &Tensor::scalar(1i64),
            ),
            "Range",
        );
        assert!(shape_ops::range(&a, &Tensor::scalar(100f32), &b).is_ok());
        let idx = Tensor::vector(vec![0i64, 1]);
        let on_off = Tensor::vector(vec![0f32, 1.0]);
        too_large(
            shape_ops::one_hot(&idx, &Tensor::scalar(1i64 << 20), &on_off, -1),
            "OneHot",
        );
        assert!(shape_ops::one_hot(&idx, &Tensor::scalar(4i64), &on_off, -1).is_ok());
        let col = Tensor::from_vec(vec![1024, 1], vec![0f32; 1024]).unwrap();
        let row = Tensor::from_vec(vec![1, 1024], vec![0f32; 1024]).unwrap();
        too_large(binary(BinaryOp::Add, &col, &row), "Add");
        too_large(matmul::matmul(&col, &row), "MatMul");
        let v = Tensor::vector(vec![0f32; 1024]);
        too_large(einsum::einsum("i,j->ij", &[&v, &v]), "Einsum");
        assert!(binary(BinaryOp::Add, &col, &Tensor::scalar(1f32)).is_ok());
    });
}

/// Shapes past `MAX_ELEMENTS` (or overflowing `usize`) fail without any limit set.
#[test]
fn absurd_shapes_fail_without_a_limit() {
    let one = Tensor::vector(vec![1f32]);
    assert!(shape_ops::constant_of_shape(&[1 << 41], None).is_err());
    assert!(shape_ops::constant_of_shape(&[1 << 32, 1 << 32, 1 << 32], None).is_err());
    assert!(shape_ops::expand(&one, &[i64::MAX, i64::MAX]).is_err());
    assert!(shape_ops::tile(&Tensor::vector(vec![1f32, 2.0]), &[i64::MAX]).is_err());
    assert!(Tensor::from_raw_bytes(nart_tensor::DType::F32, vec![1 << 40], &[]).is_err());
}

/// The limit holds inside the call only, comes back after a panic, and is per thread.
#[test]
fn the_limit_is_scoped() {
    assert_eq!(nart_tensor::max_bytes(), usize::MAX);
    with_max_bytes(10, || {
        assert_eq!(nart_tensor::max_bytes(), 10);
        with_max_bytes(20, || assert_eq!(nart_tensor::max_bytes(), 20));
        assert_eq!(nart_tensor::max_bytes(), 10);
        let other = std::thread::spawn(nart_tensor::max_bytes).join().unwrap();
        assert_eq!(other, usize::MAX);
    });
    let caught = std::panic::catch_unwind(|| with_max_bytes(5, || panic!("inside the limit")));
    assert!(caught.is_err());
    assert_eq!(nart_tensor::max_bytes(), usize::MAX);
    assert!(shape_ops::constant_of_shape(&[1 << 20], None).is_ok());
}
