"""torchtitan, two releases: the current one (b5bcd76c, 2026-08-21:
config_registry functions, token counts, the activation-checkpointing
subcommand) gets AUTOSIZE_TORCHTITAN_ARGS, the last one with
job_config.py (238fa995, 2026-02-23) AUTOSIZE_TORCHTITAN_V1_ARGS. Each
goes through its release's ConfigManager.parse_args (tyro, and the
configuration's own __post_init__ checks), then its ParallelDims (the
mesh's validation against the world size), read back against the plan;
the gradient accumulation is computed as each release's trainer does.
The current release takes `--module M --config F` first, a config
function of the plan's model family as a user names it.

Stubbed: torch (a newer one: the stand-in reports the plan's GPUs) and
the modules the model code imports at module level: safetensors,
transformer_engine, triton, numpy, spmd_types, grain, datasets,
tokenizers, and torchao (FP8 kernels: the float8 converter's config
imports it). None is read by the configuration."""
import sys

import common
from common import line

NEEDS = ('yaml', 'typing_extensions>=4.7')
STUBBED = ('torch', 'safetensors', 'transformer_engine', 'triton', 'numpy',
           'spmd_types', 'grain', 'datasets', 'tokenizers', 'torchao')
RELEASE = {'torchtitan': 'torchtitan', 'torchtitan_v1': 'torchtitan_v1'}


def setup(src, tool):
    import standin
    global TOOL, STANDIN, MANAGER, DIMS, CONVERTERS
    TOOL = tool
    STANDIN = standin
    sys.path[:0] = [src[RELEASE[tool]], src['tyro'] + '/src',
                    src['typeguard'] + '/src', src['docstring_parser']]
    standin.install(STUBBED)
    from torchtitan.config.manager import ConfigManager as MANAGER
    from torchtitan.distributed.parallel_dims import ParallelDims as DIMS
    CONVERTERS = None
    if tool == 'torchtitan_v1':
        import torchtitan.components.quantization  # noqa: registers them
        from torchtitan.protocols import model_converter
        CONVERTERS = model_converter._registry_model_converter_cls


def degrees(e):
    """replicate, shard: a sharded model (ZeRO-2/3) or experts shard."""
    shard = e['zero_stage'] >= 2 or e['ep'] > 1
    return (1, e['dp']) if shard else (e['dp'], 1)


