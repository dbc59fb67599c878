// URDF loader: the fixtures in tests/data/urdf (good and bad), inline
// variants for every numeric attribute, and the shared robot models.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/mesh_path.hpp>
#include <loopsim/parsers/urdf_loader.hpp>

namespace loopsim {
namespace {

namespace fs = std::filesystem;

fs::path fixture(const std::string& name) { return fs::path(LOOPSIM_TEST_DATA_DIR) / "urdf" / name; }

/// Loads and returns the ModelError's text; fails the test if nothing is thrown.
std::string loadError(const fs::path& file, const UrdfOptions& options = {}) {
  try {
    loadUrdf(file, options);
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << file << " loaded without an error";
  return {};
}

std::string stringError(const std::string& xml, const UrdfOptions& options = {}) {
  try {
    loadUrdfString(xml, "inline.urdf", options);
  } catch (const ModelError& e) {
    return e.what();
  }
  ADD_FAILURE() << "inline URDF loaded without an error:\n" << xml;
  return {};
}

bool hasWarning(const Model& model, const std::string& needle) {
  for (const std::string& w : model.warnings) {
    if (w.find(needle) != std::string::npos) return true;
  }
  return false;
}

Matrix3 rotZ(double angle) { return Eigen::AngleAxisd(angle, Vector3::UnitZ()).toRotationMatrix(); }

// ---------------------------------------------------------------- good path

TEST(UrdfLoader, ArmSizesTypesAndDepthFirstOrder) {
  const Model m = loadUrdf(fixture("two_link_arm.urdf"));
  EXPECT_EQ(m.name, "two_link_arm");
  EXPECT_EQ(m.nq, 3);
  EXPECT_EQ(m.nv, 3);
  ASSERT_EQ(m.nbodies(), 4);
  // shoulder's subtree (upper_arm, forearm) comes before the later 'slide' branch.
  EXPECT_EQ(m.body_names[1], "upper_arm");
  EXPECT_EQ(m.body_names[2], "forearm");
  EXPECT_EQ(m.body_names[3], "carriage");
  EXPECT_EQ(m.parent[1], 0);
  EXPECT_EQ(m.parent[2], 1);
  EXPECT_EQ(m.parent[3], 0);
  EXPECT_EQ(m.joint_names[1], "shoulder");
  EXPECT_EQ(m.joint_names[2], "elbow");
  EXPECT_EQ(m.joint_names[3], "slide");
  EXPECT_EQ(m.joint_types[1], JointType::Revolute);
  EXPECT_EQ(m.joint_types[2], JointType::Revolute);
  EXPECT_EQ(m.joint_types[3], JointType::Prismatic);
  EXPECT_FALSE(m.isFloatingBase());
  EXPECT_EQ(m.treeDepth(), 2);
}

TEST(UrdfLoader, ArmJointFramesAxesLimitsAndDamping) {
  const Model m = loadUrdf(fixture("two_link_arm.urdf"));
  EXPECT_TRUE(m.joint_placements[1].isApprox(SE3(Matrix3::Identity(), Vector3(0, 0, 0.5))));
  EXPECT_TRUE(m.joint_placements[2].isApprox(SE3(Matrix3::Identity(), Vector3(0, 0, 0.5))));
  EXPECT_TRUE(m.joint_placements[3].isApprox(SE3(Matrix3::Identity(), Vector3(0.1, 0, 0))));
  EXPECT_TRUE(m.joint_axes[1].isApprox(Vector3::UnitY()));  // "0 2 0" normalised
  EXPECT_TRUE(m.joint_axes[3].isApprox(Vector3::UnitX()));

  EXPECT_DOUBLE_EQ(m.lower_position_limit[0], -1.5);
  EXPECT_DOUBLE_EQ(m.upper_position_limit[0], 1.5);
  EXPECT_TRUE(std::isinf(m.lower_position_limit[1]) && m.lower_position_limit[1] < 0);  // continuous
  EXPECT_TRUE(std::isinf(m.upper_position_limit[1]) && m.upper_position_limit[1] > 0);
  EXPECT_DOUBLE_EQ(m.lower_position_limit[2], -0.2);
  EXPECT_DOUBLE_EQ(m.upper_position_limit[2], 0.3);
  EXPECT_DOUBLE_EQ(m.velocity_limit[0], 3.0);
  EXPECT_DOUBLE_EQ(m.effort_limit[0], 20.0);
  EXPECT_DOUBLE_EQ(m.effort_limit[2], 50.0);
  EXPECT_DOUBLE_EQ(m.damping[0], 0.1);
  EXPECT_DOUBLE_EQ(m.damping[1], 0.0);
}

TEST(UrdfLoader, FixedLinksAreLumpedAndKeptAsFrames) {
  const Model m = loadUrdf(fixture("two_link_arm.urdf"));
  // forearm (0.5 kg, com z 0.2) + hand (0.25 kg at 0.4 + 0.05) + tool (0.25 kg at 0.4 + 0.1).
  const Inertia& forearm = m.body_inertias[2];
  EXPECT_NEAR(forearm.mass, 1.0, 1e-12);
  EXPECT_TRUE(forearm.com.isApprox(Vector3(0, 0, (0.5 * 0.2 + 0.25 * 0.45 + 0.25 * 0.5) / 1.0), 1e-12));
  // The forearm's <inertial> rpy (pitch 90 deg) turns diag(0.001, 0.01, 0.01) into diag(0.01, 0.01, 0.001).
  const Inertia expected = Inertia(0.5, Vector3(0, 0, 0.2), Vector3(0.01, 0.01, 0.001).asDiagonal().toDenseMatrix()) +
                           Inertia(0.25, Vector3(0, 0, 0.45), 1e-4 * Matrix3::Identity()) +
                           Inertia(0.25, Vector3(0, 0, 0.5), 1e-4 * Matrix3::Identity());
  EXPECT_TRUE(forearm.inertia_com.isApprox(expected.inertia_com, 1e-9)) << forearm.inertia_com;
  // The fixed-to-world base carries no moving mass.
  EXPECT_NEAR(m.totalMass(), 1.0 + 1.0 + 0.3, 1e-12);

  const Frame& base = m.frames[m.existingFrame("base")];
  EXPECT_EQ(base.body, 0);
  EXPECT_EQ(base.kind, Frame::Kind::MergedLink);
  const Frame& hand = m.frames[m.existingFrame("hand")];
  EXPECT_EQ(hand.body, 2);
  EXPECT_EQ(hand.kind, Frame::Kind::MergedLink);
  EXPECT_TRUE(hand.placement.isApprox(SE3(Matrix3::Identity(), Vector3(0, 0, 0.4))));
  // Chains of fixed links compose: tool = wrist_mount * tool_mount (yaw 90 deg).
  const Frame& tool = m.frames[m.existingFrame("tool")];
  EXPECT_EQ(tool.body, 2);
  EXPECT_TRUE(tool.placement.isApprox(SE3(rotZ(M_PI / 2), Vector3(0, 0, 0.5)), 1e-12));
  EXPECT_EQ(m.frames[m.existingFrame("forearm")].kind, Frame::Kind::Body);
}

TEST(UrdfLoader, VisualsMaterialsAndWarnings) {
  const Model m = loadUrdf(fixture("two_link_arm.urdf"));
  ASSERT_EQ(m.visuals.size(), 4u);
  const VisualGeometry& cylinder = m.visuals[0];
  EXPECT_EQ(cylinder.shape, VisualGeometry::Shape::Cylinder);
  EXPECT_EQ(cylinder.body, 1);
  EXPECT_TRUE(cylinder.size.head<2>().isApprox(Eigen::Vector2d(0.03, 0.5)));
  EXPECT_TRUE(cylinder.rgba.isApprox(Vector4(0, 0, 0.8, 1), 1e-6));  // urdfdom stores float  // robot-level material "blue"
  EXPECT_EQ(cylinder.material, "blue");
  const VisualGeometry& mesh = m.visuals[1];
  EXPECT_EQ(mesh.shape, VisualGeometry::Shape::Mesh);
  EXPECT_EQ(fs::path(mesh.mesh_file), (fixture("meshes/hand_missing.stl")).lexically_normal());
  const VisualGeometry& box = m.visuals[2];
  EXPECT_EQ(box.shape, VisualGeometry::Shape::Box);
  EXPECT_EQ(box.body, 2);
  EXPECT_TRUE(box.placement.isApprox(SE3(rotZ(M_PI / 2), Vector3(0, 0, 0.5)), 1e-12));
  EXPECT_TRUE(box.size.isApprox(Vector3(0.02, 0.04, 0.06)));
  EXPECT_TRUE(box.rgba.isApprox(Vector4(1, 0, 0, 1)));
  EXPECT_EQ(m.visuals[3].shape, VisualGeometry::Shape::Sphere);
  EXPECT_DOUBLE_EQ(m.visuals[3].size.x(), 0.05);

  EXPECT_TRUE(hasWarning(m, "two_link_arm.urdf: link 'hand': mesh file 'meshes/hand_missing.stl' not found"));
  EXPECT_TRUE(hasWarning(m, "friction") && hasWarning(m, "'shoulder' 0.2"));
  EXPECT_TRUE(hasWarning(m, "link 'base': fixed to the world; its mass 2 kg is ignored"));
}

TEST(UrdfLoader, FloatingBaseOption) {
  const Model m = loadUrdf(fixture("two_link_arm.urdf"), {.floating_base = true});
  EXPECT_EQ(m.nq, 10);
  EXPECT_EQ(m.nv, 9);
  EXPECT_TRUE(m.isFloatingBase());
  EXPECT_EQ(m.joint_names[1], "root_joint");
  EXPECT_EQ(m.body_names[1], "base");
  EXPECT_EQ(m.parent[4], 1);  // carriage now hangs from the floating base
  EXPECT_NEAR(m.totalMass(), 4.3, 1e-12);
  EXPECT_FALSE(hasWarning(m, "fixed to the world"));
}

TEST(UrdfLoader, UrdfFloatingJointAtTheRoot) {
  const Model m = loadUrdf(fixture("floating_root.urdf"));
  EXPECT_EQ(m.nq, 8);
  EXPECT_EQ(m.nv, 7);
  EXPECT_EQ(m.joint_names[1], "ground_to_torso");
  EXPECT_EQ(m.joint_types[1], JointType::Floating);
  EXPECT_TRUE(m.joint_placements[1].t.isApprox(Vector3(0, 0, 1)));
  EXPECT_EQ(m.frames[m.existingFrame("ground")].body, 0);
  EXPECT_NE(loadError(fixture("floating_root.urdf"), {.floating_base = true})
                .find("floating_root.urdf: joint 'ground_to_torso': the file already has a floating joint at the root"),
            std::string::npos);
}

TEST(UrdfLoader, RootNamedWorldIsTheWorld) {
  const Model m = loadUrdfString(R"(<robot name="r">
      <link name="world"/>
      <link name="arm"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <joint name="j" type="continuous"><parent link="world"/><child link="arm"/></joint></robot>)",
                                 "inline.urdf");
  EXPECT_EQ(m.nv, 1);
  EXPECT_EQ(m.frameId("world"), 0);
  EXPECT_EQ(m.source_file, "inline.urdf");
}

TEST(UrdfLoader, AMovingLinkNamedWorldIsADuplicateName) {
  const std::string error = [] {
    try {
      loadUrdfString(R"(<robot name="r">
      <link name="base"/>
      <link name="world"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
      <joint name="j" type="continuous"><parent link="base"/><child link="world"/></joint></robot>)",
                     "inline.urdf");
    } catch (const ModelError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  EXPECT_EQ(error, "inline.urdf: link 'world': duplicate name");
}

TEST(UrdfLoader, TriangleInequalityWarnsOrFailsWhenStrict) {
  const Model m = loadUrdf(fixture("triangle.urdf"));
  EXPECT_TRUE(hasWarning(m, "triangle.urdf: link 'arm': principal moments"));
  EXPECT_TRUE(hasWarning(m, "violate the triangle inequality"));
  const std::string error = loadError(fixture("triangle.urdf"), {.strict = true});
  EXPECT_NE(error.find("triangle.urdf: link 'arm': principal moments"), std::string::npos) << error;
}

TEST(MeshPath, RelativePackageAndMissing) {
  const fs::path root = fs::temp_directory_path() / ("loopsim_mesh_path_" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "ws/my_robot/urdf");
  fs::create_directories(root / "ws/my_robot/meshes");
  std::ofstream(root / "ws/my_robot/meshes/link.stl") << "solid x\nendsolid x\n";
  const fs::path urdf_dir = root / "ws/my_robot/urdf";

  // The robot's own folder is named like the package.
  ResolvedMeshPath r = resolveMeshPath("package://my_robot/meshes/link.stl", urdf_dir);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(fs::path(r.path), root / "ws/my_robot/meshes/link.stl");
  // A workspace folder contains the package.
  r = resolveMeshPath("package://my_robot/meshes/link.stl", root / "ws");
  EXPECT_TRUE(r.found);
  r = resolveMeshPath("../meshes/link.stl", urdf_dir);
  EXPECT_TRUE(r.found);
  EXPECT_EQ(fs::path(r.path), root / "ws/my_robot/meshes/link.stl");
  r = resolveMeshPath("file://" + (root / "ws/my_robot/meshes/link.stl").string(), "/");
  EXPECT_TRUE(r.found);
  r = resolveMeshPath("package://other_pkg/meshes/link.stl", urdf_dir);
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.path, "package://other_pkg/meshes/link.stl");  // kept as written
  fs::remove_all(root);
}

// ----------------------------------------------------------------- bad input

struct BadFixture {
  const char* file;
  const char* message;  // expected substring of the ModelError
};

class UrdfBadFixture : public ::testing::TestWithParam<BadFixture> {};

TEST_P(UrdfBadFixture, ThrowsModelErrorNamingFileElementAndValue) {
  const std::string error = loadError(fixture(GetParam().file));
  EXPECT_NE(error.find(GetParam().message), std::string::npos) << "got: " << error;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, UrdfBadFixture,
    ::testing::Values(
        BadFixture{"bad_xml.urdf", "bad_xml.urdf: line 6, column"},
        BadFixture{"bad_xml.urdf", "malformed XML: Error reading end tag"},
        BadFixture{"not_a_robot.urdf", "not_a_robot.urdf: <sdf> (line 2): root element must be <robot>"},
        BadFixture{"missing_link.urdf", "missing_link.urdf: joint 'j1': child link 'ghost' does not exist"},
        BadFixture{"duplicate_link.urdf", "duplicate_link.urdf: link 'arm': duplicate link name (line 5, first defined on line 4)"},
        BadFixture{"duplicate_joint.urdf", "duplicate_joint.urdf: joint 'j1': duplicate joint name"},
        BadFixture{"several_roots.urdf", "several_roots.urdf: robot 'several_roots': several root links ('base', 'stray')"},
        BadFixture{"two_parents.urdf", "two_parents.urdf: link 'b': has two parent joints, 'j2' and 'j3'"},
        BadFixture{"nan_origin.urdf", "nan_origin.urdf: joint 'j1': <origin xyz=\"0 nan 0\"> (line 8): NaN or Inf value 'nan'"},
        BadFixture{"inf_mass.urdf", "inf_mass.urdf: link 'arm': <mass value=\"inf\"> (line 5): NaN or Inf value 'inf'"},
        BadFixture{"zero_axis.urdf", "zero_axis.urdf: joint 'j1': zero-length axis"},
        BadFixture{"bad.urdf", "bad.urdf: joint 'j2': lower limit 1.5 > upper limit 0.5"},
        BadFixture{"planar.urdf", "planar.urdf: joint 'j1': unsupported joint type 'planar'"},
        BadFixture{"floating_inside.urdf",
                   "floating_inside.urdf: joint 'j2': unsupported floating joint inside the tree (parent 'a'"},
        BadFixture{"negative_mass.urdf", "negative_mass.urdf: link 'arm': negative mass -1"},
        BadFixture{"not_psd.urdf", "not_psd.urdf: link 'arm': rotational inertia not positive semidefinite"},
        BadFixture{"zero_inertia.urdf", "zero_inertia.urdf: link 'arm': moving body has zero spatial inertia"},
        BadFixture{"revolute_no_limit.urdf", "revolute_no_limit.urdf: joint 'j1': revolute joint needs a <limit> element"}));

TEST(UrdfLoader, MissingFileAndDirectory) {
  const fs::path missing = fixture("does_not_exist.urdf");
  EXPECT_EQ(loadError(missing), missing.string() + ": no such file");
  const fs::path dir = fixture("");
  EXPECT_NE(loadError(dir).find("is a directory"), std::string::npos);
}

TEST(UrdfLoader, UnreadableFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can read any file";
  const fs::path file = fs::temp_directory_path() / ("loopsim_unreadable_" + std::to_string(::getpid()) + ".urdf");
  std::ofstream(file) << "<robot name='r'><link name='a'/></robot>";
  fs::permissions(file, fs::perms::none);
  EXPECT_NE(loadError(file).find("cannot open"), std::string::npos);
  fs::remove(file);
}

// One good two-link robot with a placeholder to inject a bad value into.
std::string armWith(const std::string& joint_extra, const std::string& link_extra = "",
                    const std::string& inertia = R"(ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1")") {
  return R"(<robot name="r"><link name="base"/><link name="arm"><inertial><mass value="1"/><inertia )" + inertia +
         "/></inertial>" + link_extra + R"(</link><joint name="j1" type="revolute"><parent link="base"/>)" +
         R"(<child link="arm"/>)" + joint_extra + "</joint></robot>";
}
const std::string kLimit = R"(<limit lower="-1" upper="1" velocity="1" effort="1"/>)";

TEST(UrdfLoader, InlineArmLoads) {
  const Model m = loadUrdfString(armWith(kLimit), "inline.urdf");
  EXPECT_EQ(m.nv, 1);
}

// A chain of revolute joints j1..jn, joint k with <limit velocity=velocities[k-1]>.
std::string chainWithVelocityLimits(const std::vector<std::string>& velocities) {
  const std::string inertial =
      R"(<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>)";
  std::string xml = R"(<robot name="r"><link name="l0"/>)";
  for (std::size_t k = 1; k <= velocities.size(); ++k) {
    const std::string i = std::to_string(k), parent = std::to_string(k - 1);
    xml += "<link name='l" + i + "'>" + inertial + "</link><joint name='j" + i + "' type='revolute'><parent link='l" +
           parent + "'/><child link='l" + i + "'/><limit lower='-1' upper='1' effort='1' velocity='" + velocities[k - 1] +
           "'/></joint>";
  }
  return xml + "</robot>";
}

TEST(UrdfLoader, VelocityLimitsAreKeptAndOneWarningSaysTheyAreNotSimulated) {
  // velocity="0" is URDF's usual "unspecified": neither a limit to report nor named.
  const Model m = loadUrdfString(chainWithVelocityLimits({"1", "2", "0", "3", "4", "5"}), "inline.urdf");
  EXPECT_DOUBLE_EQ(m.velocity_limit[0], 1.0);
  EXPECT_DOUBLE_EQ(m.velocity_limit[5], 5.0);
  int warnings = 0;
  for (const std::string& w : m.warnings) warnings += w.find("<limit velocity>") != std::string::npos ? 1 : 0;
  EXPECT_EQ(warnings, 1);
  EXPECT_TRUE(hasWarning(m, "inline.urdf: <limit velocity> on 5 joints ('j1' 1, 'j2' 2, 'j4' 3, 'j5' 4 and 1 more) is "
                            "not simulated; `loopsim run` reports every joint that exceeds it"));
  const Model unlimited = loadUrdfString(chainWithVelocityLimits({"0"}), "inline.urdf");
  EXPECT_FALSE(hasWarning(unlimited, "<limit velocity>"));
}

struct BadValue {
  std::string xml;
  std::string message;
};

TEST(UrdfLoader, NonFiniteOrMalformedNumbersAnywhere) {
  const std::vector<BadValue> cases = {
      {armWith(R"(<axis xyz="0 0 nan"/>)" + kLimit), "joint 'j1': <axis xyz=\"0 0 nan\"> (line 1): NaN or Inf value 'nan'"},
      {armWith(R"(<origin xyz="0 0 0" rpy="0 inf 0"/>)" + kLimit), "joint 'j1': <origin rpy=\"0 inf 0\">"},
      {armWith(R"(<limit lower="nan" upper="1" velocity="1" effort="1"/>)"), "joint 'j1': <limit lower=\"nan\">"},
      {armWith(R"(<limit lower="-1" upper="1e999" velocity="1" effort="1"/>)"), "<limit upper=\"1e999\"> (line 1): NaN or Inf value"},
      {armWith(R"(<limit lower="-1" upper="1" velocity="-inf" effort="1"/>)"), "<limit velocity=\"-inf\">"},
      {armWith(R"(<limit lower="-1" upper="1" velocity="1" effort="NaN"/>)"), "<limit effort=\"NaN\">"},
      {armWith(kLimit + R"(<dynamics damping="nan"/>)"), "joint 'j1': <dynamics damping=\"nan\">"},
      {armWith(kLimit, "", R"(ixx="nan" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1")"), "link 'arm': <inertia ixx=\"nan\">"},
      {armWith(kLimit, "", R"(ixx="0.1" ixy="inf" ixz="0" iyy="0.1" iyz="0" izz="0.1")"), "link 'arm': <inertia ixy=\"inf\">"},
      {armWith(kLimit, R"(<visual><geometry><box size="1 nan 1"/></geometry></visual>)"), "link 'arm': <box size=\"1 nan 1\">"},
      {armWith(kLimit, R"(<visual><geometry><sphere radius="1"/></geometry><material name="m"><color rgba="1 0 0 inf"/></material></visual>)"),
       "link 'arm': <color rgba=\"1 0 0 inf\">"},
      {armWith(R"(<origin xyz="0 0"/>)" + kLimit), "<origin xyz=\"0 0\"> (line 1): expected 3 numbers, got 2"},
      {armWith(R"(<origin xyz="0 abc 0"/>)" + kLimit), "<origin xyz=\"0 abc 0\"> (line 1): 'abc' is not a number"},
      {armWith(R"(<limit lower="-1" upper="1" velocity="-2" effort="1"/>)"), "joint 'j1': negative velocity limit '-2'"},
      {armWith(R"(<limit lower="-1" upper="1" effort="1"/>)"), "joint 'j1': <limit> (line 1) has no velocity attribute"},
      {armWith(kLimit + R"(<dynamics damping="-0.5"/>)"), "joint 'j1': negative damping -0.5"},
  };
  for (const BadValue& c : cases) {
    const std::string error = stringError(c.xml);
    EXPECT_NE(error.find("inline.urdf: "), std::string::npos) << error;
    EXPECT_NE(error.find(c.message), std::string::npos) << "expected: " << c.message << "\n     got: " << error;
  }
}

TEST(UrdfLoader, CycleWithoutRootAndUnknownType) {
  const std::string cycle = R"(<robot name="r"><link name="r0"/><link name="a"/><link name="b"/>
      <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
      <joint name="j2" type="continuous"><parent link="b"/><child link="a"/></joint></robot>)";
  EXPECT_NE(stringError(cycle).find("inline.urdf: robot 'r': links 'a', 'b' form a cycle unreachable from root 'r0'"),
            std::string::npos);
  const std::string unknown = R"(<robot name="r"><link name="a"/><link name="b"/>
      <joint name="j1" type="hinge"><parent link="a"/><child link="b"/></joint></robot>)";
  EXPECT_NE(stringError(unknown).find("inline.urdf: joint 'j1': unknown joint type 'hinge'"), std::string::npos);
  EXPECT_NE(stringError("").find("inline.urdf: line"), std::string::npos);
}

