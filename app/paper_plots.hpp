#pragma once
// The plot of one reproduced table or figure (`loopsim bench --paper N --out
// DIR`): grouped bars per robot for a table, with the paper's figures as marks;
// log-log curves per family for a scaling figure, the fitted exponents in the
// legend; iterations against μ for a μ sweep.
#include <loopsim/bench/paper_reproduction.hpp>

#include "render/screenshot.hpp"

namespace loopsim::app {

render::RgbImage plotPaperExperiment(const PaperExperiment& experiment);

}  // namespace loopsim::app
