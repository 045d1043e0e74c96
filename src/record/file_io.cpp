#include "file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "ember/record/file_io.h"
#include "failure.h"

namespace ember::record::detail {
namespace {

/// fail with "what: <the system's reason for error>".
[[noreturn]] void fail_system(const Failure& fail, std::string_view what, int error) {
  fail(what, ": ", std::strerror(error));
}

/// fail_system for the errno of the call that just failed (what is a view: nothing may run
/// between that call and reading errno).
[[noreturn]] void fail_errno(const Failure& fail, std::string_view what) {
  fail_system(fail, what, errno);
}

/// A file descriptor, closed on scope exit.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  /// Closes now, reporting the error close can return (a delayed write error on some file
  /// systems); false with errno set on failure.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }

 private:
  int fd_;
};

/// Opens path, retrying when a signal interrupts the call.
int open_retrying(const char* path, int flags, mode_t mode = 0) {
  int fd;
  do {
    fd = ::open(path, flags, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

/// Writes all of bytes; false with errno set on failure.
bool write_all(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd, bytes.data(), bytes.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    bytes = bytes.subspan(static_cast<std::size_t>(written));
  }
  return true;
}

std::filesystem::path directory_of(const std::filesystem::path& target) {
  return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

/// A new file beside a target, removed on scope exit unless it was renamed over the target.
class TemporaryFile {
 public:
  TemporaryFile(const std::filesystem::path& target, const Failure& fail)
      : target_(target), fail_(fail) {
    // The pid and a counter make the name unique among savers; O_EXCL makes sure.
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path directory = directory_of(target);
    int error = EEXIST;
    for (int attempt = 0; attempt < 100 && error == EEXIST; ++attempt) {
      path_ = directory / ("." + target.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                           "-" + std::to_string(counter++));
      // 0666 so that the process umask decides the final permissions, as for any new file.
      const int fd = open_retrying(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      error = fd < 0 ? errno : 0;
      fd_.reset(fd);
    }
    if (error != 0) fail_system(fail_, "cannot create a file in " + directory.string(), error);
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  ~TemporaryFile() {
    if (!renamed_) ::unlink(path_.c_str());
  }

  void write(std::span<const std::byte> bytes) {
    if (!write_all(fd_.get(), bytes)) fail_errno(fail_, "cannot write");
  }
  /// Flushes the bytes to disk, closes the file and renames it over the target.
  void commit() {
    if (::fsync(fd_.get()) != 0) fail_errno(fail_, "cannot flush to disk");
    if (!fd_.close()) fail_errno(fail_, "cannot close");
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail_errno(fail_, "cannot replace the file");
    renamed_ = true;
  }

 private:
  std::filesystem::path target_;
  const Failure& fail_;
  std::filesystem::path path_;
  Descriptor fd_{-1};
  bool renamed_ = false;
};

/// Makes a rename in directory durable. Best effort: the new file is already complete and in
/// place, and some file systems refuse to fsync a directory.
void sync_directory(const std::filesystem::path& directory) {
  Descriptor fd(open_retrying(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() >= 0) ::fsync(fd.get());
}

}  // namespace

std::vector<std::byte> read_file(const std::filesystem::path& path, std::string_view op) {
  const Failure fail(op, path.string());
  Descriptor fd(open_retrying(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(fail, "cannot open");
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) fail_errno(fail, "cannot stat");
  if (!S_ISREG(info.st_mode)) fail("not a regular file");
  std::vector<std::byte> bytes(static_cast<std::size_t>(info.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail_errno(fail, "cannot read");
    if (got == 0) fail("the file shrank while being read");
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

}  // namespace ember::record::detail

namespace ember::record {

void write_file_atomically(const std::filesystem::path& path,
                           std::span<const std::span<const std::byte>> pieces,
                           std::string_view op) {
  const detail::Failure fail(op, path.string());
  if (!path.has_filename()) fail("the path names no file");
  detail::TemporaryFile file(path, fail);
  for (std::span<const std::byte> piece : pieces)
    file.write(piece);
  file.commit();
  detail::sync_directory(detail::directory_of(path));
}

void write_file_atomically(const std::filesystem::path& path, std::string_view text,
                           std::string_view op) {
  const std::span<const std::byte> bytes = std::as_bytes(std::span(text));
  write_file_atomically(path, {&bytes, 1}, op);
}

}  // namespace ember::record
