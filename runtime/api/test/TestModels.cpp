//===- TestModels.cpp - compiled models for the API tests -----------------===//

#include "runtime/api/test/TestModels.h"

#include "driver/ModelCompiler.h"
#include "backends/common/quant/DerivedWeightSource.h"
#include "frontends/llm/ModelLoading.h"
#include "plugins/LinkedPlugins.h"
#include "runtime/format/Format.h"
#include "runtime/format/llmc_binary.pb.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <map>

namespace llmc::test {

static llvm::Error testError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string getDemoCheckpoint() {
  const char *runfiles = std::getenv("TEST_SRCDIR");
  const char *workspace = std::getenv("TEST_WORKSPACE");
  llvm::SmallString<256> path;
  if (runfiles && workspace)
    llvm::sys::path::append(path, runfiles, workspace);
  llvm::sys::path::append(path, "models", "demo", "fortune-qwen2");
  return std::string(path);
}

std::string makeScratchDirectory() {
  const char *root = std::getenv("TEST_TMPDIR");
  llvm::SmallString<256> path;
  std::error_code error =
      root ? llvm::sys::fs::createUniqueDirectory(
                 llvm::Twine(root) + "/scratch", path)
           : llvm::sys::fs::createUniqueDirectory("llmc-api-test", path);
  if (error)
    llvm::report_fatal_error("cannot create a scratch directory");
  return std::string(path);
}

llvm::Error convertForTest(const ConvertRequest &request,
                           llvm::StringRef outputPath) {
  llvm::Expected<std::unique_ptr<plugins::Registry>> registry =
      plugins::createLinkedPluginRegistry();
  if (!registry)
    return registry.takeError();
  driver::ConvertOptions options;
  options.build.seqLength = request.seqLength;
  options.build.maxInputLength = request.maxInputLength;
  llvm::Expected<lowering::QuantMode> mode =
      lowering::parseQuantMode(request.mode);
  if (!mode)
    return mode.takeError();
  options.lowering.mode = *mode;
  llvm::Expected<const plugins::BackendPlugin &> backend =
      (*registry)->findBackend("bm1684x");
  if (!backend)
    return backend.takeError();
  llvm::Expected<LoadedModel> model =
      loadModel(**registry, request.checkpoint, options.build);
  if (!model)
    return model.takeError();
  quant::DerivedWeightSource weights(*model->weights);
  llvm::Expected<driver::ConvertReport> report = driver::convertModel(
      model->spec, weights, *backend, options, outputPath);
  if (!report)
    return report.takeError();
  return llvm::Error::success();
}

std::string getDemoBinary(int64_t seqLength, int64_t maxInputLength) {
  static std::map<std::pair<int64_t, int64_t>, std::string> converted;
  std::string &path = converted[{seqLength, maxInputLength}];
  if (!path.empty())
    return path;
  path = makeScratchDirectory() + "/fortune.llmc";
  ConvertRequest request;
  request.checkpoint = getDemoCheckpoint();
  request.seqLength = seqLength;
  request.maxInputLength = maxInputLength;
  if (llvm::Error error = convertForTest(request, path))
    ADD_FAILURE() << "converting " << request.checkpoint << ": "
                  << llvm::toString(std::move(error));
  return path;
}

llvm::Error rewriteChip(llvm::StringRef inputPath, llvm::StringRef outputPath,
                        llvm::StringRef chip) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> input =
      llvm::MemoryBuffer::getFile(inputPath);
  if (!input)
    return testError("cannot read " + inputPath);
  std::string bytes = (*input)->getBuffer().str();
  uint32_t count;
  std::memcpy(&count, bytes.data() + 12, sizeof(count));
  std::vector<binary::SectionEntry> entries;
  for (uint32_t index = 0; index < count; ++index)
    entries.push_back(binary::decodeSectionEntry(
        reinterpret_cast<const uint8_t *>(bytes.data()) +
        binary::tableEnd(index)));
  for (binary::SectionEntry &entry : entries) {
    if (entry.kind != static_cast<uint32_t>(binary::SectionKind::Manifest))
      continue;
    binary::Manifest manifest;
    if (!manifest.ParseFromArray(bytes.data() + entry.offset, entry.size))
      return testError("the manifest of " + inputPath + " does not parse");
    if (manifest.chip().size() != chip.size())
      return testError("the new chip name must have as many characters as '" +
                       manifest.chip() + "'");
    manifest.set_chip(chip.str());
    std::string serialized = manifest.SerializeAsString();
    if (serialized.size() != entry.size)
      return testError("the manifest changed size");
    bytes.replace(entry.offset, entry.size, serialized);
    entry.checksum = binary::sectionChecksum(llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(serialized.data()),
        serialized.size()));
  }
  std::string header = binary::encodeHeader(entries);
  bytes.replace(0, header.size(), header);
  std::error_code error;
  llvm::raw_fd_ostream output(outputPath, error);
  if (error)
    return testError("cannot write " + outputPath);
  output << bytes;
  return llvm::Error::success();
}

} // namespace llmc::test
