//===- OnnxImporter.cpp - an ONNX graph as a top function -----------------===//

#include "frontends/onnx/OnnxImporter.h"

#include "dialects/common/IR/ShapeInferenceInterface.h"
#include "dialects/top/IR/TopOps.h"
#include "frontends/onnx/ConstantFolding.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace mlir;

namespace llmc::onnx {
namespace {

/// What an ONNX value name stands for during the import.
struct ImportedValue {
  /// Set for values the piece computes.
  Value value;
  /// Set for values known while importing (folded shape arithmetic,
  /// Constant nodes, integer initializers).
  std::optional<ConstantTensor> constant;
  /// A float initializer: read as a top.Weight where an op uses it.
  bool isWeight = false;
  /// Set for values computed from the position ids alone: the value for
  /// positions 0 .. n-1, and for the first half of them in reverse, n/2-1
  /// .. 0. When the second holds the first's rows of those positions, every
  /// row depends on its own position alone (not on the order or the number
  /// of positions) and a gather of the first by position id computes the
  /// value.
  struct PositionTables {
    ConstantTensor ascending, reversedHalf;
  };
  std::optional<PositionTables> tables;
  /// The node computing a tabulated value, imported when no gather can
  /// stand for the value.
  const ::onnx::NodeProto *producer = nullptr;
};

class Importer {
public:
  Importer(OnnxModel &model, ModuleOp module,
           const ImportOptions &options)
      : model(model), options(options), builder(module.getContext()),
        module(module) {}

  llvm::Expected<func::FuncOp> run();

private:
  llvm::Error fail(const llvm::Twine &message) const {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   model.getPath() + ": " + message);
  }
  llvm::Error failNode(const ::onnx::NodeProto &node,
                       const llvm::Twine &problem) const {
    return fail(node.op_type() + " node '" + node.name() + "' " + problem);
  }

  llvm::Error addInputs();
  llvm::Error importNode(const ::onnx::NodeProto &node);
  /// Imports the branch of an If whose condition is known while importing.
  llvm::Error importIf(const ::onnx::NodeProto &node);
  llvm::Error importComputation(const ::onnx::NodeProto &node);
  llvm::Error addOutputs();

  /// The computed value of input `index` of `node`: constants become
  /// top.Constant, float initializers top.Weight.
  llvm::Expected<Value> getValue(const ::onnx::NodeProto &node, int index);
  /// The constant input `index` of `node`, or an error saying that the op
  /// needs it constant.
  llvm::Expected<const ConstantTensor &>
  getConstant(const ::onnx::NodeProto &node, int index);
  /// Sets the result types of `op` from its shape function.
  llvm::Expected<Value> inferred(const ::onnx::NodeProto &node, Operation *op);
  template <typename OpTy>
  llvm::Expected<Value> create(const ::onnx::NodeProto &node,
                               ValueRange operands,
                               ArrayRef<NamedAttribute> attrs = {}) {
    Type element = getElementTypeOrSelf(operands.front().getType());
    auto op = OpTy::create(builder, locationOf(node),
                           TypeRange{UnrankedTensorType::get(element)},
                           operands, attrs);
    return inferred(node, op);
  }
  Location locationOf(const ::onnx::NodeProto &node) {
    return NameLoc::get(builder.getStringAttr(
        node.name().empty() ? node.output(0) : node.name()));
  }
  Value materialize(const ConstantTensor &constant, Location loc);
  Value none(Location loc);
  /// Tabulates `node` when its inputs are position tables and constants;
  /// false when it cannot (an input computed otherwise, an op or shape the
  /// folder does not evaluate).
  bool tabulate(const ::onnx::NodeProto &node);
  /// The computed value of the tabulated value `name`: a gather of its
  /// table by position id, or its producer imported.
  llvm::Expected<Value> materializeTable(llvm::StringRef name,
                                         ImportedValue &imported);

