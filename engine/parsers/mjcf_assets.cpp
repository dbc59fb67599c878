#include <loopsim/parsers/mjcf_assets.hpp>

#include <tinyxml.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include <loopsim/model/errors.hpp>

namespace loopsim::mjcf_detail {

namespace fs = std::filesystem;

namespace {

constexpr int kMaxIncludeDepth = 16;

std::string readFile(const fs::path& file, const std::string& error_file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) throw ModelError(error_file, "", "no such file");
  if (fs::is_directory(file, ec)) throw ModelError(error_file, "", "is a directory, not an MJCF file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ModelError(error_file, "", std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

struct ParsedFile {
  std::string name;  // for messages
  TiXmlDocument doc;
};

/// Every element of the document, includes expanded in place, document order.
class ElementCollector {
 public:
  explicit ElementCollector(fs::path model_dir) : model_dir_(std::move(model_dir)) {}

  void collect(const fs::path& file, const std::string& shown_name, const char* expected_root, int depth) {
    auto parsed = std::make_unique<ParsedFile>();
    parsed->name = shown_name;
    const std::string xml = readFile(file, shown_name);
    parsed->doc.Parse(xml.c_str());
    if (parsed->doc.Error()) {
      throw ModelError(shown_name,
                       "line " + std::to_string(parsed->doc.ErrorRow()) + ", column " +
                           std::to_string(parsed->doc.ErrorCol()),
                       std::string("malformed XML: ") + parsed->doc.ErrorDesc());
    }
    const TiXmlElement* root = parsed->doc.RootElement();
    if (root == nullptr) throw ModelError(shown_name, "", "malformed XML: no root element");
    if (root->ValueStr() != expected_root) {
      throw ModelError(shown_name, "<" + root->ValueStr() + "> (line " + std::to_string(root->Row()) + ")",
                       std::string("root element must be <") + expected_root + ">");
    }
    if (depth == 0 && root->Attribute("model") != nullptr) model_name = root->Attribute("model");
    const ParsedFile& kept = *parsed;
    files_.push_back(std::move(parsed));
    visit(root, kept.name, depth);
  }

  struct Entry {
    const TiXmlElement* element;
    std::string file;
  };
  std::vector<Entry> elements;
  std::string model_name;

 private:
  void visit(const TiXmlElement* parent, const std::string& file, int depth) {
    for (const TiXmlElement* e = parent->FirstChildElement(); e != nullptr; e = e->NextSiblingElement()) {
      if (e->ValueStr() == "include") {
        const char* ref = e->Attribute("file");
        const std::string where = "<include> (line " + std::to_string(e->Row()) + ")";
        if (ref == nullptr) throw ModelError(file, where, "missing file attribute");
        if (depth + 1 > kMaxIncludeDepth) throw ModelError(file, where, "includes nested too deeply (a cycle?)");
        const fs::path included = fs::path(ref).is_absolute() ? fs::path(ref) : model_dir_ / ref;
        std::error_code ec;
        if (!fs::exists(included, ec)) throw ModelError(file, where, "included file '" + std::string(ref) + "' not found");
        collect(included, included.filename().string(), "mujocoinclude", depth + 1);
        continue;
      }
      elements.push_back({e, file});
      visit(e, file, depth);
    }
  }

  fs::path model_dir_;
  std::vector<std::unique_ptr<ParsedFile>> files_;  // owns the elements listed above
};

Vector3 parseScale(const TiXmlElement* e, const std::string& file, const std::string& element) {
  const char* text = e->Attribute("scale");
  if (text == nullptr) return Vector3::Ones();
  std::istringstream in(text);
  Vector3 s;
  if (!(in >> s[0] >> s[1] >> s[2])) throw ModelError(file, element, "scale '" + std::string(text) + "' is not 3 numbers");
  return s;
}

std::string describe(const TiXmlElement* e, const char* kind) {
  const char* name = e->Attribute("name");
  if (name != nullptr) return std::string(kind) + " '" + name + "'";
  return std::string(kind) + " (line " + std::to_string(e->Row()) + ")";
}

template <class T>
void appendBinary(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));  // little-endian host, as MuJoCo reads it
  out.append(bytes, sizeof(T));
}

}  // namespace

const MjcfAssetFile* MjcfAssetScan::mesh(const std::string& name) const {
  for (const MjcfAssetFile& f : files) {
    if (f.kind == MjcfAssetFile::Kind::Mesh && f.name == name) return &f;
  }
  return nullptr;
}

