//===- ShapeFunctions.cpp - shape rules shared by top and tpu -------------===//

#include "dialects/common/IR/ShapeFunctions.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"

using namespace mlir;

namespace llmc {

static constexpr int64_t kDynamic = ShapedType::kDynamic;

bool dimsCompatible(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) ||
         lhs == rhs;
}

static int64_t mergeDims(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) ? rhs : lhs;
}

std::string formatDim(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank,
                                 EmitErrorFn emitError) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    emitError() << "axis " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return normalized;
}

FailureOr<Shape> inferBroadcastShape(ArrayRef<int64_t> lhs,
                                     ArrayRef<int64_t> rhs,
                                     EmitErrorFn emitError) {
  size_t rank = std::max(lhs.size(), rhs.size());
  Shape result(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t b = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (a == 1) {
      result[i] = b;
    } else if (b == 1) {
      result[i] = a;
    } else if (dimsCompatible(a, b)) {
      result[i] = mergeDims(a, b);
    } else {
      emitError() << "operands do not broadcast: dimension " << i << " is "
                  << a << " and " << b;
      return failure();
    }
  }
  return result;
}

FailureOr<Shape> inferBroadcastShape(ArrayRef<ArrayRef<int64_t>> shapes,
                                     EmitErrorFn emitError) {
  Shape result;
  for (ArrayRef<int64_t> shape : shapes) {
    FailureOr<Shape> merged = inferBroadcastShape(result, shape, emitError);
    if (failed(merged))
      return failure();
    result = std::move(*merged);
  }
  return result;
}

FailureOr<Shape> inferMatMulShape(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs,
                                  OptionalShape bias, bool leftTranspose,
                                  bool rightTranspose, EmitErrorFn emitError) {
  if (lhs.size() < 2 || rhs.size() < 2) {
    emitError() << "matmul operands need rank >= 2, got " << lhs.size()
                << " and " << rhs.size();
    return failure();
  }
  int64_t m = lhs[lhs.size() - (leftTranspose ? 1 : 2)];
  int64_t lhsK = lhs[lhs.size() - (leftTranspose ? 2 : 1)];
  int64_t rhsK = rhs[rhs.size() - (rightTranspose ? 1 : 2)];
  int64_t n = rhs[rhs.size() - (rightTranspose ? 2 : 1)];
  if (!dimsCompatible(lhsK, rhsK)) {
    emitError() << "contraction dimensions differ: input has K = " << lhsK
                << ", right operand has K = " << rhsK;
    return failure();
  }
  FailureOr<Shape> batch = inferBroadcastShape(lhs.drop_back(2),
                                               rhs.drop_back(2), emitError);
  if (failed(batch))
    return failure();
  Shape result = *batch;
  result.push_back(m);
  result.push_back(n);
  if (bias) {
    if (bias->empty() || !(dimsCompatible(bias->back(), n) ||
                           bias->back() == 1)) {
      emitError() << "bias must end in N = " << formatDim(n);
      return failure();
    }
    if (failed(inferBroadcastShape(result, *bias, emitError)))
      return failure();
  }
  return result;
}

static LogicalResult checkChannelVector(StringRef what, OptionalShape shape,
                                        int64_t channels,
                                        EmitErrorFn emitError) {
  if (!shape)
    return success();
  if (shape->size() != 1 || !dimsCompatible((*shape)[0], channels)) {
    emitError() << what << " must have shape [" << formatDim(channels) << "]";
    return failure();
  }
  return success();
}

FailureOr<Shape> inferNormShape(ArrayRef<int64_t> input, OptionalShape weight,
                                OptionalShape bias, EmitErrorFn emitError) {
  if (input.empty()) {
    emitError() << "normalized input must have rank >= 1";
    return failure();
  }
  if (failed(checkChannelVector("weight", weight, input.back(), emitError)) ||
      failed(checkChannelVector("bias", bias, input.back(), emitError)))
    return failure();
  return Shape(input);
}

FailureOr<Shape> inferGatherShape(ArrayRef<int64_t> table,
                                  ArrayRef<int64_t> indices, int64_t axis,
                                  EmitErrorFn emitError) {
  FailureOr<int64_t> dim = normalizeAxis(axis, table.size(), emitError);
  if (failed(dim))
    return failure();
  Shape result(table.take_front(*dim));
  result.append(indices.begin(), indices.end());
  result.append(table.begin() + *dim + 1, table.end());
  return result;
}