TEST(UrdfLoader, UrdfdomRejectionsAreReportedNotPrinted) {
  // urdfdom prints its complaints through console_bridge (to stderr by
  // default); they must reach the ModelError instead, and a good file prints nothing.
  const std::string xml = armWith(kLimit + R"(<calibration rising="0.1"/>)");
  testing::internal::CaptureStderr();
  const Model m = loadUrdfString(xml, "inline.urdf");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(m.nv, 1);

  // urdfdom drops a visual with an unknown geometry and carries on: a
  // warning, an error when strict.
  const std::string bad_geometry = armWith(kLimit, R"(<visual><geometry><torus/></geometry></visual>)");
  testing::internal::CaptureStderr();
  const Model dropped = loadUrdfString(bad_geometry, "inline.urdf");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(dropped.visuals.empty());
  EXPECT_TRUE(hasWarning(dropped, "inline.urdf: urdfdom: Unknown geometry type 'torus'"));
  EXPECT_NE(stringError(bad_geometry, {.strict = true}).find("inline.urdf: urdfdom reported: Unknown geometry type 'torus'"),
            std::string::npos);

  const std::string bad_safety = armWith(kLimit + R"(<safety_controller soft_lower_limit="0"/>)");
  testing::internal::CaptureStderr();
  const std::string error = stringError(bad_safety);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_NE(error.find("inline.urdf: urdfdom rejected the file: joint safety: no k_velocity"), std::string::npos)
      << error;
}

