"""Text embedders: the offline MiniLM (default) and any OpenAI-compatible endpoint."""

from shu.models.embed.base import Embedder
from shu.models.embed.factory import create_embedder

__all__ = ["Embedder", "create_embedder"]
