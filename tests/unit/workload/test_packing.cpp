// Packed training sequences (--packed-doc-len): attention work follows the
// documents, not the pack (docs/estimation.md section 4.1).
#include "helpers.hpp"

using namespace gpuadvisor;
using namespace gpuadvisor::workload;
using gpuadvisor::test::gpu;
using gpuadvisor::test::make;
using gpuadvisor::test::reject;

namespace {

WorkloadInput nemo_lora(std::int64_t seq) {
  WorkloadInput in;
  in.model = "llama-2-7b";
  in.task = Task::lora;
  in.framework = Framework::nemo;
  in.seq_len = seq;
  in.gpu = "h100-sxm";
  in.gpus = 8;
  return in;
}

double flops_per_token(const WorkloadInput& in) {
  return compute(make(in), gpu("h100-sxm"), 8).flops_per_token;
}

}  // namespace

TEST_CASE("packed documents: attention FLOPs of the document, not of the pack", "[workload]") {
  auto packed = nemo_lora(4096);
  packed.packed_doc_len = 250;
  const auto w = make(packed);
  CHECK(w.packed_doc_len == 250);
  // The dense work is per token either way; attention is that of 250-token
  // sequences exactly.
  CHECK(flops_per_token(packed) == Approx(flops_per_token(nemo_lora(250))).epsilon(1e-12));
  CHECK(flops_per_token(packed) < flops_per_token(nemo_lora(4096)));
  // Memory is per pack: the same as unpacked 4096-token sequences.
  CHECK(memory_per_gpu(w, gpu("h100-sxm"), 8).peak_allocated ==
        memory_per_gpu(make(nemo_lora(4096)), gpu("h100-sxm"), 8).peak_allocated);
}

TEST_CASE("packed documents with eager attention change nothing, and say so", "[workload]") {
  WorkloadInput in;
  in.model = "gpt2";  // eager attention (no flash_attention in the preset)
  in.task = Task::finetune;
  in.seq_len = 1024;
  in.packed_doc_len = 100;
  const auto w = make(in);
  CHECK(w.packed_doc_len == 0);
  bool said = false;
  for (const auto& a : w.assumptions)
    said |= a.starts_with("packed documents of 100 tokens: eager");
  CHECK(said);
}

TEST_CASE("packed-doc-len: a length within the sequence, for training", "[workload]") {
  auto in = nemo_lora(4096);
  in.packed_doc_len = 5000;
  CHECK(reject(in) ==
        "--packed-doc-len: expected a document length from 1 to the sequence length (4096), got "
        "5000\n");
  in.packed_doc_len = 0;
  CHECK(reject(in) ==
        "--packed-doc-len: expected a document length from 1 to the sequence length (4096), got "
        "0\n");
  in.packed_doc_len = 250;
  in.task = Task::inference;
  in.framework.reset();
  in.seq_len.reset();
  CHECK(reject(in) == "--packed-doc-len: packing applies to training a transformer\n");
}
