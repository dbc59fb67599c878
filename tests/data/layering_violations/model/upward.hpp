#pragma once
// Fixture for the layering check: model/ must not include sim/.
#include <loopsim/model/model.hpp>
#include <loopsim/sim/simulation.hpp>
