// MJCF loader checks against MuJoCo itself: the same file is compiled by
// MuJoCo and converted by loopsim; on random states every MuJoCo body frame
// and site must sit where loopsim puts it, the mass matrices must agree to
// 1e-9 and each converted equality must report MuJoCo's own residual.
//
// Coordinates: hinge/slide/ball qpos and qvel are equal joint by joint
// (quaternions reordered [w x y z] -> [x y z w]). Free joint: loopsim v =
// [ω; v_body], MuJoCo qvel = [R v_body; ω], so v_mj = T v_ls and
// M_ls = Tᵀ M_mj T.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mjcf_assets.hpp>
#include <loopsim/parsers/mjcf_loader.hpp>

#include "collision_elements.hpp"
#include <loopsim/bench/mujoco_handles.hpp>

namespace loopsim {
namespace {

namespace fs = std::filesystem;

constexpr double kMassTolerance = 1e-9;
constexpr double kPoseTolerance = 1e-12;

fs::path testData(const std::string& name) { return fs::path(LOOPSIM_TEST_DATA_DIR) / "mjcf" / name; }
fs::path asset(const std::string& name) { return fs::path(LOOPSIM_ASSETS_DIR) / name; }
fs::path sharedDigit() { return fs::path(LOOPSIM_SHARED_DIR) / "models" / "digit" / "digit-v3.xml"; }

using mujoco_peer::MjDataPtr;
using mujoco_peer::MjModelPtr;

/// MuJoCo's own compile of the file, with placeholders for absent meshes and
/// PNG textures (MuJoCo refuses the file otherwise; inertias are explicit in
/// the models tested here, so the placeholders do not enter the dynamics).
MjModelPtr mujocoModel(const fs::path& file) {
  mujoco_peer::MjVfsPtr vfs = mujoco_peer::makeVfs();
  for (const auto& f : mjcf_detail::scanMjcfAssets(file).files) {
    if (f.found) continue;
    const std::string base = f.path.filename().string();
    if (mj_findFileVFS(vfs.get(), base.c_str()) >= 0) continue;
    mujoco_peer::addVfsFile(vfs.get(), base,
                     f.kind == mjcf_detail::MjcfAssetFile::Kind::Mesh
                         ? mjcf_detail::placeholderMesh(f.path.extension().string(), f.scale)
                         : mjcf_detail::placeholderPng());
  }
  char error[1000] = "";
  mjModel* m = mj_loadXML(file.string().c_str(), vfs.get(), error, sizeof error);
  if (m == nullptr) throw std::runtime_error(std::string("MuJoCo: ") + error);
  return MjModelPtr(m);
}

using RowMajor3 = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;

/// One MJCF file loaded by loopsim and compiled by MuJoCo.
class Twin {
 public:
  explicit Twin(const fs::path& file)
      : load_(loadMjcf(file)), data_(load_.model), mj_(mujocoModel(file)), d_(mj_makeData(mj_.get())) {}

  const Model& model() const { return load_.model; }
  const MjcfLoad& load() const { return load_; }
  Data& data() { return data_; }
  const mjModel* mj() const { return mj_.get(); }
  mjData* mjd() { return d_.get(); }

  void setMujocoState(const VectorX& q, const VectorX& v) {
    for (int j = 0; j < mj_->njnt; ++j) {
      const int ls = load_.mujoco_joint[j];
      const int iq = model().idx_q[ls], iv = model().idx_v[ls];
      mjtNum* qpos = d_->qpos + mj_->jnt_qposadr[j];
      mjtNum* qvel = d_->qvel + mj_->jnt_dofadr[j];
      switch (mj_->jnt_type[j]) {
        case mjJNT_HINGE:
        case mjJNT_SLIDE:
          qpos[0] = q[iq];
          qvel[0] = v[iv];
          break;
        case mjJNT_BALL:
          qpos[0] = q[iq + 3];
          for (int k = 0; k < 3; ++k) qpos[1 + k] = q[iq + k];
          for (int k = 0; k < 3; ++k) qvel[k] = v[iv + k];
          break;
        case mjJNT_FREE: {
          for (int k = 0; k < 3; ++k) qpos[k] = q[iq + k];
          qpos[3] = q[iq + 6];
          for (int k = 0; k < 3; ++k) qpos[4 + k] = q[iq + 3 + k];
          const Vector3 linear_world = rotationAt(q, iq + 3) * v.segment<3>(iv + 3);
          for (int k = 0; k < 3; ++k) {
            qvel[k] = linear_world[k];
            qvel[3 + k] = v[iv + k];
          }
          break;
        }
      }
    }
    mj_kinematics(mj_.get(), d_.get());
    mj_comPos(mj_.get(), d_.get());
    mj_crb(mj_.get(), d_.get());
  }

