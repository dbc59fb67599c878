// MuJoCo as an independent oracle: the same URDF is loaded by loopsim and by
// MuJoCo, and on random states loopsim's CRBA mass matrix and nonlinear
// effects must equal MuJoCo's (mj_fullM of qM, qfrc_bias) to 1e-9.
//
// Coordinates differ only at a floating base. loopsim: q = [p; quat xyzw],
// v = [ω; v_body] (both in the base frame). MuJoCo's free joint: qpos =
// [p; quat wxyz], qvel = [R v_body (world); ω (base frame)]. With
// v_mj = T(q) v_ls, the kinetic energy and the power give
//   M_ls = Tᵀ M_mj T,    h_ls = Tᵀ (h_mj + M_mj Ṫ v_ls),
// where Ṫ v_ls = [R (ω × v_body); 0] on the free joint's rows (Ṙ = R [ω]×).
// Other joints are matched by name, so the two dof orders may differ.
//
// MuJoCo keeps inertias in principal axes from an iterative eigen-decomposition
// accurate to ~1e-6 relative; loopsim takes MuJoCo's compiled inertias (after
// checking them against its own to 1e-5) so that 1e-9 tests the algorithms.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/parsers/urdf_loader.hpp>

#include <loopsim/bench/mujoco_handles.hpp>
#include <loopsim/bench/mujoco_urdf.hpp>
#include "text_file.hpp"

namespace loopsim {
namespace {

constexpr double kTolerance = 1e-9;
constexpr const char* kFreeJointName = mujoco_peer::kMujocoFreeJoint;

std::filesystem::path testData(const std::string& name) { return std::filesystem::path(LOOPSIM_TEST_DATA_DIR) / name; }
std::filesystem::path asset(const std::string& name) { return std::filesystem::path(LOOPSIM_ASSETS_DIR) / name; }

using mujoco_peer::mujocoUrdf;
using mujoco_peer::MjDataPtr;
using mujoco_peer::MjModelPtr;

MjModelPtr loadMujoco(const std::string& xml) { return mujoco_peer::loadMujocoText(xml, "oracle_model.urdf"); }

/// One URDF loaded by both libraries, with the coordinate map between them.
class Oracle {
 public:
  Oracle(const std::filesystem::path& file, bool floating)
      : model_(loadUrdf(file, UrdfOptions{.floating_base = floating})),
        data_(model_),
        mj_(loadMujoco(mujocoUrdf(test::readTextFile(file), model_.body_names.at(1), floating))),
        d_(mj_makeData(mj_.get())),
        mj_dof_(static_cast<std::size_t>(model_.nv), -1) {
    if (mj_->nq != model_.nq || mj_->nv != model_.nv) {
      throw std::runtime_error("size mismatch: MuJoCo nq " + std::to_string(mj_->nq) + " nv " +
                               std::to_string(mj_->nv) + ", loopsim nq " + std::to_string(model_.nq) + " nv " +
                               std::to_string(model_.nv));
    }
    for (int j = 1; j <= model_.njoints(); ++j) {
      const bool free = model_.joint_types[j] == JointType::Floating;
      const std::string name = free ? kFreeJointName : model_.joint_names[j];
      const int id = mj_name2id(mj_.get(), mjOBJ_JOINT, name.c_str());
      if (id < 0) throw std::runtime_error("MuJoCo has no joint " + name);
      const int expected = free ? mjJNT_FREE
                           : model_.joint_types[j] == JointType::Prismatic ? mjJNT_SLIDE
                                                                            : mjJNT_HINGE;
      if (mj_->jnt_type[id] != expected) throw std::runtime_error("joint type differs for " + name);
      if (free) {
        mj_free_dof_ = mj_->jnt_dofadr[id];
        ls_free_q_ = model_.idx_q[j];
        ls_free_v_ = model_.idx_v[j];
      } else {
        mj_dof_[model_.idx_v[j]] = mj_->jnt_dofadr[id];
      }
    }
    adoptMujocoInertias();
  }

  /// Largest relative difference between a body's rotational inertia as
  /// loopsim loaded it and as MuJoCo compiled it, before adoptMujocoInertias.
  double inertiaDifference() const { return inertia_difference_; }

  Model& model() { return model_; }
  Data& data() { return data_; }
  mjModel* mj() { return mj_.get(); }
  mjData* mjd() { return d_.get(); }