TEST(UrdfLoader, MimicAndUndefinedMaterialWarn) {
  const Model m = loadUrdfString(
      armWith(kLimit + R"(<mimic joint="j0" multiplier="2"/>)",
              R"(<visual><geometry><sphere radius="1"/></geometry><material name="nowhere"/></visual>)"),
      "inline.urdf");
  EXPECT_TRUE(hasWarning(m, "inline.urdf: joint 'j1': <mimic joint='j0'> ignored"));
  EXPECT_TRUE(hasWarning(m, "material 'nowhere' undefined"));
}

TEST(UrdfLoader, SafetyControllerAndCalibrationWarn) {
  const Model m = loadUrdfString(
      armWith(kLimit + R"(<safety_controller soft_lower_limit="-0.5" soft_upper_limit="0.5" k_velocity="10"/>)"
                       R"(<calibration rising="0.1"/>)"),
      "inline.urdf");
  EXPECT_TRUE(hasWarning(m, "inline.urdf: joint 'j1': <safety_controller> ignored (soft limits and their gains are "
                            "not simulated)"));
  EXPECT_TRUE(hasWarning(m, "inline.urdf: joint 'j1': <calibration> ignored"));
}

// ------------------------------------------------------------- shared models

fs::path sharedModel(const std::string& relative) { return fs::path(LOOPSIM_SHARED_DIR) / "models" / relative; }

