# `check` and `rules`: every output format validated by its consumer's
# validator, and every input file (specs, rules) by its JSON Schema.
# Included from tests/CMakeLists.txt (gpuadvisor_schema_test, VALIDATE, SCHEMAS).

file(GLOB GPUADVISOR_EXAMPLE_SPECS RELATIVE ${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS
     ${PROJECT_SOURCE_DIR}/examples/*.json)
list(SORT GPUADVISOR_EXAMPLE_SPECS)

# Inputs: the example specs against the spec schema, data/rules.json and the
# test rules files against the rules schema.
foreach(spec ${GPUADVISOR_EXAMPLE_SPECS})
  get_filename_component(stem ${spec} NAME_WE)
  add_test(NAME schema.spec.${stem}
    COMMAND ${VALIDATE} --schema ${SCHEMAS}/spec.schema.json --file ${PROJECT_SOURCE_DIR}/${spec})
endforeach()
add_test(NAME schema.spec.warning_only
  COMMAND ${VALIDATE} --schema ${SCHEMAS}/spec.schema.json
          --file ${PROJECT_SOURCE_DIR}/tests/data/specs/warning-only.json)
add_test(NAME schema.rules_file.embedded
  COMMAND ${VALIDATE} --schema ${SCHEMAS}/rules.schema.json --file ${PROJECT_SOURCE_DIR}/data/rules.json)
add_test(NAME schema.rules_file.overlay
  COMMAND ${VALIDATE} --schema ${SCHEMAS}/rules.schema.json
          --file ${PROJECT_SOURCE_DIR}/tests/data/specs/rules-ram-128.json)

# Outputs: JSON against check.schema.json, SARIF against the SARIF 2.1.0 subset.
gpuadvisor_schema_test(check_examples_json check.schema.json 1
  check ${GPUADVISOR_EXAMPLE_SPECS} --format json)
gpuadvisor_schema_test(check_good_json check.schema.json 0
  check examples/4090-workstation.json examples/4x4090-230v.json examples/8xh100-hgx.json
  --format json)
gpuadvisor_schema_test(check_strict_json check.schema.json 1
  check tests/data/specs/warning-only.json --strict --format json)
gpuadvisor_schema_test(check_unusable_json check.schema.json 2
  check examples/broken-memory.json tests/data/specs/bad-parts.json tests/data/specs/bad-empty.json
  --format json)
gpuadvisor_schema_test(check_examples_sarif sarif-2.1.0-subset.schema.json 1
  check ${GPUADVISOR_EXAMPLE_SPECS} --format sarif)
gpuadvisor_schema_test(check_unusable_sarif sarif-2.1.0-subset.schema.json 2
  check examples/broken-memory.json tests/data/specs/bad-waivers.json --format sarif)
gpuadvisor_schema_test(rules_json rules-output.schema.json 0 rules --format json)
gpuadvisor_schema_test(rules_json_conservative rules-output.schema.json 0
  rules --format json --policy conservative --rules tests/data/specs/rules-ram-128.json)

# JUnit: xmllint against data/schema/junit.xsd (libxml2-utils, installed by
# scripts/install-deps.sh --test). The exit code of `check` is asserted too.
find_program(GPUADVISOR_XMLLINT xmllint)
if(GPUADVISOR_XMLLINT)
  function(gpuadvisor_junit_test name exit_code)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/junit-${name}.xml)
    add_test(NAME schema.junit.${name}
      COMMAND sh -c "\"$0\" \"$@\" --format junit > \"${out}\"; rc=$?; \
[ $rc -eq ${exit_code} ] || { echo \"exit code $rc, expected ${exit_code}\"; exit 1; }; \
\"${GPUADVISOR_XMLLINT}\" --noout --schema \"${SCHEMAS}/junit.xsd\" \"${out}\""
              $<TARGET_FILE:gpuadvisor> ${ARGN}
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  endfunction()
  gpuadvisor_junit_test(examples 1 check ${GPUADVISOR_EXAMPLE_SPECS})
  gpuadvisor_junit_test(good 0 check examples/4090-workstation.json examples/8xh100-hgx.json)
  gpuadvisor_junit_test(strict 1 check tests/data/specs/warning-only.json --strict)
  gpuadvisor_junit_test(unusable 2
    check examples/broken-power.json tests/data/specs/bad-malformed.json tests/data/specs/bad-empty.json)
else()
  message(WARNING "xmllint not found: JUnit output is not validated (install libxml2-utils)")
endif()
