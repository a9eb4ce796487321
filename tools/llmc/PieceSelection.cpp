//===- PieceSelection.cpp - which pieces llmc convert compiles ------------===//

#include "tools/llmc/PieceSelection.h"

#include "tools/llmc/Commands.h"

namespace cl = llvm::cl;

namespace llmc {

static cl::list<std::string>
    pieces("pieces",
           cl::desc("Compile only these pieces (comma-separated names, as "
                    "`llmc pieces --list` prints them), for `llmc merge`"),
           cl::CommaSeparated, cl::sub(getConvertCommand()));
static cl::list<std::string> pieceQuantize(
    "piece-quantize",
    cl::desc("Pin pieces to another mode: <piece name or glob>=<mode>, e.g. "
             "lm_head=F16 (repeatable; the last match wins)"),
    cl::value_desc("pieces=mode"), cl::sub(getConvertCommand()));

static cl::opt<std::string> visionQuantize(
    "vision-quantize",
    cl::desc("The vision piece's mode (default: the binary's float type, "
             "F16 or BF16); the same as --piece-quantize vision=<mode>"),
    cl::value_desc("mode"), cl::sub(getConvertCommand()));

llvm::Error applyPieceSelection(driver::ConvertOptions &options) {
  options.pieces.assign(pieces.begin(), pieces.end());
  for (const std::string &flag : pieceQuantize) {
    auto [pattern, modeName] = llvm::StringRef(flag).rsplit('=');
    if (pattern.empty() || modeName.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "--piece-quantize '%s': expected <pieces>=<mode>, e.g. lm_head=F16",
          flag.c_str());
    llvm::Expected<lowering::QuantMode> mode =
        lowering::parseQuantMode(modeName);
    if (!mode)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--piece-quantize '" + flag +
                                         "': " +
                                         llvm::toString(mode.takeError()));
    options.pieceModes.push_back({pattern.str(), *mode});
  }
  if (!visionQuantize.empty()) {
    llvm::Expected<lowering::QuantMode> mode =
        lowering::parseQuantMode(visionQuantize);
    if (!mode)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "--vision-quantize: " +
                                         llvm::toString(mode.takeError()));
    options.pieceModes.push_back({"vision", *mode});
  }
  return llvm::Error::success();
}

} // namespace llmc
