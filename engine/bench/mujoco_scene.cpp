#include <loopsim/bench/mujoco_scene.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <loopsim/bench/mujoco_urdf.hpp>
#include <loopsim/collision/geometry.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim::mujoco_peer {

namespace {

std::string readText(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelError(file, "", "cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string number(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", x);
  return text;
}

std::string vector3(const Vector3& x) { return number(x.x()) + " " + number(x.y()) + " " + number(x.z()); }

// MuJoCo's quaternion (w x y z) of a rotation.
std::string quaternion(const Matrix3& R) {
  const Quaternion quat(R);
  return number(quat.w()) + " " + number(quat.x()) + " " + number(quat.y()) + " " + number(quat.z());
}

std::string insertAfter(std::string text, std::size_t at, const std::string& what, const std::string& file,
                        const char* anchor) {
  if (at == std::string::npos) throw ModelError(file, anchor, "not found in the MJCF MuJoCo is given");
  return text.insert(at, what);
}

// A geometry as an MJCF geom (a half-space as a plane: MuJoCo's plane is the
// same one-sided solid). Convex hulls are not written: the caller refuses them.
std::string geomElement(const Geometry& g) {
  const std::string friction = " friction=\"" + number(g.friction) + " 0 0\"";
  if (g.shape == GeometryShape::halfspace) {
    return "<geom name=\"" + g.name + "\" type=\"plane\" size=\"0 0 1\" pos=\"" + vector3(g.normal * g.offset) +
           "\" zaxis=\"" + vector3(g.normal) + "\"" + friction + "/>";
  }
  std::string size;
  const char* type = geometryShapeName(g.shape);
  switch (g.shape) {
    case GeometryShape::sphere: size = number(g.size.x()); break;
    case GeometryShape::box: size = vector3(g.size / 2.0); break;  // MuJoCo: half sizes
    case GeometryShape::cylinder:
    case GeometryShape::capsule: size = number(g.size.x()) + " " + number(g.size.y() / 2.0); break;
    default: break;
  }
  return "<geom name=\"" + g.name + "\" type=\"" + type + "\" size=\"" + size + "\" pos=\"" +
         vector3(g.placement.t) + "\" quat=\"" + quaternion(g.placement.R) + "\"" + friction + "/>";
}

std::string halfSpaces(const GeometryModel& geometry) {
  std::string out;
  for (const Geometry& g : geometry.geometries()) {
    // contype 1 given: an MJCF's default class may collide with nothing.
    if (g.shape == GeometryShape::halfspace) {
      out += "\n    " + geomElement(g).insert(6, "contype=\"1\" conaffinity=\"1\" ");
    }
  }
  return out;
}

std::string optionElement(const Scene& scene) {
  const Vector3& gravity = scene.model->gravity;
  return "\n  <option timestep=\"" + number(scene.dt) + "\" gravity=\"" + vector3(gravity) +
         "\" integrator=\"Euler\" cone=\"elliptic\" o_solref=\"0.002 1\" o_solimp=\"0.99 0.999 0.001 0.5 2\">"
         "<flag override=\"enable\"/></option>";
}

std::string actuatorElements(const Scene& scene) {
  std::string out;
  if (scene.controller.kind != ControllerSpec::Kind::PdHold) return out;
  for (int j : scene.actuated_joints) {
    out += "\n    <position joint=\"" + scene.model->joint_names[j] + "\" kp=\"" + number(scene.controller.kp) + "\"/>";
  }
  return out;
}

// Free bodies: each body on a free joint of its joint's name, its inertia as
// written, its geometries; the half-spaces in the world.
std::string freeBodiesText(const Scene& scene) {
  const Model& model = *scene.model;
  std::string world;
  for (int b = 1; b < model.nbodies(); ++b) {
    const Inertia& inertia = model.body_inertias[b];
    const Matrix3& I = inertia.inertia_com;
    world += "\n    <body name=\"" + model.body_names[b] + "\">\n      <freejoint name=\"" + model.joint_names[b] +
             "\"/>\n      <inertial pos=\"" + vector3(inertia.com) + "\" mass=\"" + number(inertia.mass) +
             "\" fullinertia=\"" + number(I(0, 0)) + " " + number(I(1, 1)) + " " + number(I(2, 2)) + " " +
             number(I(0, 1)) + " " + number(I(0, 2)) + " " + number(I(1, 2)) + "\"/>";
    for (const Geometry& g : scene.geometry->geometries()) {
      if (g.body == b) world += "\n      " + geomElement(g);
    }
    world += "\n    </body>";
  }
  return "<mujoco model=\"" + scene.name + "\">" + optionElement(scene) +
         "\n  <default><geom condim=\"3\"/></default>\n  <worldbody>" + halfSpaces(*scene.geometry) + world +
         "\n  </worldbody>\n</mujoco>\n";
}

// A URDF robot as MuJoCo's importer compiles it, saved as MJCF (its own text,
// so that the floor, option and actuators can be added).
std::string urdfRobotText(const Scene& scene, const std::string& urdf) {
  const Model& model = *scene.model;
  try {
    loadMujocoText(mujocoUrdf(readText(urdf), model.body_names.at(1), model.isFloatingBase()), "robot.urdf");
  } catch (const std::runtime_error& error) {
    throw ModelError(urdf, "", error.what());
  }
  const std::filesystem::path saved =
      std::filesystem::temp_directory_path() / ("loopsim_mujoco_scene_" + std::to_string(::getpid()) + ".xml");
  char error[1000] = "";
  const int written = mj_saveLastXML(saved.string().c_str(), nullptr, error, sizeof error);
  std::string xml = written != 0 ? readText(saved.string()) : std::string();
  std::filesystem::remove(saved);
  if (written == 0) throw ModelError(urdf, "", std::string("MuJoCo cannot save it as MJCF: ") + error);
  xml = insertAfter(xml, xml.find("<worldbody>") + 11, halfSpaces(*scene.geometry), urdf, "<worldbody>");
  xml.insert(xml.rfind("</mujoco>"), "\n  <actuator>" + actuatorElements(scene) + "\n  </actuator>\n");
  const auto root = xml.find("<mujoco");
  return insertAfter(xml, root == std::string::npos ? root : xml.find('>', root) + 1, optionElement(scene), urdf,
                     "<mujoco>");
}

// An MJCF robot as written, with the floor, the actuators beside its own (left
// at zero) and the benchmark's option instead of its own.
std::string mjcfRobotText(const Scene& scene, const std::string& mjcf) {
  std::string xml = readText(mjcf);
  const auto world = xml.find("<worldbody>");
  xml = insertAfter(xml, world == std::string::npos ? world : world + 11, halfSpaces(*scene.geometry), mjcf,
                    "<worldbody>");
  if (const auto end = xml.find("</actuator>"); end != std::string::npos) {
    xml.insert(end, actuatorElements(scene) + "\n  ");
  } else {
    xml.insert(xml.rfind("</mujoco>"), "\n  <actuator>" + actuatorElements(scene) + "\n  </actuator>\n");
  }
  if (const auto option = xml.find("<option"); option != std::string::npos) {
    const auto close = xml.find('>', option);
    const bool empty_element = close != std::string::npos && xml[close - 1] == '/';
    const auto end = empty_element ? close + 1 : xml.find("</option>", option) + 9;
    xml.erase(option, end - option);
  }
  const auto root = xml.find("<mujoco");
  return insertAfter(xml, root == std::string::npos ? root : xml.find('>', root) + 1, optionElement(scene), mjcf,
                     "<mujoco>");
}

}  // namespace

