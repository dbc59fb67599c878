// The algorithms must not touch the heap once Data exists. This file replaces
// the global operator new/delete with counting versions and interposes glibc's
// malloc/calloc/realloc (Eigen's dynamic matrices allocate through malloc, not
// new). Counting is per thread and only while enabled, so the rest of the test
// binary is unaffected.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <new>
#include <random>
#include <vector>

#include <loopsim/algorithms/configuration.hpp>
#include <loopsim/algorithms/dynamics.hpp>
#include <loopsim/algorithms/energy.hpp>
#include <loopsim/algorithms/integrator.hpp>
#include <loopsim/algorithms/jacobians.hpp>
#include "allocation_counter.hpp"
#include <loopsim/scene/paper_mechanisms.hpp>
#include <loopsim/scene/scene_loader.hpp>
#include <loopsim/sim/projection.hpp>
#include <loopsim/model/errors.hpp>
#include <loopsim/solvers/selection/auto_mu.hpp>
#include <loopsim/solvers/loops/cluster_aba_solver.hpp>
#include <loopsim/solvers/loops/cluster_rnea.hpp>
#include <loopsim/solvers/loops/projected_rnea.hpp>
#include <loopsim/solvers/loops/projection_method_solver.hpp>
#include <loopsim/solvers/loops/lcaba_solver.hpp>
#include <loopsim/solvers/loops/prox_bbo_solver.hpp>
#include <loopsim/solvers/registry.hpp>
#include "test_models.hpp"

namespace {
constinit thread_local bool counting = false;
constinit thread_local long allocations = 0;

void noteAllocation() {
  if (counting) ++allocations;
}
}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer every allocation must go through its allocator: an
// interposed malloc returning glibc memory is later passed to ASan's free (and
// runs before ASan has initialised, aborting the binary at startup). ASan
// calls this hook for every malloc, calloc, realloc and operator new instead
// (it installs nothing and returns 0 unless both hooks are given).
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, std::size_t),
                                                         void (*free_hook)(const volatile void*));
namespace {
[[maybe_unused]] const int hooks_installed = __sanitizer_install_malloc_and_free_hooks(
    [](const volatile void*, std::size_t) { noteAllocation(); }, [](const volatile void*) {});
}  // namespace
#else
// glibc's own entry points (exported by libc.so.6) behind the interposed ones;
// the delete operators call __libc_free (not free) so GCC's new/free pairing
// analysis does not see a mismatch.
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* ptr, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* ptr);

void* malloc(std::size_t size) noexcept {
  noteAllocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  noteAllocation();
  return __libc_calloc(count, size);
}
void* realloc(void* ptr, std::size_t size) noexcept {
  noteAllocation();
  return __libc_realloc(ptr, size);
}
}

