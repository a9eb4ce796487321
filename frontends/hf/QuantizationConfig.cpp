//===- QuantizationConfig.cpp - a checkpoint's quantization_config --------===//
//
// Field names and defaults follow the transformers configuration classes
// (GPTQConfig, AwqConfig, AutoRoundConfig, CompressedTensorsConfig), so a
// config that omits a field means here what it means there.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/QuantizationConfig.h"

#include "frontends/hf/JsonFields.h"

#include "llvm/ADT/StringExtras.h"

namespace llmc::hf {
namespace {

/// `group_size` as llmc counts it: -1 (one group per output channel) is 0.
int64_t readGroupSize(JsonFields &fields, llvm::StringRef key) {
  int64_t groupSize = fields.getInt(key);
  if (groupSize == -1)
    return 0;
  if (groupSize <= 0)
    fields.fail(key, "must be -1 or positive, got " +
                         std::to_string(groupSize));
  return groupSize;
}

void checkBits(JsonFields &fields, llvm::StringRef key, int64_t bits,
               llvm::ArrayRef<int64_t> supported) {
  if (!llvm::is_contained(supported, bits))
    fields.fail(key, std::to_string(bits) +
                         " is not supported (llmc compiles " +
                         llvm::join(llvm::map_range(supported,
                                                    [](int64_t b) {
                                                      return std::to_string(b);
                                                    }),
                                    " and ") +
                         " bits)");
}

void readGptq(JsonFields &fields, PackedQuantizationConfig &config) {
  config.format = PackingFormat::Gptq;
  config.bits = fields.getInt("bits");
  checkBits(fields, "bits", config.bits, {4, 8});
  config.groupSize = readGroupSize(fields, "group_size");
  config.symmetric = fields.getBool("sym", true);
  std::string checkpointFormat =
      fields.getString("checkpoint_format", "gptq");
  if (checkpointFormat != "gptq" && checkpointFormat != "gptq_v2")
    fields.fail("checkpoint_format", "'" + checkpointFormat +
                                         "' is not supported (llmc reads "
                                         "gptq and gptq_v2)");
  config.zerosMinusOne = checkpointFormat == "gptq";
}

/// Older AutoAWQ configs say `w_bit`, `q_group_size`; transformers' say
/// `bits`, `group_size`.
void readAwq(JsonFields &fields, PackedQuantizationConfig &config) {
  config.format = PackingFormat::Awq;
  llvm::StringRef bitsKey = fields.has("bits") ? "bits" : "w_bit";
  config.bits = fields.getInt(bitsKey);
  checkBits(fields, bitsKey, config.bits, {4});
  config.groupSize = readGroupSize(
      fields, fields.has("group_size") ? "group_size" : "q_group_size");
  if (!fields.getBool("zero_point", true))
    fields.fail("zero_point", "false is not supported (AWQ GEMM weights have "
                              "zero points)");
  config.symmetric = false;
  std::string version = llvm::StringRef(fields.getString("version", "gemm"))
                            .lower();
  if (version != "gemm")
    fields.fail("version", "'" + version +
                               "' is not supported (llmc reads the gemm "
                               "packing)");
}

/// AutoRound's own packing is GPTQ's with plain zero points; `auto_gptq`
/// reproduces AutoGPTQ's minus-one zeros, `auto_awq` AutoAWQ's packing.
void readAutoRound(JsonFields &fields, PackedQuantizationConfig &config) {
  config.bits = fields.getInt("bits");
  checkBits(fields, "bits", config.bits, {4, 8});
  config.groupSize = readGroupSize(fields, "group_size");
  config.symmetric = fields.getBool("sym", true);
  llvm::StringRef key =
      fields.has("packing_format") ? "packing_format" : "backend";
  std::string packing = fields.getString(key, "auto_round:gptq");
  std::string dataType = fields.getString("data_type", "int");
  if (dataType != "int")
    fields.fail("data_type", "'" + dataType +
                                 "' is not supported (integer weights only)");
  llvm::StringRef name(packing);
  if (name.contains("awq")) {
    config.format = PackingFormat::Awq;
    checkBits(fields, key, config.bits, {4});
  } else if (name == "auto_round" || name.contains("gptq")) {
    config.format = PackingFormat::Gptq;
    config.zerosMinusOne = name.contains("auto_gptq");
  } else {
    fields.fail(key, "'" + packing +
                         "' is not supported (llmc reads the auto_round, "
                         "gptq and awq packings)");
  }
}

/// A compressed-tensors `config_groups` entry's weight scheme.
llvm::Error readCompressedScheme(const llvm::json::Object &scheme,
                                 llvm::StringRef file, llvm::StringRef prefix,
                                 PackedQuantizationConfig &config) {
  JsonFields fields(scheme, file, prefix);
  config.bits = fields.getInt("num_bits");
  checkBits(fields, "num_bits", config.bits, {4, 8});
  std::string type = fields.getString("type", "int");
  if (type != "int")
    fields.fail("type", "'" + type + "' is not supported (integer weights)");
  config.symmetric = fields.getBool("symmetric", true);
  if (fields.getBool("dynamic", false))
    fields.fail("dynamic", "true is not supported for weights");
  std::string strategy = fields.getString("strategy", "tensor");
  if (strategy == "group") {
    config.groupSize = fields.getInt("group_size");
    if (config.groupSize <= 0)
      fields.fail("group_size", "must be positive");
  } else if (strategy == "channel") {
    config.groupSize = 0;
  } else {
    fields.fail("strategy", "'" + strategy +
                                "' is not supported (llmc reads group and "
                                "channel)");
  }
  return fields.takeError();
}

llvm::Error readCompressedTensors(const llvm::json::Object &object,
                                  llvm::StringRef file,
                                  PackedQuantizationConfig &config) {
  JsonFields fields(object, file, "quantization_config.");
  config.format = PackingFormat::PackQuantized;
  std::string status = fields.getString("quantization_status", "compressed");
  if (status != "compressed")
    fields.fail("quantization_status",
                "'" + status + "' is not supported (llmc reads compressed "
                               "checkpoints)");
  std::string format = fields.getString("format", "pack-quantized");
  const llvm::json::Object *groups = object.getObject("config_groups");
  if (!groups || groups->empty()) {
    fields.fail("config_groups", "must be a non-empty object");
    return fields.takeError();
  }
  std::optional<PackedQuantizationConfig> first;
  // Sorted for a deterministic first message.
  std::vector<std::string> names;
  for (const auto &entry : *groups)
    names.push_back(entry.first.str());
  llvm::sort(names);
  for (const std::string &name : names) {
    std::string prefix = "quantization_config.config_groups." + name + ".";
    const llvm::json::Object *group = groups->getObject(name);
    if (!group) {
      fields.fail("config_groups." + name, "must be an object");
      break;
    }
    JsonFields groupFields(*group, file, prefix);
    std::string groupFormat = groupFields.getString("format", format);
    if (groupFormat != "pack-quantized")
      groupFields.fail("format", "'" + groupFormat +
                                     "' is not supported (llmc reads "
                                     "pack-quantized)");
    if (groupFields.has("input_activations"))
      groupFields.fail("input_activations",
                       "is set: quantized activations are not compiled as "
                       "stored (weight-only schemes only)");
    const llvm::json::Object *weights = group->getObject("weights");
    if (!weights)
      groupFields.fail("weights", "must be an object");
    if (llvm::Error error = groupFields.takeError())
      return error;
    PackedQuantizationConfig scheme = config;
    if (llvm::Error error =
            readCompressedScheme(*weights, file, prefix + "weights.", scheme))
      return error;
    if (!first)
      first = scheme;
    else if (first->bits != scheme.bits ||
             first->groupSize != scheme.groupSize ||
             first->symmetric != scheme.symmetric)
      fields.fail("config_groups." + name,
                  "differs from config group '" + names.front() +
                      "' (llmc compiles one weight scheme per checkpoint)");
  }
  if (llvm::Error error = fields.takeError())
    return error;
  config.bits = first->bits;
  config.groupSize = first->groupSize;
  config.symmetric = first->symmetric;
  return llvm::Error::success();
}

} // namespace

llvm::Expected<std::optional<PackedQuantizationConfig>>
readQuantizationConfig(const llvm::json::Object &config, llvm::StringRef file) {
  if (!JsonFields(config, file).has("quantization_config"))
    return std::nullopt;
  const llvm::json::Object *object = config.getObject("quantization_config");
  if (!object) {
    JsonFields top(config, file);
    top.fail("quantization_config", "must be an object");
    return top.takeError();
  }
  JsonFields fields(*object, file, "quantization_config.");
  PackedQuantizationConfig result;
  result.method = fields.getString("quant_method");
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  llvm::StringRef method(result.method);
  if (method == "gptq") {
    readGptq(fields, result);
  } else if (method == "awq") {
    readAwq(fields, result);
  } else if (method == "auto-round" || method == "intel/auto-round" ||
             method == "auto_round") {
    readAutoRound(fields, result);
  } else if (method == "compressed-tensors") {
    if (llvm::Error error = readCompressedTensors(*object, file, result))
      return std::move(error);
  } else {
    fields.fail("quant_method",
                "'" + result.method +
                    "' is not supported (llmc reads gptq, awq, auto-round and "
                    "compressed-tensors)");
  }
  if (llvm::Error error = fields.takeError())
    return std::move(error);
  return result;
}

} // namespace llmc::hf
