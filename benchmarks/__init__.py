"""Benchmarks: ``python -m benchmarks engine GAME [--seconds S]``."""
