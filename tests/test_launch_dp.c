/*
 * The launchers of the data-parallel fine-tuning stacks (core/launch_dp.c):
 * accelerate, the Hugging Face Trainer, axolotl and torchtune get the
 * size, batch, sharding and recomputation of plans the engine computed.
 * Their own parsers read these lines back in test_launch_parsers (where
 * ../shared has their sources); axolotl's is not there, so its names are
 * checked against its option table (tests/data/axolotl-args.txt).
 */
#include "testutil.h"
#include "autosize.h"

#define AXOLOTL TEST_DATA "/axolotl-args.txt"

static autosize_policy *pol;

static int setup(void **state)
{
	autosize_error e;

	pol = autosize_policy_default(&e);
	return pol ? 0 : -1;
}

static int teardown(void **state)
{
	autosize_policy_destroy(pol);
	return 0;
}

/* Plan opts (name, value pairs, NULL-terminated) on GPUs of gpu. */
static void plan(const char *const *opts, autosize_request *r,
		 autosize_plan *p)
{
	autosize_error e;
	int i;

	autosize_request_init(r);
	for (i = 0; opts[i]; i += 2)
		if (autosize_request_set(r, opts[i], opts[i + 1], &e) != 0)
			fail_msg("%s=%s: %s", opts[i], opts[i + 1], e.msg);
	assert_int_equal(autosize_request_finish(r, &e), 0);
	assert_int_equal(autosize_plan_compute(pol, r, p, &e), AUTOSIZE_OK);
}

/* The value of "key=N" in overrides, or -1. */
static int key_value(const char *args, const char *key)
{
	char want[64];
	const char *at;

	snprintf(want, sizeof(want), "%s=", key);
	at = strstr(args, want);
	return at ? atoi(at + strlen(want)) : -1;
}

/* LoRA on one 8-GPU node under the hf stack: every stack's line has the
 * plan's batch (micro-batch x accumulation x DP = the global batch), the
 * GPUs, and only names the tools parse. */
static void test_hf_lora_node(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "train-seq-len", "2048",
		"train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_int_equal(p.tp * p.pp, 1);
	assert_int_equal(p.dp, 8);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_names_in(l.axolotl, AXOLOTL, "axolotl");
	assert_int_equal(arg_value(l.accelerate, "--num_processes"), 8);
	assert_int_equal(arg_value(l.accelerate, "--num_machines"), 1);
	/* one node: no machine rank or address to name */
	assert_null(strstr(l.accelerate, "--machine_rank"));
	assert_non_null(strstr(l.accelerate, "--main_process_port PORT"));
	assert_int_equal(arg_value(l.hf_trainer,
				   "--per_device_train_batch_size") *
			 arg_value(l.hf_trainer,
				   "--gradient_accumulation_steps") * p.dp,
			 p.global_batch);
	assert_int_equal(key_value(l.torchtune, "batch_size"), p.micro_batch);
	assert_int_equal(key_value(l.torchtune,
				   "gradient_accumulation_steps"),
			 p.grad_accum);
	assert_int_equal(key_value(l.torchtune, "tokenizer.max_seq_len"),
			 2048);
	/* the sharding the plan priced */
	if (p.zero_stage >= 3)
		assert_non_null(strstr(l.accelerate, "--use_fsdp "
				       "--fsdp_sharding_strategy FULL_SHARD"));
	else if (p.zero_stage == 2)
		assert_non_null(strstr(l.accelerate,
				       "--fsdp_sharding_strategy "
				       "SHARD_GRAD_OP"));
	else
		assert_non_null(strstr(l.accelerate, "--multi_gpu"));
	/* LoRA: torchtitan's current release only (its LoRAConverter) */
	assert_non_null(strstr(l.torchtitan, "--parallelism.data_parallel_"));
	assert_string_equal(l.torchtitan_v1, "");
}

/* Sharding and recomputation map one way each; recomputation is FSDP's
 * wrapper or the model's checkpointing, never both. */
