# Eigen's alignment is part of the engine's ABI: it sets the layout of every
# struct holding a fixed-size Eigen member and how Eigen heap blocks are freed.
# It follows the instruction set (-march=native here), which consumers of the
# installed package do not share. So the installed target carries the two
# values the engine was compiled with (not the flags that produced them):
# a consumer built for any x86-64 then agrees with the library.
set(LOOPSIM_EIGEN_ALIGNMENT_FLAGS "")
if(LOOPSIM_NATIVE)
  set(LOOPSIM_EIGEN_ALIGNMENT_FLAGS -march=native)
endif()
file(WRITE ${CMAKE_BINARY_DIR}/eigen_alignment/eigen_alignment.cpp [=[
#include <Eigen/Core>
#include <cstdio>
int main() { std::printf("%d;%d", int(EIGEN_MAX_ALIGN_BYTES), int(EIGEN_MAX_STATIC_ALIGN_BYTES)); }
]=])
try_run(LOOPSIM_EIGEN_ALIGNMENT_RUN LOOPSIM_EIGEN_ALIGNMENT_COMPILED ${CMAKE_BINARY_DIR}/eigen_alignment
  ${CMAKE_BINARY_DIR}/eigen_alignment/eigen_alignment.cpp
  COMPILE_DEFINITIONS ${LOOPSIM_EIGEN_ALIGNMENT_FLAGS}
  LINK_LIBRARIES Eigen3::Eigen
  COMPILE_OUTPUT_VARIABLE LOOPSIM_EIGEN_ALIGNMENT_LOG
  RUN_OUTPUT_VARIABLE LOOPSIM_EIGEN_ALIGNMENT)
if(NOT LOOPSIM_EIGEN_ALIGNMENT_COMPILED OR NOT LOOPSIM_EIGEN_ALIGNMENT_RUN EQUAL 0)
  message(FATAL_ERROR "could not determine Eigen's alignment for ${LOOPSIM_EIGEN_ALIGNMENT_FLAGS}:\n${LOOPSIM_EIGEN_ALIGNMENT_LOG}")
endif()
list(GET LOOPSIM_EIGEN_ALIGNMENT 0 LOOPSIM_EIGEN_MAX_ALIGN_BYTES)
list(GET LOOPSIM_EIGEN_ALIGNMENT 1 LOOPSIM_EIGEN_MAX_STATIC_ALIGN_BYTES)
message(STATUS "Eigen alignment of the engine: ${LOOPSIM_EIGEN_MAX_ALIGN_BYTES} (heap), "
               "${LOOPSIM_EIGEN_MAX_STATIC_ALIGN_BYTES} (fixed size)")
set(LOOPSIM_EIGEN_ALIGNMENT_DEFINITIONS EIGEN_MAX_ALIGN_BYTES=${LOOPSIM_EIGEN_MAX_ALIGN_BYTES}
    EIGEN_MAX_STATIC_ALIGN_BYTES=${LOOPSIM_EIGEN_MAX_STATIC_ALIGN_BYTES})
