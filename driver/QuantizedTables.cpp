//===- QuantizedTables.cpp - tables stored once, in the Linear's form -----===//

#include "driver/QuantizedTables.h"

#include "backends/common/lowering/LoweringSupport.h"
#include "dialects/top/IR/TopOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;

namespace llmc::driver {

llvm::Expected<std::vector<std::string>>
getHeadLinearWeights(const llm::GraphBuilder &builder) {
  std::vector<std::string> names;
  if (!llvm::is_contained(builder.getPieceNames(), "lm_head"))
    return names;
  llvm::Expected<llm::Piece> head = builder.build("lm_head");
  if (!head)
    return head.takeError();
  head->module->walk([&](top::MatMulOp matmul) {
    if (lowering::isQuantizableMatMul(matmul))
      names.push_back(
          matmul.getRight().getDefiningOp<top::WeightOp>().getName().str());
  });
  return names;
}

void markQuantizedTables(ModuleOp piece, llvm::ArrayRef<std::string> tables) {
  llvm::SmallVector<Attribute> listed;
  piece.walk([&](top::GatherOp gather) {
    auto table = gather.getTable().getDefiningOp<top::WeightOp>();
    if (!table || !llvm::is_contained(tables, table.getName()))
      return;
    auto name = StringAttr::get(piece.getContext(), table.getName());
    if (!llvm::is_contained(listed, name))
      listed.push_back(name);
  });
  if (listed.empty())
    return;
  for (auto function : piece.getOps<func::FuncOp>())
    function->setAttr(lowering::kQuantizedTablesAttr,
                      ArrayAttr::get(piece.getContext(), listed));
}

} // namespace llmc::driver
