# `verify`: JSON against verify.schema.json, SARIF against the SARIF subset,
# JUnit against junit.xsd; on real recordings (tests/data/verify).
# Included from tests/CMakeLists.txt (gpuadvisor_schema_test, VALIDATE, SCHEMAS).
gpuadvisor_schema_test(verify_hgx_json verify.schema.json 1
  verify examples/8xh100-hgx.json --from tests/data/verify/v100s-8gpu --format json)
gpuadvisor_schema_test(verify_host_log_json verify.schema.json 1
  verify tests/data/verify/specs/v100-server.json --from tests/data/verify/v100-host-derived
  --log tests/data/verify/logs/straggler.csv --format json)
gpuadvisor_schema_test(verify_pass_json verify.schema.json 0
  verify tests/data/verify/specs/v100-server.json --from tests/data/verify/v100-1gpu --format json)
gpuadvisor_schema_test(verify_hgx_sarif sarif-2.1.0-subset.schema.json 1
  verify examples/8xh100-hgx.json --from tests/data/verify/v100s-8gpu --format sarif)
if(GPUADVISOR_XMLLINT)
  gpuadvisor_junit_test(verify_hgx 1 verify examples/8xh100-hgx.json --from tests/data/verify/v100s-8gpu)
  gpuadvisor_junit_test(verify_pass 0 verify tests/data/verify/specs/v100-server.json
    --from tests/data/verify/v100-1gpu)
endif()
add_test(NAME schema.spec.verify_v100_server
  COMMAND ${VALIDATE} --schema ${SCHEMAS}/spec.schema.json
          --file ${PROJECT_SOURCE_DIR}/tests/data/verify/specs/v100-server.json)
gpuadvisor_schema_test(verify_amd_json verify.schema.json 1
  verify tests/data/verify/specs/mi300x-server.json --from tests/data/verify/mi210-1gpu --format json)
add_test(NAME schema.spec.verify_mi300x_server
  COMMAND ${VALIDATE} --schema ${SCHEMAS}/spec.schema.json
          --file ${PROJECT_SOURCE_DIR}/tests/data/verify/specs/mi300x-server.json)
