// Fixture for the layering check: a solver family must not include another.
#include <loopsim/solvers/common/tree_recursion.hpp>
#include <loopsim/solvers/recursive/pv_solver.hpp>
