"""accelerate launch: AUTOSIZE_ACCELERATE_ARGS through accelerate's own
parser and launch_command, up to the spawn: torchrun's launch config and
the environment the workers would get, read back against the plan.

Stubbed: torch.distributed.run.run and subprocess.Popen record instead of
starting processes; is_fp8_available answers yes (Transformer Engine, a
GPU package); is_deepspeed_available answers yes and deepspeed is a
stand-in (accelerate only reads DEEPSPEED_ENVIRONMENT_NAME from it:
DeepSpeed itself is checked by tool_deepspeed); safetensors is one where
this Python lacks it (a compiled file-format module, imported at module
level)."""
import os
import sys

import common
import tool_torchrun
from common import line

NEEDS = ('torch', 'packaging', 'yaml', 'psutil')
STUBBED = ('deepspeed',)
IMPORTED = ('safetensors',)


def setup(src):
    import standin
    sys.path[:0] = [src['site'], src['accelerate'] + '/src']
    standin.install(STUBBED, IMPORTED)
    standin.FIXED['deepspeed.launcher.runner'] = {
        'DEEPSPEED_ENVIRONMENT_NAME': '.deepspeed_env'}
    tool_torchrun.setup(src)
    import accelerate.commands.launch as L
    import accelerate.utils.launch as U
    from accelerate.utils.dataclasses import FP8BackendType
    from accelerate.utils.environment import parse_choice_from_env
    global LAUNCH, FP8, CHOICE
    LAUNCH, FP8, CHOICE = L, FP8BackendType, parse_choice_from_env
    U.is_fp8_available = lambda: True
    L.is_deepspeed_available = lambda: True
    tool_torchrun.RUN.run = record_torchrun
    L.subprocess.Popen = Recorded


SEEN = {}


def record_torchrun(args):
    SEEN['kind'] = 'torchrun'
    SEEN['cfg'] = tool_torchrun.RUN.config_from_args(args)[0]
    SEEN['env'] = dict(os.environ)


class Recorded:
    """subprocess.Popen of the simple (one process) launcher."""
    returncode = 0

    def __init__(self, cmd, env=None, **kw):
        SEEN['kind'] = 'simple'
        SEEN['env'] = dict(env or {})

    def wait(self):
        return 0


def launch(rec, extra=()):
    """launch_command on the record's line (+ a script and extra words)
    in the task's environment; what it would have started."""
    SEEN.clear()
    words = line(rec, 'accelerate')
    args = LAUNCH.launch_command_parser().parse_args(
        words + ['train.py'] + list(extra))
    with common.environ(common.task_env(rec)):
        LAUNCH.launch_command(args)
    return dict(SEEN)


def engine_offload(e):
    """State the sharding engine offloads: it runs even on one GPU."""
    if e['framework'] == 'fsdp':
        return e['param_offload'] and e['zero_stage'] >= 3
    return e['zero_stage'] >= 1 and (e['param_offload'] or e['opt_offload'])


def check(rec, c):
    e = rec['expect']
    if line(rec, 'accelerate') is None:
        return c.fail('no accelerate line')
    got = launch(rec)
    env = got.get('env', {})
    one = e['nodes'] * e['gpus_per_node'] == 1 and not engine_offload(e)
    c.eq('launcher', got.get('kind'), 'simple' if one else 'torchrun')
    if not one and got.get('kind') == 'torchrun':
        # one node: accelerate's static rendezvous on this node, at
        # the step's port
        tool_torchrun.read_back(got['cfg'], rec, c, *(
            ('c10d',) if e['nodes'] > 1 else
            ('static', '127.0.0.1:%d' % rec['where']['port'])))
    c.eq('ACCELERATE_MIXED_PRECISION', env.get('ACCELERATE_MIXED_PRECISION'),
         e['precision'])
    if e['precision'] == 'fp8':
        # what Accelerator.fp8_backend reads
        with common.environ(env):
            backend = FP8(CHOICE('ACCELERATE_FP8_BACKEND', 'NO'))
        c.eq('FP8 backend (Accelerator)', backend, FP8.TE)
    if one:
        return
    s = common.split(e)
    # accelerate's ParallelismConfig, as its workers read it
    # (parallelism_config.py __post_init__ from these variables)
    par = {k[len('PARALLELISM_CONFIG_'):]: v for k, v in env.items()
           if k.startswith('PARALLELISM_CONFIG_')}
    c.eq('ACCELERATE_USE_PARALLELISM_CONFIG',
         env.get('ACCELERATE_USE_PARALLELISM_CONFIG'),
         'true' if s in ('nd', 'ulysses') else None)
    if e['framework'] == 'deepspeed':
        c.eq('ACCELERATE_USE_DEEPSPEED', env.get('ACCELERATE_USE_DEEPSPEED'),
             'true')
        c.eq('ACCELERATE_DEEPSPEED_CONFIG_FILE',
             env.get('ACCELERATE_DEEPSPEED_CONFIG_FILE'),
             rec['where']['deepspeed_config'])
        if s == 'ulysses':
            c.eq('sequence parallel (sp_size)', par.get('SP_SIZE'),
                 str(e['cp']))
            c.eq('sp_backend', par.get('SP_BACKEND'), 'deepspeed')
            c.eq('data parallel (dp_shard_size x dp_replicate_size)',
                 int(par.get('DP_SHARD_SIZE', 0)) *
                 int(par.get('DP_REPLICATE_SIZE', 0)), e['dp'])
        return
    if s == 'nd':
        c.eq('ACCELERATE_USE_FSDP', env.get('ACCELERATE_USE_FSDP'), 'true')
        c.eq('FSDP_VERSION', env.get('FSDP_VERSION'), '2')
        c.eq('FSDP_RESHARD_AFTER_FORWARD',
             env.get('FSDP_RESHARD_AFTER_FORWARD'),
             'true' if e['zero_stage'] >= 3 else 'false')
        c.eq('tensor parallel (tp_size)', par.get('TP_SIZE'), str(e['tp']))
        c.eq('context parallel (cp_size)', par.get('CP_SIZE'), str(e['cp']))
        c.eq('data parallel (dp_shard_size)', par.get('DP_SHARD_SIZE'),
             str(e['dp']))
        c.eq('dp_replicate_size', par.get('DP_REPLICATE_SIZE'), '1')
        c.eq('FSDP_ACTIVATION_CHECKPOINTING',
             env.get('FSDP_ACTIVATION_CHECKPOINTING'),
             'false' if e['recompute'] == 'none' else 'true')
        return
    if e['zero_stage'] < 2:
        c.eq('ACCELERATE_USE_FSDP', env.get('ACCELERATE_USE_FSDP'), None)
        return
    c.eq('ACCELERATE_USE_FSDP', env.get('ACCELERATE_USE_FSDP'), 'true')
    c.eq('FSDP_SHARDING_STRATEGY', env.get('FSDP_SHARDING_STRATEGY'),
         'FULL_SHARD' if e['zero_stage'] >= 3 else 'SHARD_GRAD_OP')
    c.eq('FSDP_OFFLOAD_PARAMS', env.get('FSDP_OFFLOAD_PARAMS'),
         'true' if e['param_offload'] and e['zero_stage'] >= 3 else 'false')
    c.eq('FSDP_ACTIVATION_CHECKPOINTING',
         env.get('FSDP_ACTIVATION_CHECKPOINTING'),
         'false' if e['recompute'] == 'none' else 'true')