  /// T with v_mj = T v_ls.
  MatrixX velocityMap(const VectorX& q) const {
    MatrixX T = MatrixX::Zero(model().nv, model().nv);
    for (int j = 0; j < mj_->njnt; ++j) {
      const int ls = load_.mujoco_joint[j];
      const int iv = model().idx_v[ls], mv = mj_->jnt_dofadr[j];
      if (mj_->jnt_type[j] == mjJNT_FREE) {
        T.block<3, 3>(mv, iv + 3) = rotationAt(q, model().idx_q[ls] + 3);
        T.block<3, 3>(mv + 3, iv) = Matrix3::Identity();
      } else {
        for (int k = 0; k < model().joint_nv[ls]; ++k) T(mv + k, iv + k) = 1.0;
      }
    }
    return T;
  }

  MatrixX mujocoMassMatrix() const {
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(mj_->nv, mj_->nv);
    mj_fullM(mj_.get(), M.data(), d_->qM);
    return M;
  }

  SE3 mujocoBodyPose(int b) const {
    return {RowMajor3(Eigen::Map<const RowMajor3>(d_->xmat + 9 * b)), Vector3(Eigen::Map<const Vector3>(d_->xpos + 3 * b))};
  }
  SE3 mujocoSitePose(int s) const {
    return {RowMajor3(Eigen::Map<const RowMajor3>(d_->site_xmat + 9 * s)),
            Vector3(Eigen::Map<const Vector3>(d_->site_xpos + 3 * s))};
  }

 private:
  static Matrix3 rotationAt(const VectorX& q, int i) {
    return Quaternion(q[i + 3], q[i], q[i + 1], q[i + 2]).normalized().toRotationMatrix();
  }