std::string mujocoSceneText(const Scene& scene) {
  const std::string file = scene.source_file.empty() ? scene.name : scene.source_file;
  if (scene.geometry == nullptr) throw ModelError(file, "ground", "the scene has no collision geometry to step on");
  for (const Geometry& g : scene.geometry->geometries()) {
    if (g.shape == GeometryShape::convex) {
      throw ModelError(file, g.name, "a convex hull: MuJoCo is given primitives and planes only");
    }
  }
  if (scene.model_files.size() == 1) {
    const std::string& model_file = scene.model_files.front();
    const std::string extension = std::filesystem::path(model_file).extension().string();
    if (extension == ".urdf") {
      if (!scene.constraints.empty()) {
        throw ModelError(file, "constraints", "a URDF robot's constraints have no MuJoCo counterpart here");
      }
      return urdfRobotText(scene, model_file);
    }
    return mjcfRobotText(scene, model_file);
  }
  const Model& model = *scene.model;
  bool free_bodies = scene.model_files.empty() && scene.constraints.empty();
  for (int b = 1; b < model.nbodies() && free_bodies; ++b) {
    free_bodies = model.parent[b] == 0 && model.joint_types[b] == JointType::Floating;
  }
  if (!free_bodies) {
    throw ModelError(file, "model", "neither one URDF/MJCF model nor free bodies without constraints");
  }
  return freeBodiesText(scene);
}

MjModelPtr mujocoSceneModel(const Scene& scene) {
  MjModelPtr m;
  try {
    m = loadMujocoText(mujocoSceneText(scene), scene.name + ".xml");
  } catch (const std::runtime_error& error) {
    throw ModelError(scene.source_file.empty() ? scene.name : scene.source_file, "MuJoCo's model of the scene",
                     error.what());
  }
  if (scene.controller.kind == ControllerSpec::Kind::PdHold) {
    for (int j : scene.actuated_joints) {
      const int id = mj_name2id(m.get(), mjOBJ_JOINT, scene.model->joint_names[j].c_str());
      if (id >= 0) m->dof_damping[m->jnt_dofadr[id]] += scene.controller.kd;
    }
  }
  return m;
}

void setMujocoState(const Simulation& simulation, const mjModel* m, mjData* d) {
  const Model& model = simulation.model();
  writeMujocoState(model, simulation.q(), simulation.v(), m, d);
  const VectorX& feedforward = simulation.controller().feedforward();
  for (int j = 1; j <= model.njoints(); ++j) {
    if (model.joint_nv[j] != 1 || feedforward.size() != model.nv) continue;
    const int id = mj_name2id(m, mjOBJ_JOINT, model.joint_names[j].c_str());
    if (id >= 0) d->qfrc_applied[m->jnt_dofadr[id]] = feedforward[model.idx_v[j]];
  }
  // The position actuators hold the pose the simulation is in; the file's own motors stay at zero.
  for (int a = 0; a < m->nu; ++a) {
    const char* joint = mj_id2name(m, mjOBJ_JOINT, m->actuator_trnid[2 * a]);
    const int j = joint == nullptr ? -1 : model.jointId(joint);
    const bool position = m->actuator_gainprm[a * mjNGAIN] != 0.0 && m->actuator_biasprm[a * mjNBIAS + 1] != 0.0;
    d->ctrl[a] = position && j > 0 ? simulation.q()[model.idx_q[j]] : 0.0;
  }
  mj_forward(m, d);
}

}  // namespace loopsim::mujoco_peer
