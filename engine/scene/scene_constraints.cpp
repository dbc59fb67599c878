// The `constraints` list of a scene file.
#include <algorithm>

#include <loopsim/constraints/frame_constraints.hpp>
#include <loopsim/model/name_suggestion.hpp>
#include <loopsim/scene/scene_parsing.hpp>

namespace loopsim::scene_yaml {

namespace {

ConstraintKind parseKind(const YamlValue& v) {
  const std::string s = v.string();
  if (s == "weld") return ConstraintKind::Weld;
  if (s == "connect") return ConstraintKind::Connect;
  if (s == "revolute") return ConstraintKind::RevoluteLoop;
  if (s == "coupling") return ConstraintKind::Coupling;
  v.fail("unknown constraint type '" + s + "'" + didYouMean(s, {"weld", "connect", "revolute", "coupling"}) +
         "; expected weld, connect, revolute or coupling");
}

std::vector<int> parseRows(const YamlValue& v, ConstraintKind kind) {
  std::vector<std::string> valid;
  for (int r = 0; r < fullRowCount(kind); ++r) valid.emplace_back(constraintRowName(kind, r));
  std::string all;
  for (const auto& n : valid) all += (all.empty() ? "" : " ") + n;
  const std::vector<std::string> names = v.strings();
  if (names.empty()) v.fail("rows must name at least one row (" + all + ")");
  std::vector<int> rows;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = std::find(valid.begin(), valid.end(), names[i]);
    if (it == valid.end()) {
      v.at(i).fail("unknown row '" + names[i] + "' for a " + std::string(constraintKindName(kind)) + didYouMean(names[i], valid) +
                   "; rows are " + all);
    }
    const int r = static_cast<int>(it - valid.begin());
    if (std::find(rows.begin(), rows.end(), r) != rows.end()) v.at(i).fail("row '" + names[i] + "' listed twice");
    rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end());
  if (static_cast<int>(rows.size()) == fullRowCount(kind)) rows.clear();  // all rows: no mask
  return rows;
}

/// One end: a frame or a body (or nothing = the world); returns (body, placement in it).
std::pair<int, SE3> parseEnd(const YamlValue& entry, const Model& model, const std::string& body_key,
                             const std::string& frame_key, bool required) {
  const bool by_body = entry.has(body_key), by_frame = entry.has(frame_key);
  if (by_body && by_frame) entry.fail("give either '" + body_key + "' or '" + frame_key + "', not both");
  if (!by_body && !by_frame) {
    if (required) entry.fail("'" + frame_key + "' (or '" + body_key + "') is required");
    return {0, SE3::Identity()};
  }
  if (by_body) {
    const YamlValue v = entry[body_key];
    return {bodyByName(v, model, v.string()), SE3::Identity()};
  }
  const YamlValue v = entry[frame_key];
  const Frame& frame = model.frames[frameByName(v, model, v.string())];
  return {frame.body, frame.placement};
}

}  // namespace

std::vector<Constraint> parseConstraints(const YamlValue& list, const Model& model, const VectorX& q0) {
  list.requireSequence();
  std::vector<Constraint> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YamlValue entry = list.at(i);
    entry.requireMap({"name", "type", "body1", "frame1", "placement1", "body2", "frame2", "placement2", "rows",
                      "joints", "coefficients", "offset", "kp", "kd"});
    Constraint c;
    if (!entry.has("name")) entry.fail("'name' is required");
    c.name = entry["name"].string();
    for (const Constraint& previous : out) {
      if (previous.name == c.name) entry["name"].fail("duplicate constraint name '" + c.name + "'");
    }
    if (!entry.has("type")) entry.fail("'type' is required (weld, connect, revolute or coupling)");
    c.kind = parseKind(entry["type"]);
    if (entry.has("kp")) c.kp = entry["kp"].nonNegativeNumber();
    if (entry.has("kd")) c.kd = entry["kd"].nonNegativeNumber();

    if (c.kind == ConstraintKind::Coupling) {
      for (const char* key : {"body1", "frame1", "placement1", "body2", "frame2", "placement2", "rows"}) {
        if (entry.has(key)) entry[key].fail("'" + std::string(key) + "' does not apply to a coupling");
      }
      if (!entry.has("joints") || !entry.has("coefficients")) entry.fail("a coupling needs 'joints' and 'coefficients'");
      const YamlValue joints = entry["joints"];
      const std::vector<std::string> names = joints.strings();
      const std::vector<double> coefficients = entry["coefficients"].numbers(static_cast<int>(names.size()));
      if (names.empty()) joints.fail("a coupling needs at least one joint");
      for (std::size_t k = 0; k < names.size(); ++k) {
        const int j = jointByName(joints.at(k), model, names[k]);
        if (model.joint_nv[j] != 1) {
          joints.at(k).fail("joint '" + names[k] + "' is " + std::string(jointTypeName(model.joint_types[j])) +
                            "; couplings take one-dof joints");
        }
        c.coupling_joints.push_back(j);
      }
      c.coupling_coefficients = coefficients;
      if (entry.has("offset")) c.coupling_offset = entry["offset"].number();
      out.push_back(std::move(c));
      continue;
    }
    for (const char* key : {"joints", "coefficients", "offset"}) {
      if (entry.has(key)) entry[key].fail("'" + std::string(key) + "' applies to couplings only");
    }
    const auto [body1, frame1] = parseEnd(entry, model, "body1", "frame1", true);
    const auto [body2, frame2] = parseEnd(entry, model, "body2", "frame2", false);
    if (body1 == 0) entry.fail("the first end must be on a moving body, not the world (swap the two ends)");
    if (body1 == body2) entry.fail("both ends are on body '" + model.body_names[body1] + "'");
    c.body1 = body1;
    c.placement1 = frame1 * (entry.has("placement1") ? entry["placement1"].pose() : SE3::Identity());
    c.body2 = body2;
    if (entry.has("placement2")) {
      c.placement2 = frame2 * entry["placement2"].pose();
    } else {
      // Close where it stands: frame B is frame A's pose at the initial q.
      c.placement2 = placementWhereItStands(model, q0, body1, c.placement1, body2);
    }
    if (entry.has("rows")) c.row_mask = parseRows(entry["rows"], c.kind);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace loopsim::scene_yaml
