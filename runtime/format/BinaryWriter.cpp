//===- BinaryWriter.cpp - writing .llmc binaries --------------------------===//

#include "runtime/format/BinaryWriter.h"

#include "runtime/format/Format.h"
#include "runtime/format/ManifestCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Alignment.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace llmc::binary {

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static llvm::ArrayRef<uint8_t> asBytes(llvm::StringRef text) {
  return {text.bytes_begin(), text.size()};
}

/// `manifest` serialized deterministically: equal manifests give equal
/// bytes.
static std::string serializeManifest(const Manifest &manifest) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream output(&bytes);
    google::protobuf::io::CodedOutputStream coded(&output);
    coded.SetSerializationDeterministic(true);
    manifest.SerializeToCodedStream(&coded);
  }
  return bytes;
}

uint64_t BinaryWriter::addStream(std::string bytes) {
  streams.push_back(std::move(bytes));
  // Section 0 is the manifest.
  return streams.size();
}

llvm::Expected<uint64_t>
BinaryWriter::addWeight(llvm::StringRef name, llvm::ArrayRef<uint8_t> bytes,
                        llvm::StringRef dtype, llvm::ArrayRef<int64_t> shape) {
  auto found = weightIndex.find(name);
  if (found != weightIndex.end()) {
    const WeightBlob &blob = manifestProto.weights(found->second);
    llvm::ArrayRef<uint8_t> stored(coeff.data() + blob.offset(), blob.bytes());
    if (stored != bytes || blob.dtype() != dtype ||
        !llvm::equal(blob.shape(), shape))
      return fail("weight '" + name +
                  "' added twice with different bytes, dtype or shape");
    return blob.offset();
  }
  uint64_t offset = llvm::alignTo(coeff.size(), kAlignment);
  coeff.resize(offset);
  coeff.insert(coeff.end(), bytes.begin(), bytes.end());
  WeightBlob &blob = *manifestProto.add_weights();
  blob.set_name(name.str());
  blob.set_offset(offset);
  blob.set_bytes(bytes.size());
  blob.set_dtype(dtype.str());
  for (int64_t dim : shape)
    blob.add_shape(dim);
  weightIndex[name] = manifestProto.weights_size() - 1;
  return offset;
}

llvm::Error BinaryWriter::writeTo(llvm::raw_ostream &os) const {
  Manifest manifest = manifestProto;
  manifest.set_format_version(kFormatVersion);
  manifest.set_coeff_bytes(coeff.size());

  // The section contents in table order.
  std::vector<uint32_t> kinds;
  std::vector<llvm::ArrayRef<uint8_t>> contents;
  std::string manifestBytes = serializeManifest(manifest);
  kinds.push_back(uint32_t(SectionKind::Manifest));
  contents.push_back(asBytes(manifestBytes));
  for (const std::string &stream : streams) {
    kinds.push_back(uint32_t(SectionKind::Stream));
    contents.push_back(asBytes(stream));
  }
  kinds.push_back(uint32_t(SectionKind::Coeff));
  contents.push_back(coeff);
  if (tokenizer) {
    kinds.push_back(uint32_t(SectionKind::Tokenizer));
    contents.push_back(asBytes(*tokenizer));
  }
  if (llvm::Error error = checkManifest(manifest, kinds, coeff.size()))
    return error;

  std::vector<SectionEntry> sections(kinds.size());
  for (size_t i = 0; i < sections.size(); ++i) {
    sections[i].kind = kinds[i];
    sections[i].size = contents[i].size();
    sections[i].checksum = sectionChecksum(contents[i]);
  }
  assignOffsets(sections);

  std::string header = encodeHeader(sections);
  os << header;
  uint64_t position = header.size();
  for (size_t i = 0; i < sections.size(); ++i) {
    os.write_zeros(sections[i].offset - position);
    os.write(reinterpret_cast<const char *>(contents[i].data()),
             contents[i].size());
    position = sections[i].end();
  }
  return llvm::Error::success();
}

llvm::Error BinaryWriter::writeToFile(llvm::sys::fs::TempFile &file) const {
  llvm::raw_fd_ostream os(file.FD, /*shouldClose=*/false);
  llvm::Error error = writeTo(os);
  os.flush();
  if (os.has_error()) {
    std::error_code code = os.error();
    os.clear_error();
    if (!error)
      return fail(code.message());
  }
  return error;
}

llvm::Error BinaryWriter::write(llvm::StringRef path) const {
  llvm::Expected<llvm::sys::fs::TempFile> temp =
      llvm::sys::fs::TempFile::create(path + ".tmp%%%%%%");
  if (!temp)
    return fail("cannot write '" + path +
                "': cannot create a temporary file: " +
                llvm::toString(temp.takeError()));
  if (llvm::Error error = writeToFile(*temp)) {
    llvm::consumeError(temp->discard());
    return fail("cannot write '" + path +
                "': " + llvm::toString(std::move(error)));
  }
  if (llvm::Error keep = temp->keep(path))
    return fail("cannot write '" + path +
                "': " + llvm::toString(std::move(keep)));
  return llvm::Error::success();
}

} // namespace llmc::binary
