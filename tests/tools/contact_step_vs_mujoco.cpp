// A contact step of loopsim against MuJoCo's mj_step on the same model (run by
// hand; docs/performance.md quotes it): the cube of scenes/box_drop.yaml resting
// on its four corners, the cube of scenes/box_incline_slide.yaml sliding, and
// Go1 of scenes/go1_ground.yaml standing on its four foot spheres, Atlas of
// scenes/atlas_ground.yaml and Digit of scenes/digit_ground.yaml on their soles
// (MuJoCo reads the same URDF, its <collision> elements as geoms, or Digit's
// MJCF, its loops as MuJoCo's connect equalities, with a floor, position
// actuators for the PD's kp, joint damping for its kd and the holding
// feed-forward as applied joint forces).
// MuJoCo with the elliptic cone, the Euler integrator at the same dt, its default
// solver (Newton) and a stiff constraint setting. Rounds interleave the two (and
// loopsim's admm and pgs, and admm with the dense factor of M̃ forced); the
// report is the median of the per-round ratios.
//
//   loopsim_contact_step_vs_mujoco [rounds] [steps per round] [rest | slide | go1 | atlas | digit]
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>

#include "mujoco_cube.hpp"
#include "mujoco_handles.hpp"
#include "mujoco_urdf.hpp"
#include "text_file.hpp"

