#!/usr/bin/env python3
"""Writes the small ONNX models the nart-onnx tests import.

Run from anywhere: `python3 crates/nart-onnx/tests/data/make_models.py`.
The output is deterministic, and the .onnx files are committed next to this script; rerun it
after changing a model here. Models under `bad/` are invalid on purpose (error tests).
"""

import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
RNG = np.random.default_rng(7)


def f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def save(model, name, check=True):
    if check:
        onnx.checker.check_model(model, full_check=True)
    path = os.path.join(HERE, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(model.SerializeToString(deterministic=True))


def model(graph, opset=21, functions=(), **kw):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] + kw.pop("extra_opsets", []),
                          functions=list(functions), producer_name="nart-make-models",
                          producer_version="1", **kw)
    m.ir_version = 8 if opset < 21 else 10
    return m


def vi(name, dtype, shape):
    """A value info; an int `shape` is a rank with unknown dims."""
    if isinstance(shape, int):
        shape = [None] * shape
    return helper.make_tensor_value_info(name, dtype, shape)


def mlp():
    w1 = numpy_helper.from_array(f32(4, 8), "w1")
    b1 = numpy_helper.from_array(f32(8), "b1")
    w2 = numpy_helper.from_array(f32(8, 3), "w2")
    b2 = numpy_helper.from_array(f32(3), "b2")
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1"),
        helper.make_node("Add", ["h0", "b1"], ["h1"], name="fc1_bias"),
        helper.make_node("Relu", ["h1"], ["h2"], name="relu"),
        helper.make_node("MatMul", ["h2", "w2"], ["h3"], name="fc2"),
        helper.make_node("Add", ["h3", "b2"], ["y"], name="fc2_bias"),
    ]
    g = helper.make_graph(nodes, "mlp", [vi("x", TensorProto.FLOAT, ["batch", 4])],
                          [vi("y", TensorProto.FLOAT, ["batch", 3])], [w1, b1, w2, b2])
    m = model(g, doc_string="a two-layer perceptron")
    helper.set_model_props(m, {"author": "nart", "task": "test"})
    save(m, "mlp.onnx")


