"""torchtune: `tune run $AUTOSIZE_TUNE_RUN_ARGS $AUTOSIZE_TORCHTUNE_RECIPE
--config CONFIG $AUTOSIZE_TORCHTUNE_ARGS` through tune run's own parser
and _run_cmd (its refusal of torchrun options for a single-device recipe
included) up to the spawn (torchrun's launch config for a distributed
recipe), then the recipe's configuration as the recipe gets it
(torchtune.config._parse's TuneRecipeArgumentParser and
_merge_yaml_and_cli_args, OmegaConf), read back; every override must be a
key the recipe reads (its cfg.get / cfg.X / cfg["X"], found in its
source; a component's key must be a parameter of the component).

Stubbed: torchtune/__init__.py and torchtune/utils/__init__.py are not
run (they import torchao and the models, for torch 2.x): the package
folders are registered bare and the CLI and config modules load from
them. The distributed recipes' mesh is their ParallelDims class, taken
alone from training/_distributed.py (whose imports need torch 2.x), and
the TP checks of their __init__ (not run) are restated in read_mesh. torch.distributed.run's run records instead of starting workers,
and a single-device recipe is recorded instead of run in this process.
The CONFIG is the recipe's own config for the plan's model in the
tarball (what a user passes)."""
import argparse
import ast
import os
import sys
import types

import tool_torchrun
from common import line

NEEDS = ('torch', 'omegaconf', 'yaml')
STUBBED = ()


def setup(src):
    global ROOT, RUN, PARSE, MERGE
    ROOT = src['torchtune']
    sys.path.insert(0, ROOT)
    for name in ('torchtune', 'torchtune.utils'):
        path = os.path.join(ROOT, *name.split('.'))
        m = types.ModuleType(name)
        m.__path__ = [path]
        m.__file__ = os.path.join(path, '__init__.py')
        sys.modules[name] = m
    tool_torchrun.setup(src)
    import torchtune._cli.run as RUN
    from torchtune.config._parse import TuneRecipeArgumentParser as PARSE
    from torchtune.config._utils import _merge_yaml_and_cli_args as MERGE
    # the spawn: torchrun's run (distributed) or the recipe in this
    # process (single device) record what they were given
    RUN.run = lambda a: SEEN.update(
        kind='distributed', args=a,
        cfg=tool_torchrun.RUN.config_from_args(a)[0])
    RUN.Run._run_single_device = lambda self, a, is_builtin: SEEN.update(
        kind='single', args=a)


SEEN = {}
READS = {}


def recipe_reads(recipe):
    """Top-level keys the recipe's source reads from cfg."""
    if recipe in READS:
        return READS[recipe]
    tree = ast.parse(open(os.path.join(ROOT, 'recipes', recipe + '.py')).read())
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and \
                isinstance(node.value, ast.Name) and node.value.id == 'cfg':
            keys.add(node.attr)
        elif isinstance(node, ast.Call) and \
                isinstance(node.func, ast.Attribute) and \
                node.func.attr == 'get' and \
                isinstance(node.func.value, ast.Name) and \
                node.func.value.id == 'cfg' and node.args and \
                isinstance(node.args[0], ast.Constant):
            keys.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and \
                isinstance(node.value, ast.Name) and node.value.id == 'cfg' \
                and isinstance(node.slice, ast.Constant):
            keys.add(node.slice.value)
    READS[recipe] = keys - {'get'}
    return READS[recipe]


def component_takes(path, param):
    """1 when the function path (a _component_) has parameter param."""
    module, fn = path.rsplit('.', 1)
    folder = os.path.join(ROOT, *module.split('.'))
    files = [os.path.join(folder, f) for f in sorted(os.listdir(folder))
             if f.endswith('.py')] if os.path.isdir(folder) \
        else [folder + '.py']
    for f in files:
        for node in ast.walk(ast.parse(open(f).read())):
            if isinstance(node, ast.FunctionDef) and node.name == fn:
                a = node.args
                return param in [x.arg for x in
                                 a.args + a.kwonlyargs + a.posonlyargs]
    return False


def config_name(rec, recipe):
    """The recipe's config for the plan's model, as the user picks it."""
    base = (rec['user']['torchtune'].split() or [''])[0]
    mode = rec['expect']['train_mode']
    sfx = '_single_device' if 'single_device' in recipe else ''
    kinds = ('full',) if 'full' in recipe else \
        (('qlora', 'lora') if mode == 'qlora' else ('lora',))
    for kind in kinds:
        name = '%s_%s%s' % (base, kind, sfx)
        if os.path.exists(os.path.join(ROOT, 'recipes', 'configs',
                                       name + '.yaml')):
            return name
    raise LookupError('no torchtune config %s_%s%s' % (base, kinds[0], sfx))


DIMS = []


def parallel_dims():
    """torchtune's own ParallelDims (training/_distributed.py), the class
    alone: its module imports torch 2.x's device mesh and torchao."""
    if not DIMS:
        path = os.path.join(ROOT, 'torchtune', 'training', '_distributed.py')
        tree = ast.parse(open(path).read())
        cls = [n for n in tree.body if isinstance(n, ast.ClassDef) and
               n.name == 'ParallelDims']
        scope = {}
        exec(compile(ast.Module(body=cls, type_ignores=[]), path, 'exec'),
             {'dataclass': __import__('dataclasses').dataclass,
              'cached_property': __import__('functools').cached_property,
              'init_device_mesh': None}, scope)
        DIMS.append(scope['ParallelDims'])
    return DIMS[0]