void* operator new(std::size_t size) {
  noteAllocation();
  if (void* p = __libc_malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  noteAllocation();
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = __libc_memalign(a, size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
#endif  // __SANITIZE_ADDRESS__

using namespace loopsim;

namespace {

// Runs f with counting on and returns the number of heap allocations.
template <class F>
long countAllocations(F&& f) {
  allocations = 0;
  counting = true;
  f();
  counting = false;
  return allocations;
}

}  // namespace

// Shared with the other test files (allocation_counter.hpp).
long loopsim::test::countHeapAllocations(const std::function<void()>& f) { return countAllocations(f); }
void loopsim::test::startAllocationCounting() {
  allocations = 0;
  counting = true;
}
void loopsim::test::stopAllocationCounting() { counting = false; }
long loopsim::test::countedAllocations() { return allocations; }

TEST(Allocation, CounterSeesNewAndMalloc) {
  std::vector<int> grown;
  EXPECT_GE(countAllocations([&] { grown.push_back(1); }), 1);
  VectorX* heap_vector = nullptr;
  EXPECT_GE(countAllocations([&] { heap_vector = new VectorX(100); }), 2);  // new + Eigen's malloc
  delete heap_vector;
  VectorX x = VectorX::Ones(50);
  EXPECT_GE(countAllocations([&] { x = VectorX::Zero(80); }), 1);  // Eigen resize through malloc
  EXPECT_EQ(countAllocations([&] { x.setConstant(2.0); }), 0);
}

TEST(Allocation, AlgorithmsDoNotAllocateAfterDataConstruction) {
  const Model model = test::floatingHumanoid();
  Data data(model);
  std::mt19937 rng(501);
  const VectorX q = randomConfiguration(model, rng);
  std::normal_distribution<double> g(0.0, 1.0);
  const VectorX v = VectorX::NullaryExpr(model.nv, [&](Eigen::Index) { return g(rng); });
  const VectorX tau = VectorX::NullaryExpr(model.nv, [&](Eigen::Index) { return g(rng); });
  const std::vector<Force> fext(model.nbodies(), Force(Vector3(1, 2, 3), Vector3(4, 5, 6)));
  VectorX q_work = q, v_work = v, q_out(model.nq), dv(model.nv);
  Matrix6X J(6, model.nv);
  const int hand = model.existingFrame("left_hand");

  struct Call {
    const char* name;
    std::function<void()> run;
  };
  const std::vector<Call> calls = {
      {"forwardKinematics(q)", [&] { forwardKinematics(model, data, q); }},
      {"forwardKinematics(q, v)", [&] { forwardKinematics(model, data, q, v); }},
      {"forwardKinematics(q, v, a)", [&] { forwardKinematics(model, data, q, v, tau); }},
      {"updateFramePlacements", [&] { updateFramePlacements(model, data); }},
      {"rnea", [&] { rnea(model, data, q, v, tau); }},
      {"rnea with fext", [&] { rnea(model, data, q, v, tau, fext); }},
      {"crba", [&] { crba(model, data, q); }},
      {"nonLinearEffects", [&] { nonLinearEffects(model, data, q, v); }},
      {"aba", [&] { aba(model, data, q, v, tau); }},
      {"aba with fext", [&] { aba(model, data, q, v, tau, fext); }},
      {"passiveForces", [&] { passiveForces(model, data, q, v); }},
      {"forwardDynamics", [&] { forwardDynamics(model, data, q, v, tau, fext); }},
      {"frameJacobian Local", [&] { frameJacobian(model, data, hand, ReferenceFrame::Local, J); }},
      {"frameJacobian LocalWorldAligned",
       [&] { frameJacobian(model, data, hand, ReferenceFrame::LocalWorldAligned, J); }},
      {"frameJacobian World", [&] { frameJacobian(model, data, hand, ReferenceFrame::World, J); }},
      {"frame velocity/accelerations",
       [&] {
         frameVelocity(model, data, hand, ReferenceFrame::Local);
         frameAcceleration(model, data, hand, ReferenceFrame::World);
         frameClassicalAcceleration(model, data, hand, ReferenceFrame::LocalWorldAligned);
       }},
      {"integrate", [&] { integrate(model, q, v, 1e-3, q_out); }},
      {"integrate in place", [&] { integrate(model, q_work, v, 1e-3, q_work); }},
      {"difference", [&] { difference(model, q, q_out, dv); }},
      {"normalize", [&] { normalize(model, q_work); }},
      {"semiImplicitEulerStep", [&] { semiImplicitEulerStep(model, q_work, v_work, data.ddq, 1e-3); }},
      {"energy and momentum",
       [&] {
         centerOfMass(model, data, q);
         computeMomentum(model, data, q, v);
         kineticEnergy(model, data, q, v);
         potentialEnergy(model, data, q);
       }},
  };
  for (const Call& call : calls) {
    call.run();  // warm-up (e.g. lazily initialised statics)
    EXPECT_EQ(countAllocations(call.run), 0) << call.name;
  }
}

// lcaba and prox-bbo (paper 001 Alg. 1-6) preallocate their elimination
// graphs, coupling blocks, factors and sweeps at bind time: the first solve
// and the reduced sweeps touch no heap, on internal loops (one and two
// Digits, the worst-case coupling, several loops rooted at one hub) and on
// world constraints.
TEST(Allocation, LoopSolversDoNotAllocate) {
  auto check = [](const std::string& name, const ConstraintSet& set, const VectorX& q0) {
    const Model& model = set.model();
    SolverSettings settings;
    settings.mu = 1e4;
    settings.tolerance = 1e-12;
    settings.warm_start = false;  // so that every solve runs the reduced sweeps
    LcabaSolver lcaba(set, settings);
    settings.mu = 1e3;  // several proximal iterations
    ProxBboSolver bbo(set, settings);
    const int nv = model.nv;
    const VectorX v = VectorX::Constant(nv, 0.1), tau = VectorX::Constant(nv, 0.5);
    const std::vector<Force> fext(model.nbodies(), Force(Vector3(1, 2, 3), Vector3(4, 5, 6)));
    VectorX vdot(nv), lambda(set.dimension());
    for (ConstrainedSolver* solver : {static_cast<ConstrainedSolver*>(&lcaba), static_cast<ConstrainedSolver*>(&bbo)}) {
      solver->setAddedInertia(VectorX::Constant(nv, 0.01));
      solver->solve(q0, v, tau, fext, vdot, lambda);
      SolveStats stats;
      EXPECT_EQ(countAllocations([&] { stats = solver->solve(q0, v, tau, fext, vdot, lambda); }), 0)
          << solver->name() << ", " << name;
      EXPECT_GT(stats.iterations, 1) << solver->name() << ", " << name << ": the reduced sweeps ran";
    }
  };
  const std::filesystem::path scenes = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  for (const char* file : {"four_bar.yaml", "coupled_worst_case.yaml", "favourable_branching.yaml",
                           "digit_standing.yaml", "two_digits_box.yaml", "atlas_standing.yaml"}) {
    const Scene scene = loadScene(scenes / file);
    check(file, ConstraintSet(*scene.model, scene.constraints, scene.time_constant), scene.q0);
  }
  // Loops that close at the world only (prox-bbo's world block by its pattern).
  const GeneratedMechanism grounded = favourableBranching({6, 6, 0, {}});
  check("favourable branching, hub fixed", ConstraintSet(grounded.model, grounded.constraints), grounded.q0);
}

// cluster-aba, projection-method, cluster-rnea and projected RNEA (paper 004) preallocate their cluster
// matrices, K_d factors and G at bind time: a solve (G from K's null space,
// the three passes, λ from the joint forces) and an inverse dynamics touch no
// heap, on a loop, gears, belts and Digit (rod spins as single dofs).
TEST(Allocation, ClusterSolversDoNotAllocate) {
  const std::filesystem::path scenes = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  for (const char* file : {"four_bar.yaml", "geared_chain.yaml", "belt_chain.yaml", "digit_standing.yaml"}) {
    const Scene scene = loadScene(scenes / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    ClusterAbaSolver solver(set, scene.solver_settings);
    ClusterRnea rnea(set, scene.solver_settings.independent_dofs);
    const int nv = scene.model->nv;
    const VectorX v = VectorX::Constant(nv, 0.1), tau = VectorX::Constant(nv, 0.5);
    const std::vector<Force> fext(scene.model->nbodies(), Force(Vector3(1, 2, 3), Vector3(4, 5, 6)));
    VectorX vdot(nv), lambda(set.dimension());
    VectorX ydd = VectorX::Constant(rnea.structure().independentDofs(), 0.3), tau_y(ydd.size());
    solver.setAddedInertia(VectorX::Constant(nv, 0.01));
    solver.solve(scene.q0, v, tau, fext, vdot, lambda);
    rnea.compute(scene.q0, v, ydd, fext, tau_y);
    EXPECT_EQ(countAllocations([&] { solver.solve(scene.q0, v, tau, fext, vdot, lambda); }), 0) << file;
    EXPECT_EQ(countAllocations([&] { rnea.compute(scene.q0, v, ydd, fext, tau_y); }), 0) << file;
    EXPECT_GT(lambda.lpNorm<Eigen::Infinity>(), 0.0) << file << ": λ was recovered";
    ProjectedRnea projected(set, scene.solver_settings.independent_dofs);
    projected.compute(scene.q0, v, ydd, fext, tau_y);
    EXPECT_EQ(countAllocations([&] { projected.compute(scene.q0, v, ydd, fext, tau_y); }), 0) << file;
    ProjectionMethodSolver projection(set, scene.solver_settings);
    projection.setAddedInertia(VectorX::Constant(nv, 0.01));
    projection.solve(scene.q0, v, tau, fext, vdot, lambda);
    EXPECT_EQ(countAllocations([&] { projection.solve(scene.q0, v, tau, fext, vdot, lambda); }), 0) << file;
  }
}

// cluster-aba's refinement step (taken near a singular configuration of the
// declared coordinates) allocates nothing either: a Digit pose far from the
// start where it is taken.
TEST(Allocation, ClusterAbaRefinementDoesNotAllocate) {
  const Scene scene = loadScene(std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes" / "digit_standing.yaml");
  const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
  ClusterAbaSolver solver(set, scene.solver_settings);
  const int nv = scene.model->nv;
  std::mt19937 rng(7);
  VectorX vdot(nv), lambda(set.dimension()), tau = VectorX::Constant(nv, 0.5);
  bool refined = false;
  for (int draw = 0; draw < 200 && !refined; ++draw) {
    VectorX q = randomConfiguration(*scene.model, rng), v = VectorX::Constant(nv, 0.1);
    try {
      makeConsistent(set, q, v, scene.held_joints);
    } catch (const ModelError&) {
      continue;  // a pose the loops cannot close near
    }
    solver.solve(q, v, tau, {}, vdot, lambda);
    if (!solver.lastSolveRefined()) continue;
    refined = true;
    EXPECT_EQ(countAllocations([&] { solver.solve(q, v, tau, {}, vdot, lambda); }), 0);
  }
  EXPECT_TRUE(refined) << "no drawn pose needed the refinement";
}

// mu: auto (solvers/selection/auto_mu.hpp): the power iteration and M x touch no heap
// once the estimator is built, and the solvers built with the resolved μ
// solve without allocating, like any other μ.
TEST(Allocation, AutoMuEstimateAndSolveDoNotAllocate) {
  const std::filesystem::path scenes = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  for (const char* file : {"four_bar.yaml", "digit_standing.yaml", "two_digits_box.yaml"}) {
    const Scene scene = loadScene(scenes / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const int nv = scene.model->nv;
    const VectorX added = VectorX::Constant(nv, 0.01);
    InertiaEigenEstimator estimator(*scene.model);
    estimator.estimate(scene.q0, added);
    AutoMuEstimate estimate;
    EXPECT_EQ(countAllocations([&] { estimate = estimator.estimate(scene.q0, added); }), 0) << file;
    EXPECT_GT(estimate.lambda_max, 0.0) << file;
    SolverSettings settings;
    settings.mu_auto = true;
    settings.tolerance = 1e-12;
    settings.warm_start = false;
    const VectorX v = VectorX::Constant(nv, 0.1), tau = VectorX::Constant(nv, 0.5);
    VectorX vdot(nv), lambda(set.dimension());
    for (const char* name : {"lcaba", "prox-bbo", "prox-ltl"}) {
      AutoMuEstimate e = estimate;
      auto solver = makeSolver(name, set, resolveAutoMu(settings, findSolver(name)->capabilities, e));
      solver->setAddedInertia(added);
      solver->solve(scene.q0, v, tau, {}, vdot, lambda);
      EXPECT_EQ(countAllocations([&] { solver->solve(scene.q0, v, tau, {}, vdot, lambda); }), 0) << name << ", " << file;
    }
  }
}

// The joint-space solvers at a new q (CRBA, the factorisations of M and Λ,
// M⁻¹ Jᵀ) and at the same q (the held position terms): no heap, below and
// above DenseCholesky's hand-over to Eigen's blocked LLT (Atlas, nv 36; two
// Digits with the box, nv 114).
TEST(Allocation, JointSpaceSolversDoNotAllocate) {
  const std::filesystem::path scenes = std::filesystem::path(LOOPSIM_ASSETS_DIR).parent_path() / "scenes";
  for (const char* file : {"atlas_standing.yaml", "two_digits_box.yaml"}) {
    const Scene scene = loadScene(scenes / file);
    const ConstraintSet set(*scene.model, scene.constraints, scene.time_constant);
    const int nv = scene.model->nv;
    const VectorX v = VectorX::Constant(nv, 0.1), tau = VectorX::Constant(nv, 0.5);
    VectorX q1(scene.model->nq);
    integrate(*scene.model, scene.q0, v, 1e-3, q1);
    VectorX vdot(nv), lambda(set.dimension());
    for (const char* name : {"kkt", "ltl", "prox-ltl", "soft-ltl"}) {
      auto solver = makeSolver(name, set, scene.solver_settings);
      solver->setAddedInertia(VectorX::Constant(nv, 0.01));
      solver->solve(scene.q0, v, tau, {}, vdot, lambda);
      EXPECT_EQ(countAllocations([&] { solver->solve(q1, v, tau, {}, vdot, lambda); }), 0) << name << ", " << file;
      EXPECT_EQ(countAllocations([&] { solver->solve(q1, v, tau, {}, vdot, lambda); }), 0)
          << name << ", " << file << " (same q)";
    }
  }
}
