//===- PostProcessor.cpp - special tokens added around a sequence ---------===//

#include "runtime/tokenizer/PostProcessor.h"

#include "llvm/ADT/STLExtras.h"

namespace llmc::tokenizer {
namespace {

/// The ids of the entry `name` of TemplateProcessing's `special_tokens`.
std::vector<int32_t> getSpecialTokenIds(const llvm::json::Object &processor,
                                        llvm::StringRef name,
                                        JsonReader &reader,
                                        const llvm::Twine &path) {
  std::vector<int32_t> ids;
  const llvm::json::Object *specials =
      reader.getObject(processor, "special_tokens", path);
  if (!specials)
    return ids;
  const llvm::json::Value *entry = reader.find(*specials, name);
  if (!entry) {
    reader.fail(path + ".special_tokens",
                "has no entry '" + name + "' that the template uses");
    return ids;
  }
  std::string entryPath = (path + ".special_tokens." + name).str();
  const llvm::json::Object *object = reader.asObject(*entry, entryPath);
  if (!object)
    return ids;
  if (const llvm::json::Array *list =
          reader.getArray(*object, "ids", entryPath))
    for (const llvm::json::Value &id : *list) {
      std::optional<int64_t> value = id.getAsInteger();
      if (!value || *value < 0 || *value > INT32_MAX) {
        reader.fail(entryPath + ".ids", "must hold token ids");
        return ids;
      }
      ids.push_back(static_cast<int32_t>(*value));
    }
  return ids;
}

SpecialTokenTemplate parseTemplate(const llvm::json::Object &processor,
                                   JsonReader &reader,
                                   const llvm::Twine &path) {
  SpecialTokenTemplate result;
  const llvm::json::Array *single = reader.getArray(processor, "single", path);
  if (!single)
    return result;
  bool sawSequence = false;
  for (auto [index, item] : llvm::enumerate(*single)) {
    std::string itemPath = (path + ".single[" + llvm::Twine(index) + "]").str();
    const llvm::json::Object *object = reader.asObject(item, itemPath);
    if (!object)
      return result;
    if (const llvm::json::Value *special =
            reader.find(*object, "SpecialToken")) {
      const llvm::json::Object *token =
          reader.asObject(*special, itemPath + ".SpecialToken");
      if (!token)
        return result;
      std::string name =
          reader.getString(*token, "id", itemPath + ".SpecialToken");
      std::vector<int32_t> ids =
          getSpecialTokenIds(processor, name, reader, path);
      std::vector<int32_t> &side = sawSequence ? result.suffix : result.prefix;
      side.insert(side.end(), ids.begin(), ids.end());
    } else if (reader.find(*object, "Sequence") && !sawSequence) {
      sawSequence = true;
    } else {
      reader.fail(itemPath, "must be a SpecialToken or the one Sequence");
      return result;
    }
  }
  if (!sawSequence)
    reader.fail(path + ".single", "has no Sequence");
  return result;
}

} // namespace

SpecialTokenTemplate parsePostProcessor(const llvm::json::Value *value,
                                        JsonReader &reader,
                                        const llvm::Twine &path) {
  if (!value || value->kind() == llvm::json::Value::Null)
    return {};
  const llvm::json::Object *object = reader.asObject(*value, path);
  if (!object)
    return {};
  std::string type = reader.getString(*object, "type", path);
  if (reader.failed() || type == "ByteLevel")
    return {};
  if (type == "TemplateProcessing")
    return parseTemplate(*object, reader, path);
  if (type == "Sequence") {
    // Each processor wraps what the ones before it produced.
    SpecialTokenTemplate result;
    const llvm::json::Array *list =
        reader.getArray(*object, "processors", path);
    if (!list)
      return result;
    for (auto [index, item] : llvm::enumerate(*list)) {
      SpecialTokenTemplate step = parsePostProcessor(
          &item, reader, path + ".processors[" + llvm::Twine(index) + "]");
      result.prefix.insert(result.prefix.begin(), step.prefix.begin(),
                           step.prefix.end());
      result.suffix.insert(result.suffix.end(), step.suffix.begin(),
                           step.suffix.end());
    }
    return result;
  }
  reader.fail(path + ".type",
              "'" + type +
                  "' is not supported (supported: TemplateProcessing, "
                  "ByteLevel, Sequence)");
  return {};
}

} // namespace llmc::tokenizer
