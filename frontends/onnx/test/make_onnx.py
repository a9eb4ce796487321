#!/usr/bin/python3
"""Writes the small ONNX models the importer's lit tests read.

  make_onnx.py CASE OUT.onnx

Each case is a graph built with onnx.helper that exercises one part of the
importer: the shape arithmetic it folds, the ops it maps, and the malformed
or unsupported inputs it must reject with a clear error.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs,
                              list(initializers))
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def tensor(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, values, dtype=np.int64):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(
                                np.array(values, dtype=dtype), name))


def shape_arithmetic():
    """x [1, 4, 8] -> [1, 4, 2, 4] through Shape/Gather/Unsqueeze/Concat,
    then Transpose, Slice (INT64_MAX end), Neg, Sub, Reciprocal, Sqrt,
    Sigmoid, Softmax, ReduceMean over an axes input (opset 18)."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        const("zero", 0), const("one", 1),
        helper.make_node("Gather", ["s", "zero"], ["b"]),
        helper.make_node("Gather", ["s", "one"], ["l"]),
        const("axes0", [0]),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["bu"]),
        helper.make_node("Unsqueeze", ["l", "axes0"], ["lu"]),
        const("tail", [2, 4]),
        helper.make_node("Concat", ["bu", "lu", "tail"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["r"]),
        helper.make_node("Transpose", ["r"], ["t"], perm=[0, 2, 1, 3]),
        const("starts", [2]), const("ends", [2**63 - 1]), const("axes3", [3]),
        helper.make_node("Slice", ["t", "starts", "ends", "axes3"], ["half"]),
        helper.make_node("Neg", ["half"], ["neg"]),
        helper.make_node("Sub", ["half", "neg"], ["diff"]),
        helper.make_node("Sigmoid", ["diff"], ["sig"]),
        helper.make_node("Sqrt", ["sig"], ["root"]),
        helper.make_node("Reciprocal", ["root"], ["inv"]),
        helper.make_node("Softmax", ["inv"], ["p"], axis=-1),
        const("last", [-1]),
        helper.make_node("ReduceMean", ["p", "last"], ["mean"], keepdims=0),
    ]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [1, 4, 8])],
                 [tensor("mean", TensorProto.FLOAT, None)], opset=18)


def gather_and_where():
    """An embedding Gather of int32 ids, a Where on a computed comparison,
    and an initializer read as a weight."""
    table = numpy_helper.from_array(
        np.arange(32, dtype=np.float32).reshape(8, 4), "table")
    nodes = [
        helper.make_node("Gather", ["table", "ids"], ["rows"]),
        helper.make_node("Equal", ["rows", "rows"], ["same"]),
        helper.make_node("Where", ["same", "rows", "fill"], ["out"]),
    ]
    return model(nodes,
                 [tensor("ids", TensorProto.INT32, [1, 3]),
                  tensor("fill", TensorProto.FLOAT, [1, 3, 4])],
                 [tensor("out", TensorProto.FLOAT, None)], [table])


def dynamic_input():
    nodes = [helper.make_node("Sigmoid", ["x"], ["y"])]
    return model(nodes, [tensor("x", TensorProto.FLOAT, ["batch", 4])],
                 [tensor("y", TensorProto.FLOAT, None)])


def unsupported_op():
    nodes = [helper.make_node("Erf", ["x"], ["y"], name="erf_0")]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2, 4])],
                 [tensor("y", TensorProto.FLOAT, None)])


def external_outside():
    weight = numpy_helper.from_array(np.zeros((2, 2), np.float32), "w")
    weight.data_location = TensorProto.EXTERNAL
    weight.ClearField("raw_data")
    entry = weight.external_data.add()
    entry.key, entry.value = "location", "../../etc/passwd"
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2, 2])],
                 [tensor("y", TensorProto.FLOAT, None)], [weight])


def external_short():
    """External data whose file is shorter than the tensor."""
    weight = numpy_helper.from_array(np.zeros((4, 4), np.float32), "w")
    weight.data_location = TensorProto.EXTERNAL
    weight.ClearField("raw_data")
    for key, value in (("location", "short.bin"), ("offset", "8")):
        entry = weight.external_data.add()
        entry.key, entry.value = key, value
    nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2, 4])],
                 [tensor("y", TensorProto.FLOAT, None)], [weight])


def claimed_tensor(name, elem, dims, float_data=()):
    """A TensorProto whose dims claim what its data does not hold, which
    onnx.helper.make_tensor refuses to build."""
    claimed = TensorProto()
    claimed.name, claimed.data_type = name, elem
    claimed.dims.extend(dims)
    claimed.float_data.extend(float_data)
    return claimed


def huge_typed_initializer():
    """A FLOAT initializer whose shape claims 2^40 elements and whose
    float_data holds two: refused before anything is sized by the shape."""
    weight = claimed_tensor("w", TensorProto.FLOAT, [2**40], [1.0, 2.0])
    nodes = [helper.make_node("Sigmoid", ["x"], ["y"])]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2])],
                 [tensor("y", TensorProto.FLOAT, None)], [weight])


def overflowing_initializer():
    weight = claimed_tensor("w", TensorProto.FLOAT, [2**40, 2**40])
    nodes = [helper.make_node("Sigmoid", ["x"], ["y"])]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2])],
                 [tensor("y", TensorProto.FLOAT, None)], [weight])


def huge_range():
    """A constant Range of 10^15 elements."""
    nodes = [const("start", 0), const("limit", 10**15), const("delta", 1),
             helper.make_node("Range", ["start", "limit", "delta"], ["r"],
                              name="range_0")]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2])],
                 [tensor("r", TensorProto.INT64, None)])