  OnnxModel &model;
  const ImportOptions &options;
  OpBuilder builder;
  ModuleOp module;
  func::FuncOp function;
  llvm::StringMap<ImportedValue> values;
  Value noneValue;
};

RankedTensorType getType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

llvm::Expected<func::FuncOp> Importer::run() {
  builder.setInsertionPointToEnd(module.getBody());
  function = func::FuncOp::create(
      builder, NameLoc::get(builder.getStringAttr(model.getPath())),
      options.functionName, builder.getFunctionType({}, {}));
  builder.setInsertionPointToStart(function.addEntryBlock());
  for (const std::string &name : model.getTensorNames()) {
    plugins::TensorInfo info = llvm::cantFail(model.getTensorInfo(name));
    ImportedValue imported;
    bool isFloat = info.type == plugins::WeightType::F32 ||
                   info.type == plugins::WeightType::F16 ||
                   info.type == plugins::WeightType::BF16;
    if (isFloat) {
      imported.isWeight = true;
    } else {
      std::vector<int64_t> ints;
      // Integer initializers are shapes and indices: small, and folded.
      if (info.type != plugins::WeightType::I64 &&
          info.type != plugins::WeightType::I32)
        return fail("integer initializer '" + name + "' has type " +
                    plugins::stringifyWeightType(info.type) +
                    ", which the importer does not read");
      llvm::ArrayRef<uint8_t> bytes = llvm::cantFail(model.getTensorData(name));
      for (int64_t i = 0; i < info.getNumElements(); ++i) {
        if (info.type == plugins::WeightType::I64) {
          int64_t value;
          std::memcpy(&value, bytes.data() + 8 * i, 8);
          ints.push_back(value);
        } else {
          int32_t value;
          std::memcpy(&value, bytes.data() + 4 * i, 4);
          ints.push_back(value);
        }
      }
      imported.constant = ConstantTensor::ofInts(info.shape, std::move(ints));
    }
    values[name] = std::move(imported);
  }
  if (llvm::Error error = addInputs())
    return std::move(error);
  for (const ::onnx::NodeProto &node : model.getGraph().node())
    if (llvm::Error error = importNode(node))
      return std::move(error);
  if (llvm::Error error = addOutputs())
    return std::move(error);
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(builder.getContext(),
                                    [&](Diagnostic &diagnostic) {
                                      diagnostics += diagnostic.str() + "; ";
                                      return success();
                                    });
    if (failed(verify(function)))
      return fail("the imported graph does not verify: " + diagnostics);
  }
  return function;
}

/// The MLIR element type of an ONNX tensor element type.
std::optional<Type> getElementType(Builder &builder, int32_t type) {
  switch (type) {
  case ::onnx::TensorProto::FLOAT:
    return builder.getF32Type();
  case ::onnx::TensorProto::INT64:
    return builder.getI64Type();
  case ::onnx::TensorProto::INT32:
    return builder.getI32Type();
  default:
    return std::nullopt;
  }
}

llvm::Error Importer::addInputs() {
  Block &entry = function.getBody().front();
  for (const ::onnx::ValueInfoProto &input : model.getGraph().input()) {
    if (model.isInitializer(input.name()))
      continue; // older exporters list initializers as inputs too
    auto known = options.constantInputs.find(input.name());
    if (known != options.constantInputs.end()) {
      values[input.name()].constant = known->second;
      continue;
    }
    const ::onnx::TypeProto::Tensor &tensor = input.type().tensor_type();
    std::optional<Type> element = getElementType(builder, tensor.elem_type());
    if (!element)
      return fail("input '" + input.name() + "' has element type " +
                  llvm::Twine(tensor.elem_type()) +
                  "; inputs are float32, int32 or int64");
    llvm::SmallVector<int64_t> shape;
    auto given = options.inputShapes.find(input.name());
    if (given != options.inputShapes.end()) {
      shape = given->second;
    } else {
      for (const ::onnx::TensorShapeProto::Dimension &dim :
           tensor.shape().dim()) {
        if (!dim.has_dim_value())
          return fail("input '" + input.name() +
                      "' has the dynamic "
                      "dimension '" +
                      dim.dim_param() + "'; give the input a static shape");
        shape.push_back(dim.dim_value());
      }
    }
    auto type = RankedTensorType::get(shape, *element);
    Location loc = NameLoc::get(builder.getStringAttr(input.name()));
    BlockArgument argument = entry.addArgument(type, loc);
    ImportedValue &imported = values[input.name()];
    imported.value = top::InputOp::create(builder, loc, type, argument,
                                          builder.getStringAttr(input.name()));
    int64_t positions = options.tablePositions;
    if (input.name() == options.positionInput && shape.size() == 2 &&
        shape[0] == 1 && positions >= 2 && getFoldableCount({positions})) {
      ImportedValue::PositionTables tables;
      std::vector<int64_t> up(positions), down(positions / 2);
      std::iota(up.begin(), up.end(), 0);
      std::reverse_copy(up.begin(), up.begin() + down.size(), down.begin());
      tables.ascending = ConstantTensor::ofInts({1, positions}, up);
      tables.reversedHalf = ConstantTensor::ofInts({1, positions / 2}, down);
      imported.tables = std::move(tables);
    }
  }
  return llvm::Error::success();
}

