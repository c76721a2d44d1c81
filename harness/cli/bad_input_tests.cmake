# The bad-input table: each row is one hostile input, the exit code
# it must get and a piece of the message it must print on stderr. The inputs
# are written by harness/cli/hostile_inputs.py (fixture hostile_inputs).
# Included from harness/CMakeLists.txt inside if(AMPBENCH_BUILD_TESTS).

set(hostile_dir ${CMAKE_BINARY_DIR}/test-results/hostile)
add_test(NAME bad_input.write_inputs
         COMMAND ${AMPBENCH_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/cli/hostile_inputs.py ${hostile_dir})
set_tests_properties(bad_input.write_inputs PROPERTIES FIXTURES_SETUP hostile_inputs LABELS unit)

# bad_input(NAME CODE SAYS ARGS...): `ampbench ARGS` exits CODE saying SAYS.
# @H@ in ARGS stands for the folder of hostile inputs.
function(bad_input name code says)
  string(REPLACE "@H@" "${hostile_dir}" args "${ARGN}")
  add_test(NAME bad_input.${name}
           COMMAND ${PROJECT_SOURCE_DIR}/ci/expect-exit.sh ${code} --says "${says}" $<TARGET_FILE:ampbench> ${args})
  set_tests_properties(bad_input.${name} PROPERTIES FIXTURES_REQUIRED hostile_inputs TIMEOUT 60 LABELS unit)
endfunction()

# bad_input_untouched(NAME DIR CODE SAYS ARGS...): as bad_input, and the
# folder DIR (of the hostile inputs) is left exactly as it was: the same
# entries, bytes and times (harness/cli/untouched.sh).
function(bad_input_untouched name dir code says)
  string(REPLACE "@H@" "${hostile_dir}" args "${ARGN}")
  add_test(NAME bad_input.${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/untouched.sh ${hostile_dir}/${dir}
                   ${PROJECT_SOURCE_DIR}/ci/expect-exit.sh ${code} --says "${says}" $<TARGET_FILE:ampbench> ${args})
  set_tests_properties(bad_input.${name} PROPERTIES FIXTURES_REQUIRED hostile_inputs TIMEOUT 60 LABELS unit)
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

# Numbers out of range: no wrap, no unbounded run, no impossible allocation.
bad_input(steps_wraps 2 "defaults.steps: 4294967308 is out of range (at most 2147483647)" list --suite @H@/suite-steps-wraps.json)
bad_input(steps_1e12 2 "defaults.steps: 1000000000000 is out of range" list --suite @H@/suite-steps-1e12.json)
bad_input(steps_huge 2 "defaults.steps: must be in [1, 100000], got 1000000000" list --suite @H@/suite-steps-huge.json)
bad_input(seed_negative 2 "defaults.seed: -1 is out of range (at least 0)" list --suite @H@/suite-seed-negative.json)
bad_input(warmup_wraps 2 "throughput.warmup_steps: 4294967297 is out of range" list --suite @H@/suite-warmup-wraps.json)
bad_input(hidden_huge 2 "models.mlp.hidden: must be in [1, 1048576], got 2147483647" list --suite @H@/suite-hidden-huge.json)
bad_input(hidden_cannot_fit 2 "cannot fit: needs about" list --suite @H@/suite-hidden-max-cannot-fit.json)
bad_input(batch_huge 2 "models.mlp.batch: must be in [1, 1048576]" list --suite @H@/suite-batch-huge.json)
bad_input(max_norm_huge 2 "defaults.max_norm: must be in [0, 1000000], got 1e+308" list --suite @H@/suite-max-norm-huge.json)
bad_input(lr_negative 2 "defaults.lr: must be positive, got -0.1" list --suite @H@/suite-lr-negative.json)
bad_input(tolerance_huge 2 "tolerances.fp16.loss_rel_units: must be in (0, 1e6]" list --suite @H@/suite-tolerance-huge.json)
bad_input(noise_factor_negative 2 "tolerances.noise_factor: must be in [0, 1e6]" list --suite @H@/suite-noise-factor-negative.json)
bad_input(extra_skips_negative 2 "max_extra_skipped_steps: must be >= 0" list --suite @H@/suite-extra-skips-negative.json)
bad_input(min_effect_nan 2 "not valid JSON" list --suite @H@/suite-min-effect-nan.json)
bad_input(name_escapes 2 "name: '../../escape' is not a plain name" run --suite @H@/suite-name-escapes.json --no-report)

# --filter: RE2 (linear time, no recursion) and a length limit.
bad_input(filter_pathological 2 "matches no case of suite" run --suite @H@/valid-suite.json --filter "^(.*)*(.*)*(.*)*(.*)*(.*)*$x" --no-report)
bad_input(filter_invalid 2 "is not a valid regular expression: missing ]" run --suite @H@/valid-suite.json --filter "([")
bad_input(filter_unknown_field 2 "unknown field 'colour'" run --suite @H@/valid-suite.json --filter colour=red)

# Flags: NaN, infinities and out-of-range values named, not silently used.
bad_input(gate_alpha_nan 2 "--alpha: 'nan' is not a finite number" gate --current @H@/valid-suite.json --alpha nan)
bad_input(gate_min_effect_inf 2 "--min-effect: 'inf' is not a finite number" gate --current @H@/valid-suite.json --min-effect inf)
bad_input(gate_min_effect_negative 2 "--min-effect: '-1' is not in [0, 1]" gate --current @H@/valid-suite.json --min-effect -1)
bad_input(run_inject_slowdown_nan 2 "--inject-slowdown: 'nan' is not a finite number" run --inject-slowdown nan)
# (CMake drops an empty argument, so this row goes through a shell.)
add_test(NAME bad_input.qualify_empty_suites
         COMMAND ${PROJECT_SOURCE_DIR}/ci/expect-exit.sh 2 --says "--suites: empty suite name"
                 bash -c "exec '$<TARGET_FILE:ampbench>' qualify --suites ''")
set_tests_properties(bad_input.qualify_empty_suites PROPERTIES LABELS unit)
bad_input(nproc_beyond_machine 2 "exceed what this machine holds" run --suite @H@/valid-suite.json --nproc 1000 --out @H@/out-nproc)

# Output paths: checked before the run, device nodes never replaced.
bad_input(junit_device 2 "--junit /dev/null: exists and is not a regular file" run --suite @H@/valid-suite.json --junit /dev/null --no-report --out @H@/out-junit)
bad_input(dump_device 2 "--dump /dev/null: exists and is not a directory" run --suite @H@/valid-suite.json --dump /dev/null --no-report --out @H@/out-dump)
bad_input(out_is_a_file 2 "exists and is not a directory" run --suite @H@/valid-suite.json --out @H@/valid-suite.json)
bad_input(out_not_empty 2 "is not empty (a previous run?)" run --suite @H@/valid-suite.json --out @H@)
bad_input(gate_markdown_device 2 "exists and is not a regular file" gate --current @H@/results-a.json --baseline @H@/results-a.json --markdown /dev/null)

# Never overwrite what ampbench did not write, nor an input, nor another output.
bad_input_untouched(overwrite_user_folder user-folder 2 "holds files ampbench did not write" run --suite @H@/valid-suite.json --out @H@/user-folder --overwrite --no-report)
# --dump follows --out's rule: a folder of the user's is refused, with or without --overwrite.
bad_input_untouched(dump_user_folder user-dump-folder 2 "--dump ${hostile_dir}/user-dump-folder: is not empty" run --suite @H@/valid-suite.json --out @H@/out-dump-user --dump @H@/user-dump-folder --no-report)
bad_input_untouched(dump_user_folder_overwrite user-dump-folder-overwrite 2 "--dump ${hostile_dir}/user-dump-folder-overwrite: holds files ampbench did not write" run --suite @H@/valid-suite.json --out @H@/out-dump-user-overwrite --dump @H@/user-dump-folder-overwrite --overwrite --no-report)
bad_input(junit_is_the_results 2 "is the same file as --junit" run --suite @H@/valid-suite.json --out @H@/out-same --junit @H@/out-same/results.json --no-report)
bad_input(junit_is_the_suite 2 "is the same file as --suite" run --suite @H@/junit-target-suite.json --junit @H@/junit-target-suite.json --out @H@/out-junit-suite --no-report)
bad_input(dump_inside_out 2 "which --out writes" run --suite @H@/valid-suite.json --out @H@/out-dump-inside --dump @H@/out-dump-inside/dump --no-report)
bad_input(gate_markdown_is_current 2 "is the same file as --current" gate --current @H@/results-markdown-target.json --baseline @H@/results-a.json --markdown @H@/results-markdown-target.json)

# Integers parsed whole: no wrap, no octal.
bad_input(seed_minus_one 2 "--seed" run --suite @H@/valid-suite.json --seed=-1)
bad_input(seed_2_to_64 2 "'18446744073709551616' is not in [0, 18446744073709551615]" run --suite @H@/valid-suite.json --seed 18446744073709551616)
bad_input(nproc_hex 2 "'0x2' is not a non-negative decimal integer" run --suite @H@/valid-suite.json --nproc 0x2)

# Case ids: printable, short enough for a file name and for the ranks' filter.
bad_input(tag_nul 2 "tag: character 1 (0x00) is not allowed" list --suite @H@/suite-tag-nul.json)
bad_input(tag_long 2 "is 300 characters long (at most 64)" list --suite @H@/suite-tag-long.json)
bad_input(ddp_rank_filter 2 "character rank filter" run --suite @H@/suite-many-ddp.json --out @H@/out-many-ddp --no-report)

# qualify reads every suite before it measures anything.
bad_input(qualify_unknown_suite 2 "unknown suite 'nosuch'" qualify --suites smoke,nosuch --out @H@/out-qualify-nosuch)
bad_input(qualify_comma_then_out 2 "--suites: empty suite name" qualify --suites , --out @H@/out-qualify-comma)

# Gate inputs that cannot be compared as given.
bad_input(gate_complete_string 2 "\"complete\" must be true or false, got \"false\"" gate --baseline @H@/results-a.json --current @H@/results-complete-string.json)
bad_input(gate_complete_missing 2 "missing required key \"complete\"" gate --baseline @H@/results-a.json --current @H@/results-no-complete.json)
bad_input(gate_incomplete_baseline 2 "the baseline run did not finish" gate --baseline @H@/results-incomplete.json --current @H@/results-a.json)
bad_input(gate_no_samples 2 "holds no throughput samples" gate --baseline @H@/results-a.json --current @H@/results-no-samples.json)
bad_input(gate_other_suite 2 "is not the baseline's" gate --baseline @H@/results-a.json --current @H@/results-other-suite.json)
bad_input(gate_incomplete 2 "the run did not finish (complete=false)" gate --baseline @H@/results-a.json --current @H@/results-incomplete.json)
bad_input(world_size_beyond_machine 2 "1000 ranks (a case's world_size) exceed what this machine holds" run --suite @H@/suite-world-size-huge.json --out @H@/out-world-size --no-report)

# ampbench autocast-ops: an unknown device or an unusable --expected table is
# refused before anything runs.
bad_input(autocast_ops_unknown_device 2 "--device: tpu not in" autocast-ops --device tpu)
bad_input(autocast_ops_expected_device 2 "--expected /dev/zero: not a regular file" autocast-ops --device cpu --expected /dev/zero --out @H@/out-autocast)
bad_input(autocast_ops_expected_missing 2 "no-such-table.json" autocast-ops --device cpu --expected @H@/no-such-table.json --out @H@/out-autocast)
bad_input(autocast_ops_expected_not_json 2 "not-json.json: not valid JSON" autocast-ops --device cpu --expected @H@/not-json.json --out @H@/out-autocast)
bad_input(autocast_ops_expected_deep 2 "nested deeper than 64 levels" autocast-ops --device cpu --expected @H@/deep-object.json --out @H@/out-autocast)
bad_input(autocast_ops_expected_not_a_table 2 "not an autocast policy table" autocast-ops --device cpu --expected @H@/valid-suite.json --out @H@/out-autocast)

# Models given by file: refused when the suite is read, naming the file and why.
bad_input(model_not_torchscript 2 "model-not-torchscript.pt: not a TorchScript file" run --suite @H@/suite-model-not-torchscript.json --no-report --out @H@/out-model)
bad_input(model_missing 2 "no-such-model.pt: no such file" list --suite @H@/suite-model-missing.json)
bad_input(model_wrong_input 2 "forward fails on a batch of 2 of the described inputs" list --suite @H@/suite-model-wrong-input.json)

# A dump ampbench wrote: refused again without --overwrite (as --out), reused
# with it.
add_test(NAME cli.dump_rerun_follows_the_out_rule
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/dump_rerun_test.sh $<TARGET_FILE:ampbench> ${hostile_dir})
set_tests_properties(cli.dump_rerun_follows_the_out_rule PROPERTIES FIXTURES_REQUIRED hostile_inputs TIMEOUT 120 LABELS unit)

# Replacing a baseline moves the old one aside and removes it: twice in a row
# must work (the removal once crashed the libtorch-linked binary).
add_test(NAME cli.baseline_update_replaces_a_baseline
         COMMAND bash -c "rm -rf '${hostile_dir}/baselines' && mkdir -p '${hostile_dir}/baselines' && cd '${hostile_dir}/baselines' && for i in 1 2; do '$<TARGET_FILE:ampbench>' baseline update --results '${hostile_dir}/results-a.json' || exit 1; done && test -z \"$(find . -name '.*old-*')\"")
set_tests_properties(cli.baseline_update_replaces_a_baseline PROPERTIES FIXTURES_REQUIRED hostile_inputs TIMEOUT 60 LABELS unit)
