# Runs PROGRAM (test_equivalence) under OPENBLAS_NUM_THREADS=1 and =2 and
# fails unless both runs pass and print the same max_abs_diff bits (%a): the
# plugin's results must not depend on OpenBLAS threading. On a one-core
# machine OpenBLAS may use one thread either way, and this cannot fail.
foreach(threads 1 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env OPENBLAS_NUM_THREADS=${threads} ${PROGRAM}
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "OPENBLAS_NUM_THREADS=${threads} ${PROGRAM} failed (${status}):\n${out}${err}")
  endif()
  string(REGEX MATCH "max_abs_diff [^\n]*" bits_${threads} "${out}")
  if(NOT bits_${threads})
    message(FATAL_ERROR "OPENBLAS_NUM_THREADS=${threads}: no max_abs_diff line in:\n${out}")
  endif()
  message(STATUS "OPENBLAS_NUM_THREADS=${threads}: ${bits_${threads}}")
endforeach()
if(NOT bits_1 STREQUAL bits_2)
  message(FATAL_ERROR "results depend on OpenBLAS threading: ${bits_1} (1 thread) vs "
                      "${bits_2} (2 threads)")
endif()
