"""The component catalog, one module per domain (electrical, signals, ...)."""
