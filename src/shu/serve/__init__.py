"""Front ends over the public Python API: the `shu` CLI today; HTTP, MCP and web later."""
