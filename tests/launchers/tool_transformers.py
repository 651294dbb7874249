"""The Hugging Face Trainer: AUTOSIZE_HF_TRAINER_ARGS through
HfArgumentParser(TrainingArguments) (its __post_init__ checks included),
in the environment `accelerate launch` gives a worker of the plan's line
(accelerate's own _validate_launch_command and prepare_*_env), then for a
DeepSpeed plan the Trainer's own cross-check of the DeepSpeed JSON against
its arguments (HfTrainerDeepSpeedConfig.trainer_config_process, what
Trainer.propagate_args_to_deepspeed runs; mismatches raise).

accelerate's ParallelismConfig is built in the worker's environment as
its Accelerator builds it and checked by its own _validate_accelerator,
given an object with the world's process count and engine (what that
check reads) for the Accelerator.

Stubbed: torch (transformers 5 needs torch >= 2.4; Debian has 1.13: the
stand-in reports the plan's GPUs and a started process group of the
plan's size, as torchrun's workers see it), deepspeed (the Trainer only
starts its process group here; DeepSpeed's own checks are
tool_deepspeed's), and where this Python lacks them safetensors and
httpx/httpcore (file-format and HTTP modules imported at module level)."""
import os
import sys
import tempfile
import types

import common
from common import line

NEEDS = ('numpy', 'packaging', 'yaml', 'regex', 'tqdm', 'filelock')
STUBBED = ('torch', 'deepspeed')
IMPORTED = ('safetensors', 'httpx', 'httpcore')


def setup(src):
    import standin
    sys.path[:0] = [src['site_standin'], src['site'],
                    src['transformers'] + '/src',
                    src['huggingface_hub'] + '/src',
                    src['accelerate'] + '/src']
    standin.install(STUBBED, IMPORTED)
    global STANDIN, PARSER, TA, DSCONFIG, LAUNCH, ULAUNCH, PCONFIG
    STANDIN = standin
    from transformers import HfArgumentParser, TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig
    import accelerate.commands.launch as LAUNCH
    import accelerate.utils.launch as ULAUNCH
    from accelerate.parallelism_config import ParallelismConfig as PCONFIG
    PARSER, TA, DSCONFIG = HfArgumentParser(TrainingArguments), \
        TrainingArguments, HfTrainerDeepSpeedConfig


def worker_env(rec):
    """What accelerate launch gives worker 0 of the record's node: its
    prepared environment (launch_command's branches, no spawn) and
    torchrun's per-worker variables."""
    e = rec['expect']
    args = LAUNCH.launch_command_parser().parse_args(
        line(rec, 'accelerate') + ['train.py'])
    with common.environ(common.task_env(rec)):
        args, _, _ = LAUNCH._validate_launch_command(args)
        ULAUNCH.is_fp8_available = lambda: True
        if args.use_deepspeed:
            args.deepspeed_fields_from_accelerate_config = ''
            _, env = ULAUNCH.prepare_deepspeed_cmd_env(args)
        elif args.use_fsdp or args.multi_gpu:
            env = ULAUNCH.prepare_multi_gpu_env(args)
        else:
            _, env = ULAUNCH.prepare_simple_launcher_cmd_env(args)
    gpus = e['nodes'] * e['gpus_per_node']
    env.update(WORLD_SIZE=str(gpus), LOCAL_WORLD_SIZE=str(e['gpus_per_node']),
               RANK=str(rec['where']['node_rank'] * e['gpus_per_node']),
               LOCAL_RANK='0')
    return env


def parallelism(env, e, c):
    """accelerate's ParallelismConfig as the worker's Accelerator builds
    it from the launch's variables (Accelerator.__init__ when
    ACCELERATE_USE_PARALLELISM_CONFIG is true), checked against the world
    by its own _validate_accelerator, read back; the Trainer's data-
    parallel world (Trainer.get_total_train_batch_size: world / (tp x cp
    x sp)) carries the plan's batch."""
    world = e['nodes'] * e['gpus_per_node']
    deepspeed = env.get('ACCELERATE_USE_DEEPSPEED') == 'true'
    pc = PCONFIG()
    accel = types.SimpleNamespace(
        num_processes=world, multi_device=False, is_main_process=False,
        is_fsdp2=env.get('ACCELERATE_USE_FSDP') == 'true' and
        env.get('FSDP_VERSION') == '2',
        distributed_type='DEEPSPEED' if deepspeed else 'FSDP')
    pc._validate_accelerator(accel)
    c.eq('ParallelismConfig tp_size', pc.tp_size, e['tp'])
    c.eq('ParallelismConfig cp_size x sp_size', pc.cp_size * pc.sp_size,
         e['cp'])
    c.eq('ParallelismConfig data_parallel_size', pc.data_parallel_size,
         e['dp'])
    c.eq('sequence parallelism (Ulysses)', pc.sp_enabled, deepspeed)
    dp_world = world // pc.tp_size // pc.cp_size // pc.sp_size
    return dp_world


def check(rec, c):
    e = rec['expect']
    words = line(rec, 'hf_trainer')
    if words is None:
        return c.fail('no Trainer arguments')
    STANDIN.machine(common.capability(e['gpu']), e['gpus_per_node'],
                    e['nodes'] * e['gpus_per_node'])
    env = worker_env(rec)
    with tempfile.TemporaryDirectory() as out, common.environ(env):
        (args,) = PARSER.parse_args_into_dataclasses(
            words + ['--output_dir', out])
        if env.get('ACCELERATE_USE_DEEPSPEED') == 'true':
            # Trainer.propagate_args_to_deepspeed
            plugin = args.deepspeed_plugin
            ds = DSCONFIG(plugin.hf_ds_config.config)
            ds.trainer_config_process(args)
            if ds.mismatches:
                c.fail('DeepSpeed JSON and Trainer disagree: ' +
                       '; '.join(ds.mismatches))
    c.eq('per_device_train_batch_size', args.per_device_train_batch_size,
         e['micro_batch'])
    c.eq('gradient_accumulation_steps', args.gradient_accumulation_steps,
         e['grad_accum'])
    c.eq('max_steps', args.max_steps, common.steps(e) or -1)
    c.eq('mixed precision', args.mixed_precision, e['precision'])
    dp_world = e['nodes'] * e['gpus_per_node']
    if env.get('ACCELERATE_USE_PARALLELISM_CONFIG') == 'true':
        with common.environ(env):
            dp_world = parallelism(env, e, c)
    c.eq('global batch (micro-batch x accumulation x data-parallel world)',
         args.per_device_train_batch_size * args.gradient_accumulation_steps
         * dp_world, e['global_batch'])
    fsdp_ac = env.get('FSDP_ACTIVATION_CHECKPOINTING') == 'true'
    c.eq('recomputation (Trainer or FSDP, never both)',
         (args.gradient_checkpointing or fsdp_ac) and
         not (args.gradient_checkpointing and fsdp_ac),
         e['recompute'] != 'none')