def cnn():
    inits = [
        numpy_helper.from_array(f32(8, 3, 3, 3), "conv_w"),
        numpy_helper.from_array(f32(8), "conv_b"),
        numpy_helper.from_array(np.abs(f32(8)) + 0.5, "bn_scale"),
        numpy_helper.from_array(f32(8), "bn_bias"),
        numpy_helper.from_array(f32(8), "bn_mean"),
        numpy_helper.from_array(np.abs(f32(8)) + 0.5, "bn_var"),
        numpy_helper.from_array(f32(10, 8), "fc_w"),
        numpy_helper.from_array(f32(10), "fc_b"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], name="conv", pads=[1, 1, 1, 1],
                         strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"],
                         name="bn", epsilon=1e-5),
        helper.make_node("Relu", ["bn"], ["r"], name="relu"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["p"], ["ap"], name="avg", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         count_include_pad=0),
        helper.make_node("GlobalAveragePool", ["ap"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["logits"], name="fc", transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax", axis=-1),
    ]
    g = helper.make_graph(nodes, "cnn", [vi("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                          [vi("y", TensorProto.FLOAT, [1, 10])], inits)
    save(model(g, opset=13), "cnn.onnx")


def transformer_ops():
    """Shape arithmetic and the ops of attention blocks and detection heads."""
    inits = [
        numpy_helper.from_array(f32(6, 6), "wq"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "axis1"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "axis0"),
        numpy_helper.from_array(np.array(0, dtype=np.int64), "idx0"),
        numpy_helper.from_array(np.array([6, 3], dtype=np.int64), "heads"),
        numpy_helper.from_array(np.abs(f32(6)) + 0.5, "ln_scale"),
        numpy_helper.from_array(f32(6), "ln_bias"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "k"),
        numpy_helper.from_array(np.array(0, dtype=np.int64), "start"),
        numpy_helper.from_array(np.array(1, dtype=np.int64), "delta"),
    ]
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"], name="shape"),
        n("Gather", ["shape", "idx0"], ["batch"], name="batch", axis=0),
        n("Unsqueeze", ["batch", "axis0"], ["batch1"], name="unsq"),
        n("Concat", ["batch1", "heads"], ["new_shape"], name="concat", axis=0),
        n("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["ln"], name="ln", axis=-1, epsilon=1e-5),
        n("MatMul", ["ln", "wq"], ["q"], name="q"),
        n("Reshape", ["q", "new_shape"], ["q2"], name="reshape"),
        n("Transpose", ["q2"], ["qt"], name="transpose", perm=[0, 2, 1]),
        n("MatMul", ["q2", "qt"], ["scores"], name="scores"),
        n("Softmax", ["scores"], ["attn"], name="softmax", axis=-1),
        n("Gelu", ["attn"], ["gelu"], name="gelu"),
        n("Erf", ["gelu"], ["erf"], name="erf"),
        n("Tanh", ["erf"], ["tanh"], name="tanh"),
        n("HardSigmoid", ["tanh"], ["hs"], name="hsig", alpha=0.25),
        n("HardSwish", ["hs"], ["hsw"], name="hswish"),
        n("LeakyRelu", ["hsw"], ["lr"], name="lrelu", alpha=0.1),
        n("Sigmoid", ["lr"], ["sig"], name="sigmoid"),
        n("LogSoftmax", ["sig"], ["lsm"], name="logsoftmax", axis=1),
        n("ReduceMean", ["lsm", "axis1"], ["mean"], name="mean", keepdims=1),
        n("Sub", ["lsm", "mean"], ["centered"], name="center"),
        n("Equal", ["centered", "centered"], ["eq"], name="eq"),
        n("Where", ["eq", "centered", "lsm"], ["w"], name="where"),
        n("TopK", ["w", "k"], ["topv", "topi"], name="topk", axis=-1),
        n("ArgMax", ["w"], ["am"], name="argmax", axis=1, keepdims=1),
        n("Cast", ["am"], ["amf"], name="cast", to=TensorProto.FLOAT),
        n("Einsum", ["w", "w"], ["ein"], name="einsum", equation="bij,bkj->bik"),
        n("GatherElements", ["w", "topi"], ["ge"], name="gather_el", axis=2),
        n("Range", ["start", "batch", "delta"], ["rng"], name="range"),
        n("ConstantOfShape", ["shape"], ["zeros"], name="zeros",
          value=numpy_helper.from_array(np.array([0.5], dtype=np.float32))),
        n("Expand", ["amf", "shape"], ["amx"], name="expand"),
        n("Clip", ["ein", "", ""], ["clip"], name="clip"),
        n("Split", ["clip"], ["s0", "s1"], name="split", axis=1, num_outputs=2),
        n("Slice", ["s1", "axis0", "axis1", "axis1"], ["sl"], name="slice"),
    ]
    outs = [
        vi("ge", TensorProto.FLOAT, 3),
        vi("rng", TensorProto.INT64, 1),
        vi("zeros", TensorProto.FLOAT, 3),
        vi("amx", TensorProto.FLOAT, 3),
        vi("s0", TensorProto.FLOAT, 3),
        vi("sl", TensorProto.FLOAT, 3),
        vi("topi", TensorProto.INT64, 3),
    ]
    g = helper.make_graph(nodes, "attention", [vi("x", TensorProto.FLOAT, [2, 3, 6])], outs, inits)
    save(model(g, opset=21), "transformer_ops.onnx")


def detection():
    inits = [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales"),
             numpy_helper.from_array(np.array([3], dtype=np.int64), "max_out"),
             numpy_helper.from_array(np.array([0.5], dtype=np.float32), "iou"),
             numpy_helper.from_array(np.array([0.1], dtype=np.float32), "score_th")]
    nodes = [
        helper.make_node("Resize", ["img", "", "scales"], ["up"], name="resize", mode="nearest"),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_th"], ["sel"],
                         name="nms"),
        helper.make_node("Pad", ["up", "pads"], ["padded"], name="pad", mode="constant"),
    ]
    inits.append(numpy_helper.from_array(np.array([0, 0, 1, 1, 0, 0, 1, 1], dtype=np.int64), "pads"))
    g = helper.make_graph(nodes, "detect", [vi("img", TensorProto.FLOAT, [1, 2, 3, 3]),
                                            vi("boxes", TensorProto.FLOAT, [1, 5, 4]),
                                            vi("scores", TensorProto.FLOAT, [1, 1, 5])],
                          [vi("padded", TensorProto.FLOAT, 4), vi("sel", TensorProto.INT64, 2)], inits)
    save(model(g, opset=21), "detection.onnx")


def quant():
    inits = [
        numpy_helper.from_array(np.array(0.05, dtype=np.float32), "xs"),
        numpy_helper.from_array(np.array(3, dtype=np.uint8), "xz"),
        numpy_helper.from_array(RNG.integers(-20, 20, (4, 2, 3, 3)).astype(np.int8), "w"),
        numpy_helper.from_array(np.array([0.01, 0.02, 0.03, 0.04], dtype=np.float32), "ws"),
        numpy_helper.from_array(np.zeros(4, dtype=np.int8), "wz"),
        numpy_helper.from_array(np.array(0.1, dtype=np.float32), "ys"),
        numpy_helper.from_array(np.array(5, dtype=np.uint8), "yz"),
        numpy_helper.from_array(RNG.integers(0, 50, (5, 4)).astype(np.uint8), "mw"),
        numpy_helper.from_array(np.array(0.02, dtype=np.float32), "mws"),
        numpy_helper.from_array(np.array(1, dtype=np.uint8), "mwz"),
        numpy_helper.from_array(np.array(2, dtype=np.uint8), "mwz8"),
    ]
    n = helper.make_node
    nodes = [
        n("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="q"),
        n("QLinearConv", ["xq", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["yq"], name="qconv",
          pads=[1, 1, 1, 1]),
        n("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="dq"),
        n("DynamicQuantizeLinear", ["m"], ["mq", "ms", "mz"], name="dyn"),
        n("MatMulInteger", ["mq", "mw", "mz", "mwz8"], ["mi"], name="mmi"),
        n("QLinearMatMul", ["mq", "ms", "mz", "mw", "mws", "mwz", "ys", "yz"], ["mm"], name="qmm"),
        n("ConvInteger", ["xq", "xq", "xz", "xz"], ["ci"], name="convint"),
    ]
    g = helper.make_graph(nodes, "quant", [vi("x", TensorProto.FLOAT, [1, 2, 5, 5]),
                                           vi("m", TensorProto.FLOAT, [3, 5])],
                          [vi("y", TensorProto.FLOAT, 4), vi("mi", TensorProto.INT32, 2),
                           vi("mm", TensorProto.UINT8, 2), vi("ci", TensorProto.INT32, 4)], inits)
    save(model(g, opset=21), "quant.onnx")


def old_opset():
    """Opset 9 nodes whose attributes became inputs later."""
    n = helper.make_node
    nodes = [
        n("Slice", ["x"], ["s"], name="slice", starts=[0, 1], ends=[2, 4], axes=[0, 1]),
        n("Unsqueeze", ["s"], ["u"], name="unsq", axes=[0]),
        n("Squeeze", ["u"], ["sq"], name="sq", axes=[0]),
        n("ReduceMean", ["sq"], ["rm"], name="rmean", axes=[1], keepdims=1),
        n("ReduceSum", ["sq"], ["rs"], name="rsum", axes=[0], keepdims=0),
        n("Clip", ["sq"], ["c"], name="clip", min=-0.5, max=0.5),
        n("Pad", ["c"], ["p"], name="pad", pads=[1, 0, 1, 0], value=2.0),
        n("Split", ["p"], ["p0", "p1"], name="split", axis=0, split=[1, 3]),
        n("Upsample", ["p0", "up_scales"], ["up"], name="ups", mode="nearest"),
        n("TopK", ["p1"], ["tv", "ti"], name="topk", axis=1, k=2),
        n("Dropout", ["rm"], ["d"], name="drop", ratio=0.3),
        n("Softmax", ["d"], ["sm"], name="softmax"),
    ]
    inits = [numpy_helper.from_array(np.array([1, 2], dtype=np.float32), "up_scales")]
    g = helper.make_graph(nodes, "old", [vi("x", TensorProto.FLOAT, [3, 5])],
                          [vi("rs", TensorProto.FLOAT, 1), vi("up", TensorProto.FLOAT, 2),
                           vi("tv", TensorProto.FLOAT, 2), vi("sm", TensorProto.FLOAT, 2)], inits)
    save(model(g, opset=9), "old_opset.onnx")


def control_flow():
    n = helper.make_node
    then_g = helper.make_graph([n("Add", ["x", "one"], ["t_out"], name="then_add")], "then_body", [],
                               [vi("t_out", TensorProto.FLOAT, [2])])
    else_g = helper.make_graph([n("Sub", ["x", "one"], ["e_out"], name="else_sub")], "else_body", [],
                               [vi("e_out", TensorProto.FLOAT, [2])])
    body = helper.make_graph(
        [n("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         n("Mul", ["acc_in", "two"], ["acc_out"], name="double"),
         n("Identity", ["acc_out"], ["scan_out"], name="emit")],
        "loop_body",
        [vi("iter", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, []),
         vi("acc_in", TensorProto.FLOAT, [2])],
        [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", TensorProto.FLOAT, [2]),
         vi("scan_out", TensorProto.FLOAT, [2])])
    inits = [numpy_helper.from_array(np.array([1, 1], dtype=np.float32), "one"),
             numpy_helper.from_array(np.array([2, 2], dtype=np.float32), "two"),
             numpy_helper.from_array(np.array(3, dtype=np.int64), "trip"),
             numpy_helper.from_array(np.array(True), "true")]
    nodes = [
        n("If", ["c"], ["ifout"], name="branch", then_branch=then_g, else_branch=else_g),
        n("Loop", ["trip", "true", "ifout"], ["final", "scanned"], name="loop", body=body),
    ]
    g = helper.make_graph(nodes, "cf", [vi("c", TensorProto.BOOL, []), vi("x", TensorProto.FLOAT, [2])],
                          [vi("final", TensorProto.FLOAT, [2]), vi("scanned", TensorProto.FLOAT, [3, 2])],
                          inits)
    save(model(g, opset=16), "control_flow.onnx")


def function():
    n = helper.make_node
    fn = helper.make_function(
        "nart.test", "ScaledRelu", ["X"], ["Y"],
        [n("Constant", [], ["s"], value_float=1.0),
         n("Relu", ["X"], ["r"]),
         n("LeakyRelu", ["r"], ["l"], alpha=0.0),
         n("Mul", ["l", "s"], ["m"]),
         helper.make_node("Elu", ["m"], ["Y"])],
        [helper.make_opsetid("", 21)], attributes=[])
    fn.node[2].attribute[0].CopyFrom(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT))
    nodes = [n("ScaledRelu", ["x"], ["y"], name="call", domain="nart.test", alpha=0.2)]
    g = helper.make_graph(nodes, "fn", [vi("x", TensorProto.FLOAT, [4])], [vi("y", TensorProto.FLOAT, [4])])
    m = model(g, opset=21, functions=[fn], extra_opsets=[helper.make_opsetid("nart.test", 1)])
    save(m, "function.onnx")


def typed_fields():
    """Initializers in typed fields, Constant nodes of every kind, attributes of every kind."""
    def typed(name, dtype, dims, field, vals):
        t = TensorProto()
        t.name = name
        t.data_type = dtype
        t.dims.extend(dims)
        getattr(t, field).extend(vals)
        return t

    inits = [
        typed("tf", TensorProto.FLOAT, [2], "float_data", [1.5, -2.0]),
        typed("ti64", TensorProto.INT64, [2], "int64_data", [3, -4]),
        typed("ti8", TensorProto.INT8, [2], "int32_data", [-5, 6]),
        typed("tu8", TensorProto.UINT8, [2], "int32_data", [7, 250]),
        typed("tb", TensorProto.BOOL, [2], "int32_data", [1, 0]),
        typed("tf16", TensorProto.FLOAT16, [2], "int32_data",
              [int(np.float16(0.5).view(np.uint16)), int(np.float16(-1).view(np.uint16))]),
        typed("td", TensorProto.DOUBLE, [2], "double_data", [0.25, 8.0]),
        typed("tu64", TensorProto.UINT64, [1], "uint64_data", [9]),
        helper.make_tensor("ti4", TensorProto.INT4, [3], [1, -2, 7]),
    ]
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("sp_values", TensorProto.FLOAT, [2], [5.0, 6.0]),
        helper.make_tensor("sp_idx", TensorProto.INT64, [2], [1, 3]), [4])
    n = helper.make_node
    nodes = [
        n("Constant", [], ["c_f"], name="c_f", value_float=2.5),
        n("Constant", [], ["c_fs"], name="c_fs", value_floats=[1.0, 2.0]),
        n("Constant", [], ["c_i"], name="c_i", value_int=4),
        n("Constant", [], ["c_is"], name="c_is", value_ints=[1, 2, 3]),
        n("Constant", [], ["c_s"], name="c_s", value_string="hi"),
        n("Constant", [], ["c_ss"], name="c_ss", value_strings=["a", "b"]),
        n("Constant", [], ["c_t"], name="c_t", value=numpy_helper.from_array(np.eye(2, dtype=np.float32))),
        n("Constant", [], ["c_sp"], name="c_sp", sparse_value=sparse),
        n("Add", ["tf", "c_fs"], ["sum"], name="add"),
        n("Cast", ["ti8"], ["ti8f"], name="cast_i8", to=TensorProto.FLOAT),
        n("Cast", ["tu8"], ["tu8f"], name="cast_u8", to=TensorProto.FLOAT),
        n("Cast", ["tf16"], ["tf16f"], name="cast_f16", to=TensorProto.FLOAT),
        n("Cast", ["td"], ["tdf"], name="cast_d", to=TensorProto.FLOAT),
        n("Sum", ["sum", "ti8f", "tu8f", "tf16f", "tdf"], ["all"], name="sum"),
        n("StringNormalizer", ["c_ss"], ["norm"], name="strnorm", case_change_action="UPPER",
          stopwords=["b"], locale="C"),
        n("EyeLike", ["c_t"], ["eye"], name="eye", dtype=TensorProto.DOUBLE, k=0),
        n("Where", ["tb", "all", "tf"], ["sel"], name="where"),
        n("Mul", ["sel", "c_f"], ["scaled"], name="scale"),
        n("Mul", ["ti64", "c_i"], ["ints"], name="ints"),
        n("Add", ["c_sp", "x"], ["sp_sum"], name="sp_add"),
        n("LpNormalization", ["x"], ["lp"], name="lp", axis=0, p=2),
    ]
    g = helper.make_graph(nodes, "typed", [vi("x", TensorProto.FLOAT, [4])],
                          [vi("scaled", TensorProto.FLOAT, [2]), vi("ints", TensorProto.INT64, [2]),
                           vi("norm", TensorProto.STRING, 1), vi("eye", TensorProto.DOUBLE, [2, 2]),
                           vi("sp_sum", TensorProto.FLOAT, [4]), vi("lp", TensorProto.FLOAT, [4]),
                           vi("ti4_out", TensorProto.FLOAT, [3]), vi("c_is", TensorProto.INT64, [3]),
                           vi("c_s", TensorProto.STRING, []), vi("tu64", TensorProto.UINT64, [1])],
                          inits)
    g.node.append(n("DequantizeLinear", ["ti4", "c_f"], ["ti4_out"], name="int4"))
    save(model(g, opset=21), "typed_fields.onnx")


def external():
    w = f32(3, 3)
    data = w.tobytes()
    with open(os.path.join(HERE, "external.bin"), "wb") as f:
        f.write(b"\0" * 16 + data)
    t = TensorProto()
    t.name = "w"
    t.data_type = TensorProto.FLOAT
    t.dims.extend([3, 3])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "external.bin"), ("offset", "16"), ("length", str(len(data)))):
        e = t.external_data.add()
        e.key = k
        e.value = v
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "ext",
                          [vi("x", TensorProto.FLOAT, [2, 3])], [vi("y", TensorProto.FLOAT, [2, 3])], [t])
    m = model(g)
    with open(os.path.join(HERE, "external.onnx"), "wb") as f:
        f.write(m.SerializeToString(deterministic=True))
    bad_m = model(g)
    bad_m.graph.initializer[0].external_data[0].value = "../external.bin"
    save(bad_m, "bad/external_escape.onnx", check=False)


def bad():
    n = helper.make_node
    x = vi("x", TensorProto.FLOAT, [2, 3])
    y = vi("y", TensorProto.FLOAT, 2)

    def g(nodes, inits=(), inputs=(x,), outputs=(y,)):
        return helper.make_graph(nodes, "bad", list(inputs), list(outputs), list(inits))

    save(model(g([n("Add", ["x", "bias"], ["y"], name="add_bias")])), "bad/missing_initializer.onnx", False)
    save(model(g([n("Relu", ["x"], ["a"], name="first"), n("Add", ["a", "c"], ["b"], name="second"),
                  n("Relu", ["b"], ["c"], name="third"), n("Identity", ["b"], ["y"], name="out")])),
         "bad/cycle.onnx", False)
    save(model(g([n("FancyOp", ["x"], ["a"], name="fancy"), n("Relu", ["a"], ["b"], name="ok"),
                  n("Mystery", ["b"], ["y"], name="mystery", domain="com.example")]),
               extra_opsets=[helper.make_opsetid("com.example", 1)]), "bad/unknown_ops.onnx", False)
    save(model(g([n("Concat", ["x", "x"], ["y"], name="cat")])), "bad/missing_attr.onnx", False)
    save(model(g([n("Transpose", ["x"], ["y"], name="tr", perm=[1.0, 0.0])])), "bad/bad_attr_type.onnx", False)
    save(model(g([n("Add", ["x", "v"], ["y"], name="add")],
                 inputs=(x, vi("v", TensorProto.FLOAT, [4])))), "bad/shape_mismatch.onnx", False)
    with open(os.path.join(HERE, "mlp.onnx"), "rb") as f:
        good = f.read()
    with open(os.path.join(HERE, "bad/truncated.onnx"), "wb") as f:
        f.write(good[: len(good) // 2])
    with open(os.path.join(HERE, "bad/garbage.onnx"), "wb") as f:
        f.write(bytes(RNG.integers(0, 256, 200, dtype=np.uint8)))


if __name__ == "__main__":
    mlp()
    cnn()
    transformer_ops()
    detection()
    quant()
    old_opset()
    control_flow()
    function()
    typed_fields()
    external()
    bad()
    # The lit tests under tests/lit/import/onnx read copies of some of these.
    lit = os.path.join(HERE, "..", "..", "..", "..", "tests", "lit", "import", "onnx", "Inputs")
    os.makedirs(lit, exist_ok=True)
    for name in ("mlp.onnx", "cnn.onnx", "old_opset.onnx", "control_flow.onnx", "quant.onnx",
                 "bad/missing_initializer.onnx", "bad/unknown_ops.onnx", "bad/truncated.onnx",
                 "bad/cycle.onnx"):
        with open(os.path.join(HERE, name), "rb") as src, \
                open(os.path.join(lit, os.path.basename(name)), "wb") as dst:
            dst.write(src.read())
    print("wrote models to", HERE)
