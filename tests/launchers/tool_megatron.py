"""Megatron-LM: AUTOSIZE_MEGATRON_ARGS, after the model's own arguments
(what a training script passes: its shape from the plan's model), through
Megatron's parser (add_megatron_arguments, as parse_args builds it) and
validate_args, in the task's environment (AUTOSIZE's exported variables:
CUDA_DEVICE_MAX_CONNECTIONS) with WORLD_SIZE the plan's GPUs, read back.

Stubbed: torch (a newer one: the stand-in reports the plan's GPUs, so
the CUDA_DEVICE_MAX_CONNECTIONS rule below Blackwell applies as on the
job's GPUs), numpy (Debian's 1.24 lacks numpy.dtypes, which
megatron.core imports at module level) and the GPU and I/O packages
Megatron imports at module level: transformer_engine, apex, einops,
flash_attn, nvidia, triton, tensorstore, zarr, modelopt, wandb,
safetensors, mamba_ssm, causal_conv1d, nvtx, sentencepiece, tiktoken,
transformers, onelogger, nvidia_resiliency_ext, multistorageclient,
pynvml, datasets, emerging_optimizers, flashinfer, nv_one_logger."""
import argparse
import sys

import common
from common import line

NEEDS = ('packaging', 'yaml')
STUBBED = ('torch', 'numpy', 'transformer_engine', 'apex', 'einops',
           'flash_attn', 'nvidia', 'triton', 'tensorstore', 'zarr',
           'modelopt', 'wandb', 'safetensors', 'mamba_ssm', 'causal_conv1d',
           'nvtx', 'sentencepiece', 'tiktoken', 'transformers', 'onelogger',
           'nvidia_resiliency_ext', 'multistorageclient', 'pynvml',
           'datasets', 'emerging_optimizers', 'flashinfer', 'nv_one_logger')


def setup(src):
    import standin
    global STANDIN, PARSER, VALIDATE, CORE
    STANDIN = standin
    sys.path[:0] = [src['Megatron-LM']]
    standin.install(STUBBED)
    from megatron.training.arguments import add_megatron_arguments
    from megatron.training.arguments import validate_args as VALIDATE
    from megatron.training.argument_utils import \
        core_transformer_config_from_args as CORE
    # as parse_args builds it (once: its docstring reading is slow)
    PARSER = add_megatron_arguments(argparse.ArgumentParser(
        allow_abbrev=False))


def model_args(e):
    """A GPT training script's model arguments for the plan's model."""
    m = e['model']
    words = ['--num-layers', m['layers'], '--hidden-size', m['hidden'],
             '--num-attention-heads', m['heads'], '--ffn-hidden-size',
             m['ffn'], '--max-position-embeddings',
             max(m['max_positions'], e['seq_len']), '--vocab-size',
             m['vocab'], '--normalization', 'RMSNorm',
             '--position-embedding-type', 'rope', '--disable-bias-linear',
             '--untie-embeddings-and-output-weights']
    if m.get('mlp', 'swiglu') == 'swiglu':
        words.append('--swiglu')
    if m['kv_heads'] < m['heads']:
        words += ['--group-query-attention', '--num-query-groups',
                  m['kv_heads']]
    if m['experts'] > 1:
        words += ['--num-experts', m['experts'], '--moe-router-topk',
                  m['experts_active']]
    return [str(w) for w in words]


