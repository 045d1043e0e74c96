// The host's pages (page_source.h: host_pages).
#include "backends/pools/page_source.h"
#include "core/host_blocks.h"

namespace ember::pools {
namespace {

class HostPages final : public PageSource {
 public:
  std::byte* take(std::size_t bytes, std::size_t alignment) override {
    return detail::allocate_host_block(bytes, alignment);
  }
  void give_back(std::byte* block, std::size_t bytes, std::size_t alignment) noexcept override {
    detail::free_host_block(block, bytes, alignment);
  }
  bool is_host_memory() const override { return true; }
};

}  // namespace

const std::shared_ptr<PageSource>& host_pages() {
  static const std::shared_ptr<PageSource> pages = std::make_shared<HostPages>();
  return pages;
}

}  // namespace ember::pools