def huge_constant():
    """A Constant whose shape claims 2^62 elements."""
    value = claimed_tensor("c", TensorProto.INT64, [2**31, 2**31])
    nodes = [helper.make_node("Constant", [], ["c"], value=value,
                              name="const_0")]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2])],
                 [tensor("c", TensorProto.INT64, None)])


def node_without_output():
    nodes = [helper.make_node("Sigmoid", ["x"], [], name="sig_0")]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [2])],
                 [tensor("x", TensorProto.FLOAT, None)])


def rotary(cos_reader="unsqueeze"):
    """Hugging Face's in-graph rotary over position_ids [1, 4] for head_dim
    8: Expand(inv_freq) @ Cast(Unsqueeze(positions)) -> Transpose -> Concat
    -> Cos and Sin. cos is unsqueezed over heads and multiplies x [1, 2, 4,
    8]; sin multiplies y [1, 4, 8] directly."""
    inv_freq = 1.0 / 10000.0**(np.arange(0, 8, 2) / 8)
    nodes = [
        const("inv", inv_freq.reshape(1, 4, 1), np.float32),
        const("inv_shape", [1, 4, 1]),
        helper.make_node("Expand", ["inv", "inv_shape"], ["inv_e"]),
        const("axis1", [1]),
        helper.make_node("Unsqueeze", ["position_ids", "axis1"], ["pos_u"]),
        helper.make_node("Cast", ["pos_u"], ["pos_f"], to=TensorProto.FLOAT),
        helper.make_node("MatMul", ["inv_e", "pos_f"], ["freqs_t"]),
        helper.make_node("Transpose", ["freqs_t"], ["freqs"], perm=[0, 2, 1]),
        helper.make_node("Concat", ["freqs", "freqs"], ["emb"], axis=-1),
        helper.make_node("Cos", ["emb"], ["cos"]),
        helper.make_node("Sin", ["emb"], ["sin"]),
        helper.make_node("Unsqueeze", ["cos", "axis1"], ["cos_u"]),
        helper.make_node("Mul", ["x", "cos_u"], ["xc"]),
        helper.make_node("Mul", ["y", "sin"], ["ys"]),
    ]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [1, 2, 4, 8]),
                         tensor("y", TensorProto.FLOAT, [1, 4, 8]),
                         tensor("position_ids", TensorProto.INT64, [1, 4])],
                 [tensor("xc", TensorProto.FLOAT, [1, 2, 4, 8]),
                  tensor("ys", TensorProto.FLOAT, [1, 4, 8])])


def position_sum():
    """cos(p + sum of p^2 over the positions): computed from position_ids
    alone, but each row depends on every position, so no table by position
    can stand for it."""
    nodes = [
        const("axis2", [2]),
        helper.make_node("Unsqueeze", ["position_ids", "axis2"], ["pos_u"]),
        helper.make_node("Cast", ["pos_u"], ["p"], to=TensorProto.FLOAT),
        helper.make_node("Transpose", ["p"], ["p_t"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["p_t", "p"], ["squares"]),
        helper.make_node("Add", ["p", "squares"], ["angle"]),
        helper.make_node("Cos", ["angle"], ["cos"], name="cos_0"),
        helper.make_node("Mul", ["x", "cos"], ["out"]),
    ]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [1, 4, 1]),
                         tensor("position_ids", TensorProto.INT64, [1, 4])],
                 [tensor("out", TensorProto.FLOAT, [1, 4, 1])])


def if_constant():
    """optimum's merged form in small: an If on a constant condition (as
    use_cache_branch is once llmc fixes it) whose branches read the outer
    input x."""
    then_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["then_out"])], "then", [],
        [tensor("then_out", TensorProto.FLOAT, [1, 4])])
    else_branch = helper.make_graph(
        [helper.make_node("Sigmoid", ["x"], ["else_out"])], "else", [],
        [tensor("else_out", TensorProto.FLOAT, [1, 4])])
    nodes = [
        const("cond", [False], np.bool_),
        helper.make_node("If", ["cond"], ["y"], name="if_0",
                         then_branch=then_branch, else_branch=else_branch),
    ]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [1, 4])],
                 [tensor("y", TensorProto.FLOAT, [1, 4])])


def if_computed():
    """An If on a condition computed from an input: not known while
    importing."""
    branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["out"])], "branch", [],
        [tensor("out", TensorProto.FLOAT, [1])])
    nodes = [
        const("zero", [0.0], np.float32),
        helper.make_node("Greater", ["x", "zero"], ["cond"]),
        helper.make_node("If", ["cond"], ["y"], name="if_0",
                         then_branch=branch, else_branch=branch),
    ]
    return model(nodes, [tensor("x", TensorProto.FLOAT, [1])],
                 [tensor("y", TensorProto.FLOAT, [1])])


def main():
    case, out = sys.argv[1], sys.argv[2]
    builders = {
        "shape_arithmetic": shape_arithmetic,
        "gather_and_where": gather_and_where,
        "dynamic_input": dynamic_input,
        "unsupported_op": unsupported_op,
        "external_outside": external_outside,
        "external_short": external_short,
        "huge_typed_initializer": huge_typed_initializer,
        "overflowing_initializer": overflowing_initializer,
        "huge_range": huge_range,
        "huge_constant": huge_constant,
        "node_without_output": node_without_output,
        "rotary": rotary,
        "position_sum": position_sum,
        "if_constant": if_constant,
        "if_computed": if_computed,
    }
    if case == "not_onnx":
        with open(out, "wb") as f:
            f.write(b"\xff\xff\xff\xff not a protobuf")
        return
    onnx.save(builders[case](), out)
    if case == "external_short":
        with open(out.rsplit("/", 1)[0] + "/short.bin", "wb") as f:
            f.write(bytes(40))


if __name__ == "__main__":
    main()
