#pragma once
// One exception type for bad input: it carries the file, the element and the
// offending value so the app can print "file: element: message".
#include <stdexcept>
#include <string>

namespace loopsim {

class ModelError : public std::runtime_error {
 public:
  ModelError(std::string file, std::string element, std::string message)
      : std::runtime_error(compose(file, element, message)),
        file_(std::move(file)),
        element_(std::move(element)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  const std::string& element() const { return element_; }
  const std::string& message() const { return message_; }

 private:
  static std::string compose(const std::string& file, const std::string& element, const std::string& message) {
    std::string out;
    if (!file.empty()) out += file + ": ";
    if (!element.empty()) out += element + ": ";
    return out + message;
  }
  std::string file_, element_, message_;
};

}  // namespace loopsim
