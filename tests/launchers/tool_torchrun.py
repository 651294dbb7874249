"""torchrun (Debian's python3-torch): AUTOSIZE_TORCHRUN_ARGS through
torch.distributed.run's own parser and config_from_args, the last step
before its agent starts the workers. Nothing is stubbed."""
from common import line

NEEDS = ('torch',)
STUBBED = ()


def setup(src):
    import torch.distributed.run as run
    global RUN
    RUN = run


def endpoint(rec):
    e, w = rec['expect'], rec['where']
    return '%s:%d' % (w['host'] if e['nodes'] > 1 else 'localhost',
                      w['port'])


def read_back(cfg, rec, c, backend='c10d', where=None):
    """The agent's size and rendezvous are the plan's: every node meets
    at the step's first node and port (one node: this one)."""
    e = rec['expect']
    c.eq('nodes (min)', cfg.min_nodes, e['nodes'])
    c.eq('nodes (max)', cfg.max_nodes, e['nodes'])
    c.eq('processes per node', cfg.nproc_per_node, e['gpus_per_node'])
    c.eq('rendezvous backend', cfg.rdzv_backend, backend)
    c.eq('rendezvous endpoint', cfg.rdzv_endpoint, where or endpoint(rec))


def config(words, c):
    """torchrun's launch config for words + a script."""
    args = RUN.get_args_parser().parse_args(words + ['train.py'])
    cfg, _, _ = RUN.config_from_args(args)
    return cfg




def check(rec, c):
    words = line(rec, 'torchrun')
    if words is None:
        return c.fail('no torchrun arguments')
    cfg = config(words, c)
    read_back(cfg, rec, c)
    c.eq('run id', cfg.run_id, rec['where']['run_id'])
