#include <loopsim/record/csv_writer.hpp>

#include <charconv>
#include <cstring>
#include <system_error>
#include <unistd.h>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/output_file.hpp>

namespace loopsim {

CsvWriter::CsvWriter(std::filesystem::path final_path, const std::vector<std::string>& columns, bool overwrite,
                     const std::vector<std::filesystem::path>& inputs)
    : final_path_(std::move(final_path)), columns_(columns.size()) {
  requireReplaceableOutput(final_path_, overwrite, inputs);
  warnAboutStalePartials(final_path_);
  temp_path_ = partialPathFor(final_path_, ::getpid());
  file_ = std::fopen(temp_path_.c_str(), "wbx");  // x: never open something already there
  if (file_ == nullptr) throw ModelError(temp_path_.string(), "", std::string("cannot open for writing: ") + std::strerror(errno));
  std::string header;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].find_first_of(",\"\n") != std::string::npos) {
      throw ModelError(final_path_.string(), "column '" + columns[c] + "'", "column names must not contain , \" or newlines");
    }
    header += (c ? "," : "") + columns[c];
  }
  header += '\n';
  std::fwrite(header.data(), 1, header.size(), file_);
  line_.resize(columns_ * 32 + 2);  // 17 digits + sign + exponent + separator fit in 32
}

CsvWriter::~CsvWriter() {
  if (file_ != nullptr) std::fclose(file_);
  if (!committed_) {
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
  }
}

namespace {
// Writes values as one CSV line into [out, end) (room for 32 characters per
// value); returns the end of the line.
char* formatLine(std::span<const double> values, char* out, char* end) {
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (c) *out++ = ',';
    out = std::to_chars(out, end, values[c], std::chars_format::general, 17).ptr;
  }
  *out++ = '\n';
  return out;
}
}  // namespace

void CsvWriter::writeRow(std::span<const double> values) {
  if (values.size() != columns_) {
    throw ModelError(final_path_.string(), "row", "has " + std::to_string(values.size()) + " values, expected " +
                                                      std::to_string(columns_));
  }
  char* const end = formatLine(values, line_.data(), line_.data() + line_.size());
  std::fwrite(line_.data(), 1, static_cast<std::size_t>(end - line_.data()), file_);
}

void CsvWriter::writeRows(std::string_view rows) { std::fwrite(rows.data(), 1, rows.size(), file_); }

void CsvWriter::formatRow(std::span<const double> values, std::string& out) {
  const std::size_t start = out.size();
  out.resize(start + values.size() * 32 + 2);  // 17 digits + sign + exponent + separator fit in 32
  char* const end = formatLine(values, out.data() + start, out.data() + out.size());
  out.resize(static_cast<std::size_t>(end - out.data()));
}

void CsvWriter::commit() {
  if (committed_) return;
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  std::fclose(file_);
  file_ = nullptr;
  if (!ok) throw ModelError(temp_path_.string(), "", "write failed (disk full?)");
  std::error_code ec;
  std::filesystem::rename(temp_path_, final_path_, ec);
  if (ec) throw ModelError(final_path_.string(), "", "cannot rename the finished record: " + ec.message());
  committed_ = true;
}

}  // namespace loopsim
