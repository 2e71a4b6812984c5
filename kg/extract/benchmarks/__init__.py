"""Loaders for the public benchmarks kg is trained and measured on."""
