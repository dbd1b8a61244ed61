# What plugin authors build against, installed beside each other under
# <prefix>/lib: the pkg-config file (pkgconfig/runner.pc) and the CMake
# package (cmake/runner/runnerConfig.cmake, find_package(runner)). Both find
# their prefix relative to themselves, so `cmake --install --prefix DIR`
# gives working files wherever DIR is; both name the same plugin directory,
# the one an installed runner searches (core/base/install_layout.c).
include(CMakePackageConfigHelpers)

file(STRINGS core/include/runner/plugin.h RUNNER_PLUGIN_ABI_LINE
  REGEX "^#define RUNNER_PLUGIN_ABI [0-9]+$")
string(REGEX REPLACE ".* " "" RUNNER_PLUGIN_ABI "${RUNNER_PLUGIN_ABI_LINE}")

install(FILES core/include/runner/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/runner)

file(RELATIVE_PATH RUNNER_PC_TO_PREFIX "${CMAKE_INSTALL_FULL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" RUNNER_PC_TO_PREFIX "${RUNNER_PC_TO_PREFIX}")
configure_file(cmake/runner.pc.in runner.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/runner.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(RUNNER_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/runner)
install(TARGETS runner_plugin EXPORT runnerTargets)
install(EXPORT runnerTargets NAMESPACE runner:: DESTINATION ${RUNNER_CMAKE_PACKAGE_DIR})
configure_package_config_file(cmake/runnerConfig.cmake.in runnerConfig.cmake
  INSTALL_DESTINATION ${RUNNER_CMAKE_PACKAGE_DIR}
  PATH_VARS RUNNER_PLUGIN_INSTALL_DIR)
write_basic_package_version_file(runnerConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/runnerConfig.cmake ${CMAKE_BINARY_DIR}/runnerConfigVersion.cmake
  DESTINATION ${RUNNER_CMAKE_PACKAGE_DIR})
