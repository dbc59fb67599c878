// `import loopsim`: the engine from Python (pybind11 + numpy).
#include "bindings.hpp"

#include <pybind11/eval.h>

#include "argument_errors_source.hpp"

#include <loopsim/model/errors.hpp>
#include <loopsim/version.hpp>

namespace loopsim::python {

py::array_t<double> readOnlyView(const VectorX& vector, py::handle owner) {
  py::array_t<double> view({vector.size()}, {static_cast<py::ssize_t>(sizeof(double))}, vector.data(), owner);
  view.attr("setflags")(py::arg("write") = false);
  return view;
}

}  // namespace loopsim::python

PYBIND11_MODULE(loopsim, m) {
  using namespace loopsim::python;
  m.doc() = R"(loopsim: simulation of robots with constraints and closed kinematic loops.

Conventions (as in the C++ engine; docs/conventions.md):
- Spatial vectors are [angular; linear]; body velocities are in the body's own frame.
- Quaternions are stored [x, y, z, w]. A floating joint's q is [position (3) in the
  world; quaternion x y z w (4)] and its v is [omega; v] of the body in its own frame,
  so nq = nv + 1 per floating joint.
- lambda: constraint c's block is the force (3 rows) or wrench (6 rows, [n; f]) that c
  applies to its FIRST body, expressed in c's frame on that body, about its origin; the
  second body receives the opposite. M vdot + h = tau + J^T lambda.
- Units: SI. Arrays are float64; a batch is one state per row.
Bad input raises loopsim.ModelError (file: element: message).)";
  // numpy first, with a message that says so: without it pybind11's array
  // casts fail later as a bare "initialization failed".
  try {
    py::module_::import("numpy");
  } catch (const py::error_already_set&) {
    throw py::import_error("loopsim needs numpy (its arrays hold every state): install it with "
                           "`apt install python3-numpy` or `pip install numpy`");
  }
  m.attr("__version__") = loopsim::kVersion;
  py::register_exception<loopsim::ModelError>(m, "ModelError", PyExc_ValueError);
  bindModel(m);
  bindConstraints(m);
  bindSimulation(m);
  bindEvaluation(m);
  bindRecord(m);
  // A wrong argument type names the parameter, the type expected and the type given
  // (pybind11 alone lists the signatures and the values).
  py::dict scope;
  py::exec(kArgumentErrorsSource, scope);
  scope["install"](m);
}
