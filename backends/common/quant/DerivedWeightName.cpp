//===- DerivedWeightName.cpp - names of tensors llmc derives --------------===//

#include "backends/common/quant/DerivedWeightName.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

namespace llmc::quant {

std::string Derivation::str() const {
  if (!scheme)
    return stringifyFloatType(roundTo).str();
  std::string group =
      scheme->groupSize == 0 ? "ch" : "g" + std::to_string(scheme->groupSize);
  return "w" + std::to_string(scheme->bits) + "_" + group + "_" +
         (scheme->floatZeroPoints ? "asymf"
          : scheme->asymmetric    ? "asym"
                                  : "sym") +
         "_" + stringifyFloatType(scheme->scaleType).str();
}

std::optional<Derivation> Derivation::parse(llvm::StringRef text) {
  if (std::optional<FloatType> type = symbolizeFloatType(text)) {
    if (*type == FloatType::F32)
      return std::nullopt;
    return rounded(*type);
  }
  llvm::SmallVector<llvm::StringRef, 4> fields;
  text.split(fields, '_');
  if (fields.size() != 4)
    return std::nullopt;
  QuantScheme scheme;
  llvm::StringRef bits = fields[0], group = fields[1];
  if (!bits.consume_front("w") || bits.getAsInteger(10, scheme.bits) ||
      (scheme.bits != 4 && scheme.bits != 8))
    return std::nullopt;
  if (group == "ch") {
    scheme.groupSize = 0;
  } else if (!group.consume_front("g") ||
             group.getAsInteger(10, scheme.groupSize) ||
             scheme.groupSize <= 0) {
    return std::nullopt;
  }
  if (fields[2] != "sym" && fields[2] != "asym" && fields[2] != "asymf")
    return std::nullopt;
  scheme.asymmetric = fields[2] != "sym";
  scheme.floatZeroPoints = fields[2] == "asymf";
  std::optional<FloatType> scaleType = symbolizeFloatType(fields[3]);
  if (!scaleType)
    return std::nullopt;
  scheme.scaleType = *scaleType;
  // Only canonical spellings: `g064` would name the same bytes twice.
  Derivation derivation = quantized(scheme);
  if (derivation.str() != text)
    return std::nullopt;
  return derivation;
}

llvm::StringRef stringifyWeightPart(WeightPart part) {
  switch (part) {
  case WeightPart::QWeight:
    return "qweight";
  case WeightPart::Scale:
    return "scale";
  case WeightPart::ZeroPoint:
    return "zp";
  }
  llvm_unreachable("unknown weight part");
}

std::string DerivedWeightName::str() const {
  std::string name = source + "#" + derivation.str();
  if (part)
    name += "." + stringifyWeightPart(*part).str();
  return name;
}

std::optional<DerivedWeightName>
DerivedWeightName::parse(llvm::StringRef name) {
  size_t hash = name.rfind('#');
  if (hash == llvm::StringRef::npos || hash == 0)
    return std::nullopt;
  auto [text, partText] = name.drop_front(hash + 1).split('.');
  std::optional<Derivation> derivation = Derivation::parse(text);
  if (!derivation)
    return std::nullopt;
  DerivedWeightName result{name.take_front(hash).str(), *derivation,
                           std::nullopt};
  if (partText.empty())
    return name.ends_with(".") ? std::nullopt
                               : std::optional<DerivedWeightName>(result);
  if (!derivation->scheme)
    return std::nullopt;
  for (WeightPart part :
       {WeightPart::QWeight, WeightPart::Scale, WeightPart::ZeroPoint})
    if (partText == stringifyWeightPart(part))
      result.part = part;
  if (!result.part || (*result.part == WeightPart::ZeroPoint &&
                       !derivation->scheme->asymmetric))
    return std::nullopt;
  return result;
}

} // namespace llmc::quant
