//===- PieceEmitter.cpp - builds the function of one piece ----------------===//

#include "frontends/llm/PieceEmitter.h"

#include "dialects/top/IR/TopOps.h"

using namespace mlir;

namespace llmc::llm {

/// Function names must be symbols: `block.3.decode` becomes `block_3_decode`.
static std::string symbolName(llvm::StringRef pieceName) {
  std::string symbol = pieceName.str();
  for (char &c : symbol)
    if (c == '.')
      c = '_';
  return symbol;
}

PieceEmitter::PieceEmitter(MLIRContext &context,
                           const plugins::ModelSpec &spec, Piece &piece)
    : context(&context), spec(spec), piece(piece), builder(&context) {
  Location moduleLoc = NameLoc::get(builder.getStringAttr(piece.name));
  piece.module = ModuleOp::create(moduleLoc, piece.name);
  builder.setInsertionPointToEnd(piece.module->getBody());
  function = func::FuncOp::create(builder, moduleLoc, symbolName(piece.name),
                                  builder.getFunctionType({}, {}));
  builder.setInsertionPointToStart(function.addEntryBlock());
}

Location PieceEmitter::loc(const llvm::Twine &name) {
  return NameLoc::get(builder.getStringAttr(name));
}

RankedTensorType PieceEmitter::f32Type(llvm::ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, builder.getF32Type());
}

RankedTensorType PieceEmitter::i32Type(llvm::ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, builder.getI32Type());
}

Value PieceEmitter::input(IORole role, llvm::ArrayRef<int64_t> shape,
                          bool isInteger) {
  RankedTensorType type = isInteger ? i32Type(shape) : f32Type(shape);
  Location location = loc(stringifyIORole(role));
  BlockArgument argument = function.getBody().addArgument(type, location);
  piece.inputs.push_back({role, llvm::SmallVector<int64_t>(shape), isInteger});
  return top::InputOp::create(builder, location, type, argument,
                              builder.getStringAttr(stringifyIORole(role)));
}

top::StoredQuantAttr
PieceEmitter::getStoredQuantAttr(const plugins::StoredQuantization &stored) {
  Type scaleType = builder.getF32Type();
  if (stored.scaleType == plugins::WeightType::F16)
    scaleType = builder.getF16Type();
  else if (stored.scaleType == plugins::WeightType::BF16)
    scaleType = builder.getBF16Type();
  return top::StoredQuantAttr::get(context, stored.bits, stored.groupSize,
                                   stored.asymmetric, scaleType,
                                   stored.floatZeroPoints);
}

Value PieceEmitter::namedWeight(llvm::StringRef name,
                                llvm::ArrayRef<int64_t> shape) {
  if (!llvm::is_contained(piece.weights, name))
    piece.weights.push_back(name.str());
  auto weight = top::WeightOp::create(builder, loc(name), f32Type(shape), name);
  auto stored = spec.storedQuantization.find(name.str());
  if (stored != spec.storedQuantization.end())
    weight.setStoredAttr(getStoredQuantAttr(stored->second));
  return weight;
}

Value PieceEmitter::weight(plugins::TensorRole role, int64_t layer,
                           llvm::ArrayRef<int64_t> shape) {
  return namedWeight(llvm::cantFail(spec.tensorName(role, layer)), shape);
}

Value PieceEmitter::optionalWeight(plugins::TensorRole role, int64_t layer,
                                   llvm::ArrayRef<int64_t> shape) {
  return spec.hasTensor(role) ? weight(role, layer, shape) : none();
}

Value PieceEmitter::none() {
  if (!noneValue) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&function.getBody().front());
    noneValue = top::NoneOp::create(builder, loc("none"), builder.getNoneType());
  }
  return noneValue;
}

Location PieceEmitter::locOf(plugins::TensorRole role, int64_t layer) {
  llvm::StringRef name;
  std::string tensor = llvm::cantFail(spec.tensorName(role, layer));
  name = tensor;
  if (!name.consume_back(".weight"))
    name.consume_back(".bias");
  return loc(name);
}

void PieceEmitter::output(IORole role, Value value) {
  results.push_back(value);
  auto type = cast<RankedTensorType>(value.getType());
  piece.outputs.push_back({role, llvm::SmallVector<int64_t>(type.getShape()),
                           type.getElementType().isInteger()});
}

void PieceEmitter::finish() {
  func::ReturnOp::create(builder, function.getLoc(), results);
  function.setType(builder.getFunctionType(
      function.getBody().getArgumentTypes(), ValueRange(results).getTypes()));
  for (auto [index, io] : llvm::enumerate(piece.outputs))
    function.setResultAttr(index, "llmc.role",
                           builder.getStringAttr(stringifyIORole(io.role)));
}

void PieceEmitter::pinMode(llvm::StringRef mode) {
  function->setAttr("llmc.mode", builder.getStringAttr(mode));
}

void PieceEmitter::computeInFloatByDefault() {
  function->setAttr("llmc.float_by_default", builder.getUnitAttr());
}

} // namespace llmc::llm
