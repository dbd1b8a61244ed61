# Checked builds, as CMake options (libuv style). The flags reach everything
# built here (core, runner, unit tests, plugins and fixtures) through the
# runner_sanitizers target. A plugin is dlopened into the
# runner, so it is checked like the host. `make test-sanitize` and
# `make fuzz-smoke` are the usual way in.
#
# RUNNER_SANITIZE  AddressSanitizer + UndefinedBehaviorSanitizer. Every UB
#                  report aborts (-fno-sanitize-recover=all), so a finding
#                  fails the test that hit it instead of scrolling past.
# RUNNER_FUZZ      clang and libFuzzer: the tree is built with
#                  -fsanitize=fuzzer-no-link,address,undefined (coverage for
#                  the fuzzer, checks for the finding); only the harnesses in
#                  tests/fuzz link the fuzzer's main.

if(RUNNER_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "RUNNER_FUZZ needs clang (libFuzzer): configure with "
      "-DCMAKE_C_COMPILER=clang, or run 'make fuzz-smoke'")
  endif()
  set(RUNNER_SANITIZER_LIST "fuzzer-no-link,address,undefined")
elseif(RUNNER_SANITIZE)
  set(RUNNER_SANITIZER_LIST "address,undefined")
endif()

# runner_sanitizers carries the flags; runner_link_warnings (Warnings.cmake)
# links it, with runner_warnings, into every C target of the project.
add_library(runner_sanitizers INTERFACE)
if(RUNNER_SANITIZER_LIST)
  target_compile_options(runner_sanitizers INTERFACE -fsanitize=${RUNNER_SANITIZER_LIST}
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(runner_sanitizers INTERFACE -fsanitize=${RUNNER_SANITIZER_LIST}
    -fno-sanitize-recover=all)
  if(CMAKE_C_COMPILER_ID MATCHES "Clang")
    # clang links its sanitizer runtime statically into executables only, so
    # an instrumented plugin (linked with --no-undefined) would have no
    # __asan_* symbols. With the shared runtime, host and plugins use one copy.
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libclang_rt.asan-x86_64.so
      OUTPUT_VARIABLE RUNNER_ASAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
    get_filename_component(RUNNER_ASAN_RUNTIME_DIR "${RUNNER_ASAN_RUNTIME}" DIRECTORY)
    if(NOT EXISTS "${RUNNER_ASAN_RUNTIME}")
      message(FATAL_ERROR "clang's AddressSanitizer runtime is missing "
        "(${RUNNER_ASAN_RUNTIME}); install libclang-rt-14-dev (TEST_PACKAGES in the Makefile; "
        "`make fuzz-smoke` installs it)")
    endif()
    target_link_options(runner_sanitizers INTERFACE -shared-libsan
      "LINKER:-rpath,${RUNNER_ASAN_RUNTIME_DIR}")
  endif()
endif()
