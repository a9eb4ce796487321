//===- SafetensorsFuzzer.cpp - a safetensors checkpoint from a stranger ---===//
//
// Input that starts with '{' is a model.safetensors.index.json beside one
// valid shard, model-00001-of-00001.safetensors (SafetensorsSource::
// openSharded); anything else is a safetensors file (openFile). Every tensor
// the source lists is then described and read; its bytes must be what its
// description says.
//
//===----------------------------------------------------------------------===//

#include "frontends/hf/Safetensors.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llmc;

namespace {

[[noreturn]] void fail(const llvm::Twine &message) {
  llvm::errs() << message << "\n";
  std::abort();
}

void writeFile(llvm::StringRef path, llvm::StringRef bytes) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error)
    fail(path + ": " + error.message());
  os << bytes;
}

/// A directory holding the shard an index may name; made once.
llvm::StringRef getDirectory() {
  static std::string directory = [] {
    llvm::SmallString<128> path;
    if (std::error_code error =
            llvm::sys::fs::createUniqueDirectory("llmc-fuzz-safetensors", path))
      fail("cannot make a scratch directory: " + error.message());
    std::string header =
        R"({"a":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},)"
        R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[16,24]}})";
    std::string shard(8, '\0');
    for (int i = 0; i < 8; ++i)
      shard[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
    shard += header + std::string(24, '\x3f');
    writeFile((path + "/model-00001-of-00001.safetensors").str(), shard);
    return path.str().str();
  }();
  return directory;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  bool index = bytes.starts_with("{");
  std::string path =
      (getDirectory() + "/" +
       (index ? "model.safetensors.index.json" : "model.safetensors"))
          .str();
  writeFile(path, bytes);
  llvm::Expected<std::unique_ptr<hf::SafetensorsSource>> source =
      index ? hf::SafetensorsSource::openSharded(path)
            : hf::SafetensorsSource::openFile(path);
  if (!source) {
    llvm::consumeError(source.takeError());
    return 0;
  }
  for (const std::string &name : (*source)->getTensorNames()) {
    llvm::Expected<plugins::TensorInfo> info = (*source)->getTensorInfo(name);
    if (!info) {
      llvm::consumeError(info.takeError());
      continue;
    }
    llvm::Expected<llvm::ArrayRef<uint8_t>> tensor =
        (*source)->getTensorData(name);
    if (!tensor) {
      llvm::consumeError(tensor.takeError());
      continue;
    }
    if (static_cast<int64_t>(tensor->size()) != info->getNumBytes())
      fail("tensor '" + name + "' has " + llvm::Twine(tensor->size()) +
           " bytes, its description says " + llvm::Twine(info->getNumBytes()));
    // The first and last bytes must be mapped.
    if (!tensor->empty()) {
      volatile uint8_t first = tensor->front(), last = tensor->back();
      (void)first;
      (void)last;
    }
    (*source)->releaseTensor(name);
  }
  return 0;
}
