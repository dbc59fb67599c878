#pragma once
// The cube of scenes/box_drop.yaml and scenes/box_incline_slide.yaml as MJCF: a
// 1 kg cube of 0.2 m on a plane through (0, 0, height) turned `tilt_deg` about y,
// both with friction μ; the elliptic cone, the Euler integrator at dt 1 ms and
// the stiffest constraint setting MuJoCo's 2·dt floor allows (solref 0.002 1).
#include <cstdio>
#include <string>

#include <loopsim/spatial/types.hpp>

namespace loopsim::test {

inline std::string cubeOnPlaneMjcf(double tilt_deg, double height, double mu, const Vector3& position) {
  char xml[2000];
  std::snprintf(xml, sizeof xml, R"(<mujoco>
  <option timestep="0.001" integrator="Euler" cone="elliptic" gravity="0 0 -9.81"/>
  <default><geom condim="3" solref="0.002 1" solimp="0.99 0.999 0.001" friction="%.17g 0 0"/></default>
  <worldbody>
    <geom name="ground" type="plane" size="0 0 1" pos="0 0 %.17g" euler="0 %.17g 0"/>
    <body name="box" pos="%.17g %.17g %.17g" euler="0 %.17g 0">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
    </body>
  </worldbody>
</mujoco>)",
                mu, height, tilt_deg, position.x(), position.y(), position.z(), tilt_deg);
  return xml;
}

}  // namespace loopsim::test
