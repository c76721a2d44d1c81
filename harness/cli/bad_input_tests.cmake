# The bad-input table (issue 16): each row is one hostile input, the exit code
# it must get and a piece of the message it must print on stderr. The inputs
# are written by harness/cli/hostile_inputs.py (fixture hostile_inputs).
# Included from harness/CMakeLists.txt inside if(AMPBENCH_BUILD_TESTS).

set(hostile_dir ${CMAKE_BINARY_DIR}/test-results/hostile)
add_test(NAME bad_input.write_inputs
         COMMAND ${AMPBENCH_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_inputs.py ${hostile_dir})
set_tests_properties(bad_input.write_inputs PROPERTIES FIXTURES_SETUP hostile_inputs)

# bad_input(NAME CODE SAYS ARGS...): `ampbench ARGS` exits CODE saying SAYS.
# @H@ in ARGS stands for the folder of hostile inputs.
function(bad_input name code says)
  string(REPLACE "@H@" "${hostile_dir}" args "${ARGN}")
  add_test(NAME bad_input.${name}
           COMMAND ${PROJECT_SOURCE_DIR}/ci/expect-exit.sh ${code} --says "${says}" $<TARGET_FILE:ampbench> ${args})
  set_tests_properties(bad_input.${name} PROPERTIES FIXTURES_REQUIRED hostile_inputs TIMEOUT 60)
endfunction()

# Unreadable JSON: every reader refuses it with the file named, no crash.
bad_input(list_device 2 "/dev/zero: not a regular file" list --suite /dev/zero)
bad_input(list_deep_array 2 "deep-array.json: nested deeper than 64 levels" list --suite @H@/deep-array.json)
bad_input(run_deep_object 2 "deep-object.json: nested deeper than 64 levels" run --suite @H@/deep-object.json)
bad_input(list_number_overflow 2 "suite-steps-overflow.json: not valid JSON: number overflow" list --suite @H@/suite-steps-overflow.json)
bad_input(list_empty_file 2 "empty.json: not valid JSON" list --suite @H@/empty.json)
bad_input(gate_deep 2 "deep-array.json: nested deeper than 64 levels" gate --current @H@/deep-array.json)
bad_input(gate_device 2 "/dev/zero: not a regular file" gate --current /dev/zero)
bad_input(gate_not_json 2 "not-json.json: not valid JSON" gate --current @H@/not-json.json)
bad_input(baseline_deep 2 "deep-object.json: nested deeper than 64 levels" baseline update --results @H@/deep-object.json)
bad_input(ceilings_deep 2 "--ceilings" run --suite @H@/valid-suite.json --ceilings @H@/deep-array.json --no-report --out @H@/out-ceilings)
