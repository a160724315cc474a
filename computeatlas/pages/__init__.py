"""Page data that draws on several domains (built once, served as HTML, JSON and CLI)."""
