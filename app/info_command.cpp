#include "info_command.hpp"

#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>

#include "input_file.hpp"
#include "text_table.hpp"

namespace loopsim::app {

namespace {

struct InfoOptions {
  std::string model_file;
  bool floating = false;
  bool strict = false;
};

std::string number(double x) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os << x;
  return os.str();
}

/// "3" for one index, "0-6" for a range, "-" for none.
std::string indexRange(int first, int count) {
  if (count == 0) return "-";
  if (count == 1) return std::to_string(first);
  return std::to_string(first) + "-" + std::to_string(first + count - 1);
}

std::string frameKindName(Frame::Kind kind) {
  switch (kind) {
    case Frame::Kind::Body: return "body";
    case Frame::Kind::MergedLink: return "merged link";
    case Frame::Kind::Site: return "site";
  }
  return "?";
}

void printJointTable(const Model& m, std::ostream& out) {
  TextTable table({"id", "body", "joint", "type", "parent", "q", "v", "lower", "upper", "velocity", "effort",
                   "damping"});
  for (int i = 1; i < m.nbodies(); ++i) {
    const bool one_dof = m.joint_nq[i] == 1;
    const int q = m.idx_q[i];
    const int v = m.idx_v[i];
    auto oneDof = [&](const VectorX& values, int index) { return one_dof ? number(values[index]) : "-"; };
    table.addRow({std::to_string(i), m.body_names[i], m.joint_names[i], std::string(jointTypeName(m.joint_types[i])),
                  m.body_names[m.parent[i]], indexRange(q, m.joint_nq[i]), indexRange(v, m.joint_nv[i]),
                  oneDof(m.lower_position_limit, q), oneDof(m.upper_position_limit, q), oneDof(m.velocity_limit, v),
                  oneDof(m.effort_limit, v), oneDof(m.damping, v)});
  }
  table.print(out);
}

void printFrameTable(const Model& m, std::ostream& out) {
  TextTable table({"name", "body", "kind"});
  for (const Frame& f : m.frames) table.addRow({f.name, m.body_names[f.body], frameKindName(f.kind)});
  table.print(out);
}

}  // namespace

void printModelInfo(const Model& m, std::ostream& out) {
  out << "model:       " << m.name << '\n'
      << "file:        " << m.source_file << '\n'
      << "nq:          " << m.nq << '\n'
      << "nv:          " << m.nv << '\n'
      << "bodies:      " << m.njoints() << " (plus the world)\n"
      << "total mass:  " << number(m.totalMass()) << " kg\n"
      << "tree depth:  " << m.treeDepth() << '\n'
      << "base:        " << (m.isFloatingBase() ? "floating" : "fixed to the world") << "\n\n";
  out << "bodies and joints:\n";
  printJointTable(m, out);
  out << "\nframes:\n";
  printFrameTable(m, out);
  out << "\nwarnings: " << m.warnings.size() << '\n';
  for (const std::string& w : m.warnings) out << "  " << w << '\n';
}

Command registerInfoCommand(CLI::App& parent) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = parent.add_subcommand("info", "Load a model and print its bodies, joints, frames and warnings");
  // No CLI::ExistingFile check: the loader's ModelError says what is wrong with the file.
  info->add_option("model", options->model_file, "Robot description (.urdf, MJCF .xml) or scene (.yaml)")->required();
  info->add_flag("--floating", options->floating, "URDF: add a floating joint between the world and the root link");
  info->add_flag("--strict", options->strict, "URDF: treat questionable inertias (triangle inequality) as errors");
  return {info, [options] {
            const Model model = loadAnyModel(options->model_file, options->floating, options->strict);
            printModelInfo(model, std::cout);
            return 0;
          }};
}

}  // namespace loopsim::app
