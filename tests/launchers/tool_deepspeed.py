"""DeepSpeed: the plan's JSON (AUTOSIZE_DEEPSPEED_CONFIG) through
DeepSpeedConfig (runtime/config.py: its pydantic 2 models, the batch
assertion train_batch_size = micro-batch x accumulation x data-parallel
ranks), read back; for an expert-parallel plan, DeepSpeed's own expert
groups over the world (utils/groups.py _get_expert_parallel_ranks) with
EP = AUTOSIZE_EP, and the engine's refusal of native MoE under ZeRO-3
(runtime/engine.py _validate_zero3_moe_compatibility).

Stubbed: torch (a newer one than Debian's: the stand-in reports the
plan's GPUs) and, where this Python lacks them, the modules DeepSpeed
imports at module level for its runtime, not its configuration: numpy,
packaging, cpuinfo, psutil, tqdm, hjson, einops, msgpack (the JSON is
given as the object json reads from the file, which hjson would read
the same). deepspeed.comm
gets a started process group of the plan's world size (the launcher's
WORLD_SIZE), and Megatron-DeepSpeed layouts (TP or PP) its mpu's
data-parallel size, as DeepSpeedConfig is given them in a job."""
import json
import sys
import types

import common

NEEDS = ('pydantic>=2',)
STUBBED = ('torch',)
# runtime modules DeepSpeed imports at module level, not its config
# models: stand-ins only where this Python lacks them
RUNTIME = ('numpy', 'packaging', 'cpuinfo', 'psutil', 'tqdm', 'hjson',
           'einops', 'msgpack')


def setup(src):
    import standin
    sys.path[:0] = [src['DeepSpeed']]
    standin.install(STUBBED, RUNTIME)
    global STANDIN, CONFIG, COMM, GROUPS
    STANDIN = standin
    from deepspeed.runtime.config import DeepSpeedConfig as CONFIG
    import deepspeed.comm.comm as COMM
    import deepspeed.utils.groups as GROUPS


def started(world):
    return types.SimpleNamespace(is_initialized=lambda: True,
                                 get_rank=lambda group=None: 0,
                                 get_world_size=lambda group=None: world)


def device(offload):
    """Where an offload block puts its state (None: no block)."""
    if offload is None:
        return None
    return getattr(offload.device, 'value', offload.device)


def check(rec, c):
    e = rec['expect']
    ds = rec['launch'].get('deepspeed')
    if not ds:
        return c.fail('no DeepSpeed configuration')
    world = e['nodes'] * e['gpus_per_node']
    STANDIN.machine(common.capability(e['gpu']), e['gpus_per_node'])
    COMM.cdb = started(world)
    mpu = None
    if e['tp'] * e['pp'] > 1:
        mpu = types.SimpleNamespace(
            get_data_parallel_world_size=lambda: e['dp'])
    # the file the job reads, as written (a round trip through json)
    cfg = CONFIG(json.loads(json.dumps(ds)), mpu=mpu)
    c.eq('train_batch_size', cfg.train_batch_size, e['global_batch'])
    # Ulysses (--cp): DeepSpeed's data-parallel world is the world over
    # sequence_parallel_size (runtime/config.py, where no mpu gives it)
    c.eq('sequence_parallel_size', ds.get('sequence_parallel_size', 1),
         e['cp'] if e['tp'] * e['pp'] == 1 else 1)
    c.eq('data-parallel world', cfg.world_size, e['dp'])
    c.eq('train_micro_batch_size_per_gpu', cfg.train_micro_batch_size_per_gpu,
         e['micro_batch'])
    c.eq('gradient_accumulation_steps', cfg.gradient_accumulation_steps,
         e['grad_accum'])
    c.eq('ZeRO stage', cfg.zero_optimization_stage, e['zero_stage'])
    zero = cfg.zero_config
    params = e['param_offload'] and e['zero_stage'] >= 3
    c.eq('offload_param', device(zero.offload_param),
         'cpu' if params else None)
    opt = (e['param_offload'] or e['opt_offload']) and e['zero_stage'] >= 1
    c.eq('offload_optimizer', device(zero.offload_optimizer),
         'cpu' if opt else None)
    c.eq('fp16', cfg.float16_config.enabled, e['precision'] == 'fp16')
    c.eq('bf16', cfg.bfloat16_config.enabled, e['precision'] != 'fp16')
    if not cfg.gradient_clipping > 0:
        c.fail('gradient_clipping is %r: no clipping (older DeepSpeed '
               'drops the Trainer\'s)' % cfg.gradient_clipping)
    if e['ep'] > 1:
        ep_groups, _ = GROUPS._get_expert_parallel_ranks(
            world, e['tp'], e['ep'], e['pp'])
        c.eq('expert group sizes', {len(g) for g in ep_groups}, {e['ep']})
        if e['model']['experts'] % e['ep']:
            c.fail('%d experts do not split over EP %d (deepspeed.moe.'
                   'layer.MoE asserts it)' % (e['model']['experts'], e['ep']))
        if cfg.zero_optimization_stage >= 3:
            c.fail('Native DeepSpeed MoE is not supported with ZeRO Stage '
                   '3 (engine.py)')
