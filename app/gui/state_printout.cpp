#include "gui/state_printout.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sstream>
#include <stdexcept>

#include <spdlog/fmt/fmt.h>

#include "info_command.hpp"
#include <loopsim/control/holding_forces.hpp>

namespace loopsim::app {

namespace fs = std::filesystem;

std::string modelPrintout(const SimulationSession& session) {
  const Simulation& sim = session.simulation();
  const Scene& scene = sim.scene();
  std::ostringstream out;
  out << "scene:       " << scene.name << " (" << session.file().string() << ")\n"
      << "step:        dt " << fmt::format("{:.6g}", scene.dt) << " s, solver " << scene.solver << ", Baumgarte T "
      << fmt::format("{:.6g}", sim.constraints().timeConstant()) << " s, projection " << (scene.projection ? "on" : "off")
      << "\n\n";
  printModelInfo(sim.model(), out);
  const ConstraintSet& set = sim.constraints();
  out << "\nconstraints: " << set.size() << " (" << set.dimension() << " rows)\n";
  for (int i = 0; i < set.size(); ++i) {
    const Constraint& c = set[i];
    const int last_row = (i + 1 < set.size() ? set.rowOffset(i + 1) : set.dimension()) - 1;
    out << fmt::format("  {:<24} {:<10} rows {:>3}-{:<3} {} - {}\n", c.name, constraintKindName(c.kind), set.rowOffset(i),
                       last_row, sim.model().body_names[static_cast<std::size_t>(c.body1)],
                       c.body2 == 0 ? std::string("world") : sim.model().body_names[static_cast<std::size_t>(c.body2)]);
  }
  const ControllerSpec& spec = sim.controller().spec();
  out << "\ncontroller:  " << controllerKindName(spec.kind) << fmt::format(", kp {:.6g}, kd {:.6g}", spec.kp, spec.kd) << '\n';
  const VectorX& mask = sim.controller().actuatedMask();
  out << "actuated:   ";
  for (int i = 0; i < sim.model().nv; ++i) {
    if (mask[i] != 0.0) out << ' ' << dofName(sim.model(), i);
  }
  out << '\n';
  return out.str();
}

std::string dataPrintout(const SimulationSession& session) {
  const Simulation& sim = session.simulation();
  const Model& model = sim.model();
  std::ostringstream out;
  out << fmt::format("time {:.17g} s, step {}, solver {}\n", sim.time(), sim.stepCount(), sim.scene().solver);
  out << fmt::format("energy {:.17g} J (balance {:.6e} J), position violation {:.6e}, velocity violation {:.6e}\n\n",
                     sim.energy().total(), sim.energy().balance(), sim.positionViolation(), sim.velocityViolation());
  out << "q (per coordinate):\n";
  for (int j = 1; j <= model.njoints(); ++j) {
    const auto js = static_cast<std::size_t>(j);
    for (int k = 0; k < model.joint_nq[js]; ++k) {
      const int iq = model.idx_q[js] + k;
      const std::string coordinate =
          model.joint_nq[js] > 1 ? fmt::format("{}.{}", model.joint_names[js], k) : model.joint_names[js];
      out << fmt::format("  q[{:>3}] {:<28} {:>24.17g}\n", iq, coordinate, sim.q()[iq]);
    }
  }
  out << "\nper dof:                              v                      vdot                       tau\n";
  for (int i = 0; i < model.nv; ++i) {
    out << fmt::format("  [{:>3}] {:<28} {:>24.17g} {:>24.17g} {:>24.17g}\n", i, dofName(model, i), sim.v()[i], sim.vdot()[i],
                       sim.appliedTorque()[i]);
  }
  const ConstraintSet& set = sim.constraints();
  out << "\nlambda (" << set.dimension() << " rows):\n";
  for (int r = 0; r < set.dimension() && r < sim.lambda().size(); ++r) {
    out << fmt::format("  [{:>3}] {:<40} {:>24.17g}\n", r, set.rowDescription(r), sim.lambda()[r]);
  }
  if (sim.unilateralStep()) {
    const UnilateralStepResult& contact = sim.lastUnilateralStep();
    out << fmt::format("\ncontacts {}, active limit rows {}, iterations {}, worst residual {:.3e}\n", contact.contacts,
                       contact.active_rows, contact.solve.iterations, contact.solve.residuals.worst());
  }
  return out.str();
}

fs::path writeNewTextFile(const fs::path& dir, const std::string& kind, const std::string& text) {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &local);
  for (int k = 1;; ++k) {
    const fs::path path = dir / (k > 1 ? fmt::format("loopsim-{}-{}-{}.txt", kind, stamp, k) : fmt::format("loopsim-{}-{}.txt", kind, stamp));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 && errno == EEXIST) continue;  // taken: the next name
    if (fd < 0) throw std::runtime_error(path.string() + ": cannot create: " + std::strerror(errno));
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
      if (n <= 0) {
        const int err = errno;
        ::close(fd);
        ::unlink(path.c_str());
        throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(err));
      }
      written += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(errno));
    return path;
  }
}

}  // namespace loopsim::app
