#include <loopsim/model/coordinate_names.hpp>

namespace loopsim {

std::vector<std::string> configurationColumns(const Model& model) {
  std::vector<std::string> out;
  for (int j = 1; j < model.nbodies(); ++j) {
    const std::string base = "q:" + model.joint_names[j];
    switch (model.joint_types[j]) {
      case JointType::Revolute:
      case JointType::Prismatic: out.push_back(base); break;
      case JointType::Spherical:
        for (const char* c : {"qx", "qy", "qz", "qw"}) out.push_back(base + ":" + c);
        break;
      case JointType::Floating:
        for (const char* c : {"x", "y", "z", "qx", "qy", "qz", "qw"}) out.push_back(base + ":" + c);
        break;
    }
  }
  return out;
}

std::vector<std::string> velocityColumns(const Model& model, const std::string& prefix) {
  std::vector<std::string> out;
  for (int j = 1; j < model.nbodies(); ++j) {
    const std::string base = prefix + ":" + model.joint_names[j];
    switch (model.joint_types[j]) {
      case JointType::Revolute:
      case JointType::Prismatic: out.push_back(base); break;
      case JointType::Spherical:
        for (const char* c : {"wx", "wy", "wz"}) out.push_back(base + ":" + c);
        break;
      case JointType::Floating:
        for (const char* c : {"wx", "wy", "wz", "vx", "vy", "vz"}) out.push_back(base + ":" + c);
        break;
    }
  }
  return out;
}

}  // namespace loopsim