  /// Writes the loopsim state into MuJoCo's qpos / qvel and runs mj_forward.
  void setMujocoState(const VectorX& q, const VectorX& v) {
    mujoco_peer::writeMujocoState(model_, q, v, mj_.get(), d_.get());
    mj_forward(mj_.get(), d_.get());
  }

  /// T with v_mj = T v_ls (rows: MuJoCo dofs, columns: loopsim dofs).
  MatrixX velocityMap(const VectorX& q) const {
    MatrixX T = MatrixX::Zero(model_.nv, model_.nv);
    for (int i = 0; i < model_.nv; ++i)
      if (mj_dof_[i] >= 0) T(mj_dof_[i], i) = 1.0;
    if (mj_free_dof_ >= 0) {
      T.block<3, 3>(mj_free_dof_, ls_free_v_ + 3) = baseRotation(q);
      T.block<3, 3>(mj_free_dof_ + 3, ls_free_v_) = Matrix3::Identity();
    }
    return T;
  }

  /// Ṫ v_ls in MuJoCo's dof order.
  VectorX velocityMapRate(const VectorX& q, const VectorX& v) const {
    VectorX out = VectorX::Zero(model_.nv);
    if (mj_free_dof_ >= 0) {
      const Vector3 omega = v.segment<3>(ls_free_v_);
      out.segment<3>(mj_free_dof_) = baseRotation(q) * omega.cross(Vector3(v.segment<3>(ls_free_v_ + 3)));
    }
    return out;
  }

  MatrixX mujocoMassMatrix() const {
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> M(model_.nv, model_.nv);
    mj_fullM(mj_.get(), M.data(), d_->qM);
    return M;
  }
  VectorX mujocoBias() const { return Eigen::Map<const VectorX>(d_->qfrc_bias, model_.nv); }

  /// MuJoCo's M and h mapped to loopsim's coordinates (after setMujocoState).
  MatrixX expectedMassMatrix(const VectorX& q) const {
    const MatrixX T = velocityMap(q);
    return T.transpose() * mujocoMassMatrix() * T;
  }
  VectorX expectedNonLinearEffects(const VectorX& q, const VectorX& v) const {
    return velocityMap(q).transpose() * (mujocoBias() + mujocoMassMatrix() * velocityMapRate(q, v));
  }

  double mujocoTotalMass() const {
    double mass = 0.0;
    for (int b = 0; b < mj_->nbody; ++b) mass += mj_->body_mass[b];
    return mass;
  }

 private:
  Matrix3 baseRotation(const VectorX& q) const {
    const Vector4 xyzw = q.segment<4>(ls_free_q_ + 3);
    return Quaternion(xyzw[3], xyzw[0], xyzw[1], xyzw[2]).normalized().toRotationMatrix();
  }

  /// MuJoCo stores each body's inertia in principal axes, found by an
  /// iterative eigen-decomposition that is accurate to ~1e-7 relative only.
  /// To compare the algorithms rather than that decomposition, loopsim's
  /// bodies take MuJoCo's compiled inertias; the difference is kept for its
  /// own, looser check. Masses, centres of mass and placements are left as
  /// loopsim loaded them.
  void adoptMujocoInertias() {
    for (int b = 1; b < mj_->nbody; ++b) {
      const int body = model_.bodyId(mj_id2name(mj_.get(), mjOBJ_BODY, b));
      if (body < 1) throw std::runtime_error(std::string("loopsim has no body ") + mj_id2name(mj_.get(), mjOBJ_BODY, b));
      const double* iq = mj_->body_iquat + 4 * b;
      const Matrix3 R = Quaternion(iq[0], iq[1], iq[2], iq[3]).toRotationMatrix();
      const Matrix3 principal = Vector3(Eigen::Map<const Vector3>(mj_->body_inertia + 3 * b)).asDiagonal();
      const Matrix3 inertia = R * principal * R.transpose();
      Inertia& own = model_.body_inertias[body];
      inertia_difference_ = std::max(inertia_difference_, maxAbsDifference(own.inertia_com, inertia) /
                                                              own.inertia_com.cwiseAbs().maxCoeff());
      own.inertia_com = inertia;
    }
  }
  static double maxAbsDifference(const Matrix3& a, const Matrix3& b) { return (a - b).cwiseAbs().maxCoeff(); }

