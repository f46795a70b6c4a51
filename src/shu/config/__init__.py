"""Settings (file + environment + dotted overrides) and persona configuration."""

from shu.config.settings import Settings, load_settings

__all__ = ["Settings", "load_settings"]
