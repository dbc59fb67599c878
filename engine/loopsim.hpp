#pragma once
// loopsim's public API in one include: <loopsim/loopsim.hpp>. The pieces,
// in the order a user meets them (docs/library.md walks through them):
//
//   load        loadScene(file) -> Scene; loadUrdf / loadMjcf -> Model
//   constrain   weldWhereItStands / connectWhereItStands on named frames ->
//               Constraint; ConstraintSet(model, constraints, time_constant)
//               binds them (Baumgarte: time_constant > 0 on, <= 0 off)
//   solve       solverRegistry(), makeSolver(name, set, SolverSettings)
//   sample      sampleStates(scene, set, n, seed): constraint-consistent states
//   evaluate    StateEvaluator(scene, {solver, stabilization}).evaluate(q, v, τ, v̇, λ)
//               (passive forces and implicit damping as in a step)
//   simulate    Simulation(scene).step(), q(), v(), lambda()
//   records     readCsv(file) -> CsvTable (columns, rows)
//
// Lifetimes: a Model is immutable and shared (Scene::model is a
// shared_ptr<const Model>); a ConstraintSet and a solver keep references to
// what they were built from (the Model, resp. the ConstraintSet), which must
// outlive them. Simulation and StateEvaluator own what they need.
// Bad input throws ModelError (file, element, message). Conventions (spatial
// order, quaternions, the sign and frame of λ): docs/conventions.md.
#include <loopsim/version.hpp>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/kinematics.hpp>
#include <loopsim/bench/state_sampling.hpp>
#include <loopsim/constraints/constraint_set.hpp>
#include <loopsim/constraints/frame_constraints.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/model/model.hpp>
#include <loopsim/parsers/mjcf_loader.hpp>
#include <loopsim/parsers/urdf_loader.hpp>
#include <loopsim/record/csv_reader.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/simulation.hpp>
#include <loopsim/sim/state_evaluator.hpp>
#include <loopsim/solvers/registry.hpp>
