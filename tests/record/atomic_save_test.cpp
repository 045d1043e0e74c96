// save_safetensors replaces its target atomically: a failed save leaves the old file as it was
// and no temporary file behind. (The tests run as root in CI, where permission bits stop nothing,
// so failures are made with paths the system refuses and with a file size limit.)
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "ember/record/safetensors.h"
#include "record_test_util.h"

namespace ember::record {
namespace {

Record record_of(float value, std::size_t count) {
  return Record{
      {{"w", TensorData(std::vector<float>(count, value), Shape{static_cast<int64_t>(count)})}},
      {}};
}

/// Sets the file size limit (RLIMIT_FSIZE) for its lifetime, with SIGXFSZ ignored so that a
/// write past the limit fails with EFBIG instead of killing the process.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    previous_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limited = saved_;
    limited.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limited);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_);
    signal(SIGXFSZ, previous_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t previous_handler_;
};

TEST(AtomicSave, ReplacesTheFileAndLeavesNothingElse) {
  test::TempDir dir;
  const auto path = dir / "model.safetensors";
  save_safetensors(record_of(1.0f, 2), path);
  save_safetensors(record_of(2.0f, 3), path);
  EXPECT_EQ(load_safetensors(path).tensors[0].data.to_vector<double>(),
            std::vector<double>(3, 2.0));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});
}

TEST(AtomicSave, AFailedWriteLeavesTheOldFile) {
  test::TempDir dir;
  const auto path = dir / "model.safetensors";
  save_safetensors(record_of(1.0f, 4), path);
  const test::Bytes old = test::read_bytes(path);
  std::string message;
  {
    const FileSizeLimit limit(256);  // the new file needs 8 + 64 + 4096 bytes
    message =
        test::invalid_argument_message([&] { save_safetensors(record_of(2.0f, 1024), path); });
  }
  test::expect_mentions(message, {"[save_safetensors] ", "model.safetensors: cannot write"});
  EXPECT_EQ(test::read_bytes(path), old);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});
}

TEST(AtomicSave, ARecordThatCannotBeWrittenLeavesTheOldFile) {
  test::TempDir dir;
  const auto path = dir / "model.safetensors";
  save_safetensors(record_of(1.0f, 4), path);
  const test::Bytes old = test::read_bytes(path);
  Record twice = record_of(2.0f, 1);
  twice.tensors.push_back(twice.tensors[0]);
  EXPECT_THROW(save_safetensors(twice, path), InvalidArgument);
  EXPECT_EQ(test::read_bytes(path), old);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});
}

TEST(AtomicSave, ATargetThatIsADirectoryIsLeftAlone) {
  test::TempDir dir;
  const auto path = dir / "model.safetensors";
  std::filesystem::create_directory(path);
  test::expect_mentions(
      test::invalid_argument_message([&] { save_safetensors(record_of(1.0f, 1), path); }),
      {"[save_safetensors] ", "model.safetensors: cannot replace the file"});
  EXPECT_TRUE(std::filesystem::is_directory(path));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"model.safetensors"});
}

TEST(AtomicSave, ADirectoryThatCannotHoldTheFile) {
  test::TempDir dir;
  test::write_bytes(dir / "plain", test::bytes_of({1}));
  for (const char* target : {"missing/model.safetensors", "plain/model.safetensors"}) {
    test::expect_mentions(
        test::invalid_argument_message([&] { save_safetensors(record_of(1.0f, 1), dir / target); }),
        {"[save_safetensors] ", target, "cannot create a file in"});
  }
  test::expect_mentions(test::invalid_argument_message(
                            [&] { save_safetensors(record_of(1.0f, 1), dir.path() / ""); }),
                        {"[save_safetensors] ", "names no file"});
}

TEST(AtomicSave, ANewFileGetsThePermissionsTheUmaskAllows) {
  test::TempDir dir;
  const mode_t previous = umask(022);
  save_safetensors(record_of(1.0f, 1), dir / "model.safetensors");
  umask(previous);
  struct stat info {};
  ASSERT_EQ(stat((dir / "model.safetensors").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644u);
}

}  // namespace
}  // namespace ember::record
