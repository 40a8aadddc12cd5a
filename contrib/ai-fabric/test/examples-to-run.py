#! /usr/bin/env python3
# The module's examples that test.py runs (ns-3's examples-to-run.py format): each a few
# seconds at most.  A tuple is (program and arguments, condition to run it, condition to run it
# under valgrind).
cpp_examples = [
    ("fat-tree-permutation --k=4 --bytes=262144", "True", "False"),
    ("fat-tree-permutation --k=4 --bytes=262144 --spray=1", "True", "False"),
    ("rail-optimized-bom --servers=4", "True", "False"),
    ("rail-optimized-bom --servers=4 --railOnly=1", "True", "False"),
    ("rdma-incast --cc=dcqcn", "True", "False"),
    ("rdma-incast --cc=none", "True", "False"),
    ("data-parallel-training", "True", "False"),
    ("allreduce-sweep", "True", "False"),
    ("link-flap", "True", "False"),
    ("checkpoint-availability --runs=1", "True", "False"),
]

python_examples = []
