// `loopsim check SCENE_OR_MODEL`: validates a scene (.yaml) or a URDF model and
// describes it. Scenes: model sizes, constraints with their dimensions, the
// rank of J at q0, the consistent start, and which solvers can run the scene.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/control/holding_forces.hpp>
#include "info_command.hpp"
#include <loopsim/model/errors.hpp>
#include "input_file.hpp"
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/controller.hpp>
#include <loopsim/sim/simulation.hpp>
#include "sim_commands.hpp"
#include <loopsim/solvers/registry.hpp>
#include "text_table.hpp"

namespace loopsim::app {

namespace {

std::string number(double x) {
  std::ostringstream os;
  os.precision(4);
  os << x;
  return os.str();
}

std::string endName(const Model& model, int body, const SE3& placement) {
  std::string out = body == 0 ? "world" : model.body_names[body];
  if (!placement.isApprox(SE3::Identity(), 1e-15)) {
    out += " @ [" + number(placement.t.x()) + ", " + number(placement.t.y()) + ", " + number(placement.t.z()) + "]";
  }
  return out;
}

std::string rowNames(const Constraint& c) {
  std::string out;
  for (int r = 0; r < c.dimension(); ++r) {
    if (r > 0) out += " ";
    out += std::string(constraintRowName(c.kind, c.fullRow(r)));
  }
  return out;
}

void describeConstraints(const Scene& scene, std::ostream& out) {
  const Model& model = *scene.model;
  TextTable table({"name", "type", "end 1", "end 2", "dim", "rows"});
  for (const Constraint& c : scene.constraints) {
    std::string first, second;
    if (c.kind == ConstraintKind::Coupling) {
      for (std::size_t k = 0; k < c.coupling_joints.size(); ++k) {
        first += (k ? " + " : "") + number(c.coupling_coefficients[k]) + " " + model.joint_names[c.coupling_joints[k]];
      }
      second = "= " + number(c.coupling_offset);
    } else {
      first = endName(model, c.body1, c.placement1);
      second = endName(model, c.body2, c.placement2);
    }
    table.addRow({c.name, std::string(constraintKindName(c.kind)), first, second, std::to_string(c.dimension()),
                  rowNames(c)});
  }
  table.print(out);
}

// The force a constraint applies to its first body, in world axes, when it
// has all three translational rows (weld vx vy vz; connect and revolute x y z).
std::optional<Vector3> worldForce(const Constraint& c, const SE3& oMa, const VectorX& lambda, int offset) {
  if (c.kind == ConstraintKind::Coupling) return std::nullopt;
  const int first = c.kind == ConstraintKind::Weld ? 3 : 0;
  Vector3 f_a;
  for (int axis = 0; axis < 3; ++axis) {
    int row = -1;
    for (int r = 0; r < c.dimension(); ++r) {
      if (c.fullRow(r) == first + axis) row = r;
    }
    if (row < 0) return std::nullopt;
    f_a[axis] = lambda[offset + row];
  }
  return oMa.R * f_a;
}

std::string numbers(const Eigen::Ref<const VectorX>& x) {
  std::string out = "[";
  for (Eigen::Index i = 0; i < x.size(); ++i) out += (i ? " " : "") + number(x[i]);
  return out + "]";
}

// feedforward: hold: the least-effort holding torques at the consistent start
// and how the constraints share the load (throws when the pose cannot be held).
void describeHoldingForces(const Scene& scene, const ConstraintSet& set, const VectorX& q, std::ostream& out) {
  const Model& model = *scene.model;
  const HoldingForces hold = holdingForces(set, q, scene.actuated_joints);
  Eigen::Index worst = 0;
  hold.tau.cwiseAbs().maxCoeff(&worst);
  out << "\nholding forces at q0 (feedforward: hold; least actuator effort |tau|, then least |lambda|):\n"
      << "  load |g - tau_passive| " << number(hold.load.norm()) << ", actuators |tau| " << number(hold.tau.norm())
      << ", largest " << number(hold.tau[worst]) << " on '" << dofName(model, static_cast<int>(worst))
      << "', unbalanced " << number(hold.unbalanced.norm()) << '\n';
  if (set.dimension() == 0) return;
  Data data(model);
  ConstraintData cdata(set);
  computeConstraintTerms(set, data, q, VectorX::Zero(model.nv), cdata);
  TextTable table({"constraint", "lambda (frame A; rows as above)", "force on end 1, world axes [N]", "share of support"});
  double support = 0.0;  // Σ f_z of the world constraints: should equal the weight they carry
  std::vector<std::optional<Vector3>> forces;
  for (int i = 0; i < set.size(); ++i) {
    forces.push_back(worldForce(set[i], cdata.oMa[i], hold.lambda, set.rowOffset(i)));
    if (forces.back() && set[i].body2 == 0) support += forces.back()->z();
  }
  for (int i = 0; i < set.size(); ++i) {
    const Constraint& c = set[i];
    const std::optional<Vector3>& f = forces[static_cast<std::size_t>(i)];
    const std::string share = f && c.body2 == 0 && support != 0.0 ? number(100.0 * f->z() / support) + "%" : "";
    table.addRow({c.name, numbers(hold.lambda.segment(set.rowOffset(i), c.dimension())),
                  f ? numbers(*f) : "", share});
  }
  table.print(out);
  out << "  support by the world constraints: " << number(support) << " N vertical (weight of the model "
      << number(-model.totalMass() * model.gravity.z()) << " N)\n";
}

int checkScene(const std::filesystem::path& file) {
  const Scene scene = loadScene(file);  // strict validation: throws on any problem
  const Model& model = *scene.model;
  for (const std::string& w : scene.warnings) spdlog::warn("{}", w);
  std::cout << "scene:        " << scene.name << "  (" << file.string() << ")\n";
  if (!scene.description.empty()) std::cout << "description:  " << scene.description << '\n';
  std::cout << "model:        " << model.njoints() << " bodies, nq " << model.nq << ", nv " << model.nv << ", "
            << number(model.totalMass()) << " kg, " << (model.isFloatingBase() ? "floating base" : "fixed base")
            << '\n';
  for (const std::string& f : scene.model_files) std::cout << "  file:       " << f << '\n';
  std::cout << "gravity:      [" << number(model.gravity.x()) << ", " << number(model.gravity.y()) << ", "
            << number(model.gravity.z()) << "]\n";
  std::cout << "time:         dt " << scene.dt << " s, duration " << scene.duration << " s, Baumgarte T "
            << scene.time_constant << " s, projection " << (scene.projection ? "on" : "off") << '\n';
  std::cout << "controller:   " << controllerKindName(scene.controller.kind) << " on " << scene.actuated_joints.size()
            << " actuated joint" << (scene.actuated_joints.size() == 1 ? "" : "s");
  if (scene.controller.kind != ControllerSpec::Kind::None) {
    std::cout << " (kp " << scene.controller.kp << ", kd " << scene.controller.kd
              << (scene.controller.feedforward == ControllerSpec::Feedforward::Hold ? ", feedforward hold" : "") << ")";
  }
  std::cout << '\n';

  const ConstraintSet set(model, scene.constraints, scene.time_constant);
  std::cout << "\nconstraints:  " << set.size() << ", dimension " << set.dimension() << '\n';
  if (set.size() > 0) describeConstraints(scene, std::cout);

  // Rank and consistent start, at the state the simulation would start from.
  VectorX q = scene.q0, v = scene.v0;
  if (set.dimension() > 0) {
    const ProjectionResult start = makeConsistent(set, q, v, scene.held_joints);
    const ConstraintRank rank = constraintRank(model, scene.constraints, q);
    std::cout << "rank of J at q0: " << rank.rank << " of " << rank.dimension
              << (rank.rank < rank.dimension ? " (rank deficient)" : " (full rank)")
              << (scene.redundant ? ", declared redundant" : "") << '\n';
    for (int row : rank.dependent_rows) std::cout << "  dependent: " << set.rowDescription(row) << '\n';
    std::cout << "consistent start: |dq| = " << number(start.position_correction)
              << ", |dv| = " << number(start.velocity_correction) << ", |phi|inf = " << number(start.position_residual)
              << " after " << start.iterations << " iterations\n";
  }
  if (scene.controller.feedforward == ControllerSpec::Feedforward::Hold) {
    // On contacts the hold balances against the contacts the pose stands on (as the simulation does).
    const std::vector<Support> supports = supportsAt(scene, q);
    if (supports.empty()) {
      describeHoldingForces(scene, set, q, std::cout);
    } else {
      std::cout << "\nsupports:     " << supports.size() << " contact points the pose stands on (within "
                << kSupportReach << " m of the ground or an obstacle), as connect rows for the hold\n";
      const ConstraintSet holding(model, holdingConstraints(scene, supports), scene.time_constant);
      describeHoldingForces(scene, holding, q, std::cout);
    }
  }

  std::cout << "\nsolver:       " << scene.solver << " (supports this scene)\n";
  const SolverInfo* chosen = findSolver(scene.solver);
  if (scene.solver == "auto" || scene.solver_settings.mu_auto ||
      (chosen != nullptr && chosen->capabilities.penalty_in_inertia)) {
    // Resolved as `run` would: bound at the consistent start (timing probe,
    // power iteration; a penalty solver's default μ is auto, an explicit one is compared with it).
    const Simulation sim(scene);
    const SolverBinding& binding = sim.solverBinding();
    if (binding.selection) std::cout << "  " << binding.solverLine() << '\n';
    if (binding.auto_mu) std::cout << "  " << binding.muLine() << '\n';
    if (!binding.mu_warning.empty()) spdlog::warn("{}", binding.mu_warning);
  }
  std::cout << "other solvers able to run it:";
  int able = 0;
  for (const SolverInfo& info : solverRegistry()) {
    if (info.name == scene.solver) continue;
    try {
      requireSolver(scene.solverProblem(), info.name);
      std::cout << ' ' << info.name;
      ++able;
    } catch (const ModelError&) {
    }
  }
  std::cout << (able == 0 ? " none" : "") << "\n\nok\n";
  return 0;
}

int checkModel(const std::filesystem::path& file) {
  const Model model = loadAnyModel(file);
  printModelInfo(model, std::cout);
  std::cout << "\nok\n";
  return 0;
}

}  // namespace

Command registerCheckCommand(CLI::App& parent) {
  auto path = std::make_shared<std::string>();
  CLI::App* sub = parent.add_subcommand("check", "Validate a scene (.yaml) or a model (URDF .urdf, MJCF .xml) and describe it");
  sub->footer("Exit codes: 0 valid; 1 invalid (the error names the file, element and value).");
  sub->add_option("path", *path, "Scene (.yaml, .yml) or robot description (.urdf, MJCF .xml)")
      ->required();
  return {sub, [path] {
            const std::filesystem::path file(*path);
            return inputKindOf(file) == InputKind::Scene ? checkScene(file) : checkModel(file);
          }};
}

}  // namespace loopsim::app
