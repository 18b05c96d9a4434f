"""The worker process and its wire format (standard library and numpy only)."""
