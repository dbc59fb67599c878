#include <loopsim/model/number_text.hpp>

#include <sstream>

namespace loopsim {

std::string numberText(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

}  // namespace loopsim
