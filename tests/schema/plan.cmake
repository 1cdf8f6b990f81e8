# `plan --format json` validated against data/schema/plan.schema.json.
gpuadvisor_schema_test(plan_llama_405b plan.schema.json 0
  plan --model llama-3.1-405b --tokens 15T --gpu h100-sxm --gpus 16384 --format json)
gpuadvisor_schema_test(plan_cost_range plan.schema.json 0
  plan --model-size 70B --tokens 2T --gpu h100-sxm,mi300x,a100-80gb-sxm --nodes 4-16 --objective cost
  --format json)
gpuadvisor_schema_test(plan_deadline_none plan.schema.json 1
  plan --model-size 70B --tokens 2T --gpu h100-sxm --gpus 8 --deadline 1d --format json)
gpuadvisor_schema_test(plan_pinned_zero3 plan.schema.json 0
  plan --model llama-3.1-8b --gpu a100-80gb-sxm --gpus 16 --sharding zero3 --recompute full --top 0
  --format json)
gpuadvisor_schema_test(plan_mixtral_experts plan.schema.json 0
  plan --model mixtral-8x7b --seq-len 4096 --gpu h100-sxm --nodes 2-8 --top 0 --format json)