FailureOr<Shape> inferRopeShape(ArrayRef<int64_t> input, ArrayRef<int64_t> cos,
                                ArrayRef<int64_t> sin, EmitErrorFn emitError) {
  if (input.size() != 4) {
    emitError() << "rope input must be [batch, seq, heads, head_dim]";
    return failure();
  }
  if (cos.size() != 3 || cos != sin) {
    emitError() << "cos and sin must both be [batch, seq, rotary_dim]";
    return failure();
  }
  if (!(cos[0] == 1 || dimsCompatible(cos[0], input[0])) ||
      !dimsCompatible(cos[1], input[1])) {
    emitError() << "cos/sin batch and sequence must match the input";
    return failure();
  }
  int64_t rotary = cos[2];
  if (!ShapedType::isDynamic(rotary) &&
      (rotary % 2 != 0 ||
       (!ShapedType::isDynamic(input[3]) && rotary > input[3]))) {
    emitError() << "rotary_dim " << rotary
                << " must be even and at most head_dim " << formatDim(input[3]);
    return failure();
  }
  return Shape(input);
}

FailureOr<Shape> inferAttentionShape(ArrayRef<int64_t> q, ArrayRef<int64_t> k,
                                     ArrayRef<int64_t> v, OptionalShape mask,
                                     int64_t qHead, int64_t kvHead,
                                     int64_t headDim, EmitErrorFn emitError) {
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) {
    emitError() << "q, k and v must be [batch, seq, heads, head_dim]";
    return failure();
  }
  if (qHead <= 0 || kvHead <= 0 || headDim <= 0 || qHead % kvHead != 0) {
    emitError() << "q_head (" << qHead << ") must be a positive multiple of "
                << "kv_head (" << kvHead << ") and head_dim positive";
    return failure();
  }
  if (!dimsCompatible(q[2], qHead) || !dimsCompatible(q[3], headDim)) {
    emitError() << "q must have " << qHead << " heads of " << headDim;
    return failure();
  }
  if (!dimsCompatible(k[2], kvHead) || !dimsCompatible(k[3], headDim) ||
      !dimsCompatible(v[2], kvHead) || !dimsCompatible(v[3], headDim)) {
    emitError() << "k and v must have " << kvHead << " heads of " << headDim;
    return failure();
  }
  if (!dimsCompatible(q[0], k[0]) || !dimsCompatible(k[0], v[0]) ||
      !dimsCompatible(k[1], v[1])) {
    emitError() << "k and v must share q's batch and each other's length";
    return failure();
  }
  if (mask) {
    if (mask->size() != 3 || !((*mask)[0] == 1 || dimsCompatible((*mask)[0], q[0])) ||
        !dimsCompatible((*mask)[1], q[1]) ||
        !dimsCompatible((*mask)[2], k[1])) {
      emitError() << "mask must be [batch or 1, q_len, kv_len]";
      return failure();
    }
  }
  return Shape{q[0], q[1], qHead * headDim};
}

FailureOr<Shape> inferGatedMLPShape(ArrayRef<int64_t> input,
                                    ArrayRef<int64_t> gate,
                                    ArrayRef<int64_t> up,
                                    ArrayRef<int64_t> down,
                                    EmitErrorFn emitError) {
  if (input.empty() || gate.size() != 2 || up.size() != 2 ||
      down.size() != 2) {
    emitError() << "MLP weights must be 2-D and the input at least 1-D";
    return failure();
  }
  int64_t hidden = input.back();
  if (!dimsCompatible(gate[1], hidden) || !dimsCompatible(up[1], hidden) ||
      !dimsCompatible(gate[0], up[0])) {
    emitError() << "gate and up weights must both be [intermediate, "
                << formatDim(hidden) << "]";
    return failure();
  }
  if (!dimsCompatible(down[0], hidden) || !dimsCompatible(down[1], gate[0])) {
    emitError() << "down weight must be [" << formatDim(hidden)
                << ", intermediate]";
    return failure();
  }
  return Shape(input);
}

