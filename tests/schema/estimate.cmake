# `estimate --format json` validated against data/schema/estimate.schema.json.
gpuadvisor_schema_test(estimate_lora_4090 estimate.schema.json 0
  estimate --model llama-3-8b --task lora --gpu rtx-4090 --format json)
gpuadvisor_schema_test(estimate_table estimate.schema.json 0
  estimate --model llama-3-8b --task lora --format json)
gpuadvisor_schema_test(estimate_pretrain_zero3 estimate.schema.json 0
  estimate --model-size 7B --gpus 8 --sharding zero3 --gpu a100-80gb-sxm --format json)
gpuadvisor_schema_test(estimate_inference_gqa estimate.schema.json 0
  estimate --model llama-2-70b --task inference --seq-len 4096 --batch-size 8 --gpu h100-sxm
  --format json)
gpuadvisor_schema_test(estimate_qlora_does_not_fit estimate.schema.json 1
  estimate --model-size 1T --task qlora --gpu rtx-4070 --format json)
gpuadvisor_schema_test(estimate_cnn estimate.schema.json 0
  estimate --model resnet-50 --batch-size 256 --gpu a100-80gb-sxm --format json)
gpuadvisor_schema_test(estimate_fp32_shape estimate.schema.json 0
  estimate --layers 12 --hidden 768 --vocab 50257 --precision fp32 --optimizer sgd --format json)
gpuadvisor_schema_test(estimate_torchtune_full_4090 estimate.schema.json 0
  estimate --model llama-3.1-8b --task finetune --framework torchtune --batch-size 2 --seq-len 2048
  --gpu rtx-4090 --format json)
gpuadvisor_schema_test(estimate_framework_overrides estimate.schema.json 0
  estimate --model llama-3-8b --task lora --framework litgpt --loss fused --lora-targets q,k,v,o
  --lora-dtype fp32 --grad-checkpointing selective --activation-offload on --goodput 0.8
  --gpus 4 --sharding zero3 --gpu rtx-4090 --format json)
gpuadvisor_schema_test(estimate_model_config_moe estimate.schema.json 0
  estimate --model-config tests/data/model-configs/mixtral-8x7b-v0.1/config.json
  --framework torchtune --task lora --gpu h100-sxm --format json)
gpuadvisor_schema_test(estimate_model_config_window estimate.schema.json 0
  estimate --model-config tests/data/model-configs/gemma-2-9b/config.json --task inference
  --seq-len 8192 --gpu h100-sxm --format json)
gpuadvisor_schema_test(estimate_serving_trtllm estimate.schema.json 0
  estimate --model llama-2-70b --task inference --engine trtllm --gpus 4 --gpu h100-sxm
  --precision fp8 --kv-cache-precision fp8 --concurrency 480 --prompt-len 128 --output-len 2048
  --format json)
gpuadvisor_schema_test(estimate_serving_awq_table estimate.schema.json 0
  estimate --model llama-3.1-8b --task inference --precision int4 --quant awq --concurrency 32
  --format json)
gpuadvisor_schema_test(estimate_deepseek_v3_serving estimate.schema.json 0
  estimate --model deepseek-v3 --task inference --precision fp8 --gpus 8 --gpu h200-sxm
  --seq-len 4096 --concurrency 16 --format json)
gpuadvisor_schema_test(estimate_deepseek_v3_expert_parallel estimate.schema.json 0
  estimate --model deepseek-v3 --task inference --precision fp8 --gpus 8 --gpu h200-sxm
  --engine trtllm --ep 8 --attention-dp 8 --concurrency 1024 --prompt-len 1024 --output-len 2048
  --format json)
gpuadvisor_schema_test(estimate_model_config_mla estimate.schema.json 0
  estimate --model-config tests/data/model-configs/deepseek-v2-lite/config.json --task lora
  --gpu h100-sxm --format json)
gpuadvisor_schema_test(estimate_layout_gpt3 estimate.schema.json 0
  estimate --model-size 175B --layers 96 --hidden 12288 --heads 96 --gpu a100-80gb-sxm --gpus 64
  --tp 8 --pp 8 --sequence-parallel on --global-batch 64 --format json)
gpuadvisor_schema_test(estimate_moe_layout estimate.schema.json 0
  estimate --model mixtral-8x7b --gpu h100-sxm --gpus 32 --tp 2 --pp 4 --sequence-parallel on
  --sharding zero1 --format json)
gpuadvisor_schema_test(estimate_disaggregated estimate.schema.json 0
  estimate --model llama-3.1-70b --task inference --gpu h100-sxm --gpus 4 --concurrency 64
  --disaggregate 2:2 --prefill-gpus 2 --format json)
gpuadvisor_schema_test(estimate_disaggregated_rate estimate.schema.json 0
  estimate --model llama-3.1-8b --task inference --gpu h100-sxm --request-rate 20
  --disaggregate 1:1 --format json)
