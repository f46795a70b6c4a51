"""Ingestion-time intelligence: what each document can answer, written down when it arrives.
Every artifact has a non-LLM method (here) and, when an LLM is configured, an LLM method whose
output is validated before it is kept."""
