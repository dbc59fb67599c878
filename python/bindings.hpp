#pragma once
// Pieces of the `loopsim` Python module (module.cpp assembles them).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <loopsim/spatial/types.hpp>

namespace loopsim::python {

namespace py = pybind11;

/// A read-only numpy view of `vector` (no copy), kept valid by `owner`.
py::array_t<double> readOnlyView(const VectorX& vector, py::handle owner);

void bindModel(py::module_& m);       // Model, Scene, load_model, load_scene, solvers, state_columns
void bindConstraints(py::module_& m);  // Constraint, make_scene, Scene.add_weld / add_connect (after bindModel)
void bindSimulation(py::module_& m);  // Simulation
void bindEvaluation(py::module_& m);  // evaluate, sample_states
void bindRecord(py::module_& m);      // Record, read_record

}  // namespace loopsim::python
