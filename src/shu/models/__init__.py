"""Models behind small protocols: embedders today; LLMs and rerankers later."""
