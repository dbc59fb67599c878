// Fixture for the layering check: includes that point down pass.
#include <loopsim/scene/scene.hpp>
#include <loopsim/spatial/motion.hpp>
