#include <loopsim/scene/model_assembly.hpp>

#include <cmath>
#include <utility>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/model/joint_motion.hpp>
#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

std::optional<double> finiteOrNone(double x) {
  if (std::isfinite(x)) return x;
  return std::nullopt;
}

}  // namespace

ModelAssembly::ModelAssembly(std::string name, std::string source_file)
    : builder_(std::move(name), source_file), source_file_(std::move(source_file)) {}

int ModelAssembly::addBody(int parent, const std::string& joint_name, const JointSpec& spec, const SE3& placement,
                           const Inertia& inertia, const std::string& body_name,
                           const Eigen::Ref<const VectorX>& q_init) {
  const int id = builder_.addBody(parent, joint_name, spec, placement, inertia, body_name);
  for (int k = 0; k < q_init.size(); ++k) q0_.push_back(q_init[k]);
  nbodies_ = id + 1;
  return id;
}

int ModelAssembly::addFloatingBody(const std::string& joint_name, const Inertia& inertia,
                                   const std::string& body_name, const SE3& pose) {
  JointSpec spec;
  spec.type = JointType::Floating;
  const Quaternion quat(pose.R);
  Eigen::Matrix<double, 7, 1> q;
  q << pose.t, quat.x(), quat.y(), quat.z(), quat.w();
  return addBody(0, joint_name, spec, SE3::Identity(), inertia, body_name, q);
}

AppendedModel ModelAssembly::append(const Model& src, const AppendOptions& options, const VectorX& q0,
                                    std::vector<Attachment>* attachments) {
  return appendAt(src, options, q0, std::nullopt, attachments);
}

AppendedModel ModelAssembly::appendAt(const Model& src, const AppendOptions& options, const VectorX& q0,
                                      const std::optional<BodyMapping>& at, std::vector<Attachment>* attachments) {
  const std::string& prefix = options.prefix;
  const VectorX qs = q0.size() == 0 ? neutral(src) : q0;
  if (qs.size() != src.nq) {
    throw ModelError(source_file_, "model '" + src.name + "'",
                     "initial configuration has size " + std::to_string(qs.size()) + ", expected nq = " +
                         std::to_string(src.nq));
  }
  AppendedModel out;
  out.prefix = prefix;
  out.bodies.assign(src.nbodies(), BodyMapping{});
  out.joints.assign(src.nbodies(), -1);
  out.bodies[0] = at ? *at : BodyMapping{0, options.base_pose};

  // The attachments whose target is a body or frame of this model: appended
  // once the target's subtree is in (the builder takes bodies depth-first).
  struct Claimed {
    std::size_t attachment;
    int body;   // source body carrying the target
    SE3 frame;  // the target in that body
  };
  std::vector<Claimed> claimed;
  for (std::size_t a = 0; attachments != nullptr && a < attachments->size(); ++a) {
    const Attachment& attachment = (*attachments)[a];
    if (attachment.done) continue;
    for (int b = 1; b < src.nbodies(); ++b) {
      if (prefix + src.body_names[b] == attachment.to) claimed.push_back({a, b, SE3::Identity()});
    }
    for (const Frame& frame : src.frames) {
      if (frame.kind != Frame::Kind::Body && prefix + frame.name == attachment.to) {
        claimed.push_back({a, frame.body, frame.placement});
      }
    }
  }
  auto attach = [&](const Claimed& c) {
    Attachment& attachment = (*attachments)[c.attachment];
    if (attachment.done) return;
    attachment.done = true;
    const BodyMapping& m = out.bodies[c.body];
    const AppendedModel appended = appendAt(*attachment.model, attachment.options, attachment.q0,
                                            BodyMapping{m.body, m.placement * c.frame * attachment.placement},
                                            attachments);
    if (attachment.attached) attachment.attached(appended);
  };

  int attached_root = -1;  // a floating root welded at the attachment (its frame comes with addFixedLink)
  bool has_jointed_roots = false;
  for (int i = 1; i < src.nbodies(); ++i) {
    if (src.parent[i] == 0 && src.joint_types[i] != JointType::Floating) has_jointed_roots = true;
  }
  if (options.base == BaseMode::Floating && has_jointed_roots && !at) {
    const std::string name = prefix + "floating_base";
    if (!options.floating_base_body) {
      throw ModelError(source_file_, "model '" + src.name + "'",
                       "a floating base for a fixed-base model needs a base body (its root link is the world and "
                       "has no inertia)");
    }
    const RigidShape& shape = *options.floating_base_body;
    const int body = addFloatingBody(name + "_joint", shapeInertia(shape, "model '" + src.name + "' base body"), name,
                                     options.base_pose);
    builder_.addVisual(shapeVisual(shape, name, body, SE3::Identity()));
    out.bodies[0] = {body, SE3::Identity()};
  }

  for (int i = 1; i < src.nbodies(); ++i) {
    for (const Claimed& c : claimed) {
      if (c.body > 0 && c.body < i && i >= src.subtree_end[c.body]) attach(c);  // left the target's subtree
    }
    const int parent = src.parent[i];
    const JointType type = src.joint_types[i];
    const std::string body_name = prefix + src.body_names[i];
    const std::string joint_name = prefix + src.joint_names[i];
    const auto q_joint = qs.segment(src.idx_q[i], src.joint_nq[i]);
    if (parent == 0 && type == JointType::Floating && at) {
      // Welded at the attachment: its inertia rides on that body.
      if (at->body != 0) {
        builder_.addFixedLink(at->body, at->placement, src.body_inertias[i], body_name);
        attached_root = i;
      }
      out.bodies[i] = *at;
      continue;
    }
    if (parent == 0 && type == JointType::Floating) {
      const SE3 pose = options.base_pose * detail::jointPlacement(src, i, qs);
      if (options.base == BaseMode::Fixed) {
        out.bodies[i] = {0, pose};  // welded where it stands: merged into the world
        continue;
      }
      out.bodies[i] = {addFloatingBody(joint_name, src.body_inertias[i], body_name, pose), SE3::Identity()};
      out.joints[i] = out.bodies[i].body;
      continue;
    }
    const BodyMapping& up = out.bodies[parent];
    JointSpec spec;
    spec.type = type;
    spec.axis = src.joint_axes[i];
    const int iq = src.idx_q[i], iv = src.idx_v[i];
    if (src.joint_nq[i] == 1) {
      spec.lower = finiteOrNone(src.lower_position_limit[iq]);
      spec.upper = finiteOrNone(src.upper_position_limit[iq]);
      spec.stiffness = src.stiffness[iv];
      spec.spring_reference = src.spring_reference[iq];
    }
    spec.velocity_limit = src.velocity_limit[iv];
    spec.effort_limit = src.effort_limit[iv];
    spec.damping = src.damping[iv];
    spec.armature = src.armature[iv];
    const int body =
        addBody(up.body, joint_name, spec, up.placement * src.joint_placements[i], src.body_inertias[i], body_name,
                q_joint);
    out.bodies[i] = {body, SE3::Identity()};
    out.joints[i] = body;
    const int nq = src.joint_nq[i], nv = src.joint_nv[i];
    copied_dofs_.push_back({body, src.lower_position_limit.segment(iq, nq), src.upper_position_limit.segment(iq, nq),
                            src.spring_reference.segment(iq, nq), src.velocity_limit.segment(iv, nv),
                            src.effort_limit.segment(iv, nv), src.damping.segment(iv, nv),
                            src.armature.segment(iv, nv), src.stiffness.segment(iv, nv)});
  }

  for (const Claimed& c : claimed) attach(c);  // the rest: targets in the last subtree, or the world

  for (std::size_t f = 1; f < src.frames.size(); ++f) {  // frame 0 is the source's "world"
    const Frame& frame = src.frames[f];
    const BodyMapping& m = out.bodies[frame.body];
    const bool body_kept = frame.body != 0 && m.body != 0 && out.joints[frame.body] >= 0;
    if (frame.kind == Frame::Kind::Body && body_kept) continue;  // the builder made it with the body
    if (frame.kind == Frame::Kind::Body && frame.body == attached_root) continue;  // made by addFixedLink
    const Frame::Kind kind = frame.kind == Frame::Kind::Body ? Frame::Kind::MergedLink : frame.kind;
    builder_.addFrame(prefix + frame.name, m.body, m.placement * frame.placement, kind);
  }
  // Visuals and collision elements move with their body and take the prefix.
  auto moved = [&](auto element) {
    const BodyMapping& m = out.bodies[element.body];
    element.name = prefix + element.name;
    element.body = m.body;
    element.placement = m.placement * element.placement;
    return element;
  };
  for (const VisualGeometry& visual : src.visuals) builder_.addVisual(moved(visual));
  for (const CollisionElement& element : src.collisions) builder_.addCollision(moved(element));
  for (const auto& [a, b] : src.collision_exclusions) {
    builder_.excludeCollision(out.bodies[a].body, out.bodies[b].body);
  }
  for (const std::string& w : src.warnings) builder_.addWarning(w);
  return out;
}

