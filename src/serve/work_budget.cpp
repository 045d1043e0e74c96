#include "serve/work_budget.h"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "ember/error.h"

namespace ember::serve {
namespace {

using Metas = std::span<const ir::TensorMeta>;

double elements(const ir::TensorMeta& meta) {
  double count = 1;
  for (int64_t dim : meta.shape.dims())
    count *= static_cast<double>(dim);
  return count;
}

double elements(Metas metas) {
  double count = 0;
  for (const ir::TensorMeta& meta : metas)
    count += elements(meta);
  return count;
}

/// The last dim of meta (1 for a scalar).
double last_dim(const ir::TensorMeta& meta) {
  const auto& dims = meta.shape.dims();
  return dims.empty() ? 1.0 : static_cast<double>(dims.back());
}

/// The size of dim 1 (channels) of meta, at least 1.
double channels(const ir::TensorMeta& meta) {
  const auto& dims = meta.shape.dims();
  return dims.size() > 1 && dims[1] > 0 ? static_cast<double>(dims[1]) : 1.0;
}

double product(const std::vector<int64_t>& values) {
  double result = 1;
  for (int64_t value : values)
    result *= static_cast<double>(value);
  return result;
}

// Per output element, an op that contracts computes as many products as it sums.

double work(const ir::Matmul&, Metas in, Metas out) {
  return elements(out) * last_dim(in[0]);
}
/// Each output element sums C_in / groups * the kernel's products: the weight's elements over
/// the output's channels (transposed or not).
double work(const ir::Conv&, Metas in, Metas out) {
  return elements(out) * elements(in[1]) / channels(out[0]);
}
/// Each weight element sums a product per output position of every sample: grad_output's
/// elements over its channels.
double work(const ir::ConvWeightGrad&, Metas in, Metas out) {
  return elements(out) * elements(in[1]) / channels(in[1]);
}
double work(const ir::Pool& pool, Metas in, Metas out) {
  return elements(in) + elements(out) * product(pool.kernel);
}
double work(const ir::AvgPoolGrad& grad, Metas in, Metas out) {
  return elements(out) + elements(in) * product(grad.pool.kernel);
}
/// The product of meta's dims before its last (1 for a rank below 2).
double rows(const ir::TensorMeta& meta) {
  const auto& dims = meta.shape.dims();
  double count = 1;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i)
    count *= static_cast<double>(dims[i]);
  return count;
}

/// q k^T and its product with v: batch * L * S * (E + Ev), q's rows times k's S times E + Ev.
double work(const ir::Attention&, Metas in, Metas) {
  const auto& k = in[1].shape.dims();
  const double keys = k.size() >= 2 ? static_cast<double>(k[k.size() - 2]) : 1.0;
  return rows(in[0]) * keys * (last_dim(in[0]) + last_dim(in[2]));
}
/// The forward's products again, and twice as many for the three gradients.
double work(const ir::AttentionGrad& grad, Metas in, Metas out) {
  return 3 * work(grad.attention, in, out);
}
template <typename Op>
double work(const Op&, Metas in, Metas out) {
  return elements(in) + elements(out);
}

std::string figure(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

}  // namespace

double op_work(const ir::Op& op, Metas inputs, Metas outputs) {
  return std::visit([&](const auto& o) { return work(o, inputs, outputs); }, op);
}

void WorkBudget::spend(const ir::Op& op, Metas inputs, Metas outputs) {
  const double made = elements(outputs);
  const double computed = op_work(op, inputs, outputs);
  const auto refuse = [&](const char* what, double spent, double asked, double limit,
                          const char* option) {
    throw ExecutionError("[remote] '" + ir::name(op) + "' would make the batch's " + what + " " +
                         figure(spent + asked) + " (" + figure(spent) + " before it, " +
                         figure(asked) + " its own), over the server's limit of " + figure(limit) +
                         " a batch (ember serve " + option + ")");
  };
  if (elements_ + made > max_elements_)
    refuse("elements made", elements_, made, max_elements_, "--max-batch-elements");
  if (work_ + computed > max_work_)
    refuse("element operations", work_, computed, max_work_, "--max-batch-work");
  elements_ += made;
  work_ += computed;
}

}  // namespace ember::serve