def check(rec, c):
    e = rec['expect']
    words = line(rec, 'megatron')
    if words is None:
        return c.fail('no Megatron arguments')
    STANDIN.machine(common.capability(e['gpu']), e['gpus_per_node'])
    args = PARSER.parse_args(model_args(e) + words)
    args._is_global_batch_size_explicitly_specified = True
    env = common.task_env(rec)
    env.update(WORLD_SIZE=str(e['nodes'] * e['gpus_per_node']), RANK='0')
    with common.environ(env):
        args.rank, args.world_size = 0, e['nodes'] * e['gpus_per_node']
        VALIDATE(args, {})
        # the model's TransformerConfig and its __post_init__ checks
        # (heads, query groups against TP: KV heads fewer than TP are
        # replicated)
        core = CORE(args)
    c.eq('query groups', core.num_query_groups, e['model']['kv_heads'])
    c.eq('tensor parallel', args.tensor_model_parallel_size, e['tp'])
    c.eq('pipeline parallel', args.pipeline_model_parallel_size, e['pp'])
    c.eq('context parallel', args.context_parallel_size, e['cp'])
    c.eq('expert parallel', args.expert_model_parallel_size, e['ep'])
    if e['model']['experts'] > 1:
        # validate_args fills the default (the TP size)
        c.eq('expert tensor parallel', args.expert_tensor_parallel_size,
             e['etp'])
    c.eq('data parallel', args.data_parallel_size, e['dp'])
    c.eq('virtual stages', args.virtual_pipeline_model_parallel_size,
         e['vp'] if e['vp'] > 1 else None)
    # the split the plan priced, which the TransformerConfig above took
    # (its uneven-pipeline checks): first and last ranks apart where
    # they differ from the middle ones
    st = e.get('stage_layers')
    if st and (st[0] != st[1] or st[2] != st[1]):
        c.eq('first stage', args.decoder_first_pipeline_num_layers, st[0])
        c.eq('last stage', args.decoder_last_pipeline_num_layers, st[2])
        c.eq('middle stages', (e['model']['layers'] - st[0] - st[2]) //
             max(e['pp'] - 2, 1) if e['pp'] > 2 else st[1], st[1])
    c.eq('micro-batch', args.micro_batch_size, e['micro_batch'])
    c.eq('global batch', args.global_batch_size, e['global_batch'])
    c.eq('accumulation', args.global_batch_size //
         (args.micro_batch_size * args.data_parallel_size), e['grad_accum'])
    c.eq('sequence', args.seq_length, e['seq_len'])
    c.eq('recompute', args.recompute_granularity,
         {'none': None, 'full': 'full'}.get(e['recompute'], 'selective'))
    if e['recompute'] == 'selective-mlp':
        c.eq('recompute mlp', 'mlp' in (args.recompute_modules or []), True)
    c.eq('distributed optimizer', args.use_distributed_optimizer,
         e['zero_stage'] >= 1)
    c.eq('Megatron-FSDP', args.use_megatron_fsdp, e['zero_stage'] >= 3)
    c.eq('bf16', args.bf16, e['precision'] != 'fp16')
    c.eq('fp16', args.fp16, e['precision'] == 'fp16')
    c.eq('fp8', args.fp8, 'hybrid' if e['precision'] == 'fp8' else None)
    # NVFP4: Transformer Engine's NVFP4BlockScaling (fp4_recipe's default)
    c.eq('fp4', args.fp4, 'e2m1' if e['precision'] == 'nvfp4' else None)
    if e['precision'] == 'nvfp4':
        c.eq('fp4 recipe', str(args.fp4_recipe).split('.')[-1], 'nvfp4')
    # FP8 (NVFP4) parameters with the distributed optimizer, no 16-bit
    # copy beside Transformer Engine's: what the memory model counts
    # (memory.c memory_fp8_weight_cache), still on after validate_args
    # and in the model's TransformerConfig
    c.eq('fp8 param gather', args.fp8_param_gather,
         e['precision'] == 'fp8' and e['zero_stage'] >= 1)
    c.eq('fp4 param gather', args.fp4_param_gather,
         e['precision'] == 'nvfp4' and e['zero_stage'] >= 1)
    c.eq('fp8 param', core.fp8_param, args.fp8_param_gather)
    c.eq('fp4 param', core.fp4_param, args.fp4_param_gather)
    # --optimizer-offload: the whole optimizer state on the CPU, what
    # the memory model leaves off the GPU (fraction 0 offloads nothing)
    off = e['opt_offload'] and 1 <= e['zero_stage'] < 3
    c.eq('optimizer cpu offload', args.optimizer_cpu_offload, off)
    if off:
        c.eq('optimizer offload fraction', args.optimizer_offload_fraction,
             1.0)
    c.eq('sequence parallel', args.sequence_parallel, e['tp'] > 1)
    # the whole run's iterations; a chained job stops itself before its
    # warning signal
    c.eq('train iters', args.train_iters, common.steps(e) or None)
    c.eq('exit duration', args.exit_duration_in_mins,
         e.get('exit_minutes') or None)
    if e['model']['experts'] > 1:
        # the dispatcher the plan priced: alltoall, or the flex
        # dispatcher with its DeepEP or HybridEP backend, as the
        # model's TransformerConfig holds it after __post_init__
        d = e['moe_dispatcher']
        flex = d in ('deepep', 'hybridep')
        c.eq('MoE token dispatcher', core.moe_token_dispatcher_type,
             'flex' if flex else 'alltoall')
        if flex:
            c.eq('flex dispatcher backend',
                 core.moe_flex_dispatcher_backend, d)
            # DeepEP and HybridEP take fp32 probabilities (and warn
            # every dispatch otherwise)
            c.eq('router dtype', core.moe_router_dtype, 'fp32')