llvm::Error Importer::addOutputs() {
  SmallVector<Value> results;
  SmallVector<Attribute> roles;
  std::vector<std::string> names = options.outputs;
  if (names.empty())
    for (const ::onnx::ValueInfoProto &output : model.getGraph().output())
      names.push_back(output.name());
  for (const std::string &name : names) {
    if (llvm::none_of(model.getGraph().output(),
                      [&](const ::onnx::ValueInfoProto &output) {
                        return output.name() == name;
                      }))
      return fail("has no output '" + name + "'");
    auto found = values.find(name);
    if (found == values.end() || (!found->second.value && !found->second.tables))
      return fail("output '" + name +
                  "' is not computed by the graph (or is a constant)");
    llvm::Expected<Value> result =
        found->second.value ? found->second.value
                            : materializeTable(name, found->second);
    if (!result)
      return result.takeError();
    results.push_back(*result);
    roles.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr("llmc.role", builder.getStringAttr(name))));
  }
  func::ReturnOp::create(builder, function.getLoc(), results);
  function.setFunctionType(
      builder.getFunctionType(function.getBody().front().getArgumentTypes(),
                              ValueRange(results).getTypes()));
  function.setAllResultAttrs(roles);
  return llvm::Error::success();
}

Value Importer::materialize(const ConstantTensor &constant, Location loc) {
  if (constant.isFloat) {
    SmallVector<float> data(constant.floats.begin(), constant.floats.end());
    auto type = RankedTensorType::get(constant.shape, builder.getF32Type());
    return top::ConstantOp::create(
        builder, loc, type, DenseElementsAttr::get(type, ArrayRef(data)));
  }
  auto type = RankedTensorType::get(constant.shape, builder.getI64Type());
  return top::ConstantOp::create(
      builder, loc, type,
      DenseElementsAttr::get(type, ArrayRef(constant.ints)));
}

Value Importer::none(Location loc) {
  if (!noneValue) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&function.getBody().front());
    noneValue = top::NoneOp::create(builder, loc, builder.getNoneType());
  }
  return noneValue;
}

llvm::Expected<Value> Importer::getValue(const ::onnx::NodeProto &node,
                                         int index) {
  if (index >= node.input_size() || node.input(index).empty())
    return failNode(node, "lacks input " + llvm::Twine(index));
  auto found = values.find(node.input(index));
  if (found == values.end())
    return failNode(node, "reads '" + node.input(index) +
                              "', which nothing defines before it");
  ImportedValue &imported = found->second;
  if (imported.value)
    return imported.value;
  if (imported.tables)
    return materializeTable(node.input(index), imported);
  if (imported.isWeight) {
    plugins::TensorInfo info =
        llvm::cantFail(model.getTensorInfo(node.input(index)));
    auto type = RankedTensorType::get(info.shape, builder.getF32Type());
    imported.value = top::WeightOp::create(
        builder, NameLoc::get(builder.getStringAttr(node.input(index))), type,
        node.input(index));
    return imported.value;
  }
  imported.value = materialize(*imported.constant, locationOf(node));
  return imported.value;
}

llvm::Expected<const ConstantTensor &>
Importer::getConstant(const ::onnx::NodeProto &node, int index) {
  if (index < node.input_size() && !node.input(index).empty()) {
    auto found = values.find(node.input(index));
    if (found != values.end() && found->second.constant)
      return *found->second.constant;
  }
  return failNode(node, "needs input " + llvm::Twine(index) +
                            " to be a constant known when importing");
}