namespace {

using namespace loopsim;
using Clock = std::chrono::steady_clock;

std::filesystem::path scenesDir() { return std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes"; }

template <class F>
double seconds(int steps, F&& step) {
  const auto start = Clock::now();
  for (int k = 0; k < steps; ++k) step();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x[x.size() / 2];
}

std::string insertAfter(std::string text, const std::string& anchor, const std::string& what) {
  const auto at = text.find(anchor);
  if (at == std::string::npos) throw std::runtime_error("no " + anchor + " in MuJoCo's saved model");
  return text.insert(at + anchor.size(), what);
}

// The scene's robot URDF as MuJoCo compiles it, saved as MJCF and given a floor
// (the scene's ground), the contact settings of the cube and, per actuated
// joint, the PD's kp as a position actuator (its kd is the joints' damping:
// withDamping).
std::string mujocoRobotOnGround(const Scene& scene, const std::filesystem::path& urdf, double kp) {
  const Model& model = *scene.model;
  test::loadMujocoText(test::mujocoUrdf(test::readTextFile(urdf), model.body_names.at(1), true), "robot.urdf");
  const std::filesystem::path saved =
      std::filesystem::temp_directory_path() / ("loopsim_contact_bench_" + std::to_string(::getpid()) + ".xml");
  char error[1000] = "";
  if (mj_saveLastXML(saved.string().c_str(), nullptr, error, sizeof error) == 0) {
    throw std::runtime_error(std::string("MuJoCo cannot save the model: ") + error);
  }
  std::string xml = test::readTextFile(saved);
  std::filesystem::remove(saved);
  const double mu = scene.geometry->geometry(scene.geometry->geometryId("ground")).friction;
  xml = insertAfter(xml, "<worldbody>",
                    "\n    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\" friction=\"" + std::to_string(mu) +
                        " 0 0\"/>");
  std::string actuators = "\n  <actuator>";
  for (int j = 1; j <= model.njoints(); ++j) {
    if (model.joint_nv[j] != 1) continue;
    const std::string& name = model.joint_names[j];
    actuators += "\n    <position joint=\"" + name + "\" kp=\"" + std::to_string(kp) + "\"/>";
  }
  actuators += "\n  </actuator>\n";
  const auto end = xml.rfind("</mujoco>");
  xml.insert(end, actuators);
  // As the cube's MJCF: elliptic cone, Euler at the scene's dt, the stiff setting for every contact.
  char option[400];
  std::snprintf(option, sizeof option,
                "\n  <option timestep=\"%.17g\" integrator=\"Euler\" cone=\"elliptic\" o_solref=\"0.002 1\" "
                "o_solimp=\"0.99 0.999 0.001 0.5 2\"><flag override=\"enable\"/></option>",
                scene.dt);
  return insertAfter(xml, ">", option);  // after <mujoco model="...">
}

// The scene's robot MJCF as MuJoCo reads it (Digit: its loops as MuJoCo's
// connect equalities), with a floor, the cube's contact settings and the PD's kp
// as position actuators beside the file's own motors (left at zero).
std::string mujocoMjcfOnGround(const Scene& scene, const std::filesystem::path& mjcf, double kp) {
  std::string xml = test::readTextFile(mjcf);
  const double mu = scene.geometry->geometry(scene.geometry->geometryId("ground")).friction;
  // contype 1 given: the file's default geom class collides with nothing.
  xml = insertAfter(xml, "<worldbody>",
                    "\n    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\" contype=\"1\" conaffinity=\"1\" friction=\"" +
                        std::to_string(mu) + " 0 0\"/>");
  std::string actuators;
  for (int j : scene.actuated_joints) {
    actuators += "\n    <position joint=\"" + scene.model->joint_names[j] + "\" kp=\"" + std::to_string(kp) + "\"/>";
  }
  const auto end = xml.find("</actuator>");
  if (end == std::string::npos) throw std::runtime_error(mjcf.string() + ": no <actuator> section");
  xml.insert(end, actuators + "\n  ");
  // The file's own <option> gives way to the benchmark's.
  if (const auto option = xml.find("<option"); option != std::string::npos) xml.erase(option, xml.find("/>", option) + 2 - option);
  char option[400];
  std::snprintf(option, sizeof option,
                "\n  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\" integrator=\"Euler\" cone=\"elliptic\" "
                "o_solref=\"0.002 1\" o_solimp=\"0.99 0.999 0.001 0.5 2\"><flag override=\"enable\"/></option>",
                scene.dt);
  const auto root = xml.find("<mujoco");
  if (root == std::string::npos) throw std::runtime_error(mjcf.string() + ": no <mujoco> element");
  return xml.insert(xml.find('>', root) + 1, option);
}

// The PD's kd as joint damping, which MuJoCo's Euler integrator takes implicitly
// (a velocity actuator's is explicit: with Atlas's kd 30 on its light wrists the
// explicit step diverges within 10 ms).
test::MjModelPtr withDamping(test::MjModelPtr model, const Model& ours, double kd) {
  for (int j = 1; j <= ours.njoints(); ++j) {
    if (ours.joint_nv[j] != 1) continue;
    const int id = mj_name2id(model.get(), mjOBJ_JOINT, ours.joint_names[j].c_str());
    if (id >= 0) model->dof_damping[model->jnt_dofadr[id]] = kd;
  }
  return model;
}

// loopsim's state in MuJoCo's coordinates, the position actuators holding it and
// the holding feed-forward (feedforward: hold) as applied joint forces.
void setMujocoState(const Model& model, const VectorX& q, const VectorX& v, const VectorX& feedforward,
                    const mjModel* m, mjData* d) {
  test::writeMujocoState(model, q, v, m, d);
  for (int j = 1; j <= model.njoints(); ++j) {
    if (model.joint_nv[j] != 1) continue;
    const int id = mj_name2id(m, mjOBJ_JOINT, model.joint_names[j].c_str());
    if (id >= 0) d->qfrc_applied[m->jnt_dofadr[id]] = feedforward[model.idx_v[j]];
  }
  // The position actuators hold the scene's initial pose.
  for (int a = 0; a < m->nu; ++a) {
    const int id = m->actuator_trnid[2 * a];
    const int j = model.jointId(mj_id2name(m, mjOBJ_JOINT, id));
    d->ctrl[a] = m->actuator_gainprm[a * mjNGAIN] != 0.0 && m->actuator_biasprm[a * mjNBIAS + 1] != 0.0
                     ? q[model.idx_q[j]]
                     : 0.0;
  }
  mj_forward(m, d);
}

void compare(const char* label, Scene scene, const test::MjModelPtr& model, double settle, int rounds, int steps) {
  Simulation admm(scene);
  // admm again with the dense Cholesky of M̃ forced: the factor the step chose against it.
  Scene dense_scene = scene;
  dense_scene.contact_factorization = StepFactorization::dense;
  Simulation admm_dense(dense_scene);
  scene.contact_solver = ContactSolverKind::pgs;
  Simulation pgs(scene);
  const test::MjDataPtr data(mj_makeData(model.get()));
  mjModel* m = model.get();
  mjData* d = data.get();
  if (scene.model->isFloatingBase() && scene.model->njoints() > 1) {
    setMujocoState(*scene.model, admm.q(), admm.v(), admm.controller().feedforward(), m, d);
  }
  const int settle_steps = static_cast<int>(settle / scene.dt);
  for (int k = 0; k < settle_steps; ++k) {
    admm.step();
    admm_dense.step();
    pgs.step();
    mj_step(m, d);
  }
  std::vector<double> admm_us, pgs_us, mj_us, ratio_admm, ratio_pgs, ratio_factor;
  int admm_iterations = 0, pgs_iterations = 0;
  long mj_contacts = 0, ls_contacts = 0;
  for (int r = 0; r < rounds; ++r) {
    const double t_admm = seconds(steps, [&] {
      admm.step();
      admm_iterations = std::max(admm_iterations, admm.lastUnilateralStep().solve.iterations);
    });
    const double t_mj = seconds(steps, [&] { mj_step(m, d); });
    for (int k = 0; k < steps; ++k) {  // counted outside the timed rounds
      mj_contacts += d->ncon;
      ls_contacts += admm.lastUnilateralStep().contacts;
    }
    const double t_pgs = seconds(steps, [&] {
      pgs.step();
      pgs_iterations = std::max(pgs_iterations, pgs.lastUnilateralStep().solve.iterations);
    });
    const double t_dense = seconds(steps, [&] { admm_dense.step(); });
    ratio_factor.push_back(t_admm / t_dense);
    admm_us.push_back(1e6 * t_admm / steps);
    pgs_us.push_back(1e6 * t_pgs / steps);
    mj_us.push_back(1e6 * t_mj / steps);
    ratio_admm.push_back(t_admm / t_mj);
    ratio_pgs.push_back(t_pgs / t_mj);
  }
  std::printf("%-24s contacts per step (at a round's end): loopsim %.2f, MuJoCo %.2f\n", label,
              static_cast<double>(ls_contacts) / (rounds * steps), static_cast<double>(mj_contacts) / (rounds * steps));
  // The same state, roughly: the first free joint's height at the end (MuJoCo's contact is soft).
  std::printf("  height of the floating base at the end: loopsim %.5f m, MuJoCo %.5f m\n", admm.q()[2], d->qpos[2]);
  std::printf("  step median: loopsim admm %.2f us (at most %d iterations), pgs %.2f us (at most %d sweeps), "
              "mj_step %.2f us\n",
              median(admm_us), admm_iterations, median(pgs_us), pgs_iterations, median(mj_us));
  std::printf("  median of per-round ratios: admm / mj_step %.2f, pgs / mj_step %.2f\n", median(ratio_admm),
              median(ratio_pgs));
  std::printf("  admm with the factor chosen (%s) / with the dense Cholesky: %.2f\n",
              std::string(stepFactorizationName(chooseFactorization(*scene.model))).c_str(), median(ratio_factor));
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 31;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 20;
  if (rounds < 1 || steps < 1) {
    std::fprintf(stderr, "usage: %s [rounds >= 1] [steps per round >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("%d rounds of %d steps, interleaved (loopsim admm, mj_step, loopsim pgs, admm with the dense factor)\n",
              rounds, steps);
  const std::string only = argc > 3 ? argv[3] : "";
  auto cube = [&](const char* label, const char* file, double tilt, double height, double mu, double settle) {
    const Scene scene = loadScene(scenesDir() / file);
    const Simulation start(scene);
    compare(label, scene,
            test::loadMujocoText(test::cubeOnPlaneMjcf(tilt, height, mu, start.q().head<3>()), "contact_bench.xml"),
            settle, rounds, steps);
  };
  if (only.empty() || only == "rest") cube("cube at rest (box_drop)", "box_drop.yaml", 0.0, 0.0, 0.5, 1.0);
  // MuJoCo's soft contact lets this cube hop: at most steps it starts apart from the plane (the
  // report gives the contact counts), so the two steps do different work.
  if (only.empty() || only == "slide") cube("cube sliding (incline)", "box_incline_slide.yaml", 30.0, 1.2, 0.3, 0.0);
  auto robot = [&](const char* label, const char* file, const char* urdf_file) {
    const Scene scene = loadScene(scenesDir() / file);
    const std::filesystem::path urdf = std::filesystem::path(LOOPSIM_ASSETS_DIR) / urdf_file;
    compare(label, scene,
            withDamping(test::loadMujocoText(mujocoRobotOnGround(scene, urdf, scene.controller.kp),
                                             std::filesystem::path(file).replace_extension(".xml").string()),
                        *scene.model, scene.controller.kd),
            1.0, rounds, steps);
  };
  if (only.empty() || only == "go1") robot("Go1 standing (go1_ground)", "go1_ground.yaml", "robots/go1/go1.urdf");
  if (only.empty() || only == "atlas") {
    robot("Atlas standing (atlas_ground)", "atlas_ground.yaml", "robots/atlas/atlas.urdf");
  }
  if (only.empty() || only == "digit") {
    const Scene scene = loadScene(scenesDir() / "digit_ground.yaml");
    const std::filesystem::path mjcf = std::filesystem::path(LOOPSIM_ASSETS_DIR) / "robots/digit/digit.xml";
    compare("Digit standing (digit_ground)", scene,
            withDamping(test::loadMujocoText(mujocoMjcfOnGround(scene, mjcf, scene.controller.kp), "digit_ground.xml"),
                        *scene.model, scene.controller.kd),
            1.0, rounds, steps);
  }
  return 0;
}
