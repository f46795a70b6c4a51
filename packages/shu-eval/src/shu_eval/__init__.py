"""Measurement: speed benchmarks today; retrieval-quality evaluation on public datasets next."""
