#include "backends/kernel_disk_cache.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>

namespace ember::backend {
namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

std::string cache_folder(const std::string& backend) {
  const std::string chosen = environment("EMBER_CACHE_DIR");
  if (chosen == "off") return "";
  if (!chosen.empty()) return chosen + "/" + backend;
  if (const std::string xdg = environment("XDG_CACHE_HOME"); !xdg.empty())
    return xdg + "/ember/" + backend;
  if (const std::string home = environment("HOME"); !home.empty())
    return home + "/.cache/ember/" + backend;
  return "";
}

/// FNV-1a, 64 bits: the file name of a key, and the check of a file's code.
uint64_t hash_of(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

std::string hex(uint64_t value) {
  std::ostringstream out;
  out << std::hex << value;
  return out.str();
}

}  // namespace

KernelDiskCache::KernelDiskCache(const std::string& backend, std::string suffix)
    : folder_(cache_folder(backend)), suffix_(std::move(suffix)) {}

std::string KernelDiskCache::path_of(const std::string& key) const {
  return folder_ + "/" + hex(hash_of(key)) + suffix_;
}

// The file of a key: the key's length (8 bytes), the key, the code's length and its hash (8 bytes
// each), then the code. A file cut short or damaged after it was written (a full disk, another
// writer, a stray edit) is a miss rather than bytes handed to the driver.
std::string KernelDiskCache::load(const std::string& key) const {
  if (folder_.empty()) return "";
  std::ifstream file(path_of(key), std::ios::binary);
  if (!file) return "";
  uint64_t length = 0;
  if (!file.read(reinterpret_cast<char*>(&length), sizeof length) || length != key.size())
    return "";
  std::string stored(key.size(), '\0');
  if (!file.read(stored.data(), static_cast<std::streamsize>(stored.size())) || stored != key)
    return "";
  uint64_t code_length = 0;
  uint64_t code_hash = 0;
  if (!file.read(reinterpret_cast<char*>(&code_length), sizeof code_length) ||
      !file.read(reinterpret_cast<char*>(&code_hash), sizeof code_hash))
    return "";
  std::string code{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (code.size() != code_length || hash_of(code) != code_hash) return "";
  return code;
}

void KernelDiskCache::store(const std::string& key, const std::string& code) const {
  if (folder_.empty()) return;
  std::error_code error;
  std::filesystem::create_directories(folder_, error);
  if (error) return;
  const std::string path = path_of(key);
  const std::string temporary = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    const uint64_t header[] = {key.size(), code.size(), hash_of(code)};
    file.write(reinterpret_cast<const char*>(&header[0]), sizeof header[0]);
    file.write(key.data(), static_cast<std::streamsize>(key.size()));
    file.write(reinterpret_cast<const char*>(&header[1]), 2 * sizeof header[0]);
    file.write(code.data(), static_cast<std::streamsize>(code.size()));
    if (!file) {
      std::filesystem::remove(temporary, error);
      return;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) std::filesystem::remove(temporary, error);
}

std::string KernelDiskCache::load_or_compile(const std::string& key,
                                             const std::function<std::string()>& compile) const {
  if (std::string code = load(key); !code.empty()) return code;
  std::string code = compile();
  store(key, code);
  return code;
}

}  // namespace ember::backend