llvm::Expected<Value> Importer::inferred(const ::onnx::NodeProto &node,
                                         Operation *op) {
  auto shaped = dyn_cast<ShapeInferenceOpInterface>(op);
  SmallVector<SmallVector<int64_t>> shapes;
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(builder.getContext(),
                                    [&](Diagnostic &diagnostic) {
                                      diagnostics += diagnostic.str();
                                      return success();
                                    });
    if (!shaped || failed(shaped.inferResultShapes(shapes)))
      return failNode(node, "has inconsistent shapes: " + diagnostics);
  }
  for (auto [result, shape] : llvm::zip(op->getResults(), shapes))
    result.setType(
        RankedTensorType::get(shape, getElementTypeOrSelf(result.getType())));
  return op->getResult(0);
}

llvm::Error Importer::importNode(const ::onnx::NodeProto &node) {
  if (node.output_size() == 0 || node.output(0).empty())
    return failNode(node, "has no output");
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return failNode(node, "is in domain '" + node.domain() +
                              "'; the importer reads ai.onnx ops only");
  // Constants and all-constant subgraphs are evaluated here.
  if (node.op_type() == "Constant") {
    if (node.attribute_size() != 1)
      return failNode(node, "needs exactly one value attribute");
    const ::onnx::AttributeProto &attr = node.attribute(0);
    ConstantTensor constant;
    if (attr.name() == "value") {
      llvm::Expected<ConstantTensor> read = readConstant(attr.t());
      if (!read)
        return failNode(node, llvm::toString(read.takeError()));
      constant = std::move(*read);
    } else if (attr.name() == "value_float") {
      constant = ConstantTensor::ofFloats({}, {attr.f()});
    } else if (attr.name() == "value_int") {
      constant = ConstantTensor::ofInts({}, {attr.i()});
    } else if (attr.name() == "value_ints") {
      constant = ConstantTensor::ofInts(
          {attr.ints_size()}, {attr.ints().begin(), attr.ints().end()});
    } else {
      return failNode(node, "has value attribute '" + attr.name() +
                                "', which the importer does not read");
    }
    values[node.output(0)].constant = std::move(constant);
    return llvm::Error::success();
  }
  if (node.op_type() == "Shape") {
    // The shape of a constant is known without materializing it.
    llvm::SmallVector<int64_t> shape;
    auto found = node.input_size() ? values.find(node.input(0)) : values.end();
    if (found != values.end() && found->second.constant) {
      shape = found->second.constant->shape;
    } else {
      llvm::Expected<Value> input = getValue(node, 0);
      if (!input)
        return input.takeError();
      shape.assign(getType(*input).getShape().begin(),
                   getType(*input).getShape().end());
    }
    int64_t rank = shape.size();
    int64_t start = getIntAttr(node, "start", 0),
            end = getIntAttr(node, "end", rank);
    start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
    std::vector<int64_t> dims(shape.begin() + start,
                              shape.begin() + std::max(start, end));
    values[node.output(0)].constant =
        ConstantTensor::ofInts({int64_t(dims.size())}, dims);
    return llvm::Error::success();
  }
  if (node.op_type() == "If")
    return importIf(node);
  if (tabulate(node))
    return llvm::Error::success();
  bool allConstant = true;
  SmallVector<std::optional<ConstantTensor>> constants;
  for (const std::string &input : node.input()) {
    if (input.empty()) {
      constants.push_back(std::nullopt);
      continue;
    }
    auto found = values.find(input);
    if (found == values.end())
      return failNode(node,
                      "reads '" + input + "', which nothing defines before it");
    allConstant &= found->second.constant.has_value();
    constants.push_back(found->second.constant);
  }
  if (allConstant && node.input_size() > 0) {
    llvm::Expected<std::optional<std::vector<ConstantTensor>>> folded =
        foldNode(node, constants);
    if (!folded)
      return fail(llvm::toString(folded.takeError()));
    if (*folded) {
      for (auto [name, constant] : llvm::zip(node.output(), **folded))
        values[name].constant = std::move(constant);
      return llvm::Error::success();
    }
  }
  return importComputation(node);
}