  Model model_;
  Data data_;
  MjModelPtr mj_;
  MjDataPtr d_;
  std::vector<int> mj_dof_;                 // per loopsim dof outside the free joint
  int mj_free_dof_ = -1, ls_free_q_ = -1, ls_free_v_ = -1;
  double inertia_difference_ = 0.0;
};

VectorX randomVelocity(int nv, std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> uniform(-scale, scale);
  VectorX v(nv);
  for (int i = 0; i < nv; ++i) v[i] = uniform(rng);
  return v;
}

double maxAbs(const MatrixX& m) { return m.cwiseAbs().maxCoeff(); }

/// Compares M and h on `samples` random states; prints and checks the worst errors.
// smallest_h: the least largest |h| over the states that shows the comparison
// carried gravity and velocity terms (1 N m for a robot; less for a hand of grams).
void expectSameDynamics(Oracle& oracle, int samples, unsigned seed, double smallest_h = 1.0) {
  // Both read the same <inertial> numbers; only MuJoCo's principal-axis round
  // trip differs (observed up to ~1e-6 relative; a loader error would be O(1)).
  EXPECT_LT(oracle.inertiaDifference(), 1e-5);
  std::mt19937 rng(seed);
  double worst_M = 0.0, worst_h = 0.0, largest_M = 0.0, largest_h = 0.0;
  int worst_M_sample = -1, worst_h_sample = -1;
  for (int s = 0; s < samples; ++s) {
    const VectorX q = randomConfiguration(oracle.model(), rng);
    const VectorX v = randomVelocity(oracle.model().nv, rng, 2.0);
    oracle.setMujocoState(q, v);
    const MatrixX M = crba(oracle.model(), oracle.data(), q);
    const VectorX h = nonLinearEffects(oracle.model(), oracle.data(), q, v);
    const MatrixX M_expected = oracle.expectedMassMatrix(q);
    const VectorX h_expected = oracle.expectedNonLinearEffects(q, v);
    if (maxAbs(M - M_expected) > worst_M) worst_M = maxAbs(M - M_expected), worst_M_sample = s;
    if (maxAbs(h - h_expected) > worst_h) worst_h = maxAbs(h - h_expected), worst_h_sample = s;
    largest_M = std::max(largest_M, maxAbs(M_expected));
    largest_h = std::max(largest_h, maxAbs(h_expected));
  }
  std::printf("  inertias differ by %.3g (relative, before adoption); %d states: max |M - M_mujoco| = %.3g "
              "(max |M| %.3g), max |h - h_mujoco| = %.3g (max |h| %.3g)\n",
              oracle.inertiaDifference(), samples, worst_M, largest_M, worst_h, largest_h);
  EXPECT_LE(worst_M, kTolerance) << "worst sample " << worst_M_sample;
  EXPECT_LE(worst_h, kTolerance) << "worst sample " << worst_h_sample;
  // The comparison must not be vacuous: the bias forces carry gravity and velocity terms.
  EXPECT_GT(largest_h, smallest_h);
}

TEST(MujocoOracle, FixedBaseSerialChain) {
  Oracle oracle(testData("mujoco/serial_chain.urdf"), false);
  ASSERT_EQ(oracle.model().nv, 5);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-12);
  expectSameDynamics(oracle, 30, 11u);
}

TEST(MujocoOracle, FixedBaseChainWithArmature) {
  // M includes the armature on its diagonal in both libraries.
  Oracle oracle(testData("mujoco/serial_chain.urdf"), false);
  for (int j = 1; j <= oracle.model().njoints(); ++j) {
    const int dof = oracle.model().idx_v[j];
    const double armature = 0.01 * (dof + 1);
    oracle.model().armature[dof] = armature;
    oracle.mj()->dof_armature[oracle.mj()->jnt_dofadr[mj_name2id(oracle.mj(), mjOBJ_JOINT,
                                                                 oracle.model().joint_names[j].c_str())]] = armature;
  }
  expectSameDynamics(oracle, 10, 12u);
}

TEST(MujocoOracle, FixedBaseBranchingTree) {
  Oracle oracle(testData("mujoco/branching_tree.urdf"), false);
  ASSERT_EQ(oracle.model().nv, 10);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-12);
  expectSameDynamics(oracle, 30, 13u);
}

TEST(MujocoOracle, FloatingBaseGo1) {
  Oracle oracle(asset("robots/go1/go1.urdf"), true);
  EXPECT_EQ(oracle.model().nq, 19);
  EXPECT_EQ(oracle.model().nv, 18);
  EXPECT_NEAR(oracle.model().totalMass(), 13.100529, 1e-6);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-12);
  expectSameDynamics(oracle, 30, 14u);
}

