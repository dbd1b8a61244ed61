# runner_add_plugin(NAME SOURCES src... [LIBRARIES lib...])
# Builds plugins/<NAME> as NAME.so in build/plugins with hidden visibility, so
# the only exported symbol is runner_plugin_entry. Plugins never link runner.
function(runner_add_plugin name)
  cmake_parse_arguments(P "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_library(plugin_${name} MODULE ${P_SOURCES})
  set_target_properties(plugin_${name} PROPERTIES
    OUTPUT_NAME ${name} PREFIX ""
    C_VISIBILITY_PRESET hidden
    LIBRARY_OUTPUT_DIRECTORY ${RUNNER_BUILD_PLUGIN_DIR})
  target_include_directories(plugin_${name} PRIVATE ${CMAKE_SOURCE_DIR}/core/include)
  target_link_libraries(plugin_${name} PRIVATE m ${P_LIBRARIES})
  target_link_options(plugin_${name} PRIVATE -Wl,--no-undefined)
  install(TARGETS plugin_${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/runner/plugins)
endfunction()

# runner_add_test(NAME SOURCES src... [LIBRARIES lib...])
# One ctest entry per test program, built on tests/unit/check.h.
function(runner_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/core/include
    ${CMAKE_SOURCE_DIR}/core ${CMAKE_SOURCE_DIR}/tests/unit)
  target_link_libraries(${name} PRIVATE m ${T_LIBRARIES})
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endfunction()