llvm::Error Importer::importIf(const ::onnx::NodeProto &node) {
  // optimum's merged decoders branch on use_cache_branch, which is known
  // for the runs llmc imports (no past), like every shape condition.
  auto found = node.input_size() ? values.find(node.input(0)) : values.end();
  if (found == values.end() || !found->second.constant)
    return failNode(node, "branches on a value not known while importing");
  const ConstantTensor &condition = *found->second.constant;
  if (condition.getNumElements() != 1)
    return failNode(node, "has a condition of " +
                              llvm::Twine(condition.getNumElements()) +
                              " elements, not one");
  llvm::StringRef taken =
      condition.getInt(0) ? "then_branch" : "else_branch";
  const ::onnx::GraphProto *branch = nullptr;
  for (const ::onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == taken && attr.has_g())
      branch = &attr.g();
  if (!branch)
    return failNode(node, "lacks its " + taken);
  if (branch->initializer_size() || branch->sparse_initializer_size())
    return failNode(node, "has a branch with initializers of its own, which "
                          "the importer does not read");
  if (branch->output_size() != node.output_size())
    return failNode(node, "has a branch of " +
                              llvm::Twine(branch->output_size()) +
                              " outputs for " +
                              llvm::Twine(node.output_size()));
  for (const ::onnx::NodeProto &inner : branch->node())
    if (llvm::Error error = importNode(inner))
      return error;
  for (auto [output, result] : llvm::zip(node.output(), branch->output())) {
    auto computed = values.find(result.name());
    if (computed == values.end())
      return failNode(node, "has a branch output '" + result.name() +
                                "' that nothing computes");
    values[output] = computed->second;
  }
  return llvm::Error::success();
}

bool Importer::tabulate(const ::onnx::NodeProto &node) {
  SmallVector<std::optional<ConstantTensor>> up, down;
  bool anyTable = false;
  for (const std::string &input : node.input()) {
    if (input.empty()) {
      up.push_back(std::nullopt);
      down.push_back(std::nullopt);
      continue;
    }
    auto found = values.find(input);
    if (found == values.end())
      return false;
    const ImportedValue &imported = found->second;
    if (imported.tables) {
      anyTable = true;
      up.push_back(imported.tables->ascending);
      down.push_back(imported.tables->reversedHalf);
    } else if (imported.constant) {
      up.push_back(imported.constant);
      down.push_back(imported.constant);
    } else {
      return false;
    }
  }
  if (!anyTable)
    return false;
  // A node the folder cannot evaluate is imported as a computation instead.
  llvm::Expected<std::optional<std::vector<ConstantTensor>>> ascending =
      foldNode(node, up);
  llvm::Expected<std::optional<std::vector<ConstantTensor>>> reversedHalf =
      foldNode(node, down);
  if (!ascending || !reversedHalf || !*ascending || !*reversedHalf) {
    llvm::consumeError(ascending.takeError());
    llvm::consumeError(reversedHalf.takeError());
    return false;
  }
  for (auto [name, first, second] :
       llvm::zip(node.output(), **ascending, **reversedHalf)) {
    ImportedValue &imported = values[name];
    imported.tables = ImportedValue::PositionTables{std::move(first),
                                                    std::move(second)};
    imported.producer = &node;
  }
  return true;
}

/// True when `up` (positions 0 .. n-1) is a float [1, n, ...] whose first
/// n/2 rows `down` (positions n/2-1 .. 0) holds in reverse.
bool isPositionTable(const ConstantTensor &up, const ConstantTensor &down,
                     int64_t positions) {
  int64_t half = positions / 2;
  if (!up.isFloat || up.shape.size() < 2 || up.shape[0] != 1 ||
      up.shape[1] != positions || half == 0 ||
      down.shape.size() != up.shape.size() || down.shape[1] != half ||
      !std::equal(up.shape.begin() + 2, up.shape.end(),
                  down.shape.begin() + 2))
    return false;
  int64_t row = up.getNumElements() / positions;
  for (int64_t position = 0; position < half; ++position)
    if (!std::equal(up.floats.begin() + position * row,
                    up.floats.begin() + (position + 1) * row,
                    down.floats.begin() + (half - 1 - position) * row))
      return false;
  return true;
}

