// Finds the resting pose of a scene's passive motions that neither an actuator
// nor a constraint holds, so that its feedforward: hold finds the pose exactly
// holdable: Atlas's wrists when its hands are free, the free spin of Digit's
// ball-jointed rods about their own axis, a box held at two points turning
// about the line between them.
// Those motions span Z = null([J; S]) at the consistent initial pose (J the
// constraint Jacobian, S the selection of the actuated dofs). With the
// actuated joints fixed, q(θ) = project(q0 ⊕ Zθ) (back onto the constraints),
// and Newton drives r(θ) = Zᵀ u(q(θ)) to zero, u the unbalanced load of
// control/holding_forces.hpp; curvatures are taken in absolute value so it walks
// downhill to a stable rest, which it checks (∂r/∂θ, the potential's Hessian,
// positive definite; a neutral direction is reported as such). Prints every
// passive joint that moved, with 17 digits, for the scene's `initial: q:` block.
// Frames named after the scene get their world positions at the consistent
// initial pose printed first (17 digits: e.g. to centre a held box exactly on
// the line between two hands instead of letting it turn).
//   loopsim_passive_equilibrium SCENE.yaml [FRAME...]
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/constraints/constraint_data.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/control/holding_forces.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/scene/scene_loader.hpp>

int main(int argc, char** argv) {
  using namespace loopsim;
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SCENE.yaml [FRAME...]\n", argv[0]);
    return 2;
  }
  try {
    const Scene scene = loadScene(argv[1]);
    const Model& model = *scene.model;
    const ConstraintSet set(model, scene.constraints, scene.time_constant);
    VectorX q0 = scene.q0, v = VectorX::Zero(model.nv);
    if (set.dimension() > 0) makeConsistent(set, q0, v, scene.held_joints);

    if (argc > 2) {
      Data frames(model);
      forwardKinematics(model, frames, q0);
      for (int i = 2; i < argc; ++i) {
        const Vector3 p = framePlacement(model, frames, model.existingFrame(argv[i])).t;
        std::printf("# frame %s at [%.17g, %.17g, %.17g]\n", argv[i], p.x(), p.y(), p.z());
      }
    }

    // Z: orthonormal basis of the motions that move no actuated joint and keep the constraints.
    std::vector<int> actuated_dofs;
    for (int j : scene.actuated_joints) {
      for (int k = 0; k < model.joint_nv[j]; ++k) actuated_dofs.push_back(model.idx_v[j] + k);
    }
    Data data(model);
    ConstraintData cdata(set);
    MatrixX blocked = MatrixX::Zero(set.dimension() + static_cast<int>(actuated_dofs.size()), model.nv);
    if (set.dimension() > 0) {
      computeConstraintTerms(set, data, q0, v, cdata, kConstraintJacobian);
      blocked.topRows(set.dimension()) = cdata.J;
    }
    for (std::size_t k = 0; k < actuated_dofs.size(); ++k) blocked(set.dimension() + static_cast<int>(k), actuated_dofs[k]) = 1.0;
    const Eigen::ColPivHouseholderQR<MatrixX> qr(blocked.transpose());
    const MatrixX Q = qr.householderQ();
    const MatrixX Z = Q.rightCols(model.nv - qr.rank());
    const int n = static_cast<int>(Z.cols());
    std::fprintf(stderr, "%d free passive motion(s)\n", n);

    ConstraintProjector projector(set, scene.actuated_joints);
    auto pose = [&](const VectorX& theta) {
      VectorX q(model.nq);
      integrate(model, q0, Z * theta, 1.0, q);
      if (set.dimension() > 0) projector.projectPositions(q);
      return q;
    };
    auto residual = [&](const VectorX& theta) {
      return VectorX(Z.transpose() * leastEffortHoldingForces(set, pose(theta), scene.actuated_joints).unbalanced);
    };
    VectorX theta = VectorX::Zero(n);
    MatrixX stiffness(n, n);
    auto updateStiffness = [&] {
      const double h = 1e-7;
      for (int k = 0; k < n; ++k) {
        VectorX tp = theta, tm = theta;
        tp[k] += h;
        tm[k] -= h;
        stiffness.col(k) = (residual(tp) - residual(tm)) / (2.0 * h);
      }
    };
    VectorX r = residual(theta);
    for (int iteration = 0; iteration < 100 && n > 0 && r.norm() > 1e-12; ++iteration) {
      updateStiffness();
      const Eigen::SelfAdjointEigenSolver<MatrixX> eig(0.5 * (stiffness + stiffness.transpose()));
      const VectorX curvature = eig.eigenvalues().cwiseAbs().cwiseMax(1e-9);
      const VectorX step = eig.eigenvectors() * (eig.eigenvectors().transpose() * r).cwiseQuotient(curvature);
      const double scale = std::min(1.0, 0.3 / std::max(step.cwiseAbs().maxCoeff(), 1e-300));
      theta -= scale * step;
      r = residual(theta);
      std::fprintf(stderr, "iteration %d: |r| %.3g\n", iteration, r.norm());
    }
    const VectorX rest = pose(theta);
    const HoldingForces hold = leastEffortHoldingForces(set, rest, scene.actuated_joints);
    std::string verdict = "no free motion";
    if (n > 0) {
      updateStiffness();
      const VectorX curvatures =
          Eigen::SelfAdjointEigenSolver<MatrixX>(0.5 * (stiffness + stiffness.transpose())).eigenvalues();
      verdict = curvatures.minCoeff() > 1e-9 ? "stable rest" : "curvatures down to " + std::to_string(curvatures.minCoeff());
    }
    std::printf("# unbalanced load at the rest: %.3g (of |g - tau_passive| %.4g); %s\n", hold.unbalanced.norm(),
                hold.load.norm(), verdict.c_str());
    for (int j = 1; j < model.nbodies(); ++j) {
      const int iq = model.idx_q[j];
      const int nq = model.joint_nq[j];
      if ((rest.segment(iq, nq) - scene.q0.segment(iq, nq)).cwiseAbs().maxCoeff() <= 1e-14) continue;
      std::printf("%s: ", model.joint_names[j].c_str());
      if (nq == 1) {
        std::printf("%.17g\n", rest[iq]);
      } else {
        for (int k = 0; k < nq; ++k) std::printf("%s%.17g", k ? ", " : "[", rest[iq + k]);
        std::printf("]\n");
      }
    }
    return hold.unbalanced.norm() <= 1e-12 * std::max(1.0, hold.load.norm()) ? 0 : 1;
  } catch (const ModelError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
