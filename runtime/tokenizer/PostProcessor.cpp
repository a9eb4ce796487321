//===- PostProcessor.cpp - special tokens added around a sequence ---------===//

#include "runtime/tokenizer/PostProcessor.h"

namespace llmc::tokenizer {
namespace {

/// The ids of the entry `name` of TemplateProcessing's `special_tokens`.
std::vector<int32_t> getSpecialTokenIds(const Json &processor,
                                        std::string_view name,
                                        JsonReader &reader,
                                        std::string_view path) {
  std::vector<int32_t> ids;
  const Json *specials = reader.getObject(processor, "special_tokens", path);
  if (!specials)
    return ids;
  const Json *entry = reader.find(*specials, name);
  if (!entry) {
    reader.fail(
        support::strCat(path, ".special_tokens"),
        support::strCat("has no entry '", name, "' that the template uses"));
    return ids;
  }
  std::string entryPath = support::strCat(path, ".special_tokens.", name);
  const Json *object = reader.asObject(*entry, entryPath);
  if (!object)
    return ids;
  if (const Json *list = reader.getArray(*object, "ids", entryPath))
    for (const Json &id : *list) {
      std::optional<int64_t> value = getInteger(id);
      if (!value || *value < 0 || *value > INT32_MAX) {
        reader.fail(entryPath + ".ids", "must hold token ids");
        return ids;
      }
      ids.push_back(static_cast<int32_t>(*value));
    }
  return ids;
}

SpecialTokenTemplate parseTemplate(const Json &processor, JsonReader &reader,
                                   std::string_view path) {
  SpecialTokenTemplate result;
  const Json *single = reader.getArray(processor, "single", path);
  if (!single)
    return result;
  bool sawSequence = false;
  for (size_t index = 0; index < single->size(); ++index) {
    std::string itemPath = support::strCat(path, ".single[", index, "]");
    const Json *object = reader.asObject((*single)[index], itemPath);
    if (!object)
      return result;
    if (const Json *special = reader.find(*object, "SpecialToken")) {
      const Json *token = reader.asObject(*special, itemPath + ".SpecialToken");
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
    reader.fail(support::strCat(path, ".single"), "has no Sequence");
  return result;
}

} // namespace

SpecialTokenTemplate parsePostProcessor(const Json *value, JsonReader &reader,
                                        std::string_view path) {
  if (!value || value->is_null())
    return {};
  const Json *object = reader.asObject(*value, path);
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
    const Json *list = reader.getArray(*object, "processors", path);
    if (!list)
      return result;
    for (size_t index = 0; index < list->size(); ++index) {
      SpecialTokenTemplate step =
          parsePostProcessor(&(*list)[index], reader,
                             support::strCat(path, ".processors[", index, "]"));
      result.prefix.insert(result.prefix.begin(), step.prefix.begin(),
                           step.prefix.end());
      result.suffix.insert(result.suffix.end(), step.suffix.begin(),
                           step.suffix.end());
    }
    return result;
  }
  reader.fail(support::strCat(path, ".type"),
              support::strCat("'", type,
                              "' is not supported (supported: "
                              "TemplateProcessing, ByteLevel, Sequence)"));
  return {};
}

} // namespace llmc::tokenizer
