#pragma once
// How error messages quote a number: the stream's default form (six
// significant digits, as printf's %g; "nan", "inf").
#include <string>

namespace loopsim {

std::string numberText(double x);

}  // namespace loopsim