  MjcfLoad load_;
  Data data_;
  MjModelPtr mj_;
  MjDataPtr d_;
};

VectorX randomVelocity(int nv, std::mt19937& rng) {
  std::normal_distribution<double> gauss(0.0, 1.0);
  VectorX v(nv);
  for (int i = 0; i < nv; ++i) v[i] = gauss(rng);
  return v;
}

/// Largest |M_ls - Tᵀ M_mj T| over random states; also checks every MuJoCo
/// body frame against loopsim's frame for it.
double maxMassMatrixError(Twin& twin, int samples, double* max_pose_error) {
  std::mt19937 rng(12345);
  double worst = 0.0;
  *max_pose_error = 0.0;
  for (int s = 0; s < samples; ++s) {
    const VectorX q = randomConfiguration(twin.model(), rng);
    const VectorX v = randomVelocity(twin.model().nv, rng);
    twin.setMujocoState(q, v);
    const MatrixX M = crba(twin.model(), twin.data(), q);
    const MatrixX T = twin.velocityMap(q);
    worst = std::max(worst, (M - T.transpose() * twin.mujocoMassMatrix() * T).cwiseAbs().maxCoeff());
    forwardKinematics(twin.model(), twin.data(), q);
    for (int b = 1; b < twin.mj()->nbody; ++b) {
      const SE3 ls = framePlacement(twin.model(), twin.data(), twin.load().mujoco_body_frame[b]);
      const SE3 mj = twin.mujocoBodyPose(b);
      *max_pose_error = std::max({*max_pose_error, (ls.R - mj.R).cwiseAbs().maxCoeff(), (ls.t - mj.t).cwiseAbs().maxCoeff()});
    }
  }
  return worst;
}

/// Largest loop-closure error of the load's constraints at its reference pose.
double closureErrorAtReference(const MjcfLoad& load) {
  const ConstraintSet set(load.model, load.constraints);
  Data data(load.model);
  ConstraintData cdata(set);
  forwardKinematics(load.model, data, load.qpos0_loopsim);
  evaluatePositionErrors(set, data, load.qpos0_loopsim, cdata);
  return cdata.phi.cwiseAbs().maxCoeff();
}

using test::findCollision;

bool hasWarningWith(const Model& model, const std::string& a, const std::string& b = "") {
  for (const std::string& w : model.warnings) {
    if (w.find(a) != std::string::npos && w.find(b) != std::string::npos) return true;
  }
  return false;
}

// ------------------------------------------------------------------ fixtures

TEST(MjcfLoader, ChainSizesJointsAndParameters) {
  const MjcfLoad load = loadMjcf(testData("chain.xml"));
  const Model& m = load.model;
  EXPECT_EQ(m.name, "loader_chain");
  EXPECT_EQ(m.nq, 16);
  EXPECT_EQ(m.nv, 14);
  const auto type = [&](const std::string& joint) { return m.joint_types.at(m.jointId(joint)); };
  EXPECT_EQ(type("hinge_a"), JointType::Revolute);
  EXPECT_EQ(type("slide_b"), JointType::Prismatic);
  EXPECT_EQ(type("ball_c"), JointType::Spherical);
  EXPECT_EQ(type("tj1"), JointType::Revolute);
  EXPECT_EQ(type("tj2"), JointType::Revolute);
  EXPECT_EQ(type("box_free"), JointType::Floating);

  // Bodies whose joint anchor is off the MuJoCo origin: "<body>/<joint>" plus a frame.
  EXPECT_GE(m.bodyId("base/hinge_a"), 1);
  EXPECT_EQ(m.bodyId("base"), -1);
  EXPECT_GE(m.frameId("base"), 0);
  EXPECT_GE(m.bodyId("slider"), 1);  // slide: no anchor shift
  EXPECT_GE(m.bodyId("two_joints/tj1"), 1);
  EXPECT_DOUBLE_EQ(m.body_inertias[m.bodyId("two_joints/tj1")].mass, 0.0);  // massless link of the chain
  EXPECT_EQ(m.frames[m.frameId("tip")].kind, Frame::Kind::MergedLink);
  EXPECT_EQ(m.frames[m.frameId("tip_site")].kind, Frame::Kind::Site);
  EXPECT_NEAR(m.totalMass(), 2 + 0.7 + 0.5 + 0.3 + 0.1 + 0.4 + 1.5, 1e-12);

  const int a = m.idx_v[m.jointId("hinge_a")];
  const int qa = m.idx_q[m.jointId("hinge_a")];
  EXPECT_DOUBLE_EQ(m.damping[a], 0.3);
  EXPECT_DOUBLE_EQ(m.armature[a], 0.01);
  EXPECT_DOUBLE_EQ(m.stiffness[a], 2.0);
  EXPECT_DOUBLE_EQ(m.spring_reference[qa], 0.2);
  EXPECT_DOUBLE_EQ(m.lower_position_limit[qa], -1.0);
  EXPECT_DOUBLE_EQ(m.upper_position_limit[qa], 1.0);
  EXPECT_DOUBLE_EQ(m.effort_limit[a], 30.0);  // motor gear 10 x |ctrl| <= 3
  EXPECT_DOUBLE_EQ(m.armature[m.idx_v[m.jointId("ball_c")] + 2], 0.002);
  ASSERT_EQ(load.motors.size(), 1u);
  EXPECT_EQ(load.motors[0].joint, "hinge_a");
  EXPECT_DOUBLE_EQ(load.motors[0].gear, 10.0);

  // Reference pose: joint refs, identity ball, the free body where the file puts it.
  const VectorX& q0 = load.qpos0_loopsim;
  EXPECT_DOUBLE_EQ(q0[qa], 0.1);
  EXPECT_DOUBLE_EQ(q0[m.idx_q[m.jointId("slide_b")]], 0.05);
  EXPECT_DOUBLE_EQ(q0[m.idx_q[m.jointId("tj2")]], -0.2);
  EXPECT_DOUBLE_EQ(q0[m.idx_q[m.jointId("ball_c")] + 3], 1.0);
  EXPECT_TRUE(q0.segment<3>(m.idx_q[m.jointId("box_free")]).isApprox(Vector3(0.5, 0.2, 1.2)));
  EXPECT_GT(m.visuals.size(), 5u);
}

TEST(MjcfLoader, ChainConstraintsAndWarnings) {
  const MjcfLoad load = loadMjcf(testData("chain.xml"));
  ASSERT_EQ(load.constraints.size(), 4u);
  EXPECT_EQ(load.constraints[0].name, "loop");
  EXPECT_EQ(load.constraints[0].kind, ConstraintKind::Connect);
  EXPECT_EQ(load.constraints[1].kind, ConstraintKind::Weld);
  EXPECT_EQ(load.constraints[2].kind, ConstraintKind::Weld);
  EXPECT_EQ(load.constraints[3].kind, ConstraintKind::Coupling);
  // The connect and the weld without relpose close at the reference pose.
  MjcfLoad closing = load;
  closing.constraints.resize(2);
  EXPECT_LT(closureErrorAtReference(closing), 1e-12);

  const Model& m = load.model;
  EXPECT_TRUE(hasWarningWith(m, "tendon 'coupling_tendon'"));
  EXPECT_TRUE(hasWarningWith(m, "actuator 'servo_d'"));
  EXPECT_TRUE(hasWarningWith(m, "frictionloss", "'hinge_a'"));
  // Geoms MuJoCo collides are collision elements (default contype 1): the floor
  // is the world's plane, boxes keep full extents, the ellipsoid cannot collide.
  const CollisionElement* floor = findCollision(m, "floor");
  ASSERT_NE(floor, nullptr);
  EXPECT_EQ(floor->shape, CollisionElement::Shape::Plane);
  EXPECT_EQ(floor->body, 0);
  EXPECT_DOUBLE_EQ(floor->friction, 1.0);  // MuJoCo's default sliding friction
  const CollisionElement* base_box = findCollision(m, "base_box");
  ASSERT_NE(base_box, nullptr);
  EXPECT_EQ(base_box->shape, CollisionElement::Shape::Box);
  EXPECT_TRUE(base_box->size.isApprox(Vector3(0.1, 0.12, 0.2)));
  EXPECT_EQ(base_box->file, "chain.xml");
  EXPECT_TRUE(hasWarningWith(m, "ellipsoid is not modelled"));
  for (const std::string& w : m.warnings) EXPECT_NE(w.find("chain.xml"), std::string::npos) << w;
}

TEST(MjcfLoader, ChainFramesAndMassMatrixEqualMujoco) {
  Twin twin(testData("chain.xml"));
  ASSERT_EQ(twin.mj()->nq, twin.model().nq);
  ASSERT_EQ(twin.mj()->nv, twin.model().nv);
  double pose_error = 0.0;
  const double mass_error = maxMassMatrixError(twin, 50, &pose_error);
  EXPECT_LT(mass_error, kMassTolerance);
  EXPECT_LT(pose_error, kPoseTolerance);

  // Sites too, at one more random state.
  std::mt19937 rng(7);
  const VectorX q = randomConfiguration(twin.model(), rng);
  twin.setMujocoState(q, VectorX::Zero(twin.model().nv));
  forwardKinematics(twin.model(), twin.data(), q);
  for (int s = 0; s < twin.mj()->nsite; ++s) {
    const std::string name(twin.mj()->names + twin.mj()->name_siteadr[s]);
    const SE3 ls = framePlacement(twin.model(), twin.data(), twin.model().existingFrame(name));
    EXPECT_TRUE(ls.isApprox(twin.mujocoSitePose(s), 1e-12)) << name;
  }
}

TEST(MjcfLoader, EqualityResidualsMatchMujoco) {
  Twin twin(testData("chain.xml"));
  const ConstraintSet set(twin.model(), twin.load().constraints);
  ConstraintData cdata(set);
  std::mt19937 rng(99);
  for (int sample = 0; sample < 20; ++sample) {
    const VectorX q = randomConfiguration(twin.model(), rng);
    twin.setMujocoState(q, VectorX::Zero(twin.model().nv));
    mj_fwdPosition(twin.mj(), twin.mjd());
    forwardKinematics(twin.model(), twin.data(), q);
    evaluatePositionErrors(set, twin.data(), q, cdata);
    const mjData* d = twin.mjd();
    for (int c = 0; c < set.size(); ++c) {
      // MuJoCo's rows of equality c (equalities come first, in order).
      int row = -1;
      for (int r = 0; r < d->nefc; ++r)
        if (d->efc_type[r] == mjCNSTR_EQUALITY && d->efc_id[r] == c) {
          row = r;
          break;
        }
      ASSERT_GE(row, 0);
      const VectorX phi = cdata.phi.segment(set.rowOffset(c), set[c].dimension());
      const Matrix3 Ra = cdata.oMa[c].R;
      switch (set[c].kind) {
        case ConstraintKind::Connect:  // MuJoCo: p1 - p2 in world axes
          EXPECT_LT((Ra * phi.head<3>() - Eigen::Map<const Vector3>(d->efc_pos + row)).norm(), 1e-12);
          break;
        case ConstraintKind::Weld: {
          EXPECT_LT((Ra * phi.tail<3>() - Eigen::Map<const Vector3>(d->efc_pos + row)).norm(), 1e-12);
          // MuJoCo: imaginary part of q2⁻¹ q1 q_rel (sign free); loopsim: log of the same rotation.
          const Vector3 log = phi.head<3>();
          const double angle = log.norm();
          const Vector3 imaginary = angle > 0 ? Vector3(log / angle * std::sin(angle / 2)) : Vector3::Zero();
          const Vector3 mj(d->efc_pos + row + 3);
          EXPECT_LT(std::min((imaginary - mj).norm(), (imaginary + mj).norm()), 1e-12) << set[c].name;
          break;
        }
        case ConstraintKind::Coupling: EXPECT_NEAR(phi[0], d->efc_pos[row], 1e-12); break;
        default: FAIL();
      }
    }
  }
}

TEST(MjcfLoader, MissingMeshesGetPlaceholdersAndFilePoses) {
  const MjcfLoad load = loadMjcf(testData("meshes.xml"));
  const Model& m = load.model;
  EXPECT_TRUE(hasWarningWith(m, "mesh 'gone_obj'", "absent_part.obj"));
  EXPECT_TRUE(hasWarningWith(m, "mesh 'gone_stl'", "absent_other.stl"));
  EXPECT_TRUE(hasWarningWith(m, "texture 'skin'", "absent_skin.png"));
  EXPECT_FALSE(hasWarningWith(m, "wedge.obj"));
  ASSERT_EQ(m.visuals.size(), 3u);
  // Poses as written in the file, although MuJoCo recentres the present wedge.
  const SE3 written(Quaternion(0.9, 0.1, 0.2, 0.3).normalized().toRotationMatrix(), Vector3(0.1, 0.2, 0.3));
  const VisualGeometry& present = m.visuals[0];
  EXPECT_EQ(present.shape, VisualGeometry::Shape::Mesh);
  EXPECT_EQ(fs::path(present.mesh_file).filename(), "wedge.obj");
  EXPECT_TRUE(fs::exists(present.mesh_file));
  EXPECT_TRUE(present.placement.isApprox(written, 1e-9));
  EXPECT_TRUE(m.visuals[2].placement.t.isApprox(Vector3(0, 0, -0.2), 1e-9));
  EXPECT_TRUE(m.visuals[2].placement.R.isApprox(Matrix3::Identity(), 1e-9));
  EXPECT_TRUE(m.visuals[2].mesh_scale.isApprox(Vector3(1, -1, 1)));
  EXPECT_NEAR(m.totalMass(), 1.0, 1e-12);
  // Collision: the present wedge's compiled vertices at its compiled pose are the
  // file's vertices at the written pose; the absent meshes have none, and say why.
  const CollisionElement* wedge = findCollision(m, "present");
  ASSERT_NE(wedge, nullptr);
  ASSERT_GE(wedge->vertices.size(), 4u);  // MuJoCo keeps the OBJ's corners once per face
  const Vector3 file_vertices[] = {{0, 0, 0}, {0.1, 0, 0}, {0, 0.05, 0}, {0, 0, 0.03}};
  auto nearest = [](const Vector3& p, auto begin, auto end, auto place) {
    double d = 1e9;
    for (auto it = begin; it != end; ++it) d = std::min(d, (place(*it) - p).norm());
    return d;
  };
  const auto ours = [&](const Vector3& v) { return wedge->placement.actPoint(v); };
  const auto theirs = [&](const Vector3& f) { return written.actPoint(f); };
  for (const Vector3& v : wedge->vertices) {
    EXPECT_LT(nearest(ours(v), std::begin(file_vertices), std::end(file_vertices), theirs), 1e-6);  // floats
  }
  for (const Vector3& f : file_vertices) {
    EXPECT_LT(nearest(theirs(f), wedge->vertices.begin(), wedge->vertices.end(), ours), 1e-6);
  }
  for (const std::string absent : {"absent1", "absent2"}) {
    const CollisionElement* c = findCollision(m, absent);
    ASSERT_NE(c, nullptr) << absent;
    EXPECT_TRUE(c->vertices.empty()) << absent;
    EXPECT_EQ(c->mesh_problem, "file not found") << absent;
  }

  try {
    loadMjcf(testData("meshes.xml"), MjcfOptions{.placeholder_assets = false});
    FAIL() << "expected a ModelError";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.file(), "meshes.xml");
    EXPECT_NE(std::string(e.what()).find("absent_"), std::string::npos) << e.what();
  }
}

TEST(MjcfLoader, EllipsoidVisualsKeepTheirThreeRadii) {
  const fs::path file = fs::temp_directory_path() / "loopsim_ellipsoid_test.xml";
  std::ofstream(file) << R"(<mujoco><worldbody><body name="egg" pos="0 0 1"><joint name="hinge" axis="0 1 0"/>
    <geom name="shell" type="ellipsoid" size="0.1 0.2 0.3" pos="0.5 0 0" rgba="1 0 0 1" mass="1"/></body></worldbody></mujoco>)";
  const Model m = loadMjcf(file).model;
  fs::remove(file);
  ASSERT_EQ(m.visuals.size(), 1u);
  EXPECT_EQ(m.visuals[0].shape, VisualGeometry::Shape::Ellipsoid);
  EXPECT_TRUE(m.visuals[0].size.isApprox(Vector3(0.1, 0.2, 0.3)));
  EXPECT_TRUE(m.visuals[0].placement.t.isApprox(Vector3(0.5, 0, 0)));
}

