#include <loopsim/record/file_hash.hpp>

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>

#include <loopsim/model/errors.hpp>

namespace loopsim {

namespace {

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
  }
  void update(const char* data, std::size_t n) { EVP_DigestUpdate(ctx_.get(), data, n); }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest.data(), &length);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += kHex[digest[i] >> 4];
      out += kHex[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx_;
};

}  // namespace

std::string sha256File(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path.string(), "", "cannot open file to hash it");
  Sha256 sha;
  std::array<char, 1 << 16> buffer{};
  while (in) {
    in.read(buffer.data(), buffer.size());
    sha.update(buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return sha.hex();
}

std::string sha256String(const std::string& bytes) {
  Sha256 sha;
  sha.update(bytes.data(), bytes.size());
  return sha.hex();
}

}  // namespace loopsim