llvm::Expected<Value> Importer::materializeTable(llvm::StringRef name,
                                                 ImportedValue &imported) {
  const ConstantTensor &up = imported.tables->ascending;
  Value positions = values[options.positionInput].value;
  if (isPositionTable(up, imported.tables->reversedHalf,
                      options.tablePositions)) {
    SmallVector<int64_t> tableShape(up.shape.begin() + 1, up.shape.end());
    std::vector<float> data(up.floats.begin(), up.floats.end());
    if (!model.addComputedTensor(name, tableShape, data))
      return fail("the table of '" + name + "' has an initializer's name");
    Location loc = NameLoc::get(builder.getStringAttr(name));
    auto tableType = RankedTensorType::get(tableShape, builder.getF32Type());
    Value table = top::WeightOp::create(builder, loc, tableType, name);
    SmallVector<int64_t> shape(getType(positions).getShape());
    shape.append(tableShape.begin() + 1, tableShape.end());
    imported.value = top::GatherOp::create(
        builder, loc,
        TypeRange{RankedTensorType::get(shape, builder.getF32Type())},
        ValueRange{table, positions},
        ArrayRef<NamedAttribute>{builder.getNamedAttr(
            "axis", builder.getI64IntegerAttr(0))});
    return imported.value;
  }
  // Not a table by position (the position axis moved, or integers): the
  // producer runs on the device, reading its inputs' tables gathered.
  const ::onnx::NodeProto *producer = imported.producer;
  if (!producer || producer->output(0) != name)
    return fail("'" + name + "' is computed from '" + options.positionInput +
                "' in a way the importer cannot evaluate");
  if (llvm::Error error = importComputation(*producer))
    return std::move(error);
  return values[name].value;
}