static void test_sharding_and_recompute(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "train-tokens", "1e9", NULL};
	static const struct {
		int zero, recompute;
		const char *acc, *hf;
	} cases[] = {
		{3, AUTOSIZE_RECOMPUTE_FULL, "FULL_SHARD --fsdp_auto_wrap_"
		 "policy TRANSFORMER_BASED_WRAP --fsdp_use_orig_params true "
		 "--fsdp_activation_checkpointing true",
		 "--gradient_checkpointing False"},
		{2, AUTOSIZE_RECOMPUTE_NONE, "SHARD_GRAD_OP", "--gradient_"
		 "checkpointing False"},
		{0, AUTOSIZE_RECOMPUTE_FULL, "--multi_gpu", "--gradient_"
		 "checkpointing True"},
	};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	size_t i;

	plan(opts, &r, &p);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		p.zero_stage = cases[i].zero;
		p.recompute = (autosize_recompute)cases[i].recompute;
		assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
		assert_non_null(strstr(l.accelerate, cases[i].acc));
		assert_non_null(strstr(l.hf_trainer, cases[i].hf));
	}
	/* one GPU: no engine, the model checkpoints itself */
	p.nodes = p.gpus_per_node = p.gpus = p.dp = 1;
	p.zero_stage = 0;
	p.recompute = AUTOSIZE_RECOMPUTE_FULL;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_null(strstr(l.accelerate, "fsdp"));
	assert_null(strstr(l.accelerate, "--multi_gpu"));
	assert_non_null(strstr(l.hf_trainer, "--gradient_checkpointing "
			       "True"));
	assert_non_null(strstr(l.torchtune, "enable_activation_"
			       "checkpointing=True"));
}

/* Several nodes, running: the node's own rank, the step's first node
 * and port; not yet running: the words the job fills in. DeepSpeed:
 * the plan's JSON and an agent per node. */
static void test_nodes_and_deepspeed(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-8b", "train-stack", "hf", "gpu", "h100",
		"gpus", "16", "train-framework", "deepspeed", "train-tokens",
		"1e9", NULL};
	autosize_launch_where w = {"gpu07", 29612, "1234-0", 1,
				   "/tmp/job/deepspeed-0.json",
				   "/tmp/job/accelerate-0.yaml"};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_int_equal(p.nodes, 2);
	assert_int_equal(p.tp * p.pp, 1);
	assert_int_equal(autosize_launch_build(&r, &p, &w, &l), 0);
	assert_non_null(strstr(l.accelerate, "--num_machines 2 "
			       "--num_processes 16 --machine_rank 1 "
			       "--main_process_ip gpu07 --rdzv_backend c10d "
			       "--main_process_port 29612"));
	assert_non_null(strstr(l.accelerate, "--use_deepspeed "
			       "--deepspeed_config_file "
			       "/tmp/job/deepspeed-0.json "
			       "--deepspeed_multinode_launcher standard"));
	assert_non_null(strstr(l.axolotl, "--deepspeed "
			       "/tmp/job/deepspeed-0.json"));
	assert_names_in(l.axolotl, AXOLOTL, "axolotl");
	/* the Trainer checks its batch against the DeepSpeed JSON's */
	assert_non_null(strstr(l.deepspeed, "\"train_micro_batch_size_per_"
			       "gpu\": "));
	assert_int_equal(arg_value(l.hf_trainer,
				   "--per_device_train_batch_size"),
			 p.micro_batch);
	/* torchtune runs FSDP only */
	assert_string_equal(l.torchtune, "");
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--machine_rank MACHINE_RANK "
			       "--main_process_ip FIRST_NODE"));
	assert_non_null(strstr(l.accelerate, "--deepspeed_config_file "
			       "DEEPSPEED_CONFIG"));
	/* a rank below 0 is no rank */
	w.node_rank = -1;
	assert_int_equal(autosize_launch_build(&r, &p, &w, &l), -1);
}

/* --cp under DeepSpeed is Ulysses: the DeepSpeed JSON names the
 * sequence-parallel size, so its batch check counts the data-parallel
 * ranks as the world over it (micro-batch x accumulation x DP), and
 * leaves train_batch_size out (the HF Trainer would check it against
 * world x micro-batch x accumulation); accelerate takes the size from a
 * config file given first, with no engine flag, and axolotl (ring
 * attention) gets nothing. */
