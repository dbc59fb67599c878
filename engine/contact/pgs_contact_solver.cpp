#include <loopsim/contact/pgs_contact_solver.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

constexpr std::string_view kName = "pgs";

double inverseOrZero(double d) { return d > 0.0 ? 1.0 / d : 0.0; }

// The largest eigenvalue of the symmetric 2 x 2 [[a, b], [b, c]].
double largestEigenvalue2(double a, double b, double c) {
  const double mean = 0.5 * (a + c);
  const double half_gap = 0.5 * (a - c);
  return mean + std::sqrt(half_gap * half_gap + b * b);
}

}  // namespace

PgsContactSolver::PgsContactSolver(const ContactSolverSettings& settings) : settings_(settings) {
  checkContactSolverSettings(settings_, kName);
}

void PgsContactSolver::setSettings(const ContactSolverSettings& settings) {
  checkContactSolverSettings(settings, kName);
  settings_ = settings;
}

void PgsContactSolver::resize(const ContactProblem& problem) {
  blocks_ = problem.blocks();
  const std::size_t n = blocks_.size();
  steps_.assign(n, 0.0);
  tangent_steps_.assign(n, 0.0);
  bilateral_.clear();
  int widest = 0;
  for (const ContactBlock& b : blocks_) {
    bilateral_.emplace_back(b.kind == ContactBlockKind::bilateral ? b.rows : 0);
    widest = std::max(widest, b.rows);
  }
  v_.setZero(problem.size());
  local_.setZero(widest);
}

bool PgsContactSolver::sameBlocks(const ContactProblem& problem) const {
  const auto& other = problem.blocks();
  if (other.size() != blocks_.size() || problem.size() != size()) return false;
  for (std::size_t i = 0; i < other.size(); ++i) {
    if (other[i].kind != blocks_[i].kind || other[i].first != blocks_[i].first || other[i].rows != blocks_[i].rows) {
      return false;
    }
  }
  return true;
}

ContactSolverResult PgsContactSolver::solve(const ContactProblem& problem, Eigen::Ref<VectorX> lambda) {
  if (!sameBlocks(problem) || lambda.size() != problem.size()) {
    throw ModelError("", "contact solver 'pgs'",
                     "sized for other blocks or rows (resize with this problem first): " + std::to_string(size()) +
                         " rows in " + std::to_string(blocks_.size()) + " blocks, the problem has " +
                         std::to_string(problem.size()) + " in " + std::to_string(problem.blocks().size()) +
                         ", lambda " + std::to_string(lambda.size()));
  }
  const MatrixX& G = problem.G();
  const VectorX& g = problem.g();
  const auto& blocks = problem.blocks();
  const double omega = settings_.over_relaxation;
  ContactSolverResult result;

  problem.velocity(lambda, v_);
  result.residuals = contactResiduals(problem, lambda, v_);
  if (result.residuals.worst() <= settings_.tolerance) {
    result.converged = true;
    return result;
  }

  // The diagonal steps and the bilateral factors, once per solve (G changes between solves).
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const ContactBlock& b = blocks[i];
    const int r = b.first;
    switch (b.kind) {
      case ContactBlockKind::frictional:
        steps_[i] = inverseOrZero(G(r + 2, r + 2));
        tangent_steps_[i] = inverseOrZero(largestEigenvalue2(G(r, r), G(r, r + 1), G(r + 1, r + 1)));
        break;
      case ContactBlockKind::unilateral:
        steps_[i] = inverseOrZero(G(r, r));
        break;
      case ContactBlockKind::bilateral:
        if (!(bilateral_[i].factorize(G.block(r, r, b.rows, b.rows)) > kCholeskyCollapseRatio)) {
          throw ModelError("", "contact solver 'pgs'",
                           describeContactBlock(blocks, static_cast<int>(i)) +
                               ": its diagonal block of G is singular (redundant bilateral rows); PGS solves it exactly");
        }
        break;
    }
  }

  for (int k = 1; k <= settings_.max_iterations; ++k) {
    result.iterations = k;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      const ContactBlock& b = blocks[i];
      const int r = b.first;
      auto local = local_.head(b.rows);
      // This block's rows of v = G λ + g with the blocks before it already updated.
      local.noalias() = G.middleRows(r, b.rows) * lambda;
      local += g.segment(r, b.rows);
      switch (b.kind) {
        case ContactBlockKind::frictional: {
          const double normal = std::max(lambda[r + 2] - omega * steps_[i] * local[2], 0.0);
          const double change = normal - lambda[r + 2];
          lambda[r + 2] = normal;
          local.head<2>() += change * G.block<2, 1>(r, r + 2);
          auto tangent = lambda.segment<2>(r);
          tangent -= omega * tangent_steps_[i] * local.head<2>();
          if (!std::isinf(b.mu)) {
            const double radius = b.mu * normal;
            const double norm = tangent.norm();
            if (norm > radius) tangent *= norm > 0.0 ? radius / norm : 0.0;
          }
          break;
        }
        case ContactBlockKind::unilateral:
          lambda[r] = std::max(lambda[r] - omega * steps_[i] * local[0], 0.0);
          break;
        case ContactBlockKind::bilateral:
          bilateral_[i].solveInPlace(local);
          lambda.segment(r, b.rows) -= omega * local;
          break;
      }
    }
    problem.velocity(lambda, v_);
    result.residuals = contactResiduals(problem, lambda, v_);
    if (result.residuals.worst() <= settings_.tolerance) {
      result.converged = true;
      break;
    }
  }
  return result;
}

}  // namespace loopsim