TEST(MjcfLoader, BadInputIsAModelErrorNamingTheFile) {
  const auto expectError = [](const fs::path& file, const std::string& detail) {
    try {
      loadMjcf(file);
      FAIL() << "expected a ModelError for " << file;
    } catch (const ModelError& e) {
      EXPECT_NE(std::string(e.what()).find(file.filename().string()), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(detail), std::string::npos) << e.what();
    }
  };
  expectError(testData("no_such_file.xml"), "no such file");
  expectError(testData("malformed.xml"), "malformed XML");
  expectError(testData("not_mujoco.xml"), "<mujoco>");
  expectError(testData("compile_error.xml"), "no_such_body");
}

// ------------------------------------------------------------------ Digit

void expectDigitLoops(const MjcfLoad& load) {
  ASSERT_EQ(load.constraints.size(), 6u);
  for (const Constraint& c : load.constraints) EXPECT_EQ(c.kind, ConstraintKind::Connect) << c.name;
  const double closure = closureErrorAtReference(load);
  std::cout << "  loop closure at q = 0: " << closure << " m\n";
  EXPECT_LT(closure, 1e-5);
}

TEST(MjcfDigitAsset, SizesLoopsAndMassMatrix) {
  Twin twin(asset("robots/digit/digit.xml"));
  EXPECT_EQ(twin.model().nq, 61);
  EXPECT_EQ(twin.model().nv, 54);
  EXPECT_TRUE(twin.model().isFloatingBase());
  expectDigitLoops(twin.load());
  double pose_error = 0.0;
  const double mass_error = maxMassMatrixError(twin, 30, &pose_error);
  std::cout << "  digit.xml: max |M - M_mujoco| = " << mass_error << ", max frame error " << pose_error
            << ", total mass " << twin.model().totalMass() << " kg\n";
  EXPECT_LT(mass_error, kMassTolerance);
  EXPECT_LT(pose_error, kPoseTolerance);
  // The springs are compliant joints.
  for (const char* spring : {"left-shin", "right-shin", "left-heel-spring", "right-heel-spring"}) {
    const int j = twin.model().jointId(spring);
    ASSERT_GE(j, 1) << spring;
    EXPECT_GT(twin.model().stiffness[twin.model().idx_v[j]], 0.0) << spring;
  }
}

