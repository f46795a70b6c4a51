"""Rerankers: score (question, passage) pairs; higher is more relevant."""