static int64_t knownElementCount(ArrayRef<int64_t> shape, int &dynamicDims) {
  int64_t count = 1;
  dynamicDims = 0;
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      ++dynamicDims;
    else
      count *= dim;
  }
  return count;
}

FailureOr<Shape> inferReshapeShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> result,
                                   EmitErrorFn emitError) {
  int inputDynamic, resultDynamic;
  int64_t inputCount = knownElementCount(input, inputDynamic);
  int64_t resultCount = knownElementCount(result, resultDynamic);
  Shape shape(result);
  if (inputDynamic != 0)
    return shape;
  if (resultDynamic == 0 && inputCount != resultCount) {
    emitError() << "reshape changes the element count from " << inputCount
                << " to " << resultCount;
    return failure();
  }
  if (resultDynamic == 1) {
    if (resultCount == 0 || inputCount % resultCount != 0) {
      emitError() << "cannot reshape " << inputCount << " elements";
      return failure();
    }
    for (int64_t &dim : shape)
      if (ShapedType::isDynamic(dim))
        dim = inputCount / resultCount;
  }
  return shape;
}

FailureOr<Shape> inferPermuteShape(ArrayRef<int64_t> input,
                                   ArrayRef<int64_t> order,
                                   EmitErrorFn emitError) {
  if (order.size() != input.size()) {
    emitError() << "order has " << order.size() << " entries for rank "
                << input.size();
    return failure();
  }
  llvm::SmallVector<bool> seen(input.size(), false);
  Shape result;
  for (int64_t axis : order) {
    if (axis < 0 || axis >= static_cast<int64_t>(input.size()) || seen[axis]) {
      emitError() << "order is not a permutation of 0.." << input.size() - 1;
      return failure();
    }
    seen[axis] = true;
    result.push_back(input[axis]);
  }
  return result;
}

FailureOr<Shape> inferConcatShape(ArrayRef<ArrayRef<int64_t>> inputs,
                                  int64_t axis, EmitErrorFn emitError) {
  if (inputs.empty()) {
    emitError() << "concat needs at least one input";
    return failure();
  }
  FailureOr<int64_t> dim = normalizeAxis(axis, inputs[0].size(), emitError);
  if (failed(dim))
    return failure();
  Shape result(inputs[0]);
  for (ArrayRef<int64_t> input : inputs.drop_front()) {
    if (input.size() != result.size()) {
      emitError() << "concat inputs must have the same rank";
      return failure();
    }
    for (size_t i = 0; i < input.size(); ++i) {
      if (static_cast<int64_t>(i) == *dim) {
        result[i] = ShapedType::isDynamic(result[i]) ||
                            ShapedType::isDynamic(input[i])
                        ? kDynamic
                        : result[i] + input[i];
      } else if (!dimsCompatible(result[i], input[i])) {
        emitError() << "concat inputs differ in dimension " << i
                    << ", which is not the concat axis";
        return failure();
      } else {
        result[i] = mergeDims(result[i], input[i]);
      }
    }
  }
  return result;
}

FailureOr<Shape> inferSliceShape(ArrayRef<int64_t> input,
                                 ArrayRef<int64_t> starts,
                                 ArrayRef<int64_t> ends,
                                 ArrayRef<int64_t> steps,
                                 EmitErrorFn emitError) {
  if (starts.size() != input.size() || ends.size() != input.size() ||
      steps.size() != input.size()) {
    emitError() << "starts, ends and steps need one entry per dimension ("
                << input.size() << ")";
    return failure();
  }
  Shape result;
  for (size_t i = 0; i < input.size(); ++i) {
    if (steps[i] <= 0) {
      emitError() << "slice steps must be positive";
      return failure();
    }
    int64_t size = input[i];
    if (ShapedType::isDynamic(size)) {
      result.push_back(kDynamic);
      continue;
    }
    int64_t start = starts[i] < 0 ? starts[i] + size : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + size : std::min(ends[i], size);
    if (start < 0 || start > size || end < start) {
      emitError() << "slice [" << starts[i] << ", " << ends[i]
                  << ") is out of range for dimension " << i << " of size "
                  << size;
      return failure();
    }
    // ceil((end - start) / step), without overflowing for a huge step.
    result.push_back(end == start ? 0 : (end - start - 1) / steps[i] + 1);
  }
  return result;
}

