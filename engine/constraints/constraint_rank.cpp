#include <loopsim/constraints/constraint_rank.hpp>

#include <Eigen/QR>
#include <sstream>
#include <string>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>

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

void throwRankDeficient(const ConstraintSet& set, const MatrixX& J, std::string_view solver) {
  Eigen::ColPivHouseholderQR<MatrixX> qr(J.transpose());
  qr.setThreshold(1e-9);
  const int rank = static_cast<int>(qr.rank());
  std::ostringstream os;
  os << "constraint set is rank deficient (rank " << rank << " of " << J.rows() << " rows); dependent rows:";
  const auto& perm = qr.colsPermutation().indices();
  for (int r = rank; r < J.rows(); ++r) os << (r == rank ? " " : ", ") << set.rowDescription(perm[r]);
  os << ". Use a proximal solver (e.g. prox-ltl) and declare `redundant: true` in the scene";
  throw ModelError(set.model().source_file, "solver '" + std::string(solver) + "'", os.str());
}

}  // namespace loopsim
