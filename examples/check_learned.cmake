# Runs an example and checks that it learned: the number printed after VALUE_LABEL must be below
# MAX_PERCENT percent of the number printed after BASELINE_LABEL. The examples print both with
# four decimals, so they compare exactly as integers of ten-thousandths.
#   cmake -DEXAMPLE=<program> "-DARGS=<arguments, space-separated>" "-DVALUE_LABEL=test mse:"
#         "-DBASELINE_LABEL=baseline mse:" -DMAX_PERCENT=<n> -P check_learned.cmake
separate_arguments(arguments UNIX_COMMAND "${ARGS}")
execute_process(COMMAND "${EXAMPLE}" ${arguments} OUTPUT_VARIABLE output RESULT_VARIABLE status)
message("${output}")
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXAMPLE} ${ARGS} exited with ${status}")
endif()

# The number after label, in ten-thousandths.
function(read_ten_thousandths label result)
  if(NOT output MATCHES "${label} ([0-9]+)\\.([0-9][0-9][0-9][0-9])")
    message(FATAL_ERROR "the output has no line '${label} <number with four decimals>'")
  endif()
  string(REGEX REPLACE "^0+([0-9])" "\\1" digits "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
  set(${result} ${digits} PARENT_SCOPE)
endfunction()

read_ten_thousandths("${VALUE_LABEL}" value)
read_ten_thousandths("${BASELINE_LABEL}" baseline)
math(EXPR value_percent "${value} * 100")
math(EXPR bound "${baseline} * ${MAX_PERCENT}")
if(NOT value_percent LESS bound)
  message(FATAL_ERROR "'${VALUE_LABEL}' is not below ${MAX_PERCENT}% of '${BASELINE_LABEL}'")
endif()
