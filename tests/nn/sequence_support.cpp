#include "sequence_support.h"
#include "support/source_dir.h"

#include <fstream>
#include <stdexcept>

namespace ember::nn::sequence_golden {
namespace {

json load_file() {
  const std::string path = ember::test::source_dir() + "/tests/nn/sequence_golden.json";
  std::ifstream file(path);
  if (!file) throw std::runtime_error("cannot open " + path);
  return json::parse(file);
}

class F64Caster : public ModuleVisitor {
 public:
  void param(const std::string&, ParamBase& param) override {
    param.assign(ops::cast(param.handle(), DType::F64));
  }
};

}  // namespace

const json& sequence_case(const std::string& name) {
  static const json cases = load_file();
  if (!cases.contains(name)) throw std::runtime_error("no sequence golden case " + name);
  return cases.at(name);
}

void params_to_f64(const layer_golden::Walk& walk) {
  F64Caster caster;
  walk(caster);
}

}  // namespace ember::nn::sequence_golden
