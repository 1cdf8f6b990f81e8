# `recommend`: JSON output against data/schema/recommend.schema.json (whose
# builds[].spec refers to spec.schema.json), for builds found (exit 0) and for
# nothing fits (exit 1, with the nearest build and the alternatives).
# Included from tests/CMakeLists.txt (gpuadvisor_schema_test, VALIDATE, SCHEMAS).

gpuadvisor_schema_test(recommend_readme recommend.schema.json 0
  recommend --budget 20000 --model-size 7B --format json)
gpuadvisor_schema_test(recommend_cost_qlora recommend.schema.json 0
  recommend --budget 8k --model llama-3-8b --task qlora --objective cost --top 5 --format json)
gpuadvisor_schema_test(recommend_rack_pretrain recommend.schema.json 0
  recommend --budget 400k --model-size 13B --task pretrain --form-factor rack
  --objective perf-per-dollar --circuit 20000 --voltage 230 --allow-used --format json)
gpuadvisor_schema_test(recommend_over_budget recommend.schema.json 1
  recommend --budget 20000 --model-size 7B --task pretrain --format json)
gpuadvisor_schema_test(recommend_no_build recommend.schema.json 1
  recommend --budget 50000 --model-size 1T --task finetune --format json)
gpuadvisor_schema_test(recommend_region_eu_cloud recommend.schema.json 0
  recommend --region eu --budget 20000 --model-size 7B --task qlora --format json)
gpuadvisor_schema_test(recommend_serving_target serving-plan.schema.json 0
  recommend --task inference --model llama-3.1-70b --users 50 --tokens-per-second-per-user 20
  --format json)
gpuadvisor_schema_test(recommend_serving_target_missing serving-plan.schema.json 1
  recommend --task inference --model llama-3.1-405b --users 10 --tokens-per-second-per-user 500
  --format json)
gpuadvisor_schema_test(recommend_serving_target_budget serving-plan.schema.json 1
  recommend --task inference --model llama-3.1-70b --users 50 --tokens-per-second-per-user 20
  --budget 20k --format json)
gpuadvisor_schema_test(recommend_serving_target_amd_eu serving-plan.schema.json 0
  recommend --task inference --model llama-3.1-8b --throughput 20000 --max-ttft 500ms
  --vendor amd --region eu --format json)
gpuadvisor_schema_test(recommend_serving_target_moe_layouts serving-plan.schema.json 0
  recommend --task inference --model deepseek-v3 --users 200 --tokens-per-second-per-user 20
  --format json)
gpuadvisor_schema_test(recommend_cluster recommend.schema.json 0
  recommend --budget 1M --model-size 70B --task pretrain --format json)
gpuadvisor_schema_test(recommend_cluster_nodes_ethernet recommend.schema.json 0
  recommend --budget 2M --model-size 70B --task pretrain --nodes 4 --fabric ethernet
  --rack-power 17 --format json)