#define REQUIRE_SHARED(path)                                                   \
  if (!fs::exists(sharedModel(path))) GTEST_SKIP() << "no " << sharedModel(path)

int countWarnings(const Model& m, const std::string& needle) {
  int n = 0;
  for (const std::string& w : m.warnings) n += w.find(needle) != std::string::npos ? 1 : 0;
  return n;
}

TEST(UrdfSharedModels, Atlas) {
  REQUIRE_SHARED("atlas/atlas_minimal_contact.urdf");
  const Model m = loadUrdf(sharedModel("atlas/atlas_minimal_contact.urdf"), {.floating_base = true});
  EXPECT_EQ(m.nq, 37);
  EXPECT_EQ(m.nv, 36);
  EXPECT_EQ(m.nbodies(), 32);           // world + pelvis + 30 revolute links
  EXPECT_EQ(m.frames.size(), 61u);      // world + 60 links
  EXPECT_GT(m.totalMass(), 120.0);      // Atlas DRC: ~150-180 kg
  EXPECT_LT(m.totalMass(), 200.0);
  EXPECT_GE(m.jointId("l_leg_kny"), 1);
  EXPECT_EQ(countWarnings(m, "not found"), 24);  // one per distinct missing mesh
}

TEST(UrdfSharedModels, Go1) {
  REQUIRE_SHARED("go1/go1.urdf");
  const Model m = loadUrdf(sharedModel("go1/go1.urdf"), {.floating_base = true});
  EXPECT_EQ(m.nq, 19);
  EXPECT_EQ(m.nv, 18);
  EXPECT_GT(m.totalMass(), 10.0);  // Go1: ~12-13 kg
  EXPECT_LT(m.totalMass(), 16.0);
  EXPECT_GE(m.frameId("FR_foot"), 0);
  EXPECT_GT(countWarnings(m, "not found"), 0);
}

