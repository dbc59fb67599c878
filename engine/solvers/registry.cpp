#include <loopsim/solvers/registry.hpp>

#include <algorithm>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/solvers/joint_space/kkt_solver.hpp>
#include <loopsim/solvers/joint_space/ltl_solver.hpp>
#include <loopsim/solvers/joint_space/prox_ltl_solver.hpp>
#include <loopsim/solvers/loops/cluster_aba_solver.hpp>
#include <loopsim/solvers/loops/lcaba_solver.hpp>
#include <loopsim/solvers/loops/projection_method_solver.hpp>
#include <loopsim/solvers/loops/prox_bbo_solver.hpp>
#include <loopsim/solvers/recursive/constrained_aba_solver.hpp>
#include <loopsim/solvers/recursive/prox_pv_solver.hpp>
#include <loopsim/solvers/recursive/pv_early_solver.hpp>
#include <loopsim/solvers/recursive/pv_soft_solver.hpp>
#include <loopsim/solvers/recursive/pv_solver.hpp>
#include <loopsim/solvers/joint_space/soft_ltl_solver.hpp>

namespace loopsim {

namespace {

template <class SolverType>
SolverInfo entry(std::string name, std::string description) {
  return {std::move(name), std::move(description), SolverType::staticCapabilities(),
          [](const ConstraintSet& set, const SolverSettings& settings) -> std::unique_ptr<ConstrainedSolver> {
            return std::make_unique<SolverType>(set, settings);
          }};
}

}  // namespace

std::string describeCapabilities(const SolverCapabilities& c) {
  std::string out;
  auto add = [&](bool on, const char* what) {
    if (!on) return;
    if (!out.empty()) out += ", ";
    out += what;
  };
  add(c.world_constraints, "world constraints");
  add(c.internal_loops, "internal loops");
  add(c.couplings, "couplings");
  add(c.redundant, "redundant sets");
  out += c.soft ? "; soft" : "; exact";
  out += c.iterative ? ", iterative" : ", direct";
  return out;
}

const std::vector<SolverInfo>& solverRegistry() {
  static const std::vector<SolverInfo> registry = {
      entry<KktSolver>("kkt", "dense reference: CRBA, Cholesky of M and of the Delassus matrix J M⁻¹ Jᵀ"),
      entry<LtlSolver>("ltl",
                       "sparse LTDL of M (Featherstone 2005) and the Delassus matrix through it (LTL-OSIM, "
                       "Featherstone 2010); full-rank sets"),
      entry<ProxLtlSolver>("prox-ltl",
                           "proximal dynamics (paper 003 eqs. 4-5, paper 001 eq. 13) on the LTL factors: one "
                           "Cholesky of J M⁻¹ Jᵀ + μ⁻¹I, then proximal iterations; redundant sets"),
      entry<SoftLtlSolver>("soft-ltl",
                           "soft Gauss principle in joint space (paper 000 §VI, as in MuJoCo): LTL factors, "
                           "Cholesky of J M⁻¹ Jᵀ + W⁻¹; per-constraint weights"),
      entry<PvSolver>("pv",
                      "Popov-Vereshchagin (paper 000 Alg. 1): world constraints on trees, O(n + m²d + m³); floating "
                      "base by eq. 49 or eqs. 47-48, chosen per solve; full-rank sets"),
      entry<PvEarlySolver>("pv-early",
                           "PV with early elimination of multipliers (paper 000 §VIII, eqs. 56-68): world "
                           "constraints on trees, O(n + m) while at most 6 rows travel; full-rank sets"),
      entry<PvSoftSolver>("pv-soft",
                          "soft Gauss principle (paper 000 §VI): eq. 52 through ABA, O(n + m), while the "
                          "weights are soft enough for its round-off, else the compliance form on PV's recursion "
                          "(L^A + W⁻¹ at the root, pv's cost); world constraints on trees, per-constraint "
                          "weights; soft-ltl's problem"),
      entry<ConstrainedAbaSolver>("constrained-aba",
                                  "augmented-Lagrangian ABA (paper 001 Alg. 1-3, §IV-A eq. 35): world constraints "
                                  "on trees, O(n + m) per iteration, reduced two-sweep after the first; redundant "
                                  "sets"),
      entry<ProxPvSolver>("prox-pv",
                          "dual proximal point on PV's recursion (paper 001 Alg. 4-6 for world constraints): "
                          "one Cholesky of L_0 + μ⁻¹I at the root, keeps PV's m³ root solve; redundant sets"),
      entry<LcabaSolver>("lcaba",
                         "loop-constrained ABA (paper 001 Alg. 1-3): augmented Lagrangian, links eliminated in a "
                         "minimum-degree order with loop-coupling inertias, reduced two-sweep after the first "
                         "iteration; internal loops, world constraints, redundant sets; no couplings"),
      entry<ProxBboSolver>("prox-bbo",
                           "proximal BBO (paper 001 Alg. 4-6): dual proximal point, multipliers eliminated "
                           "early at their loop roots (Cholesky of L_RR), world-reaching ones at the world, "
                           "factors reused by the reduced two-sweep; internal loops, redundant sets; no couplings"),
      entry<ClusterAbaSolver>("cluster-aba",
                              "cluster-based ABA (paper 004 Alg. 1): bodies of each loop or coupling clustered, "
                              "G from K's null space on the scene's declared independent coordinates, ABA over the "
                              "cluster tree; couplings, internal loops, world constraints (their path to the root "
                              "joins the cluster); full-rank sets; needs the scene key 'independent'"),
      entry<ProjectionMethodSolver>("projection-method",
                                    "projection method (paper 004 §II-D, its C-ABA's exact baseline): the spanning "
                                    "tree's CRBA projected on the independent coordinates by cluster-aba's G, "
                                    "(Gᵀ M G)⁻¹ by a dense Cholesky; as cluster-aba: couplings, internal loops, world "
                                    "constraints, full-rank sets; needs the scene key 'independent'"),
  };
  return registry;
}

const SolverInfo* findSolver(const std::string& name) {
  for (const auto& info : solverRegistry()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

std::string missingCapability(const SolverCapabilities& caps, const ConstraintSet& set) {
  if (set.hasWorldConstraints() && !caps.world_constraints) return "constraints to the world";
  if (set.hasInternalLoops() && !caps.internal_loops) return "internal loops (constraints between two moving bodies)";
  if (set.hasCouplings() && !caps.couplings) return "joint couplings";
  return {};
}

std::string unsupportedCapabilityMessage(const std::string& missing) {
  return "does not support " + missing + ", which this scene needs";
}

std::string unknownSolverMessage(const std::string& name) {
  std::vector<std::string> names;
  std::string all;
  for (const auto& s : solverRegistry()) {
    names.push_back(s.name);
    all += (all.empty() ? "" : ", ") + s.name;
  }
  return "unknown solver '" + name + "'" + didYouMean(name, names) + "; available: " + all;
}

std::unique_ptr<ConstrainedSolver> makeSolver(const std::string& name, const ConstraintSet& set,
                                              const SolverSettings& settings) {
  const SolverInfo* info = findSolver(name);
  if (info == nullptr) throw ModelError("", "solver", unknownSolverMessage(name));
  const std::string missing = missingCapability(info->capabilities, set);
  if (!missing.empty()) {
    throw ModelError("", "solver '" + name + "'", unsupportedCapabilityMessage(missing));
  }
  return info->make(set, settings);
}

}  // namespace loopsim
