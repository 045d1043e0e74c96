// PageAddresses: made-up addresses for a shader backend's pages. The sliced pools keep addresses,
// and a Vulkan or WebGPU buffer has none, so each page is given one in an address space of its own
// (pages 64 KiB apart at least, never 0), turned back into the page and an offset when a kernel
// binds a slice (find). Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"

namespace ember::shader {

/// Page: what a backend keeps of a page, with its size in `bytes`.
template <typename Page>
class PageAddresses {
 public:
  /// page's new address.
  std::byte* add(const Page& page) {
    const std::lock_guard lock(mutex_);
    const uintptr_t address = next_;
    next_ += (page.bytes + 2 * kSpacing - 1) / kSpacing * kSpacing;
    pages_.emplace(address, page);
    return reinterpret_cast<std::byte*>(address);
  }

  /// The page at address, no longer kept; nullopt where there is none.
  std::optional<Page> remove(const std::byte* address) {
    const std::lock_guard lock(mutex_);
    const auto found = pages_.find(reinterpret_cast<uintptr_t>(address));
    if (found == pages_.end()) return std::nullopt;
    Page page = found->second;
    pages_.erase(found);
    return page;
  }

  /// The page holding [address, address + bytes) and the offset in it; ExecutionError naming
  /// device where no page does.
  std::pair<Page, uint64_t> find(const std::byte* address, std::size_t bytes,
                                 const std::string& device) const {
    const auto at = reinterpret_cast<uintptr_t>(address);
    const std::lock_guard lock(mutex_);
    auto found = pages_.upper_bound(at);
    if (found == pages_.begin())
      throw ExecutionError("[" + device + "] no page holds a buffer's address");
    --found;
    const uintptr_t offset = at - found->first;
    if (offset + bytes > found->second.bytes)
      throw ExecutionError("[" + device + "] a buffer lies outside its page");
    return {found->second, offset};
  }

  /// Every page kept (a backend's end gives them back).
  std::vector<Page> all() const {
    const std::lock_guard lock(mutex_);
    std::vector<Page> pages;
    for (const auto& [address, page] : pages_)
      pages.push_back(page);
    return pages;
  }

 private:
  static constexpr uintptr_t kSpacing = uintptr_t{1} << 16;

  mutable std::mutex mutex_;
  std::map<uintptr_t, Page> pages_;
  uintptr_t next_ = uintptr_t{1} << 40;
};

}  // namespace ember::shader
