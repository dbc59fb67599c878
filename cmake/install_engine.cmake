# `cmake --install build --prefix P`: the engine as a package.
#   P/lib/libloopsim_engine.a
#   P/include/loopsim/...                  every engine header, and version.hpp
#   P/lib/cmake/loopsim/loopsimConfig.cmake (+ version, targets): loopsim::engine
#   P/lib/pkgconfig/loopsim.pc
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS loopsim_engine EXPORT loopsimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})  # includes: the target's INSTALL_INTERFACE
install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/loopsim
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_BINARY_DIR}/generated/loopsim/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/loopsim)

set(LOOPSIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/loopsim)
install(EXPORT loopsimTargets NAMESPACE loopsim:: DESTINATION ${LOOPSIM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/loopsimConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/loopsimConfig.cmake INSTALL_DESTINATION ${LOOPSIM_CMAKE_DIR})
# 0.x: only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/loopsimConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/loopsimConfig.cmake ${CMAKE_BINARY_DIR}/package/loopsimConfigVersion.cmake
  DESTINATION ${LOOPSIM_CMAKE_DIR})

# pkg-config: the library is static, so Libs lists what it links (the same
# set as the CMake config's dependencies).
file(RELATIVE_PATH LOOPSIM_PC_PREFIX_FROM_PCDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/loopsim.pc.in ${CMAKE_BINARY_DIR}/package/loopsim.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/loopsim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