TEST(MujocoOracle, FloatingBaseAtlas) {
  Oracle oracle(asset("robots/atlas/atlas.urdf"), true);
  EXPECT_EQ(oracle.model().nq, 37);
  EXPECT_EQ(oracle.model().nv, 36);
  EXPECT_NEAR(oracle.model().totalMass(), 175.117964, 1e-6);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 15u);
}

TEST(MujocoOracle, FixedBaseIiwa) {
  Oracle oracle(asset("robots/iiwa/iiwa.urdf"), false);
  EXPECT_EQ(oracle.model().nq, 7);
  EXPECT_EQ(oracle.model().nv, 7);
  EXPECT_NEAR(oracle.model().totalMass(), 25.61, 1e-9);  // the base's 5 kg stays with the world
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 16u);
}

TEST(MujocoOracle, FixedBaseAllegroHand) {
  Oracle oracle(asset("robots/allegro/allegro_right_hand.urdf"), false);
  EXPECT_EQ(oracle.model().nv, 16);
  EXPECT_NEAR(oracle.model().totalMass(), 0.5395, 1e-9);  // the palm's 0.4154 kg stays with the world
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 17u, 0.01);
}

TEST(MujocoOracle, FixedBaseShadowLikeHand) {
  Oracle oracle(asset("robots/shadow_like_hand/shadow_like_hand.urdf"), false);
  EXPECT_EQ(oracle.model().nv, 24);
  EXPECT_NEAR(oracle.model().totalMass(), 0.802, 1e-9);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 29u, 0.01);
}

// Paper 004's robots with their rotors as bodies of their own (the
// transmissions are scene constraints, not in the URDF).
TEST(MujocoOracle, FloatingBaseMiniCheetahWithRotors) {
  Oracle oracle(asset("robots/mini_cheetah/mini_cheetah.urdf"), true);
  EXPECT_EQ(oracle.model().nv, 30);
  EXPECT_NEAR(oracle.model().totalMass(), 8.912, 1e-9);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 18u);
}

TEST(MujocoOracle, FloatingBaseMitHumanoidWithRotors) {
  Oracle oracle(asset("robots/mit_humanoid/mit_humanoid.urdf"), true);
  EXPECT_EQ(oracle.model().nv, 42);
  EXPECT_NEAR(oracle.model().totalMass(), 25.96855, 1e-9);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 19u);
}

TEST(MujocoOracle, FloatingBaseTelloWithRotors) {
  Oracle oracle(asset("robots/tello/tello.urdf"), true);
  EXPECT_EQ(oracle.model().nv, 42);
  EXPECT_NEAR(oracle.model().totalMass(), 16.144868, 1e-9);
  EXPECT_NEAR(oracle.model().totalMass(), oracle.mujocoTotalMass(), 1e-9);
  expectSameDynamics(oracle, 30, 23u);
}

TEST(MujocoOracle, GravityConvention) {
  // At rest h is the gravity load: on the free base's linear coordinates
  // (base frame) it is -Rᵀ m g, i.e. it pushes up against g.
  Oracle oracle(asset("robots/atlas/atlas.urdf"), true);
  Model& model = oracle.model();
  std::mt19937 rng(16u);
  const VectorX v = VectorX::Zero(model.nv);
  const int base_v = model.idx_v[1];
  for (const Vector3& gravity : {Vector3(0.0, 0.0, -9.81), Vector3(0.7, -1.3, -4.2), Vector3::Zero().eval()}) {
    model.gravity = gravity;
    for (int k = 0; k < 3; ++k) oracle.mj()->opt.gravity[k] = gravity[k];
    for (int s = 0; s < 5; ++s) {
      const VectorX q = randomConfiguration(model, rng);
      oracle.setMujocoState(q, v);
      const VectorX h = nonLinearEffects(model, oracle.data(), q, v);
      const Vector4 xyzw = q.segment<4>(model.idx_q[1] + 3);
      const Matrix3 R = Quaternion(xyzw[3], xyzw[0], xyzw[1], xyzw[2]).toRotationMatrix();
      const Vector3 expected_linear = -R.transpose() * (model.totalMass() * gravity);
      EXPECT_LE((h.segment<3>(base_v + 3) - expected_linear).cwiseAbs().maxCoeff(), kTolerance)
          << "gravity " << gravity.transpose();
      EXPECT_LE(maxAbs(h - oracle.expectedNonLinearEffects(q, v)), kTolerance) << "gravity " << gravity.transpose();
      if (gravity.isZero()) {
        EXPECT_LE(maxAbs(h), kTolerance);
      }
    }
  }
}

}  // namespace
}  // namespace loopsim
