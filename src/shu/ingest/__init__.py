"""Raw files → Markdown with frontmatter → heading-aware chunks; the ingestion job."""