static void test_deepspeed_ulysses(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-8b", "gpu", "h100", "gpus", "8", "cp", "4",
		"train-framework", "deepspeed", "train-seq-len", "65536",
		"train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_int_equal(p.cp, 4);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.deepspeed, "\"sequence_parallel_size\": 4,"));
	assert_null(strstr(l.deepspeed, "train_batch_size"));
	assert_int_equal(p.micro_batch * p.grad_accum * p.dp, p.global_batch);
	assert_int_equal(p.dp * p.cp, 8);
	assert_true(strncmp(l.accelerate, "--config_file ACCELERATE_CONFIG ",
			    32) == 0);
	assert_null(strstr(l.accelerate, "--use_deepspeed"));
	assert_non_null(strstr(l.accelerate, "--deepspeed_config_file "
			       "DEEPSPEED_CONFIG"));
	assert_non_null(strstr(l.accelerate_config,
			       "distributed_type: DEEPSPEED\n"));
	assert_non_null(strstr(l.accelerate_config,
			       "  parallelism_config_sp_size: 4\n"));
	assert_non_null(strstr(l.accelerate_config,
			       "  parallelism_config_dp_shard_size: 2\n"));
	assert_int_equal(arg_value(l.hf_trainer,
				   "--per_device_train_batch_size"),
			 p.micro_batch);
	assert_string_equal(l.axolotl, "");
	assert_string_equal(l.torchtune, "");
	p.cp = 1;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_null(strstr(l.deepspeed, "sequence_parallel_size"));
	assert_non_null(strstr(l.deepspeed, "\"train_batch_size\": "));
	assert_string_equal(l.accelerate_config, "");
	assert_non_null(strstr(l.accelerate, "--use_deepspeed"));
}

/* FSDP with TP or CP (hf pins them): accelerate's ParallelismConfig
 * over FSDP2, axolotl's and torchtune's meshes, the degrees' product the
 * GPUs; a LoRA plan gets torchtitan's current line and torchtune none
 * at TP (its LoRA recipe refuses TP), CP with the LoRA recipe. */