MjcfAssetScan scanMjcfAssets(const fs::path& file) {
  const std::string shown = file.filename().string();
  ElementCollector collector(file.parent_path());
  collector.collect(file, shown, "mujoco", 0);

  MjcfAssetScan scan;
  scan.model_name = collector.model_name;
  std::string meshdir, texturedir;
  for (const auto& [e, src] : collector.elements) {
    if (e->ValueStr() != "compiler") continue;
    if (const char* a = e->Attribute("assetdir")) meshdir = texturedir = a;
    if (const char* m = e->Attribute("meshdir")) meshdir = m;
    if (const char* t = e->Attribute("texturedir")) texturedir = t;
    if (const char* g = e->Attribute("inertiafromgeom")) scan.inertia_from_geom = g;
  }
  for (const auto& [e, src] : collector.elements) {
    if (e->ValueStr() == "body" && e->Attribute("name") != nullptr && e->FirstChildElement("inertial") != nullptr) {
      scan.bodies_with_inertial.insert(e->Attribute("name"));
    }
  }

  const fs::path dir = file.parent_path();
  auto add = [&](MjcfAssetFile::Kind kind, const TiXmlElement* e, const char* kind_name, const char* attribute,
                 const std::string& subdir, const std::string& src) {
    const char* ref = e->Attribute(attribute);
    if (ref == nullptr) return;
    MjcfAssetFile f;
    f.kind = kind;
    f.element = describe(e, kind_name);
    f.reference = ref;
    const char* name = e->Attribute("name");
    f.name = name != nullptr ? name : fs::path(ref).stem().string();
    f.path = fs::path(ref).is_absolute() ? fs::path(ref) : (dir / subdir / ref).lexically_normal();
    std::error_code ec;
    f.found = fs::is_regular_file(f.path, ec);
    if (kind == MjcfAssetFile::Kind::Mesh) f.scale = parseScale(e, src, f.element);
    scan.files.push_back(std::move(f));
  };
  for (const auto& [e, src] : collector.elements) {
    // <default><mesh scale=...> and similar default elements carry no file.
    if (e->Parent() != nullptr && e->Parent()->ValueStr() == "default") continue;
    const std::string& tag = e->ValueStr();
    if (tag == "mesh") {
      add(MjcfAssetFile::Kind::Mesh, e, "mesh", "file", meshdir, src);
    } else if (tag == "texture") {
      for (const char* a : {"file", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"}) {
        add(MjcfAssetFile::Kind::Texture, e, "texture", a, texturedir, src);
      }
    } else if (tag == "hfield") {
      add(MjcfAssetFile::Kind::HeightField, e, "hfield", "file", texturedir, src);
    }
  }
  return scan;
}

std::string placeholderMesh(const std::string& extension, const Vector3& scale) {
  // Half extents in the file's units: (1, 2, 3) cm after scaling. Distinct,
  // increasing extents make the principal moments strictly decreasing, the
  // order MuJoCo sorts them in, so its principal frame is the identity.
  Vector3 half;
  for (int k = 0; k < 3; ++k) {
    const double s = std::abs(scale[k]) > 1e-12 ? std::abs(scale[k]) : 1.0;
    half[k] = 0.01 * (k + 1) / s;
  }
  std::array<Vector3, 8> v;
  for (int i = 0; i < 8; ++i) {
    v[i] = Vector3((i & 1) ? half.x() : -half.x(), (i & 2) ? half.y() : -half.y(), (i & 4) ? half.z() : -half.z());
  }
  // Outward-facing triangles (counter-clockwise seen from outside).
  constexpr int kFaces[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
                                 {2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
  std::string out;
  if (extension == ".stl") {
    out.assign(80, ' ');
    appendBinary<std::uint32_t>(out, 12);
    for (const auto& f : kFaces) {
      const Vector3 n = (v[f[1]] - v[f[0]]).cross(v[f[2]] - v[f[0]]).normalized();
      for (int k = 0; k < 3; ++k) appendBinary<float>(out, static_cast<float>(n[k]));
      for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) appendBinary<float>(out, static_cast<float>(v[f[c]][k]));
      appendBinary<std::uint16_t>(out, 0);
    }
  } else if (extension == ".msh") {
    // MuJoCo's legacy binary mesh: nvertex, nnormal, ntexcoord, nface, then data.
    for (std::int32_t n : {8, 0, 0, 12}) appendBinary<std::int32_t>(out, n);
    for (const Vector3& p : v)
      for (int k = 0; k < 3; ++k) appendBinary<float>(out, static_cast<float>(p[k]));
    for (const auto& f : kFaces)
      for (int c = 0; c < 3; ++c) appendBinary<std::int32_t>(out, f[c]);
  } else {
    std::ostringstream obj;
    obj.precision(17);
    for (const Vector3& p : v) obj << "v " << p.x() << ' ' << p.y() << ' ' << p.z() << '\n';
    for (const auto& f : kFaces) obj << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << '\n';
    out = obj.str();
  }
  return out;
}

std::string placeholderPng() {
  static constexpr unsigned char kPng[] = {
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00,
      0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00,
      0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xd8, 0xb2, 0x65, 0x0b, 0x00, 0x04, 0x3c, 0x02, 0x1d, 0xfa,
      0x41, 0xe9, 0x67, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
  return std::string(reinterpret_cast<const char*>(kPng), sizeof kPng);
}

}  // namespace loopsim::mjcf_detail
