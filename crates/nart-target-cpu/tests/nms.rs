//! NonMaxSuppression compiled by the cpu target (`convert-nms-to-loops`, a bounded result
//! whose rows `nart-cpu-rt` truncates to the count the code reports) against the interpreter,
//! on seeded random boxes and scores: coordinates and scores from small grids so that boxes
//! overlap exactly and scores tie, both box formats, corners in any diagonal order, and
//! thresholds that are constants, run-time values or absent. The selected indices must be
//! equal, row for row, and so must their number.

use nart_target_cpu::testing::{cases, f32_literal, seed, ty, Batch, Gen, Tol};
use nart_target_cpu::CpuTarget;
use nart_target_rt::TargetRuntime;
use nart_tensor::Tensor;

/// A tensor of `shape` with values `k * step + lo` for random integers `k` in `0..=levels`.
fn grid(g: &mut Gen, shape: &[usize], lo: f32, step: f32, levels: i64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|_| lo + step * g.int(0, levels) as f32)
        .collect();
    Tensor::from_vec(shape.to_vec(), v).expect("a tensor of the shape")
}

fn scalar_tensor(g: &mut Gen, x: f32) -> Tensor {
    // A run-time threshold is `[1]` or a scalar, as ONNX allows.
    let shape = if g.chance(1, 2) { vec![1] } else { vec![] };
    Tensor::from_vec(shape, vec![x]).expect("one element")
}

#[test]
fn selected_indices_equal_the_interpreters() {
    let name = "nms_selected_indices_equal_the_interpreters";
    let seed = seed(name);
    let mut g = Gen::new(seed);
    let mut batch = Batch::new(name, seed);
    for _ in 0..cases(24) {
        let (b, c, n) = (g.size(1, 2), g.size(1, 3), g.size(1, 12));
        let center = g.chance(1, 2);
        let max_out = g.int(-1, n as i64 + 1);
        let iou = g.pick(&[0.0f32, 0.25, 0.5, 0.7, 1.0]);
        let score = g.pick(&[-1.0f32, 0.0, 0.25, 0.5, 0.75]);
        // Thresholds 0: constant, 1: run-time, 2: absent; the maximum 0: absent, 4: run-time,
        // else constant.
        let (max_kind, iou_kind, score_kind) = (g.int(0, 4), g.int(0, 2), g.int(0, 2));
        let kc = batch.case(format!(
            "NonMaxSuppression boxes [{b}, {n}, 4] scores [{b}, {c}, {n}] center {center} \
             max {max_out} ({max_kind}) iou {iou} ({iou_kind}) score {score} ({score_kind})"
        ));
        // Coordinates on a grid of 0.5 in [0, 4]: many boxes coincide, touch or overlap by
        // simple fractions; widths in center form may be 0 or negative.
        let boxes = if center {
            grid(&mut g, &[b, n, 4], -0.5, 0.5, 8)
        } else {
            grid(&mut g, &[b, n, 4], 0.0, 0.5, 8)
        };
        let scores = grid(&mut g, &[b, c, n], 0.0, 0.25, 4);
        let boxes = kc.arg(boxes);
        let scores = kc.arg(scores);
        let max_v = match max_kind {
            0 => kc.none(),
            4 => {
                let shape = if g.chance(1, 2) { vec![1] } else { vec![] };
                kc.arg(Tensor::from_vec(shape, vec![max_out]).unwrap())
            }
            _ => kc.constant(&Tensor::from_vec(vec![1], vec![max_out]).unwrap()),
        };
        let iou_v = match iou_kind {
            0 => kc.constant(&Tensor::from_vec(vec![1], vec![iou]).unwrap()),
            1 => {
                let t = scalar_tensor(&mut g, iou);
                kc.arg(t)
            }
            _ => kc.none(),
        };
        let score_v = match score_kind {
            0 => kc.constant(&Tensor::from_vec(vec![1], vec![score]).unwrap()),
            1 => {
                let t = scalar_tensor(&mut g, score);
                kc.arg(t)
            }
            _ => kc.none(),
        };
        let props = format!("center_point_box = {} : i64", i64::from(center));
        let y = kc.op1(
            "graph.NonMaxSuppression",
            &[boxes, scores, max_v, iou_v, score_v],
            &props,
            "tensor<?x3xi64>",
        );
        kc.output(y, Tol::Exact);
    }
    batch.check();
}

