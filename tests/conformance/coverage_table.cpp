#include "coverage_table.h"

#include <set>
#include <sstream>
#include <string_view>

namespace ember::test {
namespace {

struct Counts {
  int compared = 0;
  int rejected = 0;
  int not_on_device = 0;
};

Counts counts_for(const Device& device) {
  Counts counts;
  for (const OpCase& op : op_table()) {
    for (DType dtype : kAllDTypes) {
      switch (coverage_of(op, dtype, device)) {
        case Coverage::Compared:
          ++counts.compared;
          break;
        case Coverage::Rejected:
          ++counts.rejected;
          break;
        case Coverage::NotOnDevice:
          ++counts.not_on_device;
          break;
      }
    }
  }
  return counts;
}

/// Ops, not cases: "slice" and "slice/negative_step" count once.
std::size_t distinct_ops() {
  std::set<std::string_view> names;
  for (const OpCase& op : op_table()) {
    const std::string_view name = op.name;
    names.insert(name.substr(0, name.find('/')));
  }
  return names.size();
}

void write_device_counts(std::ostream& out, const Devices& devices) {
  out << "| backend | device | compared with ndarray | rejected (InvalidArgument) | dtype not on "
         "device |\n|---|---|---:|---:|---:|\n";
  for (const Device& device : devices) {
    const Counts c = counts_for(device);
    out << "| " << backend_name(device.as_dispatch()) << " | " << device << " | " << c.compared
        << " | " << c.rejected << " | " << c.not_on_device << " |\n";
  }
}

/// One row per case: a mark per dtype, from the case's accepted dtypes.
void write_matrix(std::ostream& out) {
  out << "| op case |";
  for (DType dtype : kAllDTypes)
    out << ' ' << dtype << " |";
  out << "\n|---|";
  for (std::size_t i = 0; i < std::size(kAllDTypes); ++i)
    out << ":-:|";
  out << '\n';
  for (const OpCase& op : op_table()) {
    out << "| " << op.name << " |";
    for (DType dtype : kAllDTypes)
      out << (contains(op.dtypes, dtype) ? " ✓ |" : " ✗ |");
    out << '\n';
  }
}

}  // namespace

Coverage coverage_of(const OpCase& op, DType dtype, const Device& device) {
  if (!device.supports_dtype(dtype)) return Coverage::NotOnDevice;
  return contains(op.dtypes, dtype) ? Coverage::Compared : Coverage::Rejected;
}

std::string coverage_table(const Devices& devices) {
  std::ostringstream out;
  out << "## Conformance coverage\n\n"
      << op_table().size() << " op cases (" << distinct_ops() << " ops of tensor_ops.h) x "
      << std::size(kAllDTypes) << " dtypes, per device:\n\n";
  write_device_counts(out, devices);
  out << "\n✓ runs in this dtype and must match ndarray (shape and dtype only for empty); the "
         "golden suite also checks ndarray against NumPy in f32, f64, i32, i64 and bool (random "
         "excepted).\n✗ must throw InvalidArgument (checked on ndarray: argument checks run "
         "above the backends).\n\n";
  write_matrix(out);
  return out.str();
}

}  // namespace ember::test