TEST(UrdfSharedModels, Iiwa14) {
  REQUIRE_SHARED("extras/iiwa14_no_collision.urdf");
  const Model m = loadUrdf(sharedModel("extras/iiwa14_no_collision.urdf"));
  EXPECT_EQ(m.nq, 7);
  EXPECT_EQ(m.nv, 7);
  EXPECT_FALSE(m.isFloatingBase());
  EXPECT_GT(m.totalMass(), 15.0);  // moving links of a ~30 kg arm
  EXPECT_LT(m.totalMass(), 35.0);
}

TEST(UrdfSharedModels, Allegro) {
  REQUIRE_SHARED("extras/allegro_right_hand.urdf");
  const Model m = loadUrdf(sharedModel("extras/allegro_right_hand.urdf"));
  EXPECT_EQ(m.nv, 16);
  EXPECT_EQ(m.nq, 16);
  EXPECT_GT(m.totalMass(), 0.1);  // fingers of a ~1 kg hand (palm fixed to the world)
  EXPECT_LT(m.totalMass(), 1.5);
}

TEST(UrdfSharedModels, FloatingJointInFile) {
  REQUIRE_SHARED("extras/tello_humanoid.urdf");
  const Model m = loadUrdf(sharedModel("extras/tello_humanoid.urdf"));
  EXPECT_TRUE(m.isFloatingBase());
  EXPECT_EQ(m.nv, 6 + 36);
}

