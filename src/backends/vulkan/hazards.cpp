#include "backends/vulkan/hazards.h"

#include <algorithm>
#include <cctype>
#include <cstddef>

namespace ember::vulkan {
namespace {

/// The end of a slice (VK_WHOLE_SIZE: up to the end of its buffer).
VkDeviceSize end_of(const BufferRange& range) {
  return range.bytes > VK_WHOLE_SIZE - range.offset ? VK_WHOLE_SIZE : range.offset + range.bytes;
}

bool overlap(const BufferRange& a, const BufferRange& b) {
  return a.buffer == b.buffer && a.offset < end_of(b) && b.offset < end_of(a);
}

/// The number after "binding" and "=" at text[at...], or -1.
long binding_number(std::string_view text, std::size_t at) {
  at += std::string_view("binding").size();
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
    ++at;
  if (at >= text.size() || text[at] != '=') return -1;
  ++at;
  while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at])))
    ++at;
  long number = -1;
  for (; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); ++at)
    number = std::max(number, 0L) * 10 + (text[at] - '0');
  return number;
}

}  // namespace

bool HazardTracker::must_wait(std::span<const Access> accesses) const {
  for (const Access& earlier : since_barrier_)
    for (const Access& access : accesses)
      if ((earlier.writes || access.writes) && overlap(earlier.range, access.range)) return true;
  return false;
}

void HazardTracker::add(std::span<const Access> accesses) {
  since_barrier_.insert(since_barrier_.end(), accesses.begin(), accesses.end());
}

std::vector<bool> written_tensors(std::string_view glsl, uint32_t tensors) {
  // Declarations read "layout(std430, set = 0, binding = N) readonly buffer Name { ... };": the
  // qualifiers between the layout's ")" and "buffer" say whether the kernel may write N.
  std::vector<bool> declared(tensors, false);
  std::vector<bool> written(tensors, false);
  for (std::size_t at = glsl.find("binding"); at != std::string_view::npos;
       at = glsl.find("binding", at + 1)) {
    const long binding = binding_number(glsl, at);
    if (binding < 1 || binding > static_cast<long>(tensors)) continue;
    const std::size_t close = glsl.find(')', at);
    const std::size_t buffer = glsl.find("buffer", close);
    if (buffer == std::string_view::npos) continue;
    const bool read_only =
        glsl.substr(close, buffer - close).find("readonly") != std::string_view::npos;
    declared[binding - 1] = true;
    if (!read_only) written[binding - 1] = true;
  }
  for (uint32_t t = 0; t < tensors; ++t)
    if (!declared[t]) written[t] = true;
  return written;
}

}  // namespace ember::vulkan
