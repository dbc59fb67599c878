#include <loopsim/record/csv_reader.hpp>

#include <algorithm>
#include <charconv>
#include <span>
#include <string_view>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <loopsim/model/errors.hpp>
#include <loopsim/parallel/parallel_chunks.hpp>

namespace loopsim {

int CsvTable::column(const std::string& name) const {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c] == name) return static_cast<int>(c);
  }
  return -1;
}

int CsvTable::requireColumn(const std::string& name) const {
  const int c = column(name);
  if (c < 0) throw ModelError(file, "column '" + name + "'", "missing from the header");
  return c;
}

namespace {

// A cell without its surrounding blanks (and a line's trailing '\r').
std::string_view trimmed(std::string_view cell) {
  while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.remove_suffix(1);
  while (!cell.empty() && cell.front() == ' ') cell.remove_prefix(1);
  return cell;
}

std::vector<std::string> splitHeader(std::string_view line) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t comma = line.find(',');
    out.emplace_back(trimmed(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return out;
}

// The whole file's bytes: mapped when it is a regular file (a states file of
// 10^5 Atlas rows is ~230 MB; mapping it costs no copy and keeps the serial
// part of a parallel eval small), else read (a pipe, a device).
class FileBytes {
 public:
  explicit FileBytes(const std::string& file) {
    fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw ModelError(file, "", "cannot open file");
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      // MAP_POPULATE: the pages are mapped in one go, not faulted in one by one by the line scan.
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_, 0);
      if (p != MAP_FAILED) {
        mapped_ = p;
        size_ = static_cast<std::size_t>(st.st_size);
        return;
      }
    }
    char buffer[1 << 16];
    while (true) {
      const ::ssize_t n = ::read(fd_, buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        const std::string reason = std::strerror(errno);
        ::close(fd_);
        throw ModelError(file, "", "cannot read: " + reason);
      }
      copy_.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ~FileBytes() {
    if (mapped_ != nullptr) ::munmap(mapped_, size_);
    ::close(fd_);
  }
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;

  std::string_view text() const {
    return mapped_ != nullptr ? std::string_view(static_cast<const char*>(mapped_), size_) : std::string_view(copy_);
  }

 private:
  int fd_ = -1;
  void* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::string copy_;
};

struct Line {
  std::string_view text;
  int number = 0;  // 1-based file line
};

// Parses data lines into their rows; throws at the first bad one.
void parseRows(const CsvTable& header, std::span<const Line> lines, std::span<std::vector<double>> rows) {
  const std::size_t columns = header.columns.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    std::vector<double>& row = rows[i];
    row.resize(columns);
    std::string_view rest = line.text;
    std::size_t c = 0;
    const std::string where = "line " + std::to_string(line.number);
    while (true) {
      const std::size_t comma = rest.find(',');
      if (c < columns) {
        const std::string_view cell = trimmed(rest.substr(0, comma));
        const char* first = cell.data();
        const char* last = cell.data() + cell.size();
        if (!cell.empty() && cell[0] == '+') ++first;
        const auto [ptr, ec] = std::from_chars(first, last, row[c]);
        if (ec != std::errc() || ptr != last || cell.empty()) {
          // The count error comes first, as it did when lines were split before parsing.
          std::size_t count = c + 1;
          for (std::size_t at = comma; at != std::string_view::npos; at = rest.find(',', at + 1)) ++count;
          if (count != columns) {
            throw ModelError(header.file, where, "has " + std::to_string(count) + " values, the header has " +
                                                     std::to_string(columns));
          }
          throw ModelError(header.file, where + ", column '" + header.columns[c] + "'",
                           "not a number: '" + std::string(cell) + "'");
        }
      }
      ++c;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (c != columns) {
      throw ModelError(header.file, where, "has " + std::to_string(c) + " values, the header has " +
                                               std::to_string(columns));
    }
  }
}

}  // namespace

CsvTable readCsv(const std::filesystem::path& path, int threads, int part, int parts) {
  CsvTable table;
  table.file = path.string();
  const FileBytes bytes(table.file);
  const std::string_view text = bytes.text();

  // Lines as std::getline gives them: a last line without '\n' counts.
  std::vector<Line> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back({text.substr(at, end - at), static_cast<int>(lines.size()) + 1});
    at = end + 1;
  }
  if (lines.empty()) throw ModelError(table.file, "line 1", "empty file (expected a header of column names)");
  std::string_view header = lines.front().text;
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first column's name.
  if (header.starts_with("\xEF\xBB\xBF")) header.remove_prefix(3);
  table.columns = splitHeader(header);
  std::unordered_map<std::string, std::size_t> first_column;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    const std::string& name = table.columns[c];
    if (name.empty()) throw ModelError(table.file, "line 1, column " + std::to_string(c + 1), "empty column name");
    const auto [it, inserted] = first_column.emplace(name, c);
    if (!inserted) {
      throw ModelError(table.file, "line 1, column " + std::to_string(c + 1) + " '" + name + "'",
                       "duplicate column (also column " + std::to_string(it->second + 1) + "); give each column once");
    }
  }
  std::erase_if(lines, [](const Line& l) { return l.number == 1 || l.text.empty() || l.text == "\r"; });

  table.line_numbers.reserve(lines.size());
  for (const Line& line : lines) table.line_numbers.push_back(line.number);
  table.rows.resize(lines.size());
  // Contiguous parts, each parsing into its own rows: forEachChunk rethrows
  // the lowest part's error, which is the first bad line of the file (or shard).
  const Chunk shard = chunkOf(0, lines.size(), parts, part);
  const int pieces = std::max(1, std::min(threads, static_cast<int>(shard.size() / 256) + 1));
  forEachChunk(shard.begin, shard.end, pieces, [&](int, Chunk chunk) {
    parseRows(table, std::span(lines).subspan(chunk.begin, chunk.size()),
              std::span(table.rows).subspan(chunk.begin, chunk.size()));
  });
  return table;
}

}  // namespace loopsim
