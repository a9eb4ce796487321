//===- RegistryTest.cpp - plugin registration and lookup ------------------===//

#include "plugins/Registry.h"

#include "backends/common/cmodel/StreamDevice.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc::plugins;
using ::testing::HasSubstr;

namespace {

ChipDescriptor validChip(std::string id) {
  ChipDescriptor chip;
  chip.id = std::move(id);
  chip.summary = "test chip";
  chip.npuLanes = 4;
  chip.localMemoryBytesPerLane = 1024;
  chip.localMemoryBanks = 4;
  chip.euBytesPerLane = 16;
  chip.cores = 1;
  chip.clockMHz = 100;
  chip.f32Tflops = 1;
  chip.ddrBandwidthGBps = 1;
  chip.quantModes = {"F32", "W4BF16"};
  return chip;
}

class FakeBackend : public BackendPlugin {
public:
  explicit FakeBackend(ChipDescriptor chip) : chip(std::move(chip)) {}
  const ChipDescriptor &getDescriptor() const override { return chip; }
  std::unique_ptr<llmc::cmodel::StreamDevice>
  createDevice(const llmc::cmodel::DeviceOptions &) const override {
    return nullptr;
  }

private:
  ChipDescriptor chip;
};

class FakeFrontend : public FrontendPlugin {
public:
  FakeFrontend(std::string id, std::string suffix)
      : id(std::move(id)), suffix(std::move(suffix)) {}
  llvm::StringRef getId() const override { return id; }
  llvm::StringRef getSummary() const override { return "fake"; }
  bool accepts(llvm::StringRef path) const override {
    return path.ends_with(suffix);
  }
  llvm::Expected<Checkpoint> load(llvm::StringRef path) const override {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "fake frontends load nothing");
  }

private:
  std::string id, suffix;
};

std::string errorText(llvm::Error error) {
  return llvm::toString(std::move(error));
}

std::string errorText(const absl::Status &status) {
  return std::string(status.message());
}

TEST(ChipDescriptorTest, AcceptsCompleteFigures) {
  EXPECT_FALSE(errorText(validChip("chip").validate()).size());
  EXPECT_EQ(validChip("chip").localMemoryBytes(), 4096);
  EXPECT_EQ(validChip("chip").localMemoryBankBytes(), 256);
  EXPECT_TRUE(validChip("chip").supportsQuantMode("w4bf16"));
  EXPECT_FALSE(validChip("chip").supportsQuantMode("INT8"));
}

TEST(ChipDescriptorTest, RejectsMissingOrInconsistentFigures) {
  ChipDescriptor noLanes = validChip("chip");
  noLanes.npuLanes = 0;
  EXPECT_THAT(errorText(noLanes.validate()), HasSubstr("npuLanes"));

  ChipDescriptor oddBanks = validChip("chip");
  oddBanks.localMemoryBanks = 3;
  EXPECT_THAT(errorText(oddBanks.validate()), HasSubstr("divide"));

  ChipDescriptor noModes = validChip("chip");
  noModes.quantModes.clear();
  EXPECT_THAT(errorText(noModes.validate()), HasSubstr("quantization mode"));

  ChipDescriptor badId = validChip("bad id");
  EXPECT_THAT(errorText(badId.validate()), HasSubstr("identifier"));
}

TEST(RegistryTest, FindsBackendCaseInsensitively) {
  Registry registry;
  registry.addBackend(std::make_unique<FakeBackend>(validChip("chip_a")));
  ASSERT_FALSE(errorText(registry.takeRegistrationErrors()).size());
  llvm::Expected<const BackendPlugin &> found = registry.findBackend("CHIP_A");
  ASSERT_TRUE(static_cast<bool>(found));
  EXPECT_EQ(found->getDescriptor().id, "chip_a");
}

TEST(RegistryTest, UnknownChipNamesTheLinkedOnes) {
  Registry registry;
  registry.addBackend(std::make_unique<FakeBackend>(validChip("chip_a")));
  llvm::Expected<const BackendPlugin &> found = registry.findBackend("nope");
  ASSERT_FALSE(static_cast<bool>(found));
  std::string message = errorText(found.takeError());
  EXPECT_THAT(message, HasSubstr("unknown chip 'nope'"));
  EXPECT_THAT(message, HasSubstr("chip_a"));
}

TEST(RegistryTest, RejectsDuplicatesAndInvalidDescriptors) {
  Registry registry;
  registry.addBackend(std::make_unique<FakeBackend>(validChip("chip_a")));
  registry.addBackend(std::make_unique<FakeBackend>(validChip("CHIP_A")));
  ChipDescriptor invalid = validChip("chip_b");
  invalid.cores = 0;
  registry.addBackend(std::make_unique<FakeBackend>(invalid));
  registry.addFrontend(std::make_unique<FakeFrontend>("fmt", ".x"));
  registry.addFrontend(std::make_unique<FakeFrontend>("fmt", ".y"));
  std::string message = errorText(registry.takeRegistrationErrors());
  EXPECT_THAT(message, HasSubstr("backend 'CHIP_A' is registered twice"));
  EXPECT_THAT(message, HasSubstr("'chip_b': cores must be positive"));
  EXPECT_THAT(message, HasSubstr("frontend 'fmt' is registered twice"));
  EXPECT_EQ(registry.getBackends().size(), 1u);
  EXPECT_EQ(registry.getFrontends().size(), 1u);
}

TEST(RegistryTest, PicksTheFrontendThatAcceptsTheInput) {
  Registry registry;
  registry.addFrontend(std::make_unique<FakeFrontend>("onnx", ".onnx"));
  registry.addFrontend(std::make_unique<FakeFrontend>("gguf", ".gguf"));
  llvm::Expected<const FrontendPlugin &> found =
      registry.findFrontendFor("model.gguf");
  ASSERT_TRUE(static_cast<bool>(found));
  EXPECT_EQ(found->getId(), "gguf");

  llvm::Expected<const FrontendPlugin &> none =
      registry.findFrontendFor("model.bin");
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_THAT(errorText(none.takeError()),
              HasSubstr("model.bin: not a checkpoint any linked frontend "
                        "reads (tried: onnx, gguf)"));
}

TEST(RegistryTest, DescribesEveryPlugin) {
  Registry registry;
  registry.addFrontend(std::make_unique<FakeFrontend>("onnx", ".onnx"));
  std::string text = registry.describe();
  EXPECT_THAT(text, HasSubstr("  onnx      fake"));
  EXPECT_THAT(text, HasSubstr("backends:\n  (none linked)"));
}

} // namespace
