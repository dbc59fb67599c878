// libFuzzer target: the URDF loader on arbitrary text. Bad input must end in a
// ModelError, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>
#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/parsers/urdf_loader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  try {
    (void)loopsim::loadUrdfString(xml, "fuzz.urdf");
  } catch (const loopsim::ModelError&) {
  }
  return 0;
}
