#include <loopsim/bench/contact_step_benchmark.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include <loopsim/bench/mujoco_scene.hpp>
#include <loopsim/bench/percentile.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim {

namespace {

using Clock = std::chrono::steady_clock;

// MuJoCo's warnings (by default appended to MUJOCO_LOG.TXT in the working
// directory) are kept for the report instead: the first of a run.
std::string first_mujoco_warning;
void keepMujocoWarning(const char* text) {
  if (first_mujoco_warning.empty()) first_mujoco_warning = text;
}

struct MujocoWarningsKept {
  MujocoWarningsKept() : previous(mju_user_warning) {
    first_mujoco_warning.clear();
    mju_user_warning = keepMujocoWarning;
  }
  ~MujocoWarningsKept() { mju_user_warning = previous; }
  MujocoWarningsKept(const MujocoWarningsKept&) = delete;
  MujocoWarningsKept& operator=(const MujocoWarningsKept&) = delete;
  void (*previous)(const char*);
};

RatioSpread spread(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  std::vector<double> ratio(a.size());
  for (std::size_t r = 0; r < a.size(); ++r) ratio[r] = a[r] / b[r];
  return {percentile(ratio, 0.5), percentile(ratio, 0.25), percentile(ratio, 0.75)};
}

// The z of the first free joint (the base's height; the first box's centre).
double baseHeight(const Model& model, const VectorX& q) {
  for (int j = 1; j <= model.njoints(); ++j) {
    if (model.joint_types[j] == JointType::Floating) return q[model.idx_q[j] + 2];
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double mujocoBaseHeight(const mjModel* m, const mjData* d) {
  for (int j = 0; j < m->njnt; ++j) {
    if (m->jnt_type[j] == mjJNT_FREE) return d->qpos[m->jnt_qposadr[j] + 2];
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// Base heights further apart than this at the end: the runs are not in like states.
constexpr double kUnlikeHeight = 0.05;

ContactBenchRow benchScene(const Scene& scene, const ContactBenchOptions& options) {
  const MujocoWarningsKept warnings;
  ContactBenchRow row;
  row.scene = scene.name;
  row.nv = scene.model->nv;
  const StepFactorization chosen = scene.contact_factorization.value_or(chooseFactorization(*scene.model));
  row.factorization = std::string(stepFactorizationName(chosen));

  Simulation main(scene);
  Scene other_scene = scene;
  other_scene.contact_solver =
      scene.contact_solver == ContactSolverKind::admm ? ContactSolverKind::pgs : ContactSolverKind::admm;
  Simulation other(other_scene);
  Simulation& admm = scene.contact_solver == ContactSolverKind::admm ? main : other;
  Simulation& pgs = scene.contact_solver == ContactSolverKind::admm ? other : main;
  // admm with the dense Cholesky of M̃ forced, when the tree chose the sparse factor.
  std::unique_ptr<Simulation> dense;
  if (chosen != StepFactorization::dense) {
    Scene dense_scene = scene;
    dense_scene.contact_solver = ContactSolverKind::admm;
    dense_scene.contact_factorization = StepFactorization::dense;
    dense = std::make_unique<Simulation>(dense_scene);
  }
  const mujoco_peer::MjModelPtr model = mujoco_peer::mujocoSceneModel(scene);
  const mujoco_peer::MjDataPtr data(mj_makeData(model.get()));
  mjModel* m = model.get();
  mjData* d = data.get();
  mujoco_peer::setMujocoState(admm, m, d);

  const long settle_steps = std::lround(options.settle / scene.dt);
  for (long k = 0; k < settle_steps; ++k) {
    admm.step();
    pgs.step();
    if (dense) dense->step();
    mj_step(m, d);
  }
  const int steps = options.steps;
  auto seconds = [steps](auto&& step) {
    const auto start = Clock::now();
    for (int k = 0; k < steps; ++k) step();
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  std::vector<double> t_admm, t_pgs, t_mj, t_dense;
  long loopsim_contacts = 0, mujoco_contacts = 0;
  for (int r = 0; r < options.rounds; ++r) {
    // The four columns in an order rotated by one each round.
    for (int c = 0; c < 4; ++c) {
      switch ((c + r) % 4) {
        case 0:
          t_admm.push_back(seconds([&] {
            admm.step();
            row.admm_iterations = std::max(row.admm_iterations, admm.lastUnilateralStep().solve.iterations);
          }));
          break;
        case 1: t_mj.push_back(seconds([&] { mj_step(m, d); })); break;
        case 2:
          t_pgs.push_back(seconds([&] {
            pgs.step();
            row.pgs_iterations = std::max(row.pgs_iterations, pgs.lastUnilateralStep().solve.iterations);
          }));
          break;
        default:
          if (dense) t_dense.push_back(seconds([&] { dense->step(); }));
          break;
      }
    }
    loopsim_contacts += admm.lastUnilateralStep().contacts;  // counted outside the timed steps
    mujoco_contacts += d->ncon;
  }
  const double per_step = 1e6 / steps;
  row.admm_us = percentile(t_admm, 0.5) * per_step;
  row.pgs_us = percentile(t_pgs, 0.5) * per_step;
  row.mujoco_us = percentile(t_mj, 0.5) * per_step;
  row.admm_to_mujoco = spread(t_admm, t_mj);
  row.pgs_to_mujoco = spread(t_pgs, t_mj);
  row.chosen_to_dense = dense ? spread(t_admm, t_dense) : spread({}, {});
  row.loopsim_contacts = static_cast<double>(loopsim_contacts) / options.rounds;
  row.mujoco_contacts = static_cast<double>(mujoco_contacts) / options.rounds;
  row.loopsim_height = baseHeight(*scene.model, admm.q());
  row.mujoco_height = mujocoBaseHeight(m, d);
  row.real_time_factor = scene.dt / (row.admm_us * 1e-6);
  row.mujoco_warning = first_mujoco_warning;
  return row;
}

}  // namespace

std::vector<ContactBenchRow> runContactStepBenchmark(const std::vector<Scene>& scenes,
                                                     const ContactBenchOptions& options,
                                                     const std::function<void(const Scene&)>& progress) {
  // Every scene is checked (and given to MuJoCo) before the first is timed.
  {
    const MujocoWarningsKept warnings;
    for (const Scene& scene : scenes) (void)mujoco_peer::mujocoSceneText(scene);
  }
  std::vector<ContactBenchRow> rows;
  for (const Scene& scene : scenes) {
    if (progress) progress(scene);
    rows.push_back(benchScene(scene, options));
  }
  return rows;
}

std::string formatContactBenchTable(const std::vector<ContactBenchRow>& rows, const ContactBenchOptions& options) {
  std::string out;
  char line[1000];
  std::snprintf(line, sizeof line,
                "%-22s %4s %6s | %9s %9s %9s | %-18s %-18s | %-18s | %6s | %11s %11s | %9s\n", "scene", "nv",
                "factor", "admm us", "pgs us", "mj us", "admm/mj [q1 q3]", "pgs/mj [q1 q3]", "factor/dense [q1 q3]",
                "RTF", "contacts", "base z (m)", "iter");
  out += line;
  auto ratio = [](const RatioSpread& r) {
    char text[40];
    if (std::isnan(r.median)) return std::string("-");
    std::snprintf(text, sizeof text, "%.2f [%.2f %.2f]", r.median, r.lower_quartile, r.upper_quartile);
    return std::string(text);
  };
  for (const ContactBenchRow& row : rows) {
    char contacts[40], heights[40], iterations[40];
    std::snprintf(contacts, sizeof contacts, "%.1f / %.1f", row.loopsim_contacts, row.mujoco_contacts);
    std::snprintf(heights, sizeof heights, "%.4f/%.4f", row.loopsim_height, row.mujoco_height);
    std::snprintf(iterations, sizeof iterations, "%d / %d", row.admm_iterations, row.pgs_iterations);
    std::snprintf(line, sizeof line, "%-22s %4d %6s | %9.2f %9.2f %9.2f | %-18s %-18s | %-20s | %5.0fx | %11s %11s | %9s\n",
                  row.scene.c_str(), row.nv, row.factorization.c_str(), row.admm_us, row.pgs_us, row.mujoco_us,
                  ratio(row.admm_to_mujoco).c_str(), ratio(row.pgs_to_mujoco).c_str(),
                  ratio(row.chosen_to_dense).c_str(), row.real_time_factor, contacts, heights, iterations);
    out += line;
  }
  std::snprintf(line, sizeof line,
                "\n%d rounds of %d steps after %.2f s of settling; per round the columns (loopsim admm, mj_step, "
                "loopsim pgs,\nadmm with the dense factor of M~) run in an order rotated by one; ratios: median of "
                "per-round ratios\n[lower, upper quartile]. RTF: dt / admm's median step. contacts and base z: "
                "loopsim / MuJoCo\n(mean over rounds; z of the first free joint at the end; MuJoCo's contact is "
                "soft, so it sits lower).\niter: the most admm iterations / pgs sweeps in a timed step.\n",
                options.rounds, options.steps, options.settle);
  out += line;
  for (const ContactBenchRow& row : rows) {
    // A ratio of unlike states measures unlike work: say so beside the table.
    if (std::abs(row.loopsim_height - row.mujoco_height) > kUnlikeHeight) {
      std::snprintf(line, sizeof line,
                    "%s: the two runs end in unlike states (base z %.3f m vs MuJoCo's %.3f m): its ratios compare "
                    "unlike work\n",
                    row.scene.c_str(), row.loopsim_height, row.mujoco_height);
      out += line;
    }
    if (!row.mujoco_warning.empty()) out += row.scene + ": MuJoCo warned: " + row.mujoco_warning + "\n";
  }
  return out;
}

std::string formatContactBenchCsv(const std::vector<ContactBenchRow>& rows) {
  std::string out =
      "scene,nv,factorization,admm_us,pgs_us,mujoco_us,admm_to_mujoco,admm_to_mujoco_q1,admm_to_mujoco_q3,"
      "pgs_to_mujoco,pgs_to_mujoco_q1,pgs_to_mujoco_q3,factor_to_dense,real_time_factor,loopsim_contacts,"
      "mujoco_contacts,loopsim_base_z,mujoco_base_z,admm_iterations,pgs_iterations\n";
  char line[600];
  for (const ContactBenchRow& row : rows) {
    std::snprintf(line, sizeof line,
                  "%s,%d,%s,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.4g,%.3g,%.3g,%.6g,%.6g,%d,%d\n",
                  row.scene.c_str(), row.nv, row.factorization.c_str(), row.admm_us, row.pgs_us, row.mujoco_us,
                  row.admm_to_mujoco.median, row.admm_to_mujoco.lower_quartile, row.admm_to_mujoco.upper_quartile,
                  row.pgs_to_mujoco.median, row.pgs_to_mujoco.lower_quartile, row.pgs_to_mujoco.upper_quartile,
                  row.chosen_to_dense.median, row.real_time_factor, row.loopsim_contacts, row.mujoco_contacts,
                  row.loopsim_height, row.mujoco_height, row.admm_iterations, row.pgs_iterations);
    out += line;
  }
  return out;
}

}  // namespace loopsim