TEST(MjcfDigitAsset, RigidSpringVariant) {
  Twin twin(asset("robots/digit/digit_rigid_springs.xml"));
  EXPECT_EQ(twin.model().nq, 57);
  EXPECT_EQ(twin.model().nv, 50);
  EXPECT_EQ(twin.model().jointId("left-shin"), -1);
  expectDigitLoops(twin.load());
  double pose_error = 0.0;
  EXPECT_LT(maxMassMatrixError(twin, 10, &pose_error), kMassTolerance);
  EXPECT_LT(pose_error, kPoseTolerance);
}

// Our Cassie (scripts/assets/make_cassie.py from cassie_v2.sdf): the tree and
// its two achilles connects as MuJoCo compiles them, closed at the reference pose.
TEST(MjcfCassieAsset, SizesLoopsAndMassMatrix) {
  Twin twin(asset("robots/cassie/cassie_rigid_springs.xml"));
  EXPECT_EQ(twin.model().nq, 31);
  EXPECT_EQ(twin.model().nv, 28);
  EXPECT_TRUE(twin.model().isFloatingBase());
  EXPECT_NEAR(twin.model().totalMass(), 32.94, 1e-9);
  ASSERT_EQ(twin.load().constraints.size(), 2u);
  for (const Constraint& c : twin.load().constraints) EXPECT_EQ(c.kind, ConstraintKind::Connect) << c.name;
  EXPECT_LT(closureErrorAtReference(twin.load()), 1e-9);
  double pose_error = 0.0;
  const double mass_error = maxMassMatrixError(twin, 30, &pose_error);
  std::cout << "  cassie_rigid_springs.xml: max |M - M_mujoco| = " << mass_error << ", max frame error "
            << pose_error << "\n";
  EXPECT_LT(mass_error, kMassTolerance);
  EXPECT_LT(pose_error, kPoseTolerance);
}