static void test_fsdp_tp_cp(void **state)
{
	static const char *const tp[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "tp", "2", "train-tokens",
		"1e9", NULL};
	static const char *const cp[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "cp", "2", "train-seq-len",
		"32768", "train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(tp, &r, &p);
	assert_int_equal(p.tp, 2);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--use_fsdp --fsdp_version 2 "));
	assert_non_null(strstr(l.accelerate, "--use_parallelism_config"));
	assert_int_equal(arg_value(l.accelerate,
				   "--parallelism_config_tp_size"), 2);
	assert_int_equal(arg_value(l.accelerate,
				   "--parallelism_config_dp_shard_size") *
			 arg_value(l.accelerate,
				   "--parallelism_config_tp_size") *
			 arg_value(l.accelerate,
				   "--parallelism_config_cp_size"), 8);
	assert_null(strstr(l.accelerate, "--fsdp_sharding_strategy"));
	assert_names_in(l.axolotl, AXOLOTL, "axolotl");
	assert_int_equal(arg_value(l.axolotl, "--tensor-parallel-size"), 2);
	assert_int_equal(arg_value(l.axolotl, "--dp-shard-size"), p.dp);
	assert_string_equal(l.torchtune, "");
	assert_non_null(strstr(l.torchtitan, "tensor_parallel_degree 2"));
	assert_string_equal(l.torchtitan_v1, "");
	assert_non_null(strstr(l.note, "LoRAConverter"));
	/* the Trainer's gradient checkpointing never beside FSDP's */
	assert_non_null(strstr(l.hf_trainer, "--gradient_checkpointing "
			       "False"));

	plan(cp, &r, &p);
	assert_int_equal(p.cp, 2);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_int_equal(arg_value(l.accelerate,
				   "--parallelism_config_cp_size"), 2);
	assert_int_equal(arg_value(l.axolotl, "--context-parallel-size"), 2);
	assert_string_equal(l.torchtune_recipe, "lora_finetune_distributed");
	assert_int_equal(key_value(l.torchtune, "context_parallel_dim"), 2);
	assert_int_equal(key_value(l.torchtune, "data_parallel_shard_dim"),
			 p.dp);
	assert_int_equal(key_value(l.torchtune, "tensor_parallel_dim"), -1);
}

/* A layout no launcher here runs (QLoRA at TP 2 under FSDP) gets one
 * note that names each one's reason and no empty variable, and a named
 * stack that cannot run its plan warns once (stack_no_launch). */
static void test_no_launcher(void **state)
{
	static const char *const qlora[] = {
		"model", "llama-3.1-8b", "train-mode", "qlora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "tp", "2", "train-tokens",
		"1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	int i, warned = 0;

	plan(qlora, &r, &p);
	assert_int_equal(p.tp, 2);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.accelerate, "");
	assert_string_equal(l.axolotl, "");
	assert_string_equal(l.torchtune, "");
	assert_string_equal(l.torchtitan, "");
	assert_non_null(strstr(l.note, "no launcher here runs this layout"));
	assert_non_null(strstr(l.note, "torchtitan has no QLoRA"));
	assert_null(strstr(l.note, "AUTOSIZE_ACCELERATE"));
	/* one sentence: the stack's own gap is in it, not said again */
	assert_null(strstr(l.note, "stack hf cannot"));
	for (i = 0; i < p.n_warnings; i++)
		warned += strcmp(autosize_warning_code(p.warnings[i]),
				 "stack_no_launch") == 0;
	assert_int_equal(warned, 1);
}

/* Model-parallel plans get none of the three (the stacks shard by data
 * alone); precisions each tool can state. */
static void test_which_plans(void **state)
{
	static const char *const big[] = {
		"model", "llama-3-70b", "gpu", "h100", "train-tokens", "1e11",
		"train-framework", "megatron", NULL};
	static const char *const small[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"torchtune", "gpu", "h100", "gpus", "4", "train-tokens",
		"1e9", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	char json[32768];

	plan(big, &r, &p);
	assert_true(p.tp * p.pp > 1);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.accelerate, "");
	assert_string_equal(l.hf_trainer, "");
	assert_string_equal(l.torchtune, "");
	assert_true(autosize_launch_plan_json(&r, &p, json,
					      sizeof(json)) > 0);
	assert_non_null(strstr(json, "\"accelerate\":null,"
			       "\"accelerate_config\":null,\"hf_trainer\":"
			       "null,\"axolotl\":null,\"tune_run\":null,"
			       "\"torchtune_recipe\":null,\"torchtune\":null"));

	plan(small, &r, &p);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--mixed_precision bf16"));
	assert_non_null(strstr(l.hf_trainer, "--bf16 True"));
	assert_non_null(strstr(l.torchtune, "dtype=bf16"));
	assert_true(autosize_launch_plan_json(&r, &p, json,
					      sizeof(json)) > 0);
	assert_non_null(strstr(json, "\"torchtune\":\"batch_size="));
	r.precision = AUTOSIZE_PREC_FP16;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--mixed_precision fp16"));
	assert_non_null(strstr(l.hf_trainer, "--fp16 True"));
	assert_string_equal(l.torchtune, "");
	/* FP8: torchtune's LoRA recipes have none, so the plan is priced
	 * and run in bf16; full fine-tuning has it; accelerate reads the
	 * backend from its variable (the option's lower-case value is
	 * refused by its Accelerator) */
	r.precision = AUTOSIZE_PREC_FP8;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--mixed_precision bf16"));
	assert_null(strstr(l.torchtune, "fp8"));
	r.train_mode = AUTOSIZE_TRAIN_FINETUNE;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.accelerate, "--mixed_precision fp8"));
	assert_null(strstr(l.accelerate, "--fp8_backend"));
	assert_int_equal(l.n_env, 1);
	assert_string_equal(l.env[0].name, "ACCELERATE_FP8_BACKEND");
	assert_string_equal(l.env[0].value, "TE");
	assert_null(strstr(l.hf_trainer, "--bf16"));
	assert_non_null(strstr(l.torchtune, "enable_fp8_training=True"));
	assert_string_equal(l.torchtune_recipe, "full_finetune_distributed");
	assert_true(autosize_launch_plan_json(&r, &p, json,
					      sizeof(json)) > 0);
	assert_non_null(strstr(json, "\"env\":{\"ACCELERATE_FP8_BACKEND\":"
			       "\"TE\"}"));
	r.train_mode = AUTOSIZE_TRAIN_LORA;
	/* offloading only as the memory model counts it */
	r.precision = AUTOSIZE_PREC_BF16;
	r.act_offload = 1;
	p.recompute = AUTOSIZE_RECOMPUTE_FULL;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.torchtune,
			       "enable_activation_offloading=True"));
	p.recompute = AUTOSIZE_RECOMPUTE_SELECTIVE;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_non_null(strstr(l.torchtune,
			       "enable_activation_offloading=False"));
}

