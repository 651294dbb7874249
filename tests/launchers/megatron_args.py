#!/usr/bin/env python3
"""Megatron-LM's own argument parser, without a GPU stack.

    MEGATRON_LM=/path/to/Megatron-LM python3 tests/launchers/megatron_args.py
        prints every option string of the parser (tests/data/megatron-args.txt
        was made so);
    ... megatron_args.py --check < lines
        parses each line of arguments (as AUTOSIZE_MEGATRON_ARGS) with that
        parser: unknown names, bad types and bad choices fail (exit 1).

Megatron imports torch and friends at module level; only argparse is used
here, so those modules are replaced by permissive stand-ins. Python 3.11
lacks typing.override (3.12), which Megatron imports: an identity stands in.
"""
import importlib.abc
import importlib.machinery
import os
import sys
import types
import typing

STUBBED = ('torch', 'transformer_engine', 'apex', 'einops', 'flash_attn',
           'numpy', 'nvidia', 'triton', 'tensorstore', 'zarr', 'modelopt',
           'wandb', 'tqdm', 'safetensors', 'mamba_ssm', 'causal_conv1d',
           'nvtx', 'psutil', 'regex', 'sentencepiece', 'tiktoken',
           'transformers', 'onelogger', 'nvidia_resiliency_ext',
           'multistorageclient', 'pynvml', 'datasets', 'emerging_optimizers',
           'flashinfer', 'nv_one_logger', 'yaml')


class Anything(type(typing.Protocol)):
    """A class that answers every attribute, call and operator with
    another such class (usable as a base, a type hint or a default)."""

    def __getattr__(cls, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return anything(name)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and \
                not isinstance(args[0], Anything):
            return args[0]            # used as a decorator
        return anything('call')

    def __getitem__(cls, key):
        return anything('item')

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __hash__(cls):
        return id(cls)

    def __eq__(cls, other):
        return cls is other

    def __index__(cls):
        return 0

    def __enter__(cls):
        return cls

    def __exit__(cls, *exc):
        return False


for _op in ('or', 'ror', 'add', 'radd', 'mul', 'rmul', 'sub', 'rsub',
            'truediv', 'rtruediv', 'floordiv', 'mod'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: anything('op'))
for _op in ('lt', 'gt'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: False)
for _op in ('le', 'ge'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: True)


def anything(name):
    return Anything(str(name), (), {})


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        value = anything(name)
        setattr(self, name, value)
        return value


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        module.__spec__ = spec
        module.__version__ = '2.6.0'
        return module

    def exec_module(self, module):
        pass


def parser():
    root = os.environ.get('MEGATRON_LM')
    if not root or not os.path.isdir(os.path.join(root, 'megatron')):
        sys.exit('megatron_args.py: set MEGATRON_LM to a Megatron-LM checkout')
    sys.path.insert(0, root)
    sys.meta_path.insert(0, StubFinder())
    if not hasattr(typing, 'override'):
        typing.override = lambda f: f
    import argparse
    from megatron.training.arguments import add_megatron_arguments
    return add_megatron_arguments(argparse.ArgumentParser(allow_abbrev=False))


def main():
    p = parser()
    if sys.argv[1:] == ['--check']:
        failed = 0
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                p.parse_args(line.split())
                print('ok   ', line.strip())
            except SystemExit:
                print('FAIL ', line.strip())
                failed = 1
        sys.exit(failed)
    for opt in sorted(p._option_string_actions):
        if opt.startswith('--'):
            print(opt)


if __name__ == '__main__':
    main()
