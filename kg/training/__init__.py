"""Training and evaluating kg's models: never imported by ``kg build``.

Benchmark readers, the in-domain arXiv annotation, training, distillation and
evaluation live here; :mod:`kg.extract` holds only what a build runs.
"""
