#include <loopsim/parsers/urdf_loops.hpp>

#include <algorithm>
#include <cmath>
#include <tuple>

#include <loopsim/model/errors.hpp>

namespace loopsim::urdf_detail {

namespace {

SE3 originPose(const UrdfOrigin& o) {
  // URDF rpy: fixed-axis roll about x, then pitch about y, then yaw about z.
  const Matrix3 R = (Eigen::AngleAxisd(o.rpy[2], Vector3::UnitZ()) * Eigen::AngleAxisd(o.rpy[1], Vector3::UnitY()) *
                     Eigen::AngleAxisd(o.rpy[0], Vector3::UnitX()))
                        .toRotationMatrix();
  return {R, Vector3(o.xyz[0], o.xyz[1], o.xyz[2])};
}

/// A rotation taking z onto `axis` (unit).
Matrix3 zOnto(const Vector3& axis) {
  return Quaternion::FromTwoVectors(Vector3::UnitZ(), axis).toRotationMatrix();
}

/// The link's body and pose in it (every URDF link is a frame of the model).
const Frame& linkFrame(const Model& model, const std::string& link) { return model.frames[model.existingFrame(link)]; }

/// The joints (= bodies) from each of a and b up to their nearest common ancestor, excluded.
void pathsToCommonAncestor(const Model& model, int a, int b, std::vector<int>& from_a, std::vector<int>& from_b) {
  from_a.clear();
  from_b.clear();
  while (a != b) {
    if (model.depth[a] >= model.depth[b]) {
      from_a.push_back(a);
      a = model.parent[a];
    } else {
      from_b.push_back(b);
      b = model.parent[b];
    }
  }
}

/// Body rotations in the world at the neutral configuration.
std::vector<Matrix3> neutralRotations(const Model& model) {
  std::vector<Matrix3> R(static_cast<std::size_t>(model.nbodies()), Matrix3::Identity());
  for (int i = 1; i < model.nbodies(); ++i) R[i] = R[model.parent[i]] * model.joint_placements[i].R;
  return R;
}

}  // namespace

UrdfLoopConstraints urdfLoopConstraints(Model& model, const UrdfStructure& structure, const std::string& source_name) {
  UrdfLoopConstraints out;
  const std::vector<Matrix3> R = neutralRotations(model);
  std::vector<int> cluster_joints, from_a, from_b;
  const auto addToCluster = [&] {
    for (const std::vector<int>* path : {&from_a, &from_b}) {
      for (int j : *path) {
        if (std::find(cluster_joints.begin(), cluster_joints.end(), j) == cluster_joints.end()) cluster_joints.push_back(j);
      }
    }
  };

  for (const UrdfLoopEntry& loop : structure.loops) {
    const std::string owner = "<loop name=" + inQuotes(loop.name) + "> (line " + std::to_string(loop.line) + ")";
    const Frame& pred = linkFrame(model, loop.predecessor);
    const Frame& succ = linkFrame(model, loop.successor);
    if (pred.body == succ.body) {
      throw ModelError(source_name, owner, "links " + inQuotes(loop.predecessor) + " and " + inQuotes(loop.successor) +
                                               " are fixed to one body: the loop closes nothing");
    }
    const Vector3 axis = Vector3(loop.axis[0], loop.axis[1], loop.axis[2]).normalized();
    Constraint c;
    c.name = loop.name;
    c.kind = ConstraintKind::RevoluteLoop;
    c.body1 = pred.body;
    c.placement1 = pred.placement * originPose(loop.predecessor_origin) * SE3(zOnto(axis), Vector3::Zero());
    c.body2 = succ.body;
    c.placement2 = succ.placement * originPose(loop.successor_origin) * SE3(zOnto(axis), Vector3::Zero());
    if (c.body1 == 0) {  // the world is end 2
      std::swap(c.body1, c.body2);
      std::swap(c.placement1, c.placement2);
    }
    pathsToCommonAncestor(model, pred.body, succ.body, from_a, from_b);
    const Vector3 normal = R[c.body1] * c.placement1.R.col(2);
    bool planar = true;
    for (const std::vector<int>* path : {&from_a, &from_b}) {
      for (int j : *path) {
        const Vector3 joint_axis = R[j] * model.joint_axes[j];
        const JointType type = model.joint_types[j];
        if (type == JointType::Revolute) planar = planar && joint_axis.cross(normal).norm() < 1e-9;
        else if (type == JointType::Prismatic) planar = planar && std::abs(joint_axis.dot(normal)) < 1e-9;
        else planar = false;
      }
    }
    if (planar) c.row_mask = {0, 1};
    addToCluster();
    out.constraints.push_back(std::move(c));
  }

  for (const UrdfCouplingEntry& coupling : structure.couplings) {
    const std::string owner =
        "<coupling name=" + inQuotes(coupling.name) + "> (line " + std::to_string(coupling.line) + ")";
    pathsToCommonAncestor(model, linkFrame(model, coupling.predecessor).body, linkFrame(model, coupling.successor).body,
                          from_a, from_b);
    Constraint c;
    c.name = coupling.name;
    c.kind = ConstraintKind::Coupling;
    for (const auto& [path, coefficient, link] :
         {std::tuple{&from_a, coupling.ratio, &coupling.predecessor}, std::tuple{&from_b, -1.0, &coupling.successor}}) {
      if (path->empty()) {
        throw ModelError(source_name, owner, "no joint moves link " + inQuotes(*link) +
                                                 " relative to the other link: nothing to couple");
      }
      for (int j : *path) {
        if (model.joint_nv[j] != 1) {
          throw ModelError(source_name, owner, "couples " + std::string(jointTypeName(model.joint_types[j])) +
                                                   " joint " + inQuotes(model.joint_names[j]) +
                                                   ": only one-dof joints can be coupled");
        }
        c.coupling_joints.push_back(j);
        c.coupling_coefficients.push_back(coefficient);
      }
    }
    addToCluster();
    out.constraints.push_back(std::move(c));
  }

  if (out.constraints.empty()) {
    // Marks for transmissions the file does not describe (generalized_rbda's Tello): said, not used.
    if (!structure.dependent_joints.empty()) {
      std::string list;
      for (const std::string& name : structure.dependent_joints) list += (list.empty() ? "" : ", ") + inQuotes(name);
      model.warnings.push_back(source_name + ": independent=\"false\" ignored on joints " + list +
                               ": the file has no <loop> or <coupling> for them to coordinate");
    }
    return out;
  }
  for (const std::string& name : structure.dependent_joints) {
    const int j = model.jointId(name);
    if (j < 0 || std::find(cluster_joints.begin(), cluster_joints.end(), j) == cluster_joints.end()) {
      throw ModelError(source_name, "joint " + inQuotes(name),
                       "independent=\"false\", but the joint moves no <loop> or <coupling>: it coordinates nothing");
    }
  }
  if (!structure.dependent_joints.empty()) {
    std::sort(cluster_joints.begin(), cluster_joints.end());
    for (int j : cluster_joints) {
      const std::string& name = model.joint_names[j];
      if (std::find(structure.dependent_joints.begin(), structure.dependent_joints.end(), name) ==
          structure.dependent_joints.end()) {
        out.independent_joints.push_back(name);
      }
    }
  }
  return out;
}

}  // namespace loopsim::urdf_detail
