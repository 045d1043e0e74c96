// A module's state to and from a Record (ember/record/module_record.h). Loading checks every
// tensor before assigning any, so a failed load leaves the module as it was.
#include "ember/record/module_record.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ember/error.h"
#include "ember/tensor_ops.h"
#include "failure.h"

namespace ember::record::detail {
namespace {

/// A param or a buffer of the module, with its dotted name.
struct Slot {
  std::string name;
  nn::ParamBase* param = nullptr;
  nn::BufferBase* buffer = nullptr;

  const TensorHandle& current() const { return param ? param->handle() : buffer->handle(); }
  const char* role() const { return param ? "param" : "buffer"; }
  void assign(TensorHandle value) const {
    if (param) {
      param->assign(std::move(value));
    } else {
      buffer->assign(std::move(value));
    }
  }
};

class SlotCollector : public nn::ModuleVisitor {
 public:
  void param(const std::string& path, nn::ParamBase& p) override {
    slots.push_back({path, &p, nullptr});
  }
  void buffer(const std::string& path, nn::BufferBase& b) override {
    slots.push_back({path, nullptr, &b});
  }
  std::vector<Slot> slots;
};

using TensorIndex = std::unordered_map<std::string_view, const TensorData*>;

/// "'a', 'b'".
std::string quoted_list(const std::vector<std::string_view>& names) {
  std::string list;
  for (std::string_view name : names)
    list += (list.empty() ? "'" : ", '") + std::string(name) + "'";
  return list;
}

TensorIndex index_by_name(const Record& record, const Failure& fail) {
  TensorIndex index;
  for (const NamedData& tensor : record.tensors) {
    if (!index.emplace(tensor.name, &tensor.data).second)
      fail("the record has two tensors called '", tensor.name, "'");
  }
  return index;
}

/// Fails unless the names of slots and index agree (extra tensors allowed when options say so).
void check_names(const std::vector<Slot>& slots, const TensorIndex& index, LoadOptions options,
                 const Failure& fail) {
  std::vector<std::string_view> missing;
  std::unordered_set<std::string_view> wanted;
  for (const Slot& slot : slots) {
    wanted.insert(slot.name);
    if (!index.contains(slot.name)) missing.push_back(slot.name);
  }
  if (!missing.empty()) fail("no tensor for ", quoted_list(missing));
  if (options.allow_extra) return;
  std::vector<std::string_view> extra;
  for (const auto& entry : index) {
    if (!wanted.contains(entry.first)) extra.push_back(entry.first);
  }
  std::sort(extra.begin(), extra.end());
  if (!extra.empty())
    fail("the model has no param or buffer called ", quoted_list(extra),
         " (LoadOptions::allow_extra ignores such tensors)");
}

/// Fails unless data can become slot's value: same shape, same kind.
void check_fits(const Slot& slot, const TensorData& data, const Failure& fail) {
  const TensorHandle& current = slot.current();
  if (!current.defined()) fail("the model's ", slot.role(), " '", slot.name, "' has no value");
  if (data.shape() != current.shape())
    fail("tensor '", slot.name, "' has shape ", data.shape(), ", but the model's ", slot.role(),
         " has shape ", current.shape());
  if (kind_of(data.dtype()) != current.kind())
    fail("tensor '", slot.name, "' is ", data.dtype(), " (", kind_of(data.dtype()),
         "), but the model's ", slot.role(), " is ", current.dtype(), " (", current.kind(),
         "): the kinds must match");
}

}  // namespace

Record state_record(const std::vector<nn::NamedTensor>& state,
                    std::map<std::string, std::string> metadata) {
  Record record{{}, std::move(metadata)};
  for (const nn::NamedTensor& tensor : state)
    record.tensors.push_back({tensor.name, ops::into_data(tensor.tensor)});
  return record;
}

void load_state(const std::function<void(nn::ModuleVisitor&)>& walk, const Record& record,
                std::string_view source, LoadOptions options) {
  const Failure fail("record::load", source);
  SlotCollector collector;
  walk(collector);
  const TensorIndex index = index_by_name(record, fail);
  check_names(collector.slots, index, options, fail);
  std::vector<TensorHandle> values;
  for (const Slot& slot : collector.slots) {
    const TensorData& data = *index.at(slot.name);
    check_fits(slot, data, fail);
    const TensorHandle& current = slot.current();
    values.push_back(ops::from_data(
        data, TensorCreationOptions(current.device()).with_dtype(current.dtype()), current.kind()));
  }
  // Nothing above changed the module; from here on nothing can fail.
  for (std::size_t i = 0; i < values.size(); ++i)
    collector.slots[i].assign(std::move(values[i]));
}

}  // namespace ember::record::detail
