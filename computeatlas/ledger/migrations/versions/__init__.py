"""Migration scripts, oldest first; write new ones by hand with ``down_revision`` set."""
