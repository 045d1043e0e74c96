// The generic walks over a module (nn/module.h), written once against ModuleVisitor.
#include "ember/nn/module.h"

namespace ember::nn::detail {
namespace {

/// Whether path lies under prefix (a dotted path; "" is the root, above everything).
bool is_under(std::string_view path, std::string_view prefix) {
  if (prefix.empty() || path == prefix) return true;
  return path.size() > prefix.size() && path.starts_with(prefix) && path[prefix.size()] == '.';
}

class Collector : public ModuleVisitor {
 public:
  Collector(bool params, bool buffers) : params_(params), buffers_(buffers) {}
  void param(const std::string& path, ParamBase& p) override {
    if (params_) found.push_back({path, p.handle()});
  }
  void buffer(const std::string& path, BufferBase& b) override {
    if (buffers_) found.push_back({path, b.handle()});
  }
  std::vector<NamedTensor> found;

 private:
  bool params_;
  bool buffers_;
};

class Mover : public ModuleVisitor {
 public:
  explicit Mover(const Device& device) : device_(device) {}
  void param(const std::string&, ParamBase& p) override {
    p.reset(ops::to_device(p.handle(), device_));
  }
  void buffer(const std::string&, BufferBase& b) override {
    b.assign(ops::to_device(b.handle(), device_));
  }

 private:
  const Device& device_;
};

class TrainingSetter : public ModuleVisitor {
 public:
  explicit TrainingSetter(bool training) : training_(training) {}
  void training(const std::string&, bool& flag) override { flag = training_; }

 private:
  bool training_;
};

class TrainableSetter : public ModuleVisitor {
 public:
  TrainableSetter(std::string_view prefix, bool trainable)
      : prefix_(prefix), trainable_(trainable) {}
  void param(const std::string& path, ParamBase& p) override {
    if (is_under(path, prefix_)) p.set_trainable(trainable_);
  }

 private:
  std::string_view prefix_;
  bool trainable_;
};

}  // namespace

std::string join_path(const std::string& prefix, std::string_view name) {
  if (prefix.empty()) return std::string(name);
  return prefix + "." + std::string(name);
}

std::vector<NamedTensor> collect(const std::function<void(ModuleVisitor&)>& walk, bool params,
                                 bool buffers) {
  Collector collector(params, buffers);
  walk(collector);
  return std::move(collector.found);
}

void to_device(const std::function<void(ModuleVisitor&)>& walk, const Device& device) {
  Mover mover(device);
  walk(mover);
}

void set_training(const std::function<void(ModuleVisitor&)>& walk, bool training) {
  TrainingSetter setter(training);
  walk(setter);
}

void set_trainable(const std::function<void(ModuleVisitor&)>& walk, std::string_view prefix,
                   bool trainable) {
  TrainableSetter setter(prefix, trainable);
  walk(setter);
}

}  // namespace ember::nn::detail