TEST(MjcfDigitReference, SharedDigitV3) {
  if (!fs::exists(sharedDigit())) GTEST_SKIP() << sharedDigit() << " not present";
  Twin twin(sharedDigit());
  EXPECT_EQ(twin.model().nq, 61);
  EXPECT_EQ(twin.model().nv, 54);
  EXPECT_TRUE(hasWarningWith(twin.model(), "torso.obj", "placeholder"));
  expectDigitLoops(twin.load());
  double pose_error = 0.0;
  const double mass_error = maxMassMatrixError(twin, 30, &pose_error);
  std::cout << "  digit-v3.xml: max |M - M_mujoco| = " << mass_error << ", max frame error " << pose_error
            << ", total mass " << twin.model().totalMass() << " kg\n";
  EXPECT_LT(mass_error, kMassTolerance);
  EXPECT_LT(pose_error, kPoseTolerance);

  // Our asset's figures come from this file: same mass within 2 %, and the
  // same kinematics and mass matrix (same body order, so q maps one to one).
  const MjcfLoad ours = loadMjcf(asset("robots/digit/digit.xml"));
  EXPECT_NEAR(ours.model.totalMass(), twin.model().totalMass(), 0.02 * twin.model().totalMass());
  ASSERT_EQ(ours.model.nq, twin.model().nq);
  EXPECT_TRUE(ours.qpos0_loopsim.isApprox(twin.load().qpos0_loopsim, 1e-12));
  Data ours_data(ours.model);
  std::mt19937 rng(2024);
  double frame_gap = 0.0, mass_gap = 0.0;
  for (int sample = 0; sample < 10; ++sample) {
    const VectorX q = randomConfiguration(ours.model, rng);
    mass_gap = std::max(mass_gap, (crba(ours.model, ours_data, q) - crba(twin.model(), twin.data(), q)).cwiseAbs().maxCoeff());
    forwardKinematics(ours.model, ours_data, q);
    forwardKinematics(twin.model(), twin.data(), q);
    for (int b = 1; b < twin.mj()->nbody; ++b) {
      const std::string name(twin.mj()->names + twin.mj()->name_bodyadr[b]);
      const SE3 a = framePlacement(ours.model, ours_data, ours.model.existingFrame(name));
      const SE3 r = framePlacement(twin.model(), twin.data(), twin.load().mujoco_body_frame[b]);
      frame_gap = std::max({frame_gap, (a.R - r.R).cwiseAbs().maxCoeff(), (a.t - r.t).cwiseAbs().maxCoeff()});
    }
  }
  std::cout << "  digit.xml vs digit-v3.xml: max frame gap " << frame_gap << ", max mass-matrix gap " << mass_gap << "\n";
  EXPECT_LT(frame_gap, 1e-12);
  EXPECT_LT(mass_gap, 1e-9);
  // The loop anchors agree as well.
  ASSERT_EQ(ours.constraints.size(), twin.load().constraints.size());
  for (std::size_t c = 0; c < ours.constraints.size(); ++c) {
    EXPECT_TRUE(ours.constraints[c].placement1.isApprox(twin.load().constraints[c].placement1, 1e-12));
    EXPECT_TRUE(ours.constraints[c].placement2.isApprox(twin.load().constraints[c].placement2, 1e-12));
  }
}

