// Records and `loopsim eval` output read into numpy: a mapping of column name
// to column, and each group of columns (q, v, tau, vdot, lambda) as one 2-D
// array with its names.
#include "bindings.hpp"

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <loopsim/record/csv_reader.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace loopsim::python {

namespace {

class Record {
 public:
  explicit Record(const CsvTable& table) : columns_(table.columns) {
    const auto rows = static_cast<py::ssize_t>(table.rows.size());
    const auto width = static_cast<py::ssize_t>(table.columns.size());
    py::array_t<double> data({rows, width});
    auto out = data.mutable_unchecked<2>();
    for (py::ssize_t r = 0; r < rows; ++r) {
      for (py::ssize_t c = 0; c < width; ++c) out(r, c) = table.rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    }
    data.attr("setflags")(py::arg("write") = false);
    data_ = std::move(data);
  }

  const std::vector<std::string>& columns() const { return columns_; }
  const py::array_t<double>& data() const { return data_; }

  py::object column(const std::string& name) const {
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c] == name) return data_[py::make_tuple(py::slice(py::none(), py::none(), py::none()), c)];
    }
    throw py::key_error(name);
  }
  bool contains(const std::string& name) const {
    for (const auto& c : columns_) {
      if (c == name) return true;
    }
    return false;
  }

  /// The columns named "<group>:…", in file order.
  std::vector<std::string> names(const std::string& group) const {
    std::vector<std::string> out;
    for (const auto& c : columns_) {
      if (c.starts_with(group + ":")) out.push_back(c);
    }
    return out;
  }
  /// Those columns as one (T, k) array (a copy).
  py::array_t<double> group(const std::string& group) const {
    std::vector<py::ssize_t> indices;
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].starts_with(group + ":")) indices.push_back(static_cast<py::ssize_t>(c));
    }
    const auto rows = data_.shape(0), width = static_cast<py::ssize_t>(indices.size());
    py::array_t<double> out({rows, width});
    auto in = data_.unchecked<2>();
    auto o = out.mutable_unchecked<2>();
    for (py::ssize_t r = 0; r < rows; ++r) {
      for (py::ssize_t k = 0; k < width; ++k) o(r, k) = in(r, indices[static_cast<std::size_t>(k)]);
    }
    return out;
  }

 private:
  std::vector<std::string> columns_;
  py::array_t<double> data_;
};

}  // namespace

void bindRecord(py::module_& m) {
  auto record = py::class_<Record>(m, "Record", R"(A CSV record (`loopsim run --record`) or `loopsim eval` output.

A read-only mapping {column name: float64 column (T,)} in file order (record["t"],
record.keys(), ...), plus each group of columns as one (T, k) array: record.q (T, nq),
record.v, record.tau, record.vdot (T, nv), record.lambda_ (T, m), with their names in
record.names("q") etc. Names and orders: state_columns(scene) and docs/conventions.md
(quaternions [qx qy qz qw], velocities [angular; linear] in the body frame, lambda on each constraint's first body in its frame).)")
      .def_property_readonly("columns", &Record::columns, "Column names, in file order.")
      .def_property_readonly("data", &Record::data, "The whole table, (T, columns), read-only.")
      .def("__getitem__", &Record::column, py::arg("name"), "A column (T,), a read-only view of data.")
      .def("__contains__", &Record::contains)
      .def("__len__", [](const Record& r) { return r.columns().size(); })
      .def("__iter__", [](const Record& r) { return py::iter(py::cast(r.columns())); })
      .def("keys", &Record::columns)
      .def("values", [](const Record& r) {
        py::list out;
        for (const auto& name : r.columns()) out.append(r.column(name));
        return out;
      })
      .def("items", [](const Record& r) {
        py::list out;
        for (const auto& name : r.columns()) out.append(py::make_tuple(name, r.column(name)));
        return out;
      })
      .def("get", [](const Record& r, const std::string& name, py::object fallback) {
        return r.contains(name) ? r.column(name) : fallback;
      }, py::arg("name"), py::arg("default") = py::none())
      .def("names", &Record::names, py::arg("group"), "The names of the columns 'group:…' (group: q, v, tau, vdot, lambda, …).")
      .def("group", &Record::group, py::arg("group"), "The columns 'group:…' as one (T, k) array (a copy), ordered as names(group).")
      .def_property_readonly("q", [](const Record& r) { return r.group("q"); }, "(T, nq): floating bases [x y z qx qy qz qw].")
      .def_property_readonly("v", [](const Record& r) { return r.group("v"); }, "(T, nv): floating bases [omega; v] in the body frame.")
      .def_property_readonly("tau", [](const Record& r) { return r.group("tau"); }, "(T, nv) applied force.")
      .def_property_readonly("vdot", [](const Record& r) { return r.group("vdot"); }, "(T, nv).")
      .def_property_readonly("lambda_", [](const Record& r) { return r.group("lambda"); }, "(T, m), ordered as names('lambda').");
  py::module_::import("collections.abc").attr("Mapping").attr("register")(record);

  m.def("read_record", [](const std::filesystem::path& file) { return Record(readCsv(file)); }, py::arg("file"),
        "Reads a CSV record or eval output into a Record (a mapping of columns, plus record.q, .v, .tau, .vdot, "
        ".lambda_ as 2-D arrays).");
}

}  // namespace loopsim::python