def read_mesh(cfg, recipe, e, c):
    """The distributed recipe's device mesh as its __init__ builds it
    (the recipe's own checks first: the LoRA recipe asserts TP 1, TP
    needs the config's tensor_parallel_plan), read back."""
    tp = cfg.get('tensor_parallel_dim', 1)
    if tp > 1 and recipe.startswith('lora'):
        c.fail('%s asserts tensor_parallel_dim 1 (TP %d)' % (recipe, tp))
    if tp > 1 and cfg.get('tensor_parallel_plan') is None:
        c.fail('Tensor Parallel plan needs to be provided when tensor '
               'parallel is enabled (the config has none)')
    dims = parallel_dims()(
        dp_replicate=cfg.get('data_parallel_replicate_dim', 1),
        dp_shard=cfg.get('data_parallel_shard_dim', -1), tp=tp,
        cp=cfg.get('context_parallel_dim', 1),
        world_size=e['nodes'] * e['gpus_per_node'])
    c.eq('tensor_parallel_dim', dims.tp, e['tp'])
    c.eq('context_parallel_dim', dims.cp, e['cp'])
    c.eq('data parallel (replicate x shard)',
         dims.dp_replicate * dims.dp_shard, e['dp'])


def expected_recipe(e):
    kind = 'full' if e['train_mode'] in ('pretrain', 'finetune') else 'lora'
    dist = e['nodes'] * e['gpus_per_node'] > 1 or e['param_offload'] or \
        (kind == 'full' and e['precision'] == 'fp8')
    return '%s_finetune_%s' % (kind, 'distributed' if dist
                               else 'single_device')


def check(rec, c):
    e, L = rec['expect'], rec['launch']
    overrides = line(rec, 'torchtune')
    if overrides is None:
        return c.fail('no torchtune overrides')
    recipe = L.get('torchtune_recipe') or ''
    c.eq('recipe', recipe, expected_recipe(e))
    if not recipe:
        return
    tune = line(rec, 'tune_run') or []
    # what the user adds to the config (a TP plan it lacks)
    added = rec['user']['torchtune'].split()[1:]
    argv = ['run'] + tune + [recipe, '--config', config_name(rec, recipe)] \
        + overrides + added
    SEEN.clear()
    saved = sys.argv
    sys.argv = ['tune'] + argv
    try:
        p = argparse.ArgumentParser(prog='tune')
        RUN.Run(p.add_subparsers(title='subcommands'))
        a = p.parse_args(argv)
        a.func(a)
    finally:
        sys.argv = saved
    dist = recipe.endswith('_distributed')
    c.eq('tune run', SEEN.get('kind'), 'distributed' if dist else 'single')
    if SEEN.get('kind') == 'distributed':
        tool_torchrun.read_back(SEEN['cfg'], rec, c)
    if 'args' not in SEEN:
        return
    yaml_args, cli = PARSE(description='recipe').parse_known_args(
        SEEN['args'].recipe_args)
    cfg = MERGE(yaml_args, cli)
    reads = recipe_reads(recipe)
    for word in overrides:
        key = word.split('=', 1)[0]
        top = key.split('.')[0]
        if top not in reads:
            c.fail('%s: %s never reads %s' % (key, recipe, top))
        elif '.' in key and not component_takes(
                cfg[top]['_component_'], key.split('.', 1)[1]):
            c.fail('%s: %s takes no %s' % (key, cfg[top]['_component_'],
                                           key.split('.', 1)[1]))
    c.eq('batch_size', cfg.batch_size, e['micro_batch'])
    c.eq('gradient_accumulation_steps', cfg.gradient_accumulation_steps,
         e['grad_accum'])
    c.eq('dtype', cfg.dtype, 'bf16')
    c.eq('tokenizer.max_seq_len', cfg.tokenizer.max_seq_len, e['seq_len'])
    c.eq('enable_activation_checkpointing',
         cfg.enable_activation_checkpointing, e['recompute'] != 'none')
    c.eq('enable_activation_offloading',
         cfg.get('enable_activation_offloading', False),
         bool(e['act_offload']) and e['recompute'] == 'full')
    if e['tokens'] > 0:
        import common
        c.eq('epochs', cfg.epochs, 1)
        c.eq('max_steps_per_epoch', cfg.max_steps_per_epoch,
             common.steps(e))
    if dist:
        read_mesh(cfg, recipe, e, c)
        c.eq('fsdp_reshard_after_forward',
             cfg.get('fsdp_reshard_after_forward', True),
             e['zero_stage'] >= 3)
        c.eq('fsdp_cpu_offload', cfg.get('fsdp_cpu_offload', False),
             bool(e['param_offload']))
    c.eq('enable_fp8_training', cfg.get('enable_fp8_training', False),
         e['precision'] == 'fp8' and 'full' in recipe)
