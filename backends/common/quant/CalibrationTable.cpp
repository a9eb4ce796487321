//===- CalibrationTable.cpp - calibrated activation ranges ----------------===//

#include "backends/common/quant/CalibrationTable.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

namespace llmc::quant {

static llvm::Error tableError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

ActivationQuant getActivationQuant(const TensorRange &range, bool asymmetric) {
  ActivationQuant quant;
  quant.isSigned = !asymmetric;
  if (!asymmetric) {
    float scale = range.threshold / 127.0f;
    quant.scale = scale > 0 && std::isfinite(scale) ? scale : 1.0f;
    return quant;
  }
  float lo = std::min(range.min, 0.0f), hi = std::max(range.max, 0.0f);
  float scale = (hi - lo) / 255.0f;
  if (!(scale > 0) || !std::isfinite(scale))
    return quant;
  quant.scale = scale;
  float zeroPoint = std::round(-lo / scale);
  quant.zeroPoint = static_cast<int32_t>(std::clamp(zeroPoint, 0.0f, 255.0f));
  return quant;
}

/// Parses a finite float.
static bool parseFloat(llvm::StringRef word, float &value) {
  double parsed = 0;
  if (word.getAsDouble(parsed) || !std::isfinite(parsed))
    return false;
  value = static_cast<float>(parsed);
  return std::isfinite(value);
}

llvm::Expected<CalibrationTable>
CalibrationTable::parse(llvm::StringRef text, llvm::StringRef fileName) {
  CalibrationTable table;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    std::string origin = (fileName + ":" + llvm::Twine(index + 1)).str();
    llvm::StringRef line = rawLine.split('#').first.trim();
    if (line.empty())
      continue;
    llvm::SmallVector<llvm::StringRef, 4> words;
    llvm::SplitString(line, words, " \t");
    if (words.size() != 4)
      return tableError(origin +
                        ": expected '<name> <min> <max> "
                        "<threshold>', got '" +
                        line + "'");
    TensorRange range;
    if (!parseFloat(words[1], range.min) || !parseFloat(words[2], range.max) ||
        !parseFloat(words[3], range.threshold))
      return tableError(origin + ": '" + words[0] +
                        "' has a value that is not a finite number");
    if (range.min > range.max || range.threshold < 0)
      return tableError(origin + ": '" + words[0] +
                        "' needs min <= max and threshold >= 0");
    if (table.lookup(words[0]))
      return tableError(origin + ": '" + words[0] + "' is listed twice");
    table.set(words[0], range);
  }
  return table;
}

llvm::Expected<CalibrationTable> CalibrationTable::read(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return tableError("cannot read calibration table '" + path +
                      "': " + buffer.getError().message());
  return parse((*buffer)->getBuffer(), path);
}

void CalibrationTable::set(llvm::StringRef name, const TensorRange &range) {
  auto [entry, inserted] = entries.try_emplace(name, range);
  if (inserted)
    names.push_back(name.str());
  else
    entry->second = range;
}

const TensorRange *CalibrationTable::lookup(llvm::StringRef name) const {
  auto found = entries.find(name);
  return found == entries.end() ? nullptr : &found->second;
}

void CalibrationTable::print(llvm::raw_ostream &os,
                             llvm::StringRef header) const {
  llvm::SmallVector<llvm::StringRef> lines;
  if (!header.empty())
    header.split(lines, '\n');
  for (llvm::StringRef line : lines)
    os << "# " << line << "\n";
  for (const std::string &name : names) {
    const TensorRange &range = entries.find(name)->second;
    os << name
       << llvm::format(" %.9g %.9g %.9g\n", range.min, range.max,
                       range.threshold);
  }
}

} // namespace llmc::quant
