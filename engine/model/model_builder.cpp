#include <loopsim/model/model_builder.hpp>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <sstream>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool allFinite(const Inertia& I) {
  return std::isfinite(I.mass) && I.com.allFinite() && I.inertia_com.allFinite();
}

bool allFinite(const SE3& M) { return M.R.allFinite() && M.t.allFinite(); }

std::string str(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

JointPlacementBasis placementBasis(const Matrix3& R, const Vector3& axis) {
  JointPlacementBasis b;
  b.axis_in_parent = R * axis;
  b.axis_outer = b.axis_in_parent * axis.transpose();
  b.cos_part = R - b.axis_outer;
  b.sin_part = R * skew(axis);
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, c = (k + 2) % 3;
    if (std::abs(axis[k]) == 1.0 && axis[a] == 0.0 && axis[c] == 0.0) {
      b.unit_axis = k;
      b.unit_axis_sign = axis[k];
    }
  }
  b.unrotated = R == Matrix3::Identity();
  return b;
}

}  // namespace

std::string inertiaProblem(const Inertia& I, std::string* triangle_warning) {
  if (!allFinite(I)) return "inertia has a NaN or Inf entry";
  if (I.mass < 0.0) return "negative mass " + str(I.mass);
  const Matrix3& J = I.inertia_com;
  if (!J.isApprox(J.transpose(), 1e-9) && (J - J.transpose()).norm() > 1e-12) {
    return "rotational inertia is not symmetric";
  }
  Eigen::SelfAdjointEigenSolver<Matrix3> eig(0.5 * (J + J.transpose()), Eigen::EigenvaluesOnly);
  const Vector3 ev = eig.eigenvalues();
  const double scale = std::max(1.0, ev.cwiseAbs().maxCoeff());
  if (ev.minCoeff() < -1e-12 * scale) {
    std::ostringstream os;
    os << "rotational inertia not positive semidefinite (eigenvalues " << ev.transpose() << ")";
    return os.str();
  }
  if (triangle_warning != nullptr) {
    triangle_warning->clear();
    const double tol = 1e-9 * scale;
    if (ev(0) + ev(1) < ev(2) - tol || ev(0) + ev(2) < ev(1) - tol || ev(1) + ev(2) < ev(0) - tol) {
      std::ostringstream os;
      os << "principal moments " << ev.transpose() << " violate the triangle inequality";
      *triangle_warning = os.str();
    }
  }
  return {};
}

ModelBuilder::ModelBuilder(std::string model_name, std::string source_file) {
  model_.name = std::move(model_name);
  model_.source_file = std::move(source_file);
  // Body 0: the world.
  model_.parent.push_back(-1);
  model_.body_names.push_back("world");
  model_.body_inertias.push_back(Inertia::Zero());
  model_.joint_types.push_back(JointType::Revolute);  // placeholder, never used
  model_.joint_names.push_back("");
  model_.joint_placements.push_back(SE3::Identity());
  model_.joint_axes.push_back(Vector3::Zero());
  model_.joint_bases.emplace_back();
  model_.idx_q.push_back(0);
  model_.idx_v.push_back(0);
  model_.joint_nq.push_back(0);
  model_.joint_nv.push_back(0);
  model_.frames.push_back({"world", 0, SE3::Identity(), Frame::Kind::Body});
  frame_names_.insert("world");
}

void ModelBuilder::requireUniqueBodyName(const std::string& name) const {
  if (name.empty()) throw ModelError(model_.source_file, "body", "empty name");
  if (frame_names_.count(name) > 0) {
    throw ModelError(model_.source_file, "link '" + name + "'", "duplicate name");
  }
}

