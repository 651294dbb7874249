"""Stand-ins for modules a launcher's parser imports but does not use.

Megatron-LM, DeepSpeed, transformers 5 and torchtitan import a newer torch
than Debian's (1.13) and GPU packages (Transformer Engine, apex, triton) at
module level; their argument parsing and start-up checks are pure Python.
install() puts a finder first on sys.meta_path that answers the named
top-level modules with stand-ins (tests/launchers/README.md, "What is
stubbed", lists them per tool):

- every attribute of a stand-in module is another stand-in (a class that
  answers any attribute, call or operator), so `from torch.nn import Module`
  and `class X(Module)` work; a stand-in used as a decorator returns the
  function, still callable;
- torch itself is a small fixed model of the job's machine: __version__
  2.6.0, the dtypes as instances of torch.dtype, and torch.cuda reporting
  the plan's GPUs (count, compute capability; bf16 from 8.0 up, as
  torch.cuda.is_bf16_supported does), so a parser's GPU checks
  (Megatron's CUDA_DEVICE_MAX_CONNECTIONS rule below Blackwell, the
  Trainer's bf16 check) see the planned hardware.
"""
import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import typing


class Anything(type(typing.Protocol)):
    """A class answering every attribute, call and operator with another
    such class: usable as a base class, a type hint or a default."""

    def __getattr__(cls, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return anything(name)

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and callable(args[0]) and \
                not isinstance(args[0], Anything):
            # used as a decorator: keep the class or function
            return args[0] if isinstance(args[0], type) else \
                Wrapped(args[0])
        return anything('call')

    def __getitem__(cls, key):
        return anything('item')

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __bool__(cls):
        return False

    def __hash__(cls):
        return id(cls)

    def __eq__(cls, other):
        return cls is other

    def __index__(cls):
        return 0

    def __int__(cls):
        return 0

    def __enter__(cls):
        return cls

    def __exit__(cls, *exc):
        return False


for _op in ('or', 'ror', 'and', 'rand', 'add', 'radd', 'mul', 'rmul', 'sub',
            'rsub', 'truediv', 'rtruediv', 'floordiv', 'mod'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: anything('op'))
for _op in ('lt', 'gt'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: False)
for _op in ('le', 'ge'):
    setattr(Anything, '__%s__' % _op, lambda cls, other: True)


def anything(name):
    return Anything(str(name), (), {})


class Wrapped:
    """A function under a stand-in decorator: still callable, and any
    attribute the decorator would add (op.register_fake) exists."""

    def __init__(self, f):
        functools.update_wrapper(self, f)

    def __call__(self, *args, **kwargs):
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return anything(name)

    def __get__(self, obj, owner=None):
        return self if obj is None else functools.partial(self, obj)


class dtype:
    """torch.dtype: the dtypes below are its instances."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return 'torch.' + self.name


DTYPES = {'float16': 'half', 'bfloat16': None, 'float32': 'float',
          'float64': 'double', 'int8': None, 'uint8': None, 'int16': 'short',
          'int32': 'int', 'int64': 'long', 'bool': None,
          'float8_e4m3fn': None, 'float8_e5m2': None}

# module name -> attributes its stand-in starts with
FIXED = {}
# the version a stand-in reports: current releases (Megatron checks
# Transformer Engine's: --delay-wgrad-compute with --overlap-grad-reduce
# needs 2.8 or later); others 2.6.0, the torch of the dist-info check.py
# writes for the stand-in torch
VERSIONS = {'transformer_engine': '2.9.0'}


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        sub = self.__name__ + '.' + name
        value = importlib.import_module(sub) if sub in FIXED \
            else anything(name)
        setattr(self, name, value)
        return value


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names):
        self.names = frozenset(names)

    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in self.names:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = StubModule(spec.name)
        module.__path__ = []
        module.__spec__ = spec
        module.__version__ = VERSIONS.get(spec.name, '2.6.0')
        for key, value in FIXED.get(spec.name, {}).items():
            setattr(module, key, value)
        return module

    def exec_module(self, module):
        pass


# the job's machine as torch.cuda and torch.distributed report it
MACHINE = {'capability': (9, 0), 'gpus': 8, 'world': 8}


def machine(capability, gpus, world=None):
    """The GPUs the stand-in torch reports from now on: gpus on this
    node of this compute capability, world in the started process group
    (world None: no group started)."""
    MACHINE.update(capability=tuple(capability), gpus=gpus, world=world)


def install(names, if_missing=()):
    """Answer the top-level modules names with stand-ins (torch, when
    named, as described above), and those of if_missing that this
    Python does not have."""
    names = tuple(names) + tuple(n for n in if_missing
                                 if importlib.util.find_spec(n) is None)
    torch = {'__version__': '2.6.0', 'dtype': dtype}
    for name, alias in DTYPES.items():
        torch[name] = dtype(name)
        if alias:
            torch[alias] = torch[name]
    FIXED['torch'] = torch
    cap = MACHINE.get
    FIXED['torch.cuda'] = {
        'is_available': lambda: True,
        'device_count': lambda: cap('gpus'),
        'get_device_capability': lambda *a: cap('capability'),
        'get_device_properties': lambda *a: types.SimpleNamespace(
            major=cap('capability')[0], minor=cap('capability')[1]),
        'is_bf16_supported': lambda *a, **k: cap('capability') >= (8, 0),
    }
    FIXED['torch.version'] = {'cuda': '12.8', 'hip': None}
    FIXED['torch.distributed'] = {
        'is_available': lambda: True,
        'is_initialized': lambda: cap('world') is not None,
        'get_world_size': lambda *a, **k: cap('world') or 1,
        'get_rank': lambda *a, **k: 0,
    }
    FIXED['deepspeed.comm'] = FIXED['torch.distributed']
    sys.meta_path.insert(0, StubFinder(names))
    if not hasattr(typing, 'override'):
        # Python 3.11 lacks typing.override (3.12), which Megatron imports
        typing.override = lambda f: f