/* Bounded: a buffer too small is -1 and "", never a cut line. */
static void test_small_buffer(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "train-tokens", "1e9", NULL};
	autosize_request r;
	autosize_plan p;
	char buf[24];

	plan(opts, &r, &p);
	assert_int_equal(autosize_launch_accelerate_args(&r, &p, NULL, buf,
							 sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(autosize_launch_hf_trainer_args(&r, &p, buf,
							 sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(autosize_launch_torchtune_args(&r, &p, buf,
							sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(autosize_launch_torchtune_args(NULL, &p, buf,
							sizeof(buf)), -1);
}

/* --param-offload reaches the tools: accelerate offloads FSDP's
 * parameters and gradients, torchtune's distributed recipe its FSDP2
 * shards; names their parsers know. */
static void test_param_offload_args(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-70b", "train-mode", "qlora", "train-stack",
		"torchtune", "gpu", "rtx-4090", "gpus", "4", "train-seq-len",
		"2048", "param-offload", "on", "train-tokens", "1e8", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_int_equal(p.zero_stage, 3);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_names_in(l.axolotl, AXOLOTL, "axolotl");
	assert_non_null(strstr(l.axolotl, "--fsdp-config.offload-params"));
	assert_non_null(strstr(l.accelerate, "--fsdp_sharding_strategy "
			       "FULL_SHARD"));
	assert_non_null(strstr(l.accelerate, "--fsdp_offload_params true"));
	assert_non_null(strstr(l.torchtune, "fsdp_cpu_offload=True"));
	/* without it, neither */
	r.param_offload = 0;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_null(strstr(l.accelerate, "offload"));
	/* stated off: torchtune's 70B configs turn it on */
	assert_non_null(strstr(l.torchtune, "fsdp_cpu_offload=False"));
}

/* One GPU offloading its parameters still runs FSDP (one process): the
 * accelerate line says so, the Trainer leaves recomputation to FSDP's
 * wrapper, torchtune's distributed recipe offloads. */
static void test_param_offload_one_gpu(void **state)
{
	static const char *const opts[] = {
		"model", "llama-2-70b", "train-mode", "qlora", "train-stack",
		"hf", "gpu", "rtx-4090", "gpus", "1", "param-offload", "on",
		"train-tokens", "1e7", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_true(p.feasible);
	assert_int_equal(p.gpus, 1);
	assert_int_equal(p.zero_stage, 3);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_int_equal(arg_value(l.accelerate, "--num_processes"), 1);
	assert_non_null(strstr(l.accelerate, "--use_fsdp --fsdp_sharding_"
			       "strategy FULL_SHARD"));
	assert_non_null(strstr(l.accelerate, "--fsdp_offload_params true"));
	if (p.recompute != AUTOSIZE_RECOMPUTE_NONE)
		assert_non_null(strstr(l.hf_trainer,
				       "--gradient_checkpointing False"));
	assert_non_null(strstr(l.torchtune, "fsdp_cpu_offload=True"));
	/* torchtune's distributed recipe, one process on one node */
	assert_string_equal(l.torchtune_recipe, "lora_finetune_distributed");
	assert_string_equal(l.tune_run, l.torchrun);
	assert_non_null(strstr(l.tune_run, "--nproc_per_node=1 "));
}

/* DeepSpeed on one GPU offloading its parameters (ZeRO-3) or only its
 * optimizer (ZeRO-2, DeepSpeed's ZeRO-Offload): the launcher still runs
 * DeepSpeed with the plan's JSON, which offloads what the plan took off
 * the GPU. */
static void test_deepspeed_offload_one_gpu(void **state)
{
	const char *opts[] = {
		"model", "llama-2-7b", "train-mode", "finetune",
		"train-framework", "deepspeed", "gpu", "h100", "gpus", "1",
		"param-offload", "on", "train-tokens", "1e8", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	int k;

	for (k = 0; k < 2; k++) {
		if (k)
			opts[10] = "optimizer-offload";
		plan(opts, &r, &p);
		assert_true(p.feasible);
		assert_int_equal(p.zero_stage, k ? 2 : 3);
		assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
		assert_non_null(strstr(l.accelerate, "--use_deepspeed "
				       "--deepspeed_config_file"));
		assert_non_null(strstr(l.deepspeed, "\"offload_optimizer\""));
		assert_true((strstr(l.deepspeed, "\"offload_param\"") != NULL)
			    == !k);
	}
}

/* torchtune: the recipe the plan runs, tune run's options only for a
 * distributed recipe (a single-device one refuses them), ZeRO-2 kept
 * gathered, and the planned tokens as one epoch of at most N steps. */
static void test_torchtune_recipes(void **state)
{
	static const char *const one[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"torchtune", "gpu", "l40s", "gpus", "1", "train-seq-len",
		"2048", "train-tokens", "1e7", NULL};
	static const char *const eight[] = {
		"model", "llama-3.1-8b", "train-mode", "finetune",
		"train-stack", "torchtune", "gpu", "a100-80gb", "gpus", "8",
		"zero", "2", "train-tokens", "1e8", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;
	char want[64];

	plan(one, &r, &p);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.torchtune_recipe,
			    "lora_finetune_single_device");
	assert_string_equal(l.tune_run, "");
	assert_null(strstr(l.torchtune, "fsdp_"));
	/* 1e7 tokens in steps of 128 x 2048: 39 whole steps and a part */
	assert_int_equal(l.steps, 39);
	assert_non_null(strstr(l.torchtune, " epochs=1 "
			       "max_steps_per_epoch=39"));
	assert_int_equal(arg_value(l.hf_trainer, "--max_steps"), 39);
	assert_int_equal(arg_value(l.axolotl, "--max-steps"), 39);
	plan(eight, &r, &p);
	assert_int_equal(p.zero_stage, 2);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_string_equal(l.torchtune_recipe, "full_finetune_distributed");
	assert_string_equal(l.tune_run, l.torchrun);
	assert_non_null(strstr(l.torchtune,
			       "fsdp_reshard_after_forward=False"));
	assert_non_null(strstr(l.axolotl, "--no-fsdp-config.reshard-after-"
			       "forward"));
	snprintf(want, sizeof(want), "\"steps\":%ld", l.steps);
	/* no token count: no step count anywhere */
	r.tokens = 0;
	p.tokens = 0;
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_int_equal(l.steps, 0);
	assert_null(strstr(l.torchtune, "max_steps"));
	assert_null(strstr(l.hf_trainer, "max_steps"));
	assert_null(strstr(l.axolotl, "max-steps"));
}

/* A precision the stack cannot train in is priced as the job runs it,
 * with one warning: torchtune's LoRA recipes and the HF Trainer under
 * DeepSpeed have no FP8. */
static void test_stack_precision(void **state)
{
	static const char *const tune[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"torchtune", "gpu", "h100", "gpus", "8", "train-precision",
		"fp8", "train-tokens", "1e8", NULL};
	static const char *const trainer_ds[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "train-framework", "deepspeed", "gpu", "h100", "gpus",
		"8", "train-precision", "fp8", "train-tokens", "1e8", NULL};
	static const char *const trainer_fsdp[] = {
		"model", "llama-3.1-8b", "train-mode", "lora", "train-stack",
		"hf", "gpu", "h100", "gpus", "8", "train-precision", "fp8",
		"train-tokens", "1e8", NULL};
	const char *const *reqs[] = {tune, trainer_ds, trainer_fsdp};
	autosize_request r, bf16;
	autosize_plan p, q;
	autosize_error e;
	char why[256];
	int i, k, warned;

	for (k = 0; k < 3; k++) {
		plan(reqs[k], &r, &p);
		warned = 0;
		for (i = 0; i < p.n_warnings; i++)
			warned += strcmp(autosize_warning_code(p.warnings[i]),
					 "stack_no_fp8") == 0;
		if (k == 2) {
			/* accelerate under FSDP runs FP8 */
			assert_int_equal(autosize_launch_precision(&r, why,
					 sizeof(why)), AUTOSIZE_PREC_FP8);
			assert_string_equal(why, "");
			assert_int_equal(warned, 0);
			continue;
		}
		assert_int_equal(autosize_launch_precision(&r, why,
							   sizeof(why)),
				 AUTOSIZE_PREC_BF16);
		assert_non_null(strstr(p.warnings[p.n_warnings - 1], why));
		assert_int_equal(warned, 1);
		/* priced as bf16: the same plan as asking for bf16 */
		bf16 = r;
		bf16.precision = AUTOSIZE_PREC_BF16;
		assert_int_equal(autosize_plan_compute(pol, &bf16, &q, &e),
				 AUTOSIZE_OK);
		assert_true(fabs(q.step_s - p.step_s) < 1e-9 * q.step_s);
	}
}

/* axolotl's own options, names from its option table. */
static void test_axolotl(void **state)
{
	static const char *const opts[] = {
		"model", "llama-3.1-70b", "gpu", "a100-80gb", "gpus", "16",
		"train-stack", "axolotl", "train-mode", "qlora",
		"train-tokens", "1e8", NULL};
	autosize_request r;
	autosize_plan p;
	autosize_launch l;

	plan(opts, &r, &p);
	assert_int_equal(autosize_launch_build(&r, &p, NULL, &l), 0);
	assert_names_in(l.axolotl, AXOLOTL, "axolotl");
	assert_false(list_has(AXOLOTL, "--per_device_train_batch_size"));
	assert_int_equal(arg_value(l.axolotl, "--micro-batch-size"),
			 p.micro_batch);
	assert_int_equal(arg_value(l.axolotl, "--gradient-accumulation-"
				   "steps"), p.grad_accum);
	assert_int_equal(arg_value(l.axolotl, "--sequence-len"), p.seq_len);
	assert_non_null(strstr(l.axolotl, "--bf16 true"));
	assert_non_null(strstr(l.axolotl, "--fsdp-version 2 "));
	/* recomputation in FSDP's wrapper, not the model's too */
	if (p.recompute != AUTOSIZE_RECOMPUTE_NONE)
		assert_non_null(strstr(l.axolotl, "--gradient-checkpointing "
				       "false"));
}

/* DeepSpeed-MoE refuses ZeRO-3 ("Native DeepSpeed MoE is not supported
 * with ZeRO Stage 3", runtime/engine.py): no DeepSpeed plan has both,
 * and a request pinning both is refused in one line. */
static void test_deepspeed_moe_zero(void **state)
{
	const char *opts[] = {
		"model", "mixtral-8x7b", "gpus", "16", "gpu", "h100",
		"train-framework", "deepspeed", "train-tokens", "1e10", NULL};
	static const char *const sizes[][2] = {
		{"mixtral-8x7b", "16"}, {"mixtral-8x7b", "32"},
		{"mixtral-8x22b", "64"}, {"mixtral-8x22b", "128"},
	};
	autosize_request r;
	autosize_plan p;
	autosize_error e;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		opts[1] = sizes[i][0];
		opts[3] = sizes[i][1];
		plan(opts, &r, &p);
		assert_false(p.ep > 1 && p.zero_stage >= 3);
	}
	assert_int_equal(autosize_request_set(&r, "ep", "8", &e), 0);
	assert_int_equal(autosize_request_set(&r, "zero", "3", &e), 0);
	assert_int_equal(autosize_request_finish(&r, &e), 0);
	assert_int_equal(autosize_plan_compute(pol, &r, &p, &e),
			 AUTOSIZE_EINVAL);
	assert_non_null(strstr(e.msg, "DeepSpeed-MoE does not run under "
			       "ZeRO-3"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hf_lora_node),
		cmocka_unit_test(test_sharding_and_recompute),
		cmocka_unit_test(test_nodes_and_deepspeed),
		cmocka_unit_test(test_deepspeed_ulysses),
		cmocka_unit_test(test_fsdp_tp_cp),
		cmocka_unit_test(test_no_launcher),
		cmocka_unit_test(test_which_plans),
		cmocka_unit_test(test_small_buffer),
		cmocka_unit_test(test_param_offload_args),
		cmocka_unit_test(test_param_offload_one_gpu),
		cmocka_unit_test(test_deepspeed_offload_one_gpu),
		cmocka_unit_test(test_torchtune_recipes),
		cmocka_unit_test(test_stack_precision),
		cmocka_unit_test(test_axolotl),
		cmocka_unit_test(test_deepspeed_moe_zero),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
