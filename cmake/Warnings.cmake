# Compiler warnings as a target, runner_warnings, rather than directory-wide
# flags: -Wall -Wextra always, -Werror when RUNNER_WERROR is ON. `make test`
# and CI turn it on; a user's `make` leaves it off, so a warning a newer
# compiler adds never stops someone from building runner.
#
# runner_link_warnings(DIR) links runner_warnings, and runner_sanitizers
# (Sanitize.cmake, empty unless a checked build), into every C target
# declared in DIR and below. The top-level CMakeLists.txt calls it once, last,
# so a target added anywhere (a plugin, a test, a benchmark) gets the same
# checks without a line of its own.
add_library(runner_warnings INTERFACE)
target_compile_options(runner_warnings INTERFACE -Wall -Wextra
  -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 -Wvla
  $<$<C_COMPILER_ID:GNU>:-Wshadow=local>
  $<$<BOOL:${RUNNER_WERROR}>:-Werror>)

function(runner_link_warnings dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
      target_link_libraries(${target} PRIVATE runner_warnings runner_sanitizers)
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    runner_link_warnings(${subdir})
  endforeach()
endfunction()
