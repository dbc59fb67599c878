#include <loopsim/delassus/delassus.hpp>

#include <loopsim/delassus/delassus_algorithms.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/name_suggestion.hpp>

namespace loopsim {

namespace {

using Factory = std::unique_ptr<DelassusAlgorithm> (*)(const ConstraintSet&, const std::vector<int>& independent_dofs);

// The algorithms that take no independent joints.
template <std::unique_ptr<DelassusAlgorithm> (*Make)(const ConstraintSet&)>
std::unique_ptr<DelassusAlgorithm> withoutJoints(const ConstraintSet& set, const std::vector<int>&) {
  return Make(set);
}

struct Entry {
  DelassusAlgorithmInfo info;
  Factory make;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = {
      {{"dense", "CRBA, Cholesky of M, J M⁻¹ Jᵀ (reference)", false}, &withoutJoints<&detail::makeDenseDelassus>},
      {{"ltl-osim", "sparse LTDL of M, Λ⁻¹ = Yᵀ D⁻¹ Y (Featherstone 2010)", false}, &withoutJoints<&detail::makeLtlOsim>},
      {{"pv-osim", "PV backward sweep, L_0^A (paper 000 Alg. 2), O(n + m²d)", true}, &withoutJoints<&detail::makePvOsim>},
      {{"efpa", "extended force propagators (paper 002 Alg. 2), O(n + md + m²)", true}, &withoutJoints<&detail::makeEfpa>},
      {{"pv-osimr", "propagators between branching links (paper 002 Alg. 3), O(n + m²)", true},
       &withoutJoints<&detail::makePvOsimr>},
      {{"dense-closed", "dense with the internal loops closed: Schur complement of the loop rows (reference)", false,
        true},
       &withoutJoints<&detail::makeDenseClosedDelassus>},
      {{"cluster-efpa", "extended force propagators over loop clusters (paper 004 §VIII), loops closed", false, true,
        true},
       &detail::makeClusterEfpa},
      {{"projection", "the projection method J_W G (Gᵀ M G)⁻¹ Gᵀ J_Wᵀ, dense (paper 004 §II-E), loops closed", false,
        true, true},
       &detail::makeProjectionDelassus},
  };
  return list;
}

}  // namespace

const std::vector<DelassusAlgorithmInfo>& delassusAlgorithms() {
  static const std::vector<DelassusAlgorithmInfo> infos = [] {
    std::vector<DelassusAlgorithmInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

std::unique_ptr<DelassusAlgorithm> makeDelassusAlgorithm(const std::string& name, const ConstraintSet& set,
                                                         const std::vector<int>& independent_dofs) {
  std::vector<std::string> names;
  for (const Entry& e : entries()) {
    if (e.info.name == name) return e.make(set, independent_dofs);
    names.push_back(e.info.name);
  }
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  throw ModelError(set.model().source_file, "delassus algorithm",
                   "unknown algorithm '" + name + "'" + didYouMean(name, names) + "; available: " + all);
}

MatrixX computeDelassus(const ConstraintSet& set, const Eigen::Ref<const VectorX>& q, const std::string& algorithm,
                        const std::vector<int>& independent_dofs) {
  auto a = makeDelassusAlgorithm(algorithm, set, independent_dofs);
  MatrixX out = MatrixX::Zero(set.dimension(), set.dimension());
  a->compute(q, out);
  return out;
}

}  // namespace loopsim