int ModelAssembly::addFreeBody(const std::string& name, const RigidShape& shape, const SE3& pose) {
  const int body = addFloatingBody(name + "_joint", shapeInertia(shape, "body '" + name + "'"), name, pose);
  builder_.addVisual(shapeVisual(shape, name, body, SE3::Identity()));
  return body;
}

ModelAssembly::Result ModelAssembly::build() && {
  Result out{std::move(builder_).build(), VectorX()};
  Model& m = out.model;
  for (const DofProperties& d : copied_dofs_) {
    const int iq = m.idx_q[d.joint], iv = m.idx_v[d.joint];
    const int nq = m.joint_nq[d.joint], nv = m.joint_nv[d.joint];
    m.lower_position_limit.segment(iq, nq) = d.lower;
    m.upper_position_limit.segment(iq, nq) = d.upper;
    m.spring_reference.segment(iq, nq) = d.spring_reference;
    m.velocity_limit.segment(iv, nv) = d.velocity_limit;
    m.effort_limit.segment(iv, nv) = d.effort_limit;
    m.damping.segment(iv, nv) = d.damping;
    m.armature.segment(iv, nv) = d.armature;
    m.stiffness.segment(iv, nv) = d.stiffness;
  }
  out.q0 = Eigen::Map<const VectorX>(q0_.data(), static_cast<Eigen::Index>(q0_.size()));
  return out;
}

Constraint remapConstraint(const Constraint& c, const AppendedModel& where) {
  Constraint out = c;
  out.name = where.prefix + c.name;
  if (c.kind == ConstraintKind::Coupling) {
    for (int& j : out.coupling_joints) {
      const int mapped = (j >= 0 && j < static_cast<int>(where.joints.size())) ? where.joints[j] : -1;
      if (mapped < 0) {
        throw ModelError("", "coupling '" + out.name + "'", "couples a joint that the assembly merged away");
      }
      j = mapped;
    }
    return out;
  }
  const BodyMapping& m1 = where.bodies.at(c.body1);
  const BodyMapping& m2 = where.bodies.at(c.body2);
  out.body1 = m1.body;
  out.placement1 = m1.placement * c.placement1;
  out.body2 = m2.body;
  out.placement2 = m2.placement * c.placement2;
  if (out.body1 == 0 && out.body2 != 0) {
    std::swap(out.body1, out.body2);
    std::swap(out.placement1, out.placement2);
  }
  return out;
}

}  // namespace loopsim
