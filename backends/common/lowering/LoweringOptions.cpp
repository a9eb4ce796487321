//===- LoweringOptions.cpp - how a piece is lowered from top to tpu -------===//

#include "backends/common/lowering/LoweringOptions.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"

namespace llmc::lowering {

static llvm::Error optionError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::ArrayRef<QuantMode> getAllQuantModes() {
  static const QuantMode modes[] = {
      QuantMode::F32,    QuantMode::F16,   QuantMode::BF16,  QuantMode::W8F16,
      QuantMode::W8BF16, QuantMode::W4F16, QuantMode::W4BF16, QuantMode::INT8};
  return modes;
}

llvm::StringRef stringifyQuantMode(QuantMode mode) {
  switch (mode) {
  case QuantMode::F32:
    return "F32";
  case QuantMode::F16:
    return "F16";
  case QuantMode::BF16:
    return "BF16";
  case QuantMode::W8F16:
    return "W8F16";
  case QuantMode::W8BF16:
    return "W8BF16";
  case QuantMode::W4F16:
    return "W4F16";
  case QuantMode::W4BF16:
    return "W4BF16";
  case QuantMode::INT8:
    return "INT8";
  }
  llvm_unreachable("unknown quantization mode");
}

llvm::Expected<QuantMode> parseQuantMode(llvm::StringRef name) {
  for (QuantMode mode : getAllQuantModes())
    if (name.equals_insensitive(stringifyQuantMode(mode)))
      return mode;
  std::string valid =
      llvm::join(llvm::map_range(getAllQuantModes(), stringifyQuantMode), ", ");
  return optionError("unknown quantization mode '" + name +
                     "'; valid modes: " + valid);
}

quant::FloatType getActivationType(QuantMode mode) {
  switch (mode) {
  case QuantMode::F32:
    return quant::FloatType::F32;
  case QuantMode::F16:
  case QuantMode::W8F16:
  case QuantMode::W4F16:
  case QuantMode::INT8:
    return quant::FloatType::F16;
  case QuantMode::BF16:
  case QuantMode::W8BF16:
  case QuantMode::W4BF16:
    return quant::FloatType::BF16;
  }
  llvm_unreachable("unknown quantization mode");
}

int64_t getWeightBits(QuantMode mode) {
  switch (mode) {
  case QuantMode::W8F16:
  case QuantMode::W8BF16:
    return 8;
  case QuantMode::W4F16:
  case QuantMode::W4BF16:
    return 4;
  default:
    return 0;
  }
}

QuantMode getFloatMode(QuantMode mode) {
  switch (mode) {
  case QuantMode::W8F16:
  case QuantMode::W4F16:
  case QuantMode::INT8:
    return QuantMode::F16;
  case QuantMode::W8BF16:
  case QuantMode::W4BF16:
    return QuantMode::BF16;
  default:
    return mode;
  }
}

bool quantizesActivations(QuantMode mode) { return mode == QuantMode::INT8; }

llvm::Expected<std::vector<QTableRule>> parseQTable(llvm::StringRef text,
                                                    llvm::StringRef fileName) {
  std::vector<QTableRule> rules;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    std::string origin = (fileName + ":" + llvm::Twine(index + 1)).str();
    llvm::StringRef line = rawLine.split('#').first.trim();
    if (line.empty())
      continue;
    llvm::SmallVector<llvm::StringRef, 2> words;
    llvm::SplitString(line, words, " \t");
    if (words.size() != 2)
      return optionError(
          origin + ": expected '<op name or glob> <mode>', got '" + line + "'");
    llvm::Expected<QuantMode> mode = parseQuantMode(words[1]);
    if (!mode)
      return optionError(origin + ": " + llvm::toString(mode.takeError()));
    if (llvm::Expected<llvm::GlobPattern> glob =
            llvm::GlobPattern::create(words[0]);
        !glob)
      return optionError(origin + ": bad pattern '" + words[0] +
                         "': " + llvm::toString(glob.takeError()));
    rules.push_back({words[0].str(), *mode, origin});
  }
  return rules;
}

llvm::Expected<std::vector<QTableRule>> readQTableFile(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return optionError("cannot read qtable '" + path +
                       "': " + buffer.getError().message());
  return parseQTable((*buffer)->getBuffer(), path);
}

std::vector<QuantMode> LoweringOptions::getUsedModes() const {
  std::vector<QuantMode> modes = {mode};
  for (const QTableRule &rule : qtable)
    if (!llvm::is_contained(modes, rule.mode))
      modes.push_back(rule.mode);
  return modes;
}

llvm::Error LoweringOptions::validate() const {
  if (groupSize < 0)
    return optionError("the quantization group size must be positive, or 0 "
                       "for per-channel quantization; got " +
                       llvm::Twine(groupSize));
  if (cores < 0 || coreSplitMinWeightBytes < 0)
    return optionError("the core count and the core split's weight bytes "
                       "must not be negative");
  for (const QTableRule &rule : qtable)
    if (llvm::Expected<llvm::GlobPattern> glob =
            llvm::GlobPattern::create(rule.pattern);
        !glob)
      return optionError(rule.origin + ": bad pattern '" + rule.pattern +
                         "': " + llvm::toString(glob.takeError()));
  if (!calibration && llvm::any_of(getUsedModes(), quantizesActivations))
    return optionError("INT8 quantizes activations and needs a calibration "
                       "table (llmc calibrate; --calibration-table)");
  return llvm::Error::success();
}

} // namespace llmc::lowering