def read_parallelism(par, e, c):
    rep, shard = degrees(e)
    c.eq('data_parallel_replicate_degree', par.data_parallel_replicate_degree,
         rep)
    c.eq('data_parallel_shard_degree', par.data_parallel_shard_degree, shard)
    c.eq('tensor_parallel_degree', par.tensor_parallel_degree, e['tp'])
    c.eq('pipeline_parallel_degree', par.pipeline_parallel_degree, e['pp'])
    c.eq('context_parallel_degree', par.context_parallel_degree, e['cp'])
    c.eq('expert_parallel_degree', par.expert_parallel_degree, e['ep'])
    c.eq('fsdp_reshard_after_forward', par.fsdp_reshard_after_forward,
         'never' if e['zero_stage'] == 2 else 'default')
    if e['vp'] > 1:
        c.eq('pipeline_parallel_schedule', par.pipeline_parallel_schedule,
             'Interleaved1F1B')
        c.eq('pipeline_parallel_layers_per_stage',
             par.pipeline_parallel_layers_per_stage,
             e['model']['layers'] // (e['pp'] * e['vp']))


def mesh(par, e):
    """The release's own ParallelDims over the plan's world."""
    kw = dict(dp_replicate=par.data_parallel_replicate_degree,
              dp_shard=par.data_parallel_shard_degree,
              cp=par.context_parallel_degree, tp=par.tensor_parallel_degree,
              pp=par.pipeline_parallel_degree,
              ep=par.expert_parallel_degree,
              world_size=e['nodes'] * e['gpus_per_node'])
    if TOOL == 'torchtitan_v1':
        kw['etp'] = par.expert_tensor_parallel_degree
    return DIMS(**kw)


def has_lora(node, depth=0):
    """1 when a model config tree holds a LoRA linear's config."""
    import dataclasses
    if 'LoRA' in type(node).__qualname__:
        return True
    if depth > 8:
        return False
    if isinstance(node, (list, tuple)):
        return any(has_lora(x, depth + 1) for x in node)
    if isinstance(node, dict):
        return any(has_lora(x, depth + 1) for x in node.values())
    if dataclasses.is_dataclass(node):
        return any(has_lora(getattr(node, f.name, None), depth + 1)
                   for f in dataclasses.fields(node))
    return False


def check_current(words, rec, c):
    e, u = rec['expect'], rec['user']
    # the user's model config (a dense Llama 3 one when the table names
    # none: the plan's options override what it sets; for LoRA the one
    # config function of the release with a LoRAConverter)
    module = u['titan_module'] or 'llama3'
    config = u['titan_config'] or (
        'llama3_debugmodel_float8_emulate_lora' if e['train_mode'] == 'lora'
        else 'llama3_8b')
    cfg = MANAGER().parse_args(['--module', module, '--config', config] +
                               words)
    par, tr = cfg.parallelism, cfg.training
    read_parallelism(par, e, c)
    dims = mesh(par, e)
    c.eq('num_tokens_per_microbatch_per_dp_rank',
         tr.num_tokens_per_microbatch_per_dp_rank,
         e['micro_batch'] * e['seq_len'])
    c.eq('num_tokens_per_train_step', tr.num_tokens_per_train_step,
         e['global_batch'] * e['seq_len'])
    c.eq('max_context_length', tr.max_context_length, e['seq_len'])
    # Trainer.__init__: micro-batches and accumulation
    micro = par.num_pp_microbatches if e['pp'] > 1 else 1
    per_rank = tr.num_tokens_per_microbatch_per_dp_rank * micro
    batch = dims.dp_replicate * dims.dp_shard
    if tr.num_tokens_per_train_step % (per_rank * batch):
        c.fail('num_tokens_per_train_step %d is no multiple of %d x %d'
               % (tr.num_tokens_per_train_step, per_rank, batch))
    c.eq('micro-batches x accumulation',
         micro * tr.num_tokens_per_train_step // (per_rank * batch),
         e['grad_accum'])
    c.eq('enable_cpu_offload', tr.enable_cpu_offload,
         bool(e['param_offload']))
    if e['tokens'] > 0:
        c.eq('steps', tr.steps, common.steps(e))
    ac = type(cfg.activation_checkpoint).__qualname__ \
        if cfg.activation_checkpoint is not None else None
    c.eq('activation_checkpoint', ac, {'none': None,
                                       'full': 'FullAC.Config'}.get(
        e['recompute'], 'SelectiveAC.Config'))
    if e['train_mode'] == 'lora':
        # the config function's LoRAConverter turned the linears into
        # LoRA linears (components/lora.py); the note names it
        c.eq('LoRA linears in the model config',
             has_lora(cfg.model_spec.model), True)
        if 'LoRAConverter' not in rec['launch']['note']:
            c.fail('a LoRA plan whose note does not say torchtitan takes '
                   'LoRA from the config function (LoRAConverter)')
    if e['precision'] == 'fp8' and 'Float8' not in rec['launch']['note']:
        c.fail('an FP8 plan whose note does not say torchtitan takes FP8 '
               'from the config function (Float8LinearConverter)')


def check_v1(words, rec, c):
    e = rec['expect']
    cfg = MANAGER().parse_args(words)
    par, tr = cfg.parallelism, cfg.training
    read_parallelism(par, e, c)
    dims = mesh(par, e)
    batch = dims.dp_replicate * dims.dp_shard
    c.eq('seq_len', tr.seq_len, e['seq_len'])
    c.eq('global_batch_size', tr.global_batch_size, e['global_batch'])
    # train.py: accumulation = global / (local x batch ranks); the
    # pipeline splits local into local / microbatch_size micro-batches
    micro = tr.local_batch_size // par.pipeline_parallel_microbatch_size \
        if e['pp'] > 1 else 1
    mb = par.pipeline_parallel_microbatch_size if e['pp'] > 1 \
        else tr.local_batch_size
    c.eq('micro-batch', mb, e['micro_batch'])
    if tr.global_batch_size % (tr.local_batch_size * batch):
        c.fail('global_batch_size %d is no multiple of %d x %d' % (
            tr.global_batch_size, tr.local_batch_size, batch))
    c.eq('micro-batches x accumulation',
         micro * tr.global_batch_size // (tr.local_batch_size * batch),
         e['grad_accum'])
    c.eq('enable_cpu_offload', tr.enable_cpu_offload,
         bool(e['param_offload']))
    if e['tokens'] > 0:
        c.eq('steps', tr.steps, common.steps(e))
    c.eq('activation_checkpoint.mode', cfg.activation_checkpoint.mode,
         {'none': 'none', 'full': 'full'}.get(e['recompute'], 'selective'))
    fp8 = 'quantize.linear.float8' in cfg.model.converters
    c.eq('FP8 converter', fp8, e['precision'] == 'fp8')
    for name in cfg.model.converters:
        if name not in CONVERTERS:
            c.fail('model converter %s is not registered' % name)


def check(rec, c):
    e = rec['expect']
    words = line(rec, TOOL)
    if words is None:
        return c.fail('no %s options' % TOOL)
    STANDIN.machine(common.capability(e['gpu']), e['gpus_per_node'])
    (check_current if TOOL == 'torchtitan' else check_v1)(words, rec, c)
