# runner::plugin: what building a plugin takes, as one INTERFACE target. The
# same target is installed (runnerConfig.cmake, cmake/RunnerPackage.cmake),
# so a plugin built in this tree and one built out of tree with
# find_package(runner) get the same conventions: the <runner/plugin.h>
# include directory, hidden visibility (the only exported symbol is
# runner_plugin_entry), libm, and -Wl,--no-undefined (plugins never link
# runner, so any undefined symbol is a mistake found at link time, not at
# dlopen).
add_library(runner_plugin INTERFACE)
add_library(runner::plugin ALIAS runner_plugin)
set_target_properties(runner_plugin PROPERTIES EXPORT_NAME plugin)
target_include_directories(runner_plugin INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/core/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_options(runner_plugin INTERFACE -fvisibility=hidden)
target_link_libraries(runner_plugin INTERFACE m)
target_link_options(runner_plugin INTERFACE LINKER:--no-undefined)

# runner_add_plugin(NAME SOURCES src... [LIBRARIES lib...])
# Builds plugins/<NAME> as NAME.so in build/plugins, on runner::plugin.
function(runner_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(plugin_${name} MODULE ${P_SOURCES})
  set_target_properties(plugin_${name} PROPERTIES
    OUTPUT_NAME ${name} PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${RUNNER_BUILD_PLUGIN_DIR})
  target_link_libraries(plugin_${name} PRIVATE runner::plugin ${P_LIBRARIES})
  install(TARGETS plugin_${name} LIBRARY DESTINATION ${RUNNER_PLUGIN_INSTALL_DIR})
endfunction()

# runner_check_only(TARGET...): built for the tests and benchmarks only, by
# the `checks` target (make test, make bench), never by `make`: a user's
# build is runner, its plugins and apps. The top CMakeLists.txt also marks
# every target under tests/ and bench/.
function(runner_check_only)
  foreach(target ${ARGN})
    set_target_properties(${target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
    set_property(GLOBAL APPEND PROPERTY RUNNER_CHECK_TARGETS ${target})
  endforeach()
endfunction()

# runner_add_test(NAME SOURCES src... [LIBRARIES lib...])
# One ctest entry per test program, built on tests/unit/check.h.
function(runner_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  runner_check_only(${name})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/core/include
    ${CMAKE_SOURCE_DIR}/core ${CMAKE_SOURCE_DIR}/tests/unit)
  target_link_libraries(${name} PRIVATE m ${T_LIBRARIES})
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endfunction()
