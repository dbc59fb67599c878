#include <loopsim/contact/contact_residuals.hpp>

#include <cmath>

#include <loopsim/contact/coulomb_cone.hpp>

namespace loopsim {

ContactResiduals contactResiduals(const ContactProblem& problem, const Eigen::Ref<const VectorX>& lambda,
                                  const Eigen::Ref<const VectorX>& v) {
  ContactResiduals r;
  for (const ContactBlock& b : problem.blocks()) {
    switch (b.kind) {
      case ContactBlockKind::frictional: {
        const Vector3 l = lambda.segment<3>(b.first);
        const Vector3 corrected = deSaxceCorrected(b.mu, v.segment<3>(b.first));
        r.primal = std::max(r.primal, (l - projectOntoCoulombCone(b.mu, l)).norm());
        r.dual = std::max(r.dual, (corrected - projectOntoDualCoulombCone(b.mu, corrected)).norm());
        r.complementarity = std::max(r.complementarity, std::abs(l.dot(corrected)));
        break;
      }
      case ContactBlockKind::unilateral: {
        const double l = lambda[b.first];
        const double w = v[b.first];
        r.primal = std::max(r.primal, -l);
        r.dual = std::max(r.dual, -w);
        r.complementarity = std::max(r.complementarity, std::abs(l * w));
        break;
      }
      case ContactBlockKind::bilateral:
        r.dual = std::max(r.dual, v.segment(b.first, b.rows).norm());
        break;
    }
  }
  return r;
}

}  // namespace loopsim
