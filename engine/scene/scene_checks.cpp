// Load-time checks that need the dynamics: the constraint rank at q0 and
// whether a solver can run the scene.
#include <Eigen/QR>
#include <algorithm>
#include <sstream>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/solvers/loops/cluster_spanning.hpp>
#include <loopsim/solvers/registry.hpp>

namespace loopsim {

namespace {
// Pivots below this fraction of the largest count as zero: rows dependent to
// ~1e-9 relative are redundant for any exact solver in double precision.
constexpr double kRankThreshold = 1e-9;
}  // namespace

bool rankCheckAffordable(const Model& model, int rows) {
  return static_cast<double>(model.nv) * rows * rows <= kRankCheckMaxFlops;
}

ConstraintRank constraintRank(const Model& model, const std::vector<Constraint>& constraints, const VectorX& q) {
  const ConstraintSet set(model, constraints);
  ConstraintRank out;
  out.dimension = set.dimension();
  if (out.dimension == 0) return out;
  Data data(model);
  ConstraintData cdata(set);
  const VectorX v = VectorX::Zero(model.nv);
  computeConstraintTerms(set, data, q, v, cdata, kConstraintErrors | kConstraintJacobian);
  // Pivoting on the columns of Jᵀ picks independent rows of J first.
  Eigen::ColPivHouseholderQR<MatrixX> qr(cdata.J.transpose());
  qr.setThreshold(kRankThreshold);
  out.rank = static_cast<int>(qr.rank());
  if (out.rank == out.dimension) return out;
  // Name the rows that depend on earlier ones: a greedy pass in row order
  // (Gram-Schmidt, twice for stability) blames the later duplicate, which is
  // what a reader expects, where the pivot order would be arbitrary on ties.
  const MatrixX& J = cdata.J;
  const double scale = J.rowwise().norm().maxCoeff();
  MatrixX basis(model.nv, 0);
  for (int r = 0; r < out.dimension; ++r) {
    VectorX residual = J.row(r).transpose();
    for (int pass = 0; pass < 2; ++pass) residual -= basis * (basis.transpose() * residual);
    if (residual.norm() > kRankThreshold * scale) {
      basis.conservativeResize(Eigen::NoChange, basis.cols() + 1);
      basis.rightCols<1>() = residual.normalized();
    } else {
      out.dependent_rows.push_back(r);
    }
  }
  return out;
}

std::vector<std::string> autoSolverCandidates(const Scene& scene, std::string* reasons) {
  std::vector<std::string> out;
  for (const auto& info : solverRegistry()) {
    if (info.capabilities.soft) continue;
    try {
      checkSolverForScene(scene, info.name);
      out.push_back(info.name);
    } catch (const ModelError& e) {
      if (reasons != nullptr) *reasons += (reasons->empty() ? "" : "; ") + e.element() + ": " + e.message();
    }
  }
  return out;
}

std::string solverRefusal(const Scene& scene, const std::string& solver_name) {
  try {
    checkSolverForScene(scene, solver_name);
  } catch (const ModelError& e) {
    return e.message();
  }
  return {};
}

void checkSolverForScene(const Scene& scene, const std::string& solver_name) {
  const std::string& file = scene.source_file;
  if (solver_name == "auto") {
    std::string reasons;
    if (autoSolverCandidates(scene, &reasons).empty()) {
      // An undeclared rank deficiency fails every exact solver alike: say that directly.
      if (!scene.redundant) checkSolverForScene(scene, "kkt");
      throw ModelError(file, "solver 'auto'", "no exact solver can run this scene (" + reasons + ")");
    }
    return;
  }
  const SolverInfo* info = findSolver(solver_name);
  std::string all;
  std::vector<std::string> names;
  for (const auto& s : solverRegistry()) {
    all += (all.empty() ? "" : ", ") + s.name;
    names.push_back(s.name);
  }
  if (info == nullptr) {
    throw ModelError(file, "solver",
                     "unknown solver '" + solver_name + "'" + didYouMean(solver_name, names) + "; available: " + all);
  }
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  const SolverCapabilities& caps = info->capabilities;
  const std::string missing = missingCapability(caps, set);
  if (!missing.empty()) {
    throw ModelError(file, "solver '" + solver_name + "'", "does not support " + missing + ", which this scene needs");
  }
  if (scene.redundant && !caps.redundant && !caps.soft) {
    throw ModelError(file, "solver '" + solver_name + "'",
                     "does not support redundant constraint sets, which this scene declares (redundant: true); use "
                     "a proximal solver such as prox-ltl");
  }
  if (caps.needs_independent_joints) {
    checkClustersAt(set, scene.solver_settings.independent_dofs, scene.q0, "solver '" + solver_name + "'");
  }
  if (scene.redundant || caps.soft) return;
  // Beyond the budget the scene loader has warned that the rank is not checked.
  if (!rankCheckAffordable(*scene.model, set.dimension())) return;
  const ConstraintRank rank = constraintRank(*scene.model, scene.constraints, scene.q0);
  if (rank.rank == rank.dimension) return;
  std::ostringstream os;
  os << "the constraint set is rank-deficient at the initial configuration (rank " << rank.rank << " of "
     << rank.dimension << "); dependent rows: ";
  for (std::size_t k = 0; k < rank.dependent_rows.size(); ++k) {
    os << (k ? ", " : "") << set.rowDescription(rank.dependent_rows[k]);
  }
  os << ". Exact solver '" << solver_name
     << "' needs independent rows: drop them (rows: [...]) or declare 'redundant: true' and use a proximal solver "
        "such as prox-ltl";
  throw ModelError(file, "constraints", os.str());
}

}  // namespace loopsim
