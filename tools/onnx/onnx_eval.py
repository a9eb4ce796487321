"""A numpy reference evaluator of the ONNX ops that export_onnx.py emits.

onnxruntime is not available here, and a check of the exported files should
not depend on the importer it is meant to test. This walks the graph in its
(topologically sorted) node order and computes each op with numpy, following
the ONNX operator specs for opsets 13 to 17. The table holds exactly the ops
torch 1.13 emits for the two layouts; an op it does not know raises, so a new
op in an export shows up instead of passing unchecked.
"""
import numpy as np
from onnx import helper, mapping, numpy_helper


def _attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _axes(values, rank):
    return [int(a) + rank if a < 0 else int(a) for a in values]


def _slice(data, starts, ends, axes=None, steps=None):
    axes = range(len(starts)) if axes is None else _axes(axes, data.ndim)
    steps = [1] * len(starts) if steps is None else steps
    index = [slice(None)] * data.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps):
        index[axis] = slice(int(start), int(end), int(step))
    return data[tuple(index)]


def _unsqueeze(data, axes):
    rank = data.ndim + len(axes)
    for axis in sorted(_axes(axes, rank)):
        data = np.expand_dims(data, axis)
    return data


def _reshape(data, shape, allowzero=0):
    shape = [data.shape[i] if s == 0 and not allowzero else int(s)
             for i, s in enumerate(shape)]
    return data.reshape(shape)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _constant_of_shape(shape, value=None):
    value = np.zeros(1, np.float32) if value is None else numpy_helper.to_array(
        value)
    return np.full([int(s) for s in shape], value[0], value.dtype)


def _squeeze(data, axes=None):
    return np.squeeze(data, None if axes is None else tuple(
        _axes(axes, data.ndim)))


def _reduce_mean(data, axes=None, keepdims=1):
    axes = None if axes is None else tuple(_axes(axes, data.ndim))
    return data.mean(axis=axes, keepdims=bool(keepdims), dtype=data.dtype)


# Each op: (inputs..., **attributes) -> output, in numpy.
OPS = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
    "Div": lambda a, b: (np.trunc(a / b).astype(a.dtype)
                         if a.dtype.kind == "i" else a / b),
    "Pow": lambda a, b: np.power(a, b).astype(a.dtype),
    "Sqrt": np.sqrt, "Neg": np.negative, "Cos": np.cos, "Sin": np.sin,
    "Sigmoid": lambda x: (1 / (1 + np.exp(-x))).astype(x.dtype),
    "Equal": np.equal, "Less": np.less,
    "Where": np.where, "Identity": lambda x: x,
    "MatMul": np.matmul,
    "ReduceMean": _reduce_mean,
    "Softmax": _softmax,
    "Cast": lambda x, to: x.astype(mapping.TENSOR_TYPE_TO_NP_TYPE[to]),
    "Shape": lambda x: np.array(x.shape, np.int64),
    "Constant": lambda value: numpy_helper.to_array(value),
    "ConstantOfShape": _constant_of_shape,
    "Range": lambda start, limit, delta: np.arange(start, limit, delta,
                                                   dtype=start.dtype),
    "Gather": lambda data, idx, axis=0: np.take(data, idx, axis=axis),
    "Slice": _slice,
    "Concat": lambda *xs, axis: np.concatenate(xs, axis=axis),
    "Reshape": _reshape,
    "Transpose": lambda x, perm=None: np.transpose(x, perm),
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Expand": lambda x, shape: np.broadcast_to(
        x, np.broadcast_shapes(x.shape, tuple(int(s) for s in shape))),
}


def _run_nodes(graph, values):
    """Evaluates the nodes of `graph` in order into `values`, which holds
    its inputs and the outer scope's values."""
    for node in graph.node:
        if node.op_type == "If":  # a branch reads the outer scope by name
            attrs = _attrs(node)
            taken = attrs["then_branch" if bool(values[node.input[0]].all())
                          else "else_branch"]
            _run_nodes(taken, values)
            for output, result in zip(node.output, taken.output):
                values[output] = values[result.name]
            continue
        if node.op_type not in OPS:
            raise NotImplementedError(f"onnx_eval: no op {node.op_type}")
        inputs = [values[name] if name else None for name in node.input]
        while inputs and inputs[-1] is None:  # trailing optional inputs
            inputs.pop()
        result = OPS[node.op_type](*inputs, **_attrs(node))
        values[node.output[0]] = np.asarray(result)


def run(model, feeds):
    """Evaluates `model` (an onnx.ModelProto with its data loaded) on the
    named numpy inputs; returns every graph output by name."""
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values.update(feeds)
    _run_nodes(model.graph, values)
    return {o.name: values[o.name] for o in model.graph.output}