FailureOr<Shape> inferScatterElementsShape(ArrayRef<int64_t> data,
                                           ArrayRef<int64_t> indices,
                                           ArrayRef<int64_t> updates,
                                           int64_t axis,
                                           EmitErrorFn emitError) {
  FailureOr<int64_t> dim = normalizeAxis(axis, data.size(), emitError);
  if (failed(dim))
    return failure();
  if (indices.size() != data.size() || updates.size() != data.size()) {
    emitError() << "data, indices and updates must have the same rank";
    return failure();
  }
  for (size_t i = 0; i < data.size(); ++i) {
    if (!dimsCompatible(indices[i], updates[i])) {
      emitError() << "indices and updates differ in dimension " << i << " ("
                  << formatDim(indices[i]) << " and " << formatDim(updates[i])
                  << ")";
      return failure();
    }
    // Along the axis, indices pick the position; elsewhere a position of
    // indices is also a position of data, so it must exist there.
    if (static_cast<int64_t>(i) != *dim && !ShapedType::isDynamic(data[i]) &&
        !ShapedType::isDynamic(indices[i]) && indices[i] > data[i]) {
      emitError() << "indices dimension " << i << " (" << indices[i]
                  << ") exceeds the data dimension (" << data[i] << ")";
      return failure();
    }
  }
  return Shape(data);
}

FailureOr<Shape> inferReduceAxisShape(ArrayRef<int64_t> input, int64_t axis,
                                      bool keepDims, EmitErrorFn emitError) {
  FailureOr<int64_t> dim = normalizeAxis(axis, input.size(), emitError);
  if (failed(dim))
    return failure();
  Shape result(input);
  if (keepDims)
    result[*dim] = 1;
  else
    result.erase(result.begin() + *dim);
  return result;
}

FailureOr<Shape> inferReduceAxesShape(ArrayRef<int64_t> input,
                                      ArrayRef<int64_t> axes, bool keepDims,
                                      EmitErrorFn emitError) {
  if (axes.empty()) {
    emitError() << "axes must name at least one dimension";
    return failure();
  }
  llvm::SmallVector<bool> reduced(input.size(), false);
  for (int64_t axis : axes) {
    FailureOr<int64_t> dim = normalizeAxis(axis, input.size(), emitError);
    if (failed(dim))
      return failure();
    if (reduced[*dim]) {
      emitError() << "axes name dimension " << *dim << " more than once";
      return failure();
    }
    reduced[*dim] = true;
  }
  Shape result;
  for (size_t i = 0; i < input.size(); ++i) {
    if (!reduced[i])
      result.push_back(input[i]);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

FailureOr<Shape> inferExpandShape(ArrayRef<int64_t> input,
                                  ArrayRef<int64_t> result,
                                  EmitErrorFn emitError) {
  if (input.size() > result.size()) {
    emitError() << "cannot expand rank " << input.size() << " to rank "
                << result.size();
    return failure();
  }
  Shape shape(result);
  size_t lead = result.size() - input.size();
  for (size_t i = 0; i < input.size(); ++i) {
    int64_t from = input[i], &to = shape[lead + i];
    if (from == 1)
      continue;
    if (!dimsCompatible(from, to)) {
      emitError() << "input dimension " << i << " (" << from
                  << ") is neither 1 nor result dimension " << lead + i << " ("
                  << to << ")";
      return failure();
    }
    to = mergeDims(to, from);
  }
  return shape;
}

FailureOr<Shape> inferTopKShape(ArrayRef<int64_t> input, int64_t k,
                                int64_t axis, EmitErrorFn emitError) {
  FailureOr<int64_t> dim = normalizeAxis(axis, input.size(), emitError);
  if (failed(dim))
    return failure();
  if (k <= 0 || (!ShapedType::isDynamic(input[*dim]) && k > input[*dim])) {
    emitError() << "k = " << k << " must be in [1, " << formatDim(input[*dim])
                << "]";
    return failure();
  }
  Shape result(input);
  result[*dim] = k;
  return result;
}

} // namespace llmc
