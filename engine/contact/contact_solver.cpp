#include <loopsim/contact/contact_solver.hpp>

#include <cmath>
#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/model/number_text.hpp>

namespace loopsim {

namespace {

[[noreturn]] void refuse(std::string_view solver, const std::string& setting, const std::string& expected,
                         double value) {
  throw ModelError("", "contact solver '" + std::string(solver) + "'",
                   setting + " must be " + expected + ", got " + numberText(value));
}

}  // namespace

void checkContactSolverSettings(const ContactSolverSettings& s, std::string_view solver) {
  // Written as !(ok) so that NaN is refused too.
  if (!(s.tolerance > 0.0) || std::isinf(s.tolerance)) refuse(solver, "tolerance", "positive and finite", s.tolerance);
  if (s.max_iterations < 1) refuse(solver, "max_iterations", ">= 1", s.max_iterations);
  if (!(s.proximal > 0.0) || std::isinf(s.proximal)) refuse(solver, "proximal", "positive and finite", s.proximal);
  if (!(s.rho_power >= -0.5 && s.rho_power <= 0.5)) refuse(solver, "rho_power", "in [-0.5, 0.5]", s.rho_power);
  if (!(s.rho_power_step > 0.0 && s.rho_power_step <= 1.0)) {
    refuse(solver, "rho_power_step", "in (0, 1]", s.rho_power_step);
  }
  if (!(s.balance_ratio > 1.0) || std::isinf(s.balance_ratio)) {
    refuse(solver, "balance_ratio", "greater than 1 and finite", s.balance_ratio);
  }
  if (s.power_iterations < 1) refuse(solver, "power_iterations", ">= 1", s.power_iterations);
  if (!(s.over_relaxation > 0.0 && s.over_relaxation < 2.0)) {
    refuse(solver, "over_relaxation", "in (0, 2)", s.over_relaxation);
  }
}

}  // namespace loopsim
