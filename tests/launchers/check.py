#!/usr/bin/env python3
"""Run what a plan's tasks get through the launchers' own parsers.

    check.py TARBALL CACHE PLANS.jsonl
        unpacks TARBALL (../shared/launchers/launcher-sources.tar.xz) into
        CACHE once, then checks every record of PLANS.jsonl (written by
        tests/test_launch_parsers.c) with each tool, in processes run at
        once (PROCESSES), each under a Python that has what its tools
        need; prints one line per failure and a summary per tool. Exit 0
        when every plan parsed and read back as planned and every
        deliberately bad value (tamper, below) was caught; 1 otherwise; a
        tool whose Python or packages are missing is skipped with one line.
    check.py --tool NAME[,NAME...] CACHE PLANS.jsonl
        these tools, one after the other in this Python (what the first
        form runs, a process for the three that use the real torch and
        one for each other tool).

Each tool's module (tool_*.py) says which parser it calls and what it
stubs; tests/launchers/README.md has the table.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# the tools; each one's module (MODULE, else tool_NAME.py) says in NEEDS
# what its Python must have
TOOLS = ('torchrun', 'accelerate', 'transformers', 'torchtune', 'megatron',
         'deepspeed', 'torchtitan', 'torchtitan_v1')
# the tools each process runs: those on the real torch share its import
PROCESSES = (('torchrun', 'accelerate', 'torchtune'), ('transformers',),
             ('megatron',), ('deepspeed',), ('torchtitan',),
             ('torchtitan_v1',))
MODULE = {'torchtitan_v1': 'tool_torchtitan'}
PYTHONS = ('python3', '/usr/bin/python3')


def module(tool):
    import importlib
    return importlib.import_module(MODULE.get(tool, 'tool_' + tool))


# --- the sources -----------------------------------------------------------

def version_of(path, pattern=r'__version__\s*=\s*"([^"]+)"'):
    m = re.search(pattern, open(path).read())
    return m.group(1)


def dist_info(site, name, version):
    """The metadata an install leaves (importlib.metadata reads it)."""
    d = os.path.join(site, '%s-%s.dist-info' % (name, version))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'METADATA'), 'w') as f:
        f.write('Metadata-Version: 2.1\nName: %s\nVersion: %s\n'
                % (name, version))


def prepare(tarball, cache):
    """The tarball unpacked under cache (again only when it changed), as
    installing the sources would leave them; the paths by name."""
    root = os.path.join(cache, 'launcher-sources')
    st = os.stat(tarball)
    stamp = '%d %d\n' % (st.st_size, int(st.st_mtime))
    stamp_file = os.path.join(cache, 'stamp')
    if not (os.path.isdir(root) and os.path.exists(stamp_file) and
            open(stamp_file).read() == stamp):
        for old in ('launcher-sources', 'site', 'site-standin', 'pycache'):
            shutil.rmtree(os.path.join(cache, old), ignore_errors=True)
        os.makedirs(cache, exist_ok=True)
        with tarfile.open(tarball) as t:
            t.extractall(cache, filter='data') if hasattr(
                tarfile, 'data_filter') else t.extractall(cache)
        # DeepSpeed's repository links these into the package (setup.py
        # copies them on Windows); the tarball keeps files only
        ds = os.path.join(root, 'DeepSpeed', 'deepspeed')
        os.symlink('../accelerator', os.path.join(ds, 'accelerator'))
        os.symlink('../../op_builder', os.path.join(ds, 'ops', 'op_builder'))
        site = os.path.join(cache, 'site')
        for name, init in (('huggingface_hub', 'src/huggingface_hub'),
                           ('transformers', 'src/transformers'),
                           ('accelerate', 'src/accelerate')):
            dist_info(site, name, version_of(
                os.path.join(root, name, init, '__init__.py')))
        # stand-ins at the lowest version transformers accepts
        table = os.path.join(root, 'transformers', 'src', 'transformers',
                             'dependency_versions_table.py')
        standin = os.path.join(cache, 'site-standin')
        dist_info(site, 'safetensors', version_of(
            table, r'"safetensors": "safetensors>=([0-9.]+)"'))
        dist_info(standin, 'deepspeed', version_of(
            table, r'"deepspeed": "deepspeed>=([0-9.]+)"'))
        dist_info(standin, 'torch', '2.6.0')
        with open(stamp_file, 'w') as f:
            f.write(stamp)
    return sources(cache)


# --- bad values every tool must catch ----------------------------------------

def first(recs, cond):
    for r in recs:
        if cond(r['expect'], r):
            return json.loads(json.dumps(r))
    return None


def sub(rec, key, old, new):
    rec['launch'][key] = re.sub(old, new, rec['launch'][key], count=1)
    return rec


def tampers(tool, recs):
    import common
    """Copies of good records with one value made wrong, as a bug in the
    plan's formatting would: the tool must reject or read them back
    wrong. (name, record) pairs."""
    multi = lambda e, r: e['nodes'] > 1 and r['launch'].get('accelerate')
    out = []
    if tool == 'torchrun':
        r = first(recs, lambda e, r: e['nodes'] > 1)
        out.append(('endpoint on localhost',
                    sub(r, 'torchrun', r'rdzv_endpoint=[^:]+',
                        'rdzv_endpoint=localhost')) if r else None)
    elif tool == 'accelerate':
        r = first(recs, multi)
        if r:
            r['launch']['accelerate'] += ' --same_network'
        out.append(('--same_network', r) if r else None)
        r = first(recs, lambda e, r: 'parallelism_config_tp_size 2' in
                  (r['launch'].get('accelerate') or ''))
        out.append(('ParallelismConfig tp_size 4 for 2', sub(
            r, 'accelerate', 'tp_size 2', 'tp_size 4')) if r else None)
        r = first(recs, lambda e, r: common.split(e) == 'ulysses')
        out.append(('Ulysses without its --config_file', sub(
            r, 'accelerate', r'--config_file \S+ ', '')) if r else None)
    elif tool == 'transformers':
        r = first(recs, lambda e, r: r['launch'].get('hf_trainer'))
        out.append(('micro-batch + 1', sub(
            r, 'hf_trainer', r'batch_size (\d+)', lambda m: 'batch_size %d'
            % (int(m.group(1)) + 1))) if r else None)
        r = first(recs, lambda e, r: common.split(e) == 'nd' and
                  r['launch'].get('hf_trainer'))
        out.append(('ParallelismConfig dp_shard_size x 2', sub(
            r, 'accelerate', r'dp_shard_size (\d+)', lambda m:
            'dp_shard_size %d' % (2 * int(m.group(1))))) if r else None)
        # what DeepSpeed would check (micro x accumulation x DP) stated
        # in the JSON of a Ulysses plan, as plain DeepSpeed takes it
        r = first(recs, lambda e, r: common.split(e) == 'ulysses' and
                  r['launch'].get('hf_trainer'))
        if r:
            ds = dict(r['launch']['deepspeed'],
                      train_batch_size=r['expect']['global_batch'])
            path = r['where']['deepspeed_config'] + '.tampered'
            with open(path, 'w') as f:
                json.dump(ds, f)
            sub(r, 'accelerate', re.escape(r['where']['deepspeed_config']),
                path)
        out.append(('Ulysses JSON stating train_batch_size', r)
                   if r else None)
    elif tool == 'deepspeed':
        r = first(recs, lambda e, r: r['launch'].get('deepspeed'))
        if r:
            r['launch']['deepspeed']['gradient_accumulation_steps'] += 1
        out.append(('accumulation + 1', r) if r else None)
        r = first(recs, lambda e, r: common.split(e) == 'ulysses')
        if r:
            del r['launch']['deepspeed']['sequence_parallel_size']
        out.append(('Ulysses without sequence_parallel_size', r)
                   if r else None)
    elif tool == 'torchtune':
        r = first(recs, lambda e, r: r['launch'].get('torchtune') and
                  'single_device' in r['launch'].get('torchtune_recipe', ''))
        if r:
            r['launch']['tune_run'] = r['launch']['torchrun']
        out.append(('torchrun options to a single-device recipe', r)
                   if r else None)
        r = first(recs, lambda e, r: 'context_parallel_dim' in
                  (r['launch'].get('torchtune') or '') and
                  r['launch']['torchtune_recipe'].startswith('lora'))
        if r:
            r['launch']['torchtune'] += ' tensor_parallel_dim=2'
        out.append(('tensor_parallel_dim to the LoRA recipe', r)
                   if r else None)
    elif tool == 'torchtitan':
        r = first(recs, lambda e, r: r['launch'].get('torchtitan'))
        out.append(('the June 2026 option name', sub(
            r, 'torchtitan', r'num_tokens_per_microbatch_per_dp_rank \d+',
            'local_batch_size %d' % r['expect']['micro_batch']))
            if r else None)
        r = first(recs, lambda e, r: r['launch'].get('torchtitan') and
                  e['train_mode'] == 'lora' and e['tp'] > 1)
        if r:
            r['user']['titan_config'] = 'llama3_8b'
        out.append(('LoRA with a config function without LoRAConverter',
                    r) if r else None)
    elif tool == 'torchtitan_v1':
        r = first(recs, lambda e, r: r['launch'].get('torchtitan_v1') and
                  e['recompute'] != 'none')
        out.append(('no activation checkpointing', sub(
            r, 'torchtitan_v1', r'mode \w+', 'mode none')) if r else None)
    elif tool == 'megatron':
        r = first(recs, lambda e, r: r['launch'].get('megatron') and
                  e['tp'] > 1 and e['zero_stage'] < 3 and
                  'CUDA_DEVICE_MAX_CONNECTIONS' in (r['launch'].get('env')
                                                    or {}))
        if r:
            del r['launch']['env']['CUDA_DEVICE_MAX_CONNECTIONS']
        out.append(('CUDA_DEVICE_MAX_CONNECTIONS unset under TP', r)
                   if r else None)
        # a resumed run's iterations counted over the rest, not the run
        # (Megatron counts on from its checkpoint's iteration)
        r = first(recs, lambda e, r: r['launch'].get('megatron') and
                  e.get('job_steps') and '--exit-duration-in-mins' in
                  r['launch']['megatron'] and
                  e['job_steps'] < common.steps(e))
        out.append(('--train-iters of the job, not the run', sub(
            r, 'megatron', r'--train-iters \d+',
            '--train-iters %d' % r['expect']['job_steps']))
            if r else None)
        # the flex dispatcher's other backend than the plan priced
        r = first(recs, lambda e, r: r['launch'].get('megatron') and
                  e['moe_dispatcher'] == 'hybridep' and
                  '--moe-flex-dispatcher-backend hybridep' in
                  r['launch']['megatron'])
        out.append(('DeepEP exported for a HybridEP plan', sub(
            r, 'megatron', r'--moe-flex-dispatcher-backend hybridep',
            '--moe-flex-dispatcher-backend deepep')) if r else None)
    result = []
    for item in out:
        if item is None:
            print('%s: no plan of the table can carry its bad value' % tool)
            continue
        name, r = item
        r['tamper'] = name
        result.append(r)
    return result


# --- one tool ----------------------------------------------------------------

def run_tools(tools, cache, plans):
    """The tools (a comma list) one after the other in this process: each
    is set up right before its checks (they patch some of the same
    functions)."""
    import common
    src = sources(cache)
    recs = common.records(plans)
    ok = True
    for tool in tools.split(','):
        mod = module(tool)
        if mod.__name__ == 'tool_torchtitan':
            mod.setup(src, tool)
        else:
            mod.setup(src)
        check = common.Check(tool)
        mine = [r for r in recs if tool_applies(tool, r)]
        for rec in mine + tampers(tool, mine):
            check.run(rec, mod.check)
        ok = check.summary() and ok
    return 0 if ok else 1


def sources(cache):
    """The unpacked sources by folder name, and the two metadata sites."""
    root = os.path.join(cache, 'launcher-sources')
    src = {name: os.path.join(root, name) for name in os.listdir(root)}
    src['site'] = os.path.join(cache, 'site')
    src['site_standin'] = os.path.join(cache, 'site-standin')
    return src


# tools whose reading does not depend on the node check the first one
PER_NODE = ('torchrun', 'accelerate', 'torchtune')


def tool_applies(tool, rec):
    import common
    if rec['where']['node_rank'] != 0 and tool not in PER_NODE:
        return False
    key = {'transformers': 'hf_trainer'}.get(tool, tool)
    return key in common.wanted(rec['expect']) or \
        rec['launch'].get(key) not in (None, '')


# --- which Python ------------------------------------------------------------

PROBE = r'''
import importlib.util, importlib.metadata, json, sys
out = {"": sys.executable}
for name in sys.argv[1:]:
    try:
        if importlib.util.find_spec(name) is None:
            continue
    except Exception:
        continue
    try:
        out[name] = importlib.metadata.version(
            {"yaml": "PyYAML"}.get(name, name))
    except Exception:
        out[name] = "0"
print(json.dumps(out))
'''


def version_tuple(v):
    return tuple(int(x) for x in re.findall(r'\d+', v)[:3])


def probe(python, names):
    try:
        out = subprocess.run([python, '-c', PROBE] + sorted(names),
                             capture_output=True, text=True, timeout=60)
        return json.loads(out.stdout) if out.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def satisfied(have, needs):
    """The missing requirement of needs ('pydantic>=2'), or None."""
    for need in needs:
        name, _, least = need.partition('>=')
        if name not in have:
            return name
        if least and version_tuple(have[name]) < version_tuple(least):
            return '%s>=%s (has %s)' % (name, least, have[name])
    return None


def choose(needs_by_group):
    """The Python each group of tools runs under (the first of PYTHONS
    with what the group needs), or 'skip: ...'."""
    names = {n.partition('>=')[0] for needs in needs_by_group.values()
             for n in needs}
    seen, found = set(), []
    for py in PYTHONS:
        path = shutil.which(py)
        if not path or os.path.realpath(path) in seen:
            continue
        seen.add(os.path.realpath(path))
        have = probe(path, names)
        if have is not None:
            # the interpreter itself, not a wrapper (pyenv's shim)
            found.append((have.pop(''), have))
    choice = {}
    for group, needs in needs_by_group.items():
        missing = None
        for path, have in found:
            missing = satisfied(have, needs)
            if missing is None:
                choice[group] = path
                break
        if group not in choice:
            choice[group] = 'skip: no Python here has %s' % (
                missing or 'python3')
    return choice


def inputs_key(tarball, plans, choice):
    """What decides the verdict: the plans, these checks, the sources
    and the Pythons that ran them."""
    h = hashlib.sha256()
    st = os.stat(tarball)
    h.update(b'%d %d\n' % (st.st_size, int(st.st_mtime)))
    for path in [plans] + sorted(os.path.join(HERE, f)
                                 for f in os.listdir(HERE)
                                 if f.endswith('.py')):
        h.update(open(path, 'rb').read())
    for group, py in sorted(choice.items()):
        h.update(('%s %s %s\n' % (group, py, '' if py.startswith('skip')
                                  else os.stat(py).st_mtime)).encode())
    return h.hexdigest()[:24]


def main(argv):
    if argv[:1] == ['--tool']:
        return run_tools(argv[1], argv[2], argv[3])
    if len(argv) != 3:
        sys.exit(__doc__)
    tarball, cache, plans = (os.path.abspath(a) for a in argv)
    prepare(tarball, cache)
    choice = choose({group: sum((module(t).NEEDS for t in group), ())
                     for group in PROCESSES})
    # an identical run passed already (make check, then check-slurm and
    # check-asan run the unit tests again): its verdict stands
    verdict = os.path.join(cache, 'verdict-' + inputs_key(tarball, plans,
                                                         choice))
    if os.path.exists(verdict):
        sys.stdout.write(open(verdict).read())
        print('(the verdict of an earlier run with the same plans, checks, '
              'sources and Pythons: %s)' % verdict)
        return 0
    procs = {}
    for group in PROCESSES:
        if choice[group].startswith('skip'):
            continue
        # bytecode cached beside the sources (compiling them is most of
        # a first run), no user config of the HF tools read
        env = dict(os.environ,
                   PYTHONPYCACHEPREFIX=os.path.join(cache, 'pycache'),
                   HF_HOME=os.path.join(cache, 'hf-home'),
                   PYTHONWARNINGS='ignore')
        env.pop('PYTHONPATH', None)
        procs[group] = subprocess.Popen(
            [choice[group], os.path.abspath(__file__), '--tool',
             ','.join(group), cache, plans], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, env=env, cwd=cache)
    status, report = 0, []
    for group in PROCESSES:
        if group not in procs:
            report += ['%s: %s' % (t, choice[group]) for t in group]
            continue
        out, _ = procs[group].communicate()
        lines = out.rstrip('\n').splitlines()
        done = [t for t in group
                if any(l.startswith(t + ':') for l in lines)]
        if procs[group].returncode != 0 or len(done) < len(group):
            status = 1
        report += lines
        if len(done) < len(group):
            # a crash before a summary: its traceback's end is above
            report += ['%s: failed to run' % t for t in group
                       if t not in done]
    text = '\n'.join(report) + '\n'
    sys.stdout.write(text)
    if status == 0:
        for old in os.listdir(cache):
            if old.startswith('verdict-'):
                os.unlink(os.path.join(cache, old))
        with open(verdict, 'w') as f:
            f.write(text)
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
