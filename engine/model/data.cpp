#include <loopsim/model/data.hpp>

#include <loopsim/model/joint_motion.hpp>

namespace loopsim {

Data::Data(const Model& model)
    : liMi(model.nbodies()),
      oMi(model.nbodies()),
      v(model.nbodies()),
      a(model.nbodies()),
      a_gf(model.nbodies()),
      c(model.nbodies()),
      f(model.nbodies()),
      S(Matrix6X::Zero(6, model.nv)),
      Ia(model.nbodies(), Matrix6::Zero()),
      pa(model.nbodies()),
      U(Matrix6X::Zero(6, model.nv)),
      Dinv(model.nbodies(), Matrix6::Zero()),
      u(VectorX::Zero(model.nv)),
      oYcrb(model.nbodies()),
      oS(Matrix6X::Zero(6, model.nv)),
      oF(Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor>::Zero(6, model.nv)),
      oI(model.nbodies()),
      ov(model.nbodies()),
      oa_gf(model.nbodies()),
      of(model.nbodies()),
      M(MatrixX::Zero(model.nv, model.nv)),
      tau(VectorX::Zero(model.nv)),
      nle(VectorX::Zero(model.nv)),
      ddq(VectorX::Zero(model.nv)),
      passive(VectorX::Zero(model.nv)),
      oMf(model.frames.size()) {
  for (int i = 1; i < model.nbodies(); ++i) detail::writeMotionSubspace(model, i, S);
}

}  // namespace loopsim
