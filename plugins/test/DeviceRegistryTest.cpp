//===- DeviceRegistryTest.cpp - the runtime's devices by chip -------------===//

#include "plugins/DeviceRegistry.h"

#include "backends/common/cmodel/StreamDevice.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

using namespace llmc;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

/// A factory that counts its calls and makes no device.
plugins::DeviceFactory counting(int &calls) {
  return [&calls](const cmodel::DeviceOptions &) {
    ++calls;
    return std::unique_ptr<cmodel::StreamDevice>();
  };
}

TEST(DeviceRegistryTest, CreatesTheDeviceOfTheNamedChip) {
  plugins::DeviceRegistry registry;
  int first = 0, second = 0;
  registry.add("npu1", counting(first));
  registry.add("npu2", counting(second));
  absl::Status registered = registry.takeRegistrationErrors();
  ASSERT_TRUE(registered.ok()) << registered.message();
  EXPECT_THAT(registry.getChips(), ElementsAre("npu1", "npu2"));
  auto device = registry.createDevice("npu2", {});
  ASSERT_TRUE(device.ok()) << device.status().message();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
}

TEST(DeviceRegistryTest, UnknownChipNamesTheKnownOnes) {
  plugins::DeviceRegistry registry;
  int calls = 0;
  registry.add("npu1", counting(calls));
  auto device = registry.createDevice("npu9", {});
  ASSERT_FALSE(device.ok());
  EXPECT_TRUE(absl::IsNotFound(device.status()));
  EXPECT_EQ(device.status().message(),
            "unknown chip 'npu9' (this build runs npu1)");
}

TEST(DeviceRegistryTest, SecondDeviceForAChipIsAnError) {
  plugins::DeviceRegistry registry;
  int calls = 0;
  registry.add("npu1", counting(calls));
  registry.add("npu1", counting(calls));
  EXPECT_THAT(std::string(registry.takeRegistrationErrors().message()),
              HasSubstr("a device for chip 'npu1' is registered twice"));
  EXPECT_TRUE(registry.takeRegistrationErrors().ok())
      << "taking the errors clears them";
}

/// The build's linked devices: every chip of //plugins:enabled.
TEST(DeviceRegistryTest, LinksEveryEnabledChip) {
  auto registry = plugins::createLinkedDeviceRegistry();
  ASSERT_TRUE(registry.ok()) << registry.status().message();
  EXPECT_THAT((*registry)->getChips(),
              ElementsAre("bm1684x", "bm1688", "cv186x", "host"));
}

} // namespace
