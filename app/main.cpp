#include <cstdio>
#include "loopsim/version.hpp"
int main() { std::printf("loopsim %s\n", loopsim::kVersion); }