llvm::Error Importer::importComputation(const ::onnx::NodeProto &node) {
  llvm::StringRef type = node.op_type();
  Location loc = locationOf(node);
  auto input = [&](int index) { return getValue(node, index); };
  auto define = [&](llvm::Expected<Value> value) -> llvm::Error {
    if (!value)
      return value.takeError();
    values[node.output(0)].value = *value;
    return llvm::Error::success();
  };
  auto named = [&](StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  };
  llvm::Expected<Value> x = input(0);
  if (!x)
    return x.takeError();
  bool isFloat = isa<FloatType>(getType(*x).getElementType());
  int64_t rank = getType(*x).getRank();

  if (type == "Identity" || type == "Cast") {
    bool toFloat = getIntAttr(node, "to", ::onnx::TensorProto::FLOAT) ==
                   ::onnx::TensorProto::FLOAT;
    if (type == "Cast" && toFloat != isFloat)
      return failNode(node, "converts between integers and floats, which "
                            "the importer does not support on computed "
                            "values");
    return define(*x);
  }
  if (type == "Add" || type == "Mul" || type == "Div" || type == "Sub") {
    llvm::Expected<Value> y = input(1);
    if (!y)
      return y.takeError();
    if (!isFloat)
      return failNode(node, "computes on integers, which the importer "
                            "supports only for constants");
    if (type == "Add")
      return define(create<top::AddOp>(node, {*x, *y}));
    if (type == "Mul")
      return define(create<top::MulOp>(node, {*x, *y}));
    if (type == "Div")
      return define(create<top::DivOp>(node, {*x, *y}));
    // a - b is exactly a + (-b).
    llvm::Expected<Value> negated = create<top::MulConstOp>(
        node, {*y}, {named("const_val", builder.getF64FloatAttr(-1.0))});
    if (!negated)
      return negated.takeError();
    return define(create<top::AddOp>(node, {*x, *negated}));
  }
  if (type == "Neg")
    return define(create<top::MulConstOp>(
        node, {*x}, {named("const_val", builder.getF64FloatAttr(-1.0))}));
  if (type == "Sqrt")
    return define(create<top::SqrtOp>(node, {*x}));
  if (type == "Sigmoid")
    return define(create<top::SigmoidOp>(node, {*x}));
  if (type == "Reciprocal") {
    Value one = materialize(ConstantTensor::ofFloats({}, {1.0}), loc);
    return define(create<top::DivOp>(node, {one, *x}));
  }
  if (type == "Pow") {
    llvm::Expected<const ConstantTensor &> exponent = getConstant(node, 1);
    if (!exponent)
      return exponent.takeError();
    if (exponent->getNumElements() != 1)
      return failNode(node, "has an exponent that is not a scalar");
    return define(create<top::PowOp>(
        node, {*x},
        {named("exponent", builder.getF64FloatAttr(exponent->getDouble(0)))}));
  }
  if (type == "ReduceMean") {
    std::optional<SmallVector<int64_t>> axes = getIntsAttr(node, "axes");
    if (node.input_size() > 1 && !node.input(1).empty()) {
      llvm::Expected<const ConstantTensor &> given = getConstant(node, 1);
      if (!given)
        return given.takeError();
      axes = SmallVector<int64_t>(given->ints.begin(), given->ints.end());
    }
    if (!axes) {
      axes.emplace();
      for (int64_t axis = 0; axis < rank; ++axis)
        axes->push_back(axis);
    }
    return define(create<top::ReduceMeanOp>(
        node, {*x},
        {named("axes", builder.getDenseI64ArrayAttr(*axes)),
         named("keepdims",
               builder.getBoolAttr(getIntAttr(node, "keepdims", 1) != 0))}));
  }
  if (type == "Softmax") {
    int64_t axis = getIntAttr(node, "axis", -1);
    if (model.getOpsetVersion() < 13 && axis != -1 && axis != rank - 1)
      return failNode(node, "uses the opset " +
                                llvm::Twine(model.getOpsetVersion()) +
                                " softmax over flattened axes");
    return define(create<top::SoftmaxOp>(
        node, {*x}, {named("axis", builder.getI64IntegerAttr(axis))}));
  }
  if (type == "MatMul") {
    llvm::Expected<Value> y = input(1);
    if (!y)
      return y.takeError();
    return define(create<top::MatMulOp>(node, {*x, *y, none(loc)}));
  }
  if (type == "Transpose") {
    SmallVector<int64_t> perm;
    if (std::optional<SmallVector<int64_t>> given = getIntsAttr(node, "perm"))
      perm = *given;
    else
      for (int64_t axis = rank; axis-- > 0;)
        perm.push_back(axis);
    return define(create<top::PermuteOp>(
        node, {*x}, {named("order", builder.getDenseI64ArrayAttr(perm))}));
  }
  if (type == "Reshape" || type == "Unsqueeze" || type == "Squeeze" ||
      type == "Expand") {
    // Fold the shape change on a shape-only constant twin of the input.
    SmallVector<std::optional<ConstantTensor>> shapes;
    ConstantTensor probe;
    probe.shape.assign(getType(*x).getShape().begin(),
                       getType(*x).getShape().end());
    std::optional<int64_t> count = getFoldableCount(probe.shape);
    if (!count)
      return failNode(node, "changes the shape of a tensor too large to fold "
                            "(more than 2^24 elements)");
    probe.ints.assign(*count, 0);
    shapes.push_back(probe);
    for (int index = 1; index < node.input_size(); ++index) {
      if (node.input(index).empty()) {
        shapes.push_back(std::nullopt);
        continue;
      }
      llvm::Expected<const ConstantTensor &> operand = getConstant(node, index);
      if (!operand)
        return operand.takeError();
      shapes.push_back(*operand);
    }
    SmallVector<int64_t> shape;
    if (type == "Expand") {
      if (shapes.size() < 2 || !shapes[1])
        return failNode(node, "lacks input 1");
      llvm::Expected<SmallVector<int64_t>> target =
          broadcastShapes(probe.shape, shapes[1]->ints);
      if (!target)
        return failNode(node, llvm::toString(target.takeError()));
      shape = *target;
    } else {
      llvm::Expected<std::optional<std::vector<ConstantTensor>>> folded =
          foldNode(node, shapes);
      if (!folded)
        return fail(llvm::toString(folded.takeError()));
      shape.assign((**folded)[0].shape.begin(), (**folded)[0].shape.end());
    }
    auto resultType =
        RankedTensorType::get(shape, getType(*x).getElementType());
    if (type == "Expand")
      return define(top::ExpandOp::create(builder, loc, TypeRange{resultType},
                                          ValueRange{*x},
                                          ArrayRef<NamedAttribute>{})
                        .getResult());
    return define(top::ReshapeOp::create(builder, loc, TypeRange{resultType},
                                         ValueRange{*x},
                                         ArrayRef<NamedAttribute>{})
                      .getResult());
  }
  if (type == "Concat") {
    std::optional<int64_t> axis =
        normalizeAxis(getIntAttr(node, "axis", 0), rank);
    if (!axis)
      return failNode(node, "has an axis out of range");
    // An empty operand (a cache input with no past) adds nothing.
    SmallVector<Value> inputs;
    for (int index = 0; index < node.input_size(); ++index) {
      llvm::Expected<Value> value = input(index);
      if (!value)
        return value.takeError();
      if (getType(*value).getRank() == rank &&
          getType(*value).getDimSize(*axis) == 0)
        continue;
      inputs.push_back(*value);
    }
    if (inputs.size() == 1)
      return define(inputs.front());
    if (inputs.empty())
      return define(*x);
    return define(create<top::ConcatOp>(
        node, inputs, {named("axis", builder.getI64IntegerAttr(*axis))}));
  }
  if (type == "Slice") {
    llvm::Expected<const ConstantTensor &> starts = getConstant(node, 1);
    llvm::Expected<const ConstantTensor &> ends = getConstant(node, 2);
    if (!starts)
      return starts.takeError();
    if (!ends)
      return ends.takeError();
    std::vector<int64_t> axes, steps(starts->ints.size(), 1);
    if (node.input_size() > 3 && !node.input(3).empty()) {
      llvm::Expected<const ConstantTensor &> given = getConstant(node, 3);
      if (!given)
        return given.takeError();
      axes = given->ints;
    } else {
      for (size_t axis = 0; axis < starts->ints.size(); ++axis)
        axes.push_back(axis);
    }
    if (node.input_size() > 4 && !node.input(4).empty()) {
      llvm::Expected<const ConstantTensor &> given = getConstant(node, 4);
      if (!given)
        return given.takeError();
      steps = given->ints;
    }
    if (ends->ints.size() != axes.size() || steps.size() != axes.size() ||
        starts->ints.size() != axes.size())
      return failNode(node, "has starts, ends, axes and steps of different "
                            "lengths");
    ArrayRef<int64_t> shape = getType(*x).getShape();
    SmallVector<int64_t> allStarts(rank, 0), allEnds(shape), allSteps(rank, 1);
    for (auto [index, axis] : llvm::enumerate(axes)) {
      std::optional<int64_t> at = normalizeAxis(axis, rank);
      if (!at || steps[index] <= 0)
        return failNode(node, "has an axis out of range or a step that is "
                              "not positive");
      allStarts[*at] = clampSliceIndex(starts->ints[index], shape[*at]);
      allEnds[*at] = clampSliceIndex(ends->ints[index], shape[*at]);
      allSteps[*at] = steps[index];
    }
    return define(create<top::SliceOp>(
        node, {*x},
        {named("starts", builder.getDenseI64ArrayAttr(allStarts)),
         named("ends", builder.getDenseI64ArrayAttr(allEnds)),
         named("steps", builder.getDenseI64ArrayAttr(allSteps))}));
  }
  if (type == "Gather") {
    llvm::Expected<Value> indices = input(1);
    if (!indices)
      return indices.takeError();
    if (!isFloat)
      return failNode(node, "gathers from integers computed at run time");
    std::optional<int64_t> axis =
        normalizeAxis(getIntAttr(node, "axis", 0), rank);
    if (!axis)
      return failNode(node, "has an axis out of range");
    return define(create<top::GatherOp>(
        node, {*x, *indices},
        {named("axis", builder.getI64IntegerAttr(*axis))}));
  }
  if (type == "Equal" || type == "Less" || type == "Greater") {
    llvm::Expected<Value> y = input(1);
    if (!y)
      return y.takeError();
    top::CompareMode mode = type == "Equal"  ? top::CompareMode::Eq
                            : type == "Less" ? top::CompareMode::Lt
                                             : top::CompareMode::Gt;
    auto op = top::CompareOp::create(
        builder, loc, TypeRange{UnrankedTensorType::get(builder.getI1Type())},
        ValueRange{*x, *y},
        ArrayRef<NamedAttribute>{named(
            "mode", top::CompareModeAttr::get(builder.getContext(), mode))});
    return define(inferred(node, op));
  }
  if (type == "Where") {
    llvm::Expected<Value> a = input(1), b = input(2);
    if (!a)
      return a.takeError();
    if (!b)
      return b.takeError();
    Type element = getElementTypeOrSelf(a->getType());
    auto op = top::WhereOp::create(
        builder, loc, TypeRange{UnrankedTensorType::get(element)},
        ValueRange{*x, *a, *b}, ArrayRef<NamedAttribute>{});
    return define(inferred(node, op));
  }
  return failNode(node, "is not an op the ONNX importer supports");
}

} // namespace

llvm::Expected<func::FuncOp> importGraph(OnnxModel &model,
                                         ModuleOp module,
                                         const ImportOptions &options) {
  return Importer(model, module, options).run();
}

} // namespace llmc::onnx
