// libFuzzer target: the record / states CSV reader.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <loopsim/model/errors.hpp>
#include <loopsim/record/csv_reader.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // readCsv takes a path: one scratch file per fuzzing process.
  static const std::string path = "/tmp/loopsim_fuzz_csv_" + std::to_string(::getpid()) + ".csv";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    (void)loopsim::readCsv(path);
  } catch (const loopsim::ModelError&) {
  }
  return 0;
}
