// The statements an emitter's target writes (CudaC, Glsl): one variable declaration a line,
// numbered v0, v1, ... across every target sharing them (a program's float target and its integer
// ones), and which of the variables are masks (bools).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

namespace ember::codegen {

class Statements {
 public:
  /// Empty statements, each line indented by indent.
  explicit Statements(std::string indent)
      : indent_(std::move(indent)), state_(std::make_shared<State>()) {}

  /// Appends "<declaration> v<k> = <expression>;" ("const float", "precise float") and returns
  /// "v<k>". Shared by every copy of this object.
  std::string append(std::string_view declaration, std::string_view expression) const {
    std::string name = "v" + std::to_string(state_->variables++);
    std::string& text = state_->text;
    text += indent_;
    text += declaration;
    text += ' ';
    text += name;
    text += " = ";
    text += expression;
    text += ";\n";
    return name;
  }
  /// As append, and name it a mask.
  std::string append_mask(std::string_view declaration, std::string_view expression) const {
    std::string name = append(declaration, expression);
    state_->masks.insert(name);
    return name;
  }
  bool is_mask(const std::string& name) const { return state_->masks.contains(name); }
  const std::string& text() const { return state_->text; }
  const std::string& indent() const { return indent_; }

 private:
  struct State {
    std::string text;
    int variables = 0;
    std::unordered_set<std::string> masks;
  };
  std::string indent_;
  std::shared_ptr<State> state_;
};

}  // namespace ember::codegen
