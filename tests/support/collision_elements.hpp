#pragma once
// A model's collision element by name, for the loader tests.
#include <string>

#include <loopsim/model/model.hpp>

namespace loopsim::test {

inline const CollisionElement* findCollision(const Model& model, const std::string& name) {
  for (const CollisionElement& c : model.collisions)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace loopsim::test
