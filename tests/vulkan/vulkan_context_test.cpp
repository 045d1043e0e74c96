// The vulkan backend's failure path, below the Device: a failed submission or wait (a lost device
// among them) poisons the context, and every later call of the command stream is an
// ExecutionError saying why. lavapipe cannot lose its device on demand, so the failure is handed
// to the context as the stream hands it a failed vkQueueSubmit.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "backends/vulkan/command_stream.h"
#include "backends/vulkan/vulkan_context.h"
#include "ember/error.h"
#include "vulkan_test_util.h"

namespace ember::test {
namespace {

std::string message_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ExecutionError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ExecutionError";
  return "";
}

TEST(VulkanContext, AFailedSubmissionPoisonsTheDeviceAndEveryLaterCallSaysSo) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const vulkan::PhysicalDevice* physical = vulkan::select(DeviceKind::default_device());
  ASSERT_NE(physical, nullptr);
  auto context = std::make_shared<vulkan::Context>(*physical, "vulkan:test");
  auto stream = std::make_shared<vulkan::CommandStream>(context);
  stream->sync();  // nothing pending: fine
  const std::string failed =
      message_of([&] { context->check_fatal(VK_ERROR_DEVICE_LOST, "vkQueueSubmit"); });
  EXPECT_NE(failed.find("[vulkan:test] vkQueueSubmit failed: VK_ERROR_DEVICE_LOST"),
            std::string::npos)
      << failed;
  EXPECT_NE(failed.find("poisoned"), std::string::npos) << failed;
  EXPECT_TRUE(context->poisoned());
  for (const auto& call : {std::function<void()>([&] { stream->sync(); }),
                           std::function<void()>([&] { stream->flush(); }),
                           std::function<void()>([&] { context->check_usable(); })}) {
    const std::string later = message_of(call);
    EXPECT_NE(later.find("poisoned by an earlier failure (vkQueueSubmit failed: "
                         "VK_ERROR_DEVICE_LOST)"),
              std::string::npos)
        << later;
  }
}

TEST(VulkanContext, AnErrorThatIsNotFatalLeavesTheDeviceUsable) {
  EMBER_SKIP_WITHOUT_VULKAN(device);
  const vulkan::PhysicalDevice* physical = vulkan::select(DeviceKind::default_device());
  ASSERT_NE(physical, nullptr);
  vulkan::Context context(*physical, "vulkan:test");
  const std::string failed =
      message_of([&] { context.check(VK_ERROR_OUT_OF_HOST_MEMORY, "vkCreateBuffer"); });
  EXPECT_NE(failed.find("vkCreateBuffer failed: VK_ERROR_OUT_OF_HOST_MEMORY"), std::string::npos);
  EXPECT_FALSE(context.poisoned());
  EXPECT_NO_THROW(context.check_usable());
}

}  // namespace
}  // namespace ember::test