// MuJoCo's default warning handler appends to MUJOCO_LOG.TXT in the working
// directory and prints to stdout; once loopsim has loaded an MJCF, its
// messages go through our logger instead.
TEST(MjcfLoader, MujocoWarningsGoThroughOurLoggerNotIntoFiles) {
  const fs::path previous = fs::current_path();
  const fs::path dir = fs::temp_directory_path() / ("loopsim_mujoco_log_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::current_path(dir);
  (void)loadMjcf(testData("chain.xml"));
  testing::internal::CaptureStdout();
  mju_warning("loopsim test warning");
  const std::string out = testing::internal::GetCapturedStdout();
  fs::current_path(previous);
  // The message reached spdlog (whose default sink in this test binary is stdout; the app's is stderr),
  // not MuJoCo's own printf ("WARNING: ...").
  EXPECT_NE(out.find("[warning] MuJoCo: loopsim test warning"), std::string::npos) << out;
  EXPECT_EQ(out.find("WARNING: loopsim test warning"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir / "MUJOCO_LOG.TXT"));
  fs::remove_all(dir);
}

TEST(MjcfLoader, CollisionGeomsKeepMasksFrictionCondimAndExclusions) {
  const fs::path file = fs::temp_directory_path() / ("loopsim_collision_geoms_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(file) << R"(<mujoco><worldbody>
    <geom name="ground" type="plane" size="1 1 0.1" pos="0 0 -0.5" zaxis="0 1 1"/>
    <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0"/>
      <geom name="drawn" type="sphere" size="0.1" contype="0" conaffinity="0" mass="1"/>
      <geom name="slick" type="sphere" size="0.05" condim="1" friction="0.9 0 0" contype="2" conaffinity="5"/>
      <body name="b" pos="0 0 -0.3"><joint name="jb" axis="0 1 0"/>
        <geom name="rolling" type="capsule" size="0.02 0.1" condim="6" friction="0.4 0.01 0.01" mass="1"/>
      </body>
    </body>
    <body name="c" pos="1 0 1"><joint name="jc" axis="0 1 0"/><geom name="other" type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody><contact><exclude body1="a" body2="c"/></contact></mujoco>)";
  const Model m = loadMjcf(file).model;
  fs::remove(file);
  EXPECT_EQ(findCollision(m, "drawn"), nullptr) << "contype 0 and conaffinity 0: drawing only";
  const CollisionElement* slick = findCollision(m, "slick");
  ASSERT_NE(slick, nullptr);
  EXPECT_EQ(slick->contype, 2u);
  EXPECT_EQ(slick->conaffinity, 5u);
  EXPECT_EQ(slick->friction, 0.0) << "condim 1 is frictionless";
  const CollisionElement* rolling = findCollision(m, "rolling");
  ASSERT_NE(rolling, nullptr);
  EXPECT_EQ(rolling->shape, CollisionElement::Shape::Capsule);
  EXPECT_TRUE(rolling->size.head<2>().isApprox(Eigen::Vector2d(0.02, 0.2)));  // full length of the cylinder part
  EXPECT_DOUBLE_EQ(rolling->friction, 0.4);
  EXPECT_TRUE(hasWarningWith(m, "geom 'rolling'", "condim 6"));
  // The plane: its normal is the geom's z axis, through its position.
  const CollisionElement* ground = findCollision(m, "ground");
  ASSERT_NE(ground, nullptr);
  EXPECT_TRUE(ground->placement.R.col(2).isApprox(Vector3(0, 1, 1).normalized(), 1e-9));
  EXPECT_TRUE(ground->placement.t.isApprox(Vector3(0, 0, -0.5)));
  ASSERT_EQ(m.collision_exclusions.size(), 1u);
  const int a = m.bodyId("a"), c = m.bodyId("c");
  EXPECT_EQ(m.collision_exclusions[0], std::make_pair(std::min(a, c), std::max(a, c)));
}

TEST(MjcfLoader, DigitsSolesCollideWithTheGroundButNotWithEachOther) {
  for (const char* variant : {"robots/digit/digit.xml", "robots/digit/digit_rigid_springs.xml"}) {
    const Model m = loadMjcf(asset(variant)).model;
    ASSERT_EQ(m.collisions.size(), 2u) << variant;
    for (const std::string side : {"left", "right"}) {
      const CollisionElement* sole = findCollision(m, side + "-sole");
      ASSERT_NE(sole, nullptr) << variant << " " << side;
      EXPECT_EQ(sole->shape, CollisionElement::Shape::Box);
      EXPECT_EQ(sole->body, m.bodyId(side + "-toe-roll"));
      EXPECT_DOUBLE_EQ(sole->friction, 0.7);
      // The reference's masks: 4 & 3 = 0 between the soles; a ground of contype 1 reaches conaffinity 3.
      EXPECT_EQ(sole->contype & sole->conaffinity, 0u);
      EXPECT_NE(1u & sole->conaffinity, 0u);
    }
  }
}

}  // namespace
}  // namespace loopsim
