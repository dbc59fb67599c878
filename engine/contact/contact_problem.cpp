#include <loopsim/contact/contact_problem.hpp>

#include <cmath>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>

namespace loopsim {

namespace {

[[noreturn]] void refuseBlock(const std::vector<ContactBlock>& blocks, int block, const std::string& message) {
  throw ModelError("", "contact problem: " + describeContactBlock(blocks, block), message);
}

void checkFriction(const std::vector<ContactBlock>& blocks, int block, double mu) {
  // +∞ is a meaningful limit (no slip); NaN and negative values are not.
  if (!(mu >= 0.0)) refuseBlock(blocks, block, "friction coefficient mu must be >= 0, got " + numberText(mu));
}

}  // namespace

const char* contactBlockKindName(ContactBlockKind kind) {
  switch (kind) {
    case ContactBlockKind::frictional:
      return "frictional";
    case ContactBlockKind::unilateral:
      return "unilateral";
    case ContactBlockKind::bilateral:
      return "bilateral";
  }
  return "unknown";
}

std::string describeContactBlock(const std::vector<ContactBlock>& blocks, int block) {
  const ContactBlock& b = blocks[static_cast<std::size_t>(block)];
  std::string rows = b.rows == 1 ? "row " + std::to_string(b.first)
                                 : "rows " + std::to_string(b.first) + "-" + std::to_string(b.first + b.rows - 1);
  return "block " + std::to_string(block) + " (" + contactBlockKindName(b.kind) + ", " + rows + ")";
}

void ContactProblem::resize(int m, const std::vector<ContactBlock>& blocks) {
  if (m < 0) throw ModelError("", "contact problem", "size must be >= 0, got " + std::to_string(m));
  int next_row = 0;
  for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
    const ContactBlock& b = blocks[static_cast<std::size_t>(i)];
    if (b.first != next_row) {
      refuseBlock(blocks, i, "starts at row " + std::to_string(b.first) + ", expected row " + std::to_string(next_row) +
                                 " (the blocks cover the rows one after the other)");
    }
    const int expected = b.kind == ContactBlockKind::frictional ? 3 : b.kind == ContactBlockKind::unilateral ? 1 : -1;
    if ((expected > 0 && b.rows != expected) || b.rows < 1) {
      refuseBlock(blocks, i,
                  "has " + std::to_string(b.rows) + " rows, expected " +
                      (expected > 0 ? std::to_string(expected) : std::string("at least 1")));
    }
    if (b.kind == ContactBlockKind::frictional) checkFriction(blocks, i, b.mu);
    next_row += b.rows;
  }
  if (next_row != m) {
    throw ModelError("", "contact problem",
                     "the blocks cover " + std::to_string(next_row) + " rows, the problem has " + std::to_string(m));
  }
  blocks_ = blocks;
  G_.setZero(m, m);
  g_.setZero(m);
}

void ContactProblem::setFriction(int block, double mu) {
  if (block < 0 || block >= static_cast<int>(blocks_.size())) {
    throw ModelError("", "contact problem", "no block " + std::to_string(block) + " (the problem has " +
                                                std::to_string(blocks_.size()) + ")");
  }
  if (blocks_[static_cast<std::size_t>(block)].kind != ContactBlockKind::frictional) {
    refuseBlock(blocks_, block, "has no friction coefficient");
  }
  checkFriction(blocks_, block, mu);
  blocks_[static_cast<std::size_t>(block)].mu = mu;
}

void ContactProblem::velocity(const Eigen::Ref<const VectorX>& lambda, Eigen::Ref<VectorX> v) const {
  v = g_;
  v.noalias() += G_ * lambda;
}

}  // namespace loopsim
