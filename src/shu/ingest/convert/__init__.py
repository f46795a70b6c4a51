"""Conversion of raw files (Markdown, text, HTML, PDF, DOCX) to Markdown."""

from shu.ingest.convert.base import SUPPORTED_SUFFIXES, Converted, convert_documents, convert_file

__all__ = ["SUPPORTED_SUFFIXES", "Converted", "convert_documents", "convert_file"]
