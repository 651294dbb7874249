"""What every launcher check shares: the plan records, what a plan must
read back as, and the ok / FAIL lines (tests/launchers/README.md)."""
import contextlib
import io
import json
import math
import os
import re
import sys

# compute capability of the GPUs the test plans on (the stand-in torch
# reports it; vendor datasheets)
CAPABILITY = {'A100': (8, 0), 'A800': (8, 0), 'A10G': (8, 6), 'L40S': (8, 9),
              'L4': (8, 9), 'RTX-4090': (8, 9), 'RTX-6000-Ada': (8, 9),
              'H100': (9, 0), 'H200': (9, 0), 'H800': (9, 0), 'H20': (9, 0),
              'GH200': (9, 0), 'B200': (10, 0), 'GB200': (10, 0),
              'B300': (10, 3), 'GB300': (10, 3), 'V100': (7, 0)}

RECOMPUTE = ('none', 'selective', 'full', 'selective-mlp')


def capability(gpu):
    for prefix, cap in CAPABILITY.items():
        if gpu.upper().startswith(prefix.upper()):
            return cap
    raise KeyError('no compute capability known for %s' % gpu)


def run_precision(e):
    """The precision the job trains in: torchtune's LoRA recipes read no
    enable_fp8_training, and the HF Trainer's DeepSpeed check refuses FP8
    (tool_transformers), so such plans train (and are priced) in bf16."""
    if e['precision'] == 'nvfp4':
        # Megatron-Core's --fp4-format only; the others train bf16
        return 'nvfp4' if e['framework'] == 'megatron' else 'bf16'
    if e['precision'] != 'fp8':
        return e['precision']
    if e['stack'] == 'torchtune' and peft(e):
        return 'bf16'
    if e['stack'] in ('hf', 'axolotl', 'llama-factory', 'unsloth') and \
            e['framework'] == 'deepspeed':
        return 'bf16'
    return 'fp8'


def records(path):
    """The plan records; expect.precision is what the job trains in
    (precision_asked: what the request said)."""
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    for r in recs:
        e = r['expect']
        e['precision_asked'] = e['precision']
        e['precision'] = run_precision(e)
    return recs


def steps(e):
    """Optimizer steps that train the planned tokens (0: no token count):
    whole steps, the last one may run past the count."""
    per_step = e['global_batch'] * e['seq_len']
    return math.ceil(e['tokens'] / per_step) if e['tokens'] > 0 else 0


def peft(e):
    return e['train_mode'] in ('lora', 'qlora')


def split(e):
    """How the fine-tuning stacks split the plan's layout: 'dp' (data
    parallel alone), 'nd' (FSDP2 with TP or CP), 'ulysses' (DeepSpeed
    with CP), or None (not theirs)."""
    if e['framework'] not in ('fsdp', 'deepspeed') or e['pp'] > 1 or \
            e['ep'] > 1:
        return None
    if e['tp'] == 1 and e['cp'] <= 1:
        return 'dp'
    if e['framework'] == 'fsdp':
        return 'nd'
    return 'ulysses' if e['tp'] == 1 else None


def wanted(e):
    """The launcher lines a plan must get (the others may be absent)."""
    want = {'torchrun'}
    s = split(e)
    if e['framework'] == 'megatron' and not peft(e):
        want.add('megatron')
    if e['framework'] == 'deepspeed':
        want.add('deepspeed')
    if e['framework'] == 'fsdp' and not peft(e):
        want |= {'torchtitan', 'torchtitan_v1'}
    # torchtitan's LoRAConverter: LoRA in the current release
    if e['framework'] == 'fsdp' and e['train_mode'] == 'lora':
        want.add('torchtitan')
    # accelerate runs TP and CP under FSDP2 only, which shards no
    # bitsandbytes 4-bit weights
    if s == 'dp' or s == 'ulysses' or \
            (s == 'nd' and e['train_mode'] != 'qlora'):
        want |= {'accelerate', 'hf_trainer'}
    # torchtune: FSDP, bf16; its LoRA recipes refuse TP
    if e['framework'] == 'fsdp' and e['precision'] != 'fp16' and \
            (s == 'dp' or (s == 'nd' and not (peft(e) and e['tp'] > 1))):
        want.add('torchtune')
    return want


class Check:
    """One tool's verdicts over the records: eq() and fail() collect what
    differs from the plan; done() prints one line per record."""

    def __init__(self, tool):
        self.tool = tool
        self.parsed = 0
        self.failed = 0
        self.skipped = 0
        self.tampers = 0
        self.caught = 0
        self.problems = []

    def fail(self, what):
        self.problems.append(what)

    def eq(self, what, got, want):
        if got != want:
            self.fail('%s is %r, the plan has %r' % (what, got, want))

    def run(self, rec, fn):
        """fn(rec, self) checks one record; any exception is a refusal."""
        self.problems = []
        name = '%s node %d' % (rec['name'], rec['where']['node_rank'])
        log = io.StringIO()
        try:
            with contextlib.redirect_stdout(log), \
                    contextlib.redirect_stderr(log):
                fn(rec, self)
        except SystemExit as e:
            self.fail('refused (exit %s): %s' % (e.code, why(log.getvalue())))
        except Exception as e:  # the tool's own refusal
            self.fail('refused: %s: %s' % (type(e).__name__,
                                          str(e).splitlines()[0][:300]
                                          if str(e) else ''))
        tamper = rec.get('tamper')
        if tamper:
            self.tampers += 1
            if self.problems:
                self.caught += 1
                print('caught  %-10s %s [%s]: %s' % (
                    self.tool, name, tamper, self.problems[0]))
            else:
                print('MISSED  %-10s %s [%s]' % (self.tool, name, tamper))
            return
        self.parsed += 1
        if self.problems:
            self.failed += 1
            for p in self.problems:
                print('FAIL  %-10s %s: %s' % (self.tool, name, p))
        elif os.environ.get('AUTOSIZE_LAUNCHERS_VERBOSE'):
            print('ok    %-10s %s' % (self.tool, name))

    def summary(self):
        line = '%s: %d plans parsed, %d failed' % (self.tool, self.parsed,
                                                   self.failed)
        if self.tampers:
            line += '; %d of %d bad values caught' % (self.caught,
                                                      self.tampers)
        print(line)
        sys.stdout.flush()
        return self.failed == 0 and self.caught == self.tampers


def why(text):
    """The part of a parser's message that says what it refused: from
    its first error word, box drawing and runs of blanks squeezed."""
    text = re.sub(r'[\u2500-\u257f]+', ' ', text)
    at = min([i for i in (text.find(w) for w in (
        'Unrecognized', 'error:', 'Error', 'invalid')) if i >= 0] or [0])
    return ' '.join(text[at:].split())[:300]


@contextlib.contextmanager
def environ(env):
    """os.environ replaced by env for the block."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def task_env(rec):
    """The environment a task of the plan starts with: the plan's
    exported variables (launch.env) over a clean one."""
    env = {k: v for k, v in os.environ.items()
           if k in ('PATH', 'HOME', 'LANG', 'PYTHONPATH', 'TMPDIR')}
    env.update(rec['launch'].get('env') or {})
    return env


def line(rec, key):
    """The exported line key as words, or None."""
    value = rec['launch'].get(key)
    return value.split() if isinstance(value, str) else None