int ModelBuilder::addBody(int parent_body, const std::string& joint_name, const JointSpec& joint,
                          const SE3& joint_placement, const Inertia& inertia, const std::string& body_name) {
  const std::string& file = model_.source_file;
  const std::string element = "joint '" + joint_name + "'";
  if (parent_body < 0 || parent_body >= model_.nbodies()) {
    throw ModelError(file, element, "parent body index " + std::to_string(parent_body) + " out of range");
  }
  requireUniqueBodyName(body_name);
  if (joint_name.empty()) throw ModelError(file, "link '" + body_name + "'", "joint has an empty name");
  if (joint_names_.count(joint_name) > 0) throw ModelError(file, element, "duplicate joint name");
  if (!allFinite(joint_placement)) throw ModelError(file, element, "origin has a NaN or Inf value");
  if (!allFinite(inertia)) throw ModelError(file, "link '" + body_name + "'", "inertial has a NaN or Inf value");

  Vector3 axis = Vector3::Zero();
  if (joint.type == JointType::Revolute || joint.type == JointType::Prismatic) {
    if (!joint.axis.allFinite()) throw ModelError(file, element, "axis has a NaN or Inf value");
    const double n = joint.axis.norm();
    if (n < 1e-12) throw ModelError(file, element, "zero-length axis");
    axis = joint.axis / n;
  }
  if (joint.type == JointType::Floating && parent_body != 0) {
    throw ModelError(file, element, "floating joint inside the tree (parent '" + model_.body_names[parent_body] +
                                        "'); only the root may float");
  }
  for (double x : {joint.damping, joint.armature, joint.stiffness, joint.spring_reference}) {
    if (!std::isfinite(x)) throw ModelError(file, element, "dynamics parameter is NaN or Inf");
  }
  if (joint.damping < 0.0) throw ModelError(file, element, "negative damping " + str(joint.damping));
  if (joint.armature < 0.0) throw ModelError(file, element, "negative armature " + str(joint.armature));
  if (joint.stiffness < 0.0) throw ModelError(file, element, "negative stiffness " + str(joint.stiffness));
  if ((joint.lower && !std::isfinite(*joint.lower)) || (joint.upper && !std::isfinite(*joint.upper))) {
    throw ModelError(file, element, "limit is NaN or Inf");
  }
  if (joint.lower && joint.upper && *joint.lower > *joint.upper) {
    throw ModelError(file, element, "lower limit " + str(*joint.lower) + " > upper limit " + str(*joint.upper));
  }

  const int id = model_.nbodies();
  const int nq = jointNq(joint.type);
  const int nv = jointNv(joint.type);
  model_.parent.push_back(parent_body);
  model_.body_names.push_back(body_name);
  model_.body_inertias.push_back(inertia);
  model_.joint_types.push_back(joint.type);
  model_.joint_names.push_back(joint_name);
  model_.joint_placements.push_back(joint_placement);
  model_.joint_axes.push_back(axis);
  model_.joint_bases.push_back(placementBasis(joint_placement.R, axis));
  model_.idx_q.push_back(model_.nq);
  model_.idx_v.push_back(model_.nv);
  model_.joint_nq.push_back(nq);
  model_.joint_nv.push_back(nv);

  auto append = [](std::vector<double>& x, int n, double value) { x.insert(x.end(), static_cast<std::size_t>(n), value); };
  const bool one_dof = nq == 1;
  append(lower_, nq, (one_dof && joint.lower) ? *joint.lower : -kInf);
  append(upper_, nq, (one_dof && joint.upper) ? *joint.upper : kInf);
  append(velocity_limit_, nv, joint.velocity_limit);
  append(effort_limit_, nv, joint.effort_limit);
  append(damping_, nv, joint.damping);
  append(armature_, nv, joint.armature);
  append(stiffness_, nv, one_dof ? joint.stiffness : 0.0);
  if (one_dof) {
    spring_reference_.push_back(joint.spring_reference);
  } else if (joint.type == JointType::Spherical) {
    spring_reference_.insert(spring_reference_.end(), {0, 0, 0, 1});
  } else {
    spring_reference_.insert(spring_reference_.end(), {0, 0, 0, 0, 0, 0, 1});  // neutral: no offset from the joint placement
  }
  for (int k = 0; k < nv; ++k) model_.dof_joint.push_back(id);
  model_.nq += nq;
  model_.nv += nv;
  model_.frames.push_back({body_name, id, SE3::Identity(), Frame::Kind::Body});
  frame_names_.insert(body_name);
  joint_names_.insert(joint_name);
  return id;
}

int ModelBuilder::addFixedLink(int body, const SE3& placement, const Inertia& inertia, const std::string& link_name) {
  requireUniqueBodyName(link_name);
  if (body < 0 || body >= model_.nbodies()) {
    throw ModelError(model_.source_file, "link '" + link_name + "'", "parent body index out of range");
  }
  if (!allFinite(placement)) throw ModelError(model_.source_file, "link '" + link_name + "'", "origin has a NaN or Inf value");
  if (!allFinite(inertia)) throw ModelError(model_.source_file, "link '" + link_name + "'", "inertial has a NaN or Inf value");
  const std::string problem = inertiaProblem(inertia);
  if (!problem.empty()) throw ModelError(model_.source_file, "link '" + link_name + "'", problem);
  if (body != 0) model_.body_inertias[body] += inertia.transformed(placement);
  model_.frames.push_back({link_name, body, placement, Frame::Kind::MergedLink});
  frame_names_.insert(link_name);
  return static_cast<int>(model_.frames.size()) - 1;
}

