#pragma once
// Paper 004 Fig. 14 (§IX-B): what neglecting or approximating the
// transmissions costs in the inverse dynamics of the MIT Humanoid's leg.
#include <filesystem>

#include <loopsim/bench/paper_reproduction.hpp>

namespace loopsim {

/// The experiment of Fig. 14: every right-leg joint of the MIT Humanoid on
/// q(t) = A sin(2π ω t) (A = 0.5 rad, ω = 1.5), the torques of C-RNEA (exact),
/// of RNEA with the rotors held to their housings (unconstrained) and of that
/// plus the rotors' reflected inertia on the joints' diagonal (approximate);
/// per joint, the RMS of each simplified torque's difference from the exact
/// one, and the exact one's largest |τ|.
PaperExperiment paper004Fig14(const std::filesystem::path& scenes_dir, const PaperBenchOptions& options);

}  // namespace loopsim
