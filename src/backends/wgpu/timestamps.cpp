#include "backends/wgpu/timestamps.h"

#include <wgpu.h>

#include <cstdint>
#include <optional>
#include <span>

namespace ember::wgpu {
namespace {

class WgpuTimestamp final : public backend::DeviceTimestamp {
 public:
  WgpuTimestamp(std::shared_ptr<CommandStream> stream, std::shared_ptr<Context> context)
      : stream_(std::move(stream)), context_(std::move(context)) {
    const WGPUDevice device = context_->device();
    WGPUQuerySetDescriptor queries = WGPU_QUERY_SET_DESCRIPTOR_INIT;
    queries.type = WGPUQueryType_Timestamp;
    queries.count = 1;
    queries_ = wgpuDeviceCreateQuerySet(device, &queries);
    WGPUBufferDescriptor descriptor = WGPU_BUFFER_DESCRIPTOR_INIT;
    descriptor.size = sizeof(uint64_t);
    descriptor.usage = WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc;
    resolved_ = wgpuDeviceCreateBuffer(device, &descriptor);
    descriptor.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
    readable_ = wgpuDeviceCreateBuffer(device, &descriptor);
    const WGPUCommandEncoder encoder = stream_->encoder();
    wgpuCommandEncoderWriteTimestamp(encoder, queries_, 0);
    wgpuCommandEncoderResolveQuerySet(encoder, queries_, 0, 1, resolved_, 0);
    wgpuCommandEncoderCopyBufferToBuffer(encoder, resolved_, 0, readable_, 0, sizeof(uint64_t));
  }
  ~WgpuTimestamp() override {
    wgpuBufferRelease(readable_);
    wgpuBufferRelease(resolved_);
    wgpuQuerySetRelease(queries_);
  }
  WgpuTimestamp(const WgpuTimestamp&) = delete;
  WgpuTimestamp& operator=(const WgpuTimestamp&) = delete;

  double seconds_since(const backend::DeviceTimestamp& earlier) const override {
    const auto& start = static_cast<const WgpuTimestamp&>(earlier);
    stream_->sync();
    const double ticks =
        static_cast<double>(ticks_of(*this)) - static_cast<double>(ticks_of(start));
    // Ticks of the queue's period (nanoseconds each).
    return ticks * wgpuQueueGetTimestampPeriod(context_->queue()) * 1e-9;
  }

 private:
  static uint64_t ticks_of(const WgpuTimestamp& t) {
    if (!t.ticks_) {
      uint64_t ticks = 0;
      t.stream_->read_mapped(t.readable_, std::as_writable_bytes(std::span(&ticks, 1)));
      t.ticks_ = ticks;
    }
    return *t.ticks_;
  }

  std::shared_ptr<CommandStream> stream_;
  std::shared_ptr<Context> context_;
  WGPUQuerySet queries_ = nullptr;
  WGPUBuffer resolved_ = nullptr;
  WGPUBuffer readable_ = nullptr;
  mutable std::optional<uint64_t> ticks_;
};

}  // namespace

std::shared_ptr<backend::DeviceTimestamp> record_timestamp(std::shared_ptr<CommandStream> stream,
                                                           std::shared_ptr<Context> context) {
  return std::make_shared<WgpuTimestamp>(std::move(stream), std::move(context));
}

}  // namespace ember::wgpu