#[test]
fn a_box_suppressed_by_overlap_is_left_out_and_the_rows_are_truncated() {
    // ONNX's nonmaxsuppression_suppress_by_IOU case, in center form: six boxes, the first
    // three overlapping; max 3 per class, IoU 0.5, score 0 -> boxes 3, 0, 5.
    let name = "nms_onnx_suppress_by_iou";
    let seed = seed(name);
    let mut batch = Batch::new(name, seed);
    let kc = batch.case("ONNX suppress_by_IOU, center form");
    let boxes = Tensor::from_vec(
        vec![1, 6, 4],
        vec![
            0.5f32, 0.5, 1.0, 1.0, 0.5, 0.6, 1.0, 1.0, 0.5, 0.4, 1.0, 1.0, 0.5, 10.5, 1.0, 1.0,
            0.5, 10.6, 1.0, 1.0, 0.5, 100.5, 1.0, 1.0,
        ],
    )
    .unwrap();
    let scores = Tensor::from_vec(vec![1, 1, 6], vec![0.9f32, 0.75, 0.6, 0.95, 0.5, 0.3]).unwrap();
    let boxes = kc.arg(boxes);
    let scores = kc.arg(scores);
    let m = kc.constant(&Tensor::from_vec(vec![1], vec![3i64]).unwrap());
    let iou = kc.constant(&Tensor::from_vec(vec![1], vec![0.5f32]).unwrap());
    let s = kc.constant(&Tensor::from_vec(vec![1], vec![0.0f32]).unwrap());
    let y = kc.op1(
        "graph.NonMaxSuppression",
        &[boxes, scores, m, iou, s],
        "center_point_box = 1 : i64",
        "tensor<?x3xi64>",
    );
    kc.output(y, Tol::Exact);
    batch.check();

    // The same through the compiled code alone: 3 of at most 3 rows, then with a score
    // threshold that leaves one box, 1 row of the 3.
    let text = |threshold: f32| {
        format!(
            r#"func.func @main(%b: {bt}, %s: {st}) -> tensor<?x3xi64> {{
  %m = "graph.constant"() <{{value = dense<3> : tensor<1xi64>}}> : () -> tensor<1xi64>
  %i = "graph.constant"() <{{value = dense<5.000000e-01> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %t = "graph.constant"() <{{value = dense<{thr}> : tensor<1xf32>}}> : () -> tensor<1xf32>
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %i, %t) <{{center_point_box = 1 : i64}}> : ({bt}, {st}, tensor<1xi64>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x3xi64>
  return %y : tensor<?x3xi64>
}}"#,
            thr = f32_literal(threshold),
            bt = ty(&[1, 6, 4], "f32"),
            st = ty(&[1, 1, 6], "f32"),
        )
    };
    let target = CpuTarget::host();
    if nart_target::Target::availability(&target).is_err() {
        return;
    }
    let inputs = vec![
        Tensor::from_vec(
            vec![1, 6, 4],
            vec![
                0.5f32, 0.5, 1.0, 1.0, 0.5, 0.6, 1.0, 1.0, 0.5, 0.4, 1.0, 1.0, 0.5, 10.5, 1.0, 1.0,
                0.5, 10.6, 1.0, 1.0, 0.5, 100.5, 1.0, 1.0,
            ],
        )
        .unwrap(),
        Tensor::from_vec(vec![1, 1, 6], vec![0.9f32, 0.75, 0.6, 0.95, 0.5, 0.3]).unwrap(),
    ];
    for (threshold, want) in [
        (0.0f32, vec![0i64, 0, 3, 0, 0, 0, 0, 0, 5]),
        (0.92, vec![0, 0, 3]),
    ] {
        let (artifact, lowered) = target
            .compile_function_text(&text(threshold), "nms")
            .unwrap();
        assert_eq!(
            lowered.outputs[0].shape,
            [3, 3],
            "the bound is 1 * 1 * min(3, 6)"
        );
        assert_eq!(lowered.truncated.len(), 1);
        let exe = nart_target_cpu::CpuRuntime::new().load(&artifact).unwrap();
        let out = exe.run(&inputs).unwrap();
        assert_eq!(out.len(), 1, "the length output is not returned");
        assert_eq!(out[0].shape(), &[want.len() / 3, 3]);
        assert_eq!(out[0].as_i64().unwrap(), want.as_slice());
    }
}

#[test]
fn a_result_read_inside_the_function_is_refused_with_the_reason() {
    let text = r#"func.func @main(%b: tensor<1x4x4xf32>, %s: tensor<1x1x4xf32>, %m: tensor<1xi64>) -> tensor<?x3xi64> {
  %n = "graph.none"() : () -> none
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x4x4xf32>, tensor<1x1x4xf32>, tensor<1xi64>, none, none) -> tensor<?x3xi64>
  %z = "graph.Identity"(%y) : (tensor<?x3xi64>) -> tensor<?x3xi64>
  return %z : tensor<?x3xi64>
}"#;
    // The reader's result has no bound, so the cpu target refuses the function before it
    // lowers (`convert-nms-to-loops` would refuse the op itself: see the lit tests).
    let err = nart_target_cpu::lower_to_loops(text, "nms").unwrap_err();
    assert!(
        err.contains("static shape only, not tensor<?x3xi64>"),
        "{err}"
    );
}

#[test]
fn a_declared_row_count_is_a_bound_too_and_the_actual_rows_are_returned() {
    // ONNX files often declare the rows they expect (the node tests do); the code still
    // returns the rows it selected.
    let text = r#"func.func @main(%b: tensor<1x3x4xf32>, %s: tensor<1x1x3xf32>) -> tensor<3x3xi64> {
  %m = "graph.constant"() <{value = dense<3> : tensor<1xi64>}> : () -> tensor<1xi64>
  %n = "graph.none"() : () -> none
  %y = "graph.NonMaxSuppression"(%b, %s, %m, %n, %n) : (tensor<1x3x4xf32>, tensor<1x1x3xf32>, tensor<1xi64>, none, none) -> tensor<3x3xi64>
  return %y : tensor<3x3xi64>
}"#;
    let target = CpuTarget::host();
    if nart_target::Target::availability(&target).is_err() {
        return;
    }
    let (artifact, lowered) = target.compile_function_text(text, "nms").unwrap();
    assert_eq!(lowered.truncated.len(), 1);
    let exe = nart_target_cpu::CpuRuntime::new().load(&artifact).unwrap();
    // Three copies of the same box: IoU 1 > 0 suppresses the two lower-scoring ones.
    let boxes = Tensor::from_vec(vec![1, 3, 4], [0.0f32, 0.0, 1.0, 1.0].repeat(3)).unwrap();
    let scores = Tensor::from_vec(vec![1, 1, 3], vec![0.2f32, 0.9, 0.5]).unwrap();
    let out = exe.run(&[boxes, scores]).unwrap();
    assert_eq!(out[0].shape(), &[1, 3]);
    assert_eq!(out[0].as_i64().unwrap(), &[0, 0, 1]);
}
