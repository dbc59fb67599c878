// Simulation: a scene stepped in time; q, v, v̇, λ as numpy views.
#include "bindings.hpp"

#include <pybind11/stl.h>

#include <algorithm>

#include <loopsim/scene/run_length.hpp>
#include <loopsim/sim/simulation.hpp>

namespace loopsim::python {

namespace {

std::unique_ptr<Simulation> makeSimulation(const Scene& scene, const std::optional<std::string>& solver) {
  auto simulation = std::make_unique<Simulation>(scene);
  if (solver) simulation->setSolver(*solver, scene.solver_settings);
  return simulation;
}

// Simulation::run in slices of steps without the GIL, Python's signal
// handlers run between them: Ctrl-C (KeyboardInterrupt) stops a long run.
bool runCheckingSignals(Simulation& simulation, double duration) {
  const long steps = scheduledStep(duration, simulation.scene().dt, "run: duration");
  constexpr long kSliceSteps = 200;
  for (long done = 0; done < steps;) {
    const long slice = std::min(kSliceSteps, steps - done);
    bool alive = true;
    {
      const py::gil_scoped_release release;
      for (long k = 0; k < slice && alive; ++k) alive = simulation.step();
    }
    if (!alive) return false;
    done += slice;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
  return simulation.checkState();
}

}  // namespace

void bindSimulation(py::module_& m) {
  py::class_<Simulation>(m, "Simulation", R"(A scene stepped at its fixed dt (semi-implicit Euler, the scene's controller).

The constructor projects the initial state onto the constraints. q, v, vdot and lambda_
are read-only numpy views of the simulation's own vectors (no copy): they follow
step() — copy them (numpy.copy) to keep a value.)")
      .def(py::init(&makeSimulation), py::arg("scene"), py::arg("solver") = std::nullopt,
           "solver: a registered solver's name (default: the scene's).")
      .def("step", &Simulation::step, py::call_guard<py::gil_scoped_release>(),
           "Advances one dt. Returns False (and stops advancing) on divergence.")
      .def("run", &runCheckingSignals, py::arg("duration"),
           "Steps for `duration` seconds of simulated time; returns not diverged. Ctrl-C stops it between "
           "steps (KeyboardInterrupt; the state is the last step's). Raises ModelError for a duration that is "
           "NaN, negative, infinite or beyond 1e9 steps.")
      .def_property_readonly("time", &Simulation::time)
      .def_property_readonly("steps", &Simulation::stepCount)
      .def_property_readonly("q", [](py::object self) { return readOnlyView(self.cast<const Simulation&>().q(), self); },
                             "Configuration (nq): floating bases [x y z qx qy qz qw].")
      .def_property_readonly("v", [](py::object self) { return readOnlyView(self.cast<const Simulation&>().v(), self); },
                             "Velocity (nv): floating bases [omega; v] in the body frame.")
      .def_property_readonly("vdot", [](py::object self) { return readOnlyView(self.cast<const Simulation&>().vdot(), self); },
                             "Acceleration of the last step (nv).")
      .def_property_readonly("lambda_", [](py::object self) { return readOnlyView(self.cast<const Simulation&>().lambda(), self); },
                             "Constraint forces of the last step: on each constraint's first body, in its frame.")
      .def_property_readonly("position_violation", &Simulation::positionViolation, "‖φ(q)‖∞ (m or rad).")
      .def_property_readonly("velocity_violation", &Simulation::velocityViolation, "‖J v‖∞.")
      .def_property_readonly("diverged", &Simulation::diverged)
      .def_property_readonly("solver", [](Simulation& s) { return std::string(s.solver().name()); });
}

}  // namespace loopsim::python