int ModelBuilder::addFrame(const std::string& name, int body, const SE3& placement, Frame::Kind kind) {
  if (frame_names_.count(name) > 0) throw ModelError(model_.source_file, "frame '" + name + "'", "duplicate name");
  if (body < 0 || body >= model_.nbodies()) {
    throw ModelError(model_.source_file, "frame '" + name + "'", "body index out of range");
  }
  model_.frames.push_back({name, body, placement, kind});
  frame_names_.insert(name);
  return static_cast<int>(model_.frames.size()) - 1;
}

void ModelBuilder::addVisual(VisualGeometry geometry) { model_.visuals.push_back(std::move(geometry)); }
void ModelBuilder::addCollision(CollisionElement element) { model_.collisions.push_back(std::move(element)); }
void ModelBuilder::excludeCollision(int body_a, int body_b) {
  model_.collision_exclusions.emplace_back(std::min(body_a, body_b), std::max(body_a, body_b));
}
void ModelBuilder::addWarning(std::string warning) { model_.warnings.push_back(std::move(warning)); }
void ModelBuilder::setGravity(const Vector3& g) { model_.gravity = g; }

Model ModelBuilder::build(bool strict) && {
  Model& m = model_;
  const auto toVector = [](const std::vector<double>& x) {
    return VectorX(Eigen::Map<const VectorX>(x.data(), static_cast<Eigen::Index>(x.size())));
  };
  m.lower_position_limit = toVector(lower_);
  m.upper_position_limit = toVector(upper_);
  m.velocity_limit = toVector(velocity_limit_);
  m.effort_limit = toVector(effort_limit_);
  m.damping = toVector(damping_);
  m.armature = toVector(armature_);
  m.stiffness = toVector(stiffness_);
  m.spring_reference = toVector(spring_reference_);
  const int nb = m.nbodies();
  m.children.assign(nb, {});
  m.depth.assign(nb, 0);
  m.subtree_end.assign(nb, nb);
  for (int i = 1; i < nb; ++i) {
    m.children[m.parent[i]].push_back(i);
    m.depth[i] = m.depth[m.parent[i]] + 1;
  }
  // Bodies are added parent-first, so a subtree is a contiguous index range
  // only if children are added depth-first; compute it and insist on it.
  for (int i = nb - 1; i >= 0; --i) {
    int end = i + 1;
    for (int ch : m.children[i]) end = std::max(end, m.subtree_end[ch]);
    m.subtree_end[i] = end;
  }
  // Depth-first order, checked in linear time: each body's parent must be on
  // the path from the world to the body added just before it.
  std::vector<int> path{0};
  for (int j = 1; j < nb; ++j) {
    while (!path.empty() && path.back() != m.parent[j]) path.pop_back();
    if (path.empty()) {
      const int i = m.parent[j];
      throw ModelError(m.source_file, "link '" + m.body_names[j] + "'",
                       "bodies must be added depth-first (subtree of '" + m.body_names[i] + "' is not contiguous)");
    }
    path.push_back(j);
  }

  // Inertia validation after lumping fixed links.
  std::vector<bool> subtree_has_inertia(nb, false);
  for (int i = nb - 1; i >= 1; --i) {
    const Inertia& I = m.body_inertias[i];
    const std::string element = "link '" + m.body_names[i] + "'";
    std::string triangle;
    const std::string problem = inertiaProblem(I, &triangle);
    if (!problem.empty()) throw ModelError(m.source_file, element, problem);
    if (!triangle.empty()) {
      if (strict) throw ModelError(m.source_file, element, triangle);
      m.warnings.push_back((m.source_file.empty() ? "" : m.source_file + ": ") + element + ": " + triangle);
    }
    const bool own = I.mass > 0.0 || I.inertia_com.norm() > 0.0;
    bool sub = own;
    for (int ch : m.children[i]) sub = sub || subtree_has_inertia[ch];
    subtree_has_inertia[i] = sub;
    if (!sub) {
      throw ModelError(m.source_file, element,
                       "moving body has zero spatial inertia after lumping fixed links (mass 0, inertia 0)");
    }
  }
  return std::move(m);
}

}  // namespace loopsim
