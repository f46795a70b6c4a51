"""Language models behind one small protocol: OpenAI-compatible servers (OpenAI, Ollama, vLLM,
LM Studio, llama.cpp), Anthropic, and a scripted model for tests and replays. None configured
means no LLM: every caller has a non-LLM method."""

from shu.models.llm.base import LLM, ChatResult, Message, Usage
from shu.models.llm.client import LLMClient, StructuredOutputError

__all__ = ["LLM", "ChatResult", "LLMClient", "Message", "StructuredOutputError", "Usage"]