// generalized_rbda's loop and rotor-coupling extensions (URDF+): loadUrdf,
// which returns the tree alone, refuses them; loadUrdfMechanism reads them
// (test_urdf_loops.cpp).
TEST(UrdfSharedModels, LoopAndCouplingExtensionsAreRefusedByTheTreeLoader) {
  REQUIRE_SHARED("loops/four_bar.urdf");
  for (const char* name : {"loops/four_bar.urdf", "loops/six_bar.urdf", "loops/planar_leg_linkage.urdf"}) {
    EXPECT_NE(loadError(sharedModel(name)).find("a loop closure written as a URDF+ extension"), std::string::npos)
        << name;
  }
  for (const char* name : {"extras/mini_cheetah.urdf", "extras/mit_humanoid.urdf"}) {
    EXPECT_NE(loadError(sharedModel(name)).find("a joint coupling written as a URDF+ extension"), std::string::npos)
        << name;
  }
}

// The tree loader names the loop or coupling it refuses and where to load it.
TEST(UrdfLoader, LoopAndCouplingExtensionsAreRefusedNotDropped) {
  const std::string tree = R"(
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="c"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/></joint>
  <joint name="k" type="continuous"><parent link="a"/><child link="c"/><axis xyz="0 0 1"/></joint>)";
  std::string message = stringError("<robot name=\"r\">" + tree + R"(
  <loop name="loop1" type="revolute">
    <predecessor link="b"><origin xyz="1 0 0"/></predecessor>
    <successor link="c"><origin xyz="0.5 0 0"/></successor>
    <axis xyz="0 0 1"/>
  </loop>
</robot>)");
  EXPECT_EQ(message.rfind("inline.urdf: <loop name='loop1'>: a loop closure written as a URDF+ extension: the tree "
                          "alone would be an open chain.",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("loadUrdfMechanism, or as a scene model"), std::string::npos) << message;
  message = stringError("<robot name=\"r\">" + tree + R"(
  <coupling name="gear"><predecessor link="b"/><successor link="c"/><ratio value="6.0"/></coupling>
</robot>)");
  EXPECT_NE(message.find("<coupling name='gear'>: a joint coupling written as a URDF+ extension"), std::string::npos)
      << message;
}

}  // namespace
}  // namespace loopsim
