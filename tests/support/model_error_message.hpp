#pragma once
// The message of the ModelError a call throws, or "(no error)": for tests that
// check a refusal's wording.
#include <functional>
#include <string>

#include <loopsim/model/errors.hpp>

namespace loopsim::test {

inline std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace loopsim::test
