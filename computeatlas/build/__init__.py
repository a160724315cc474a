"""The static site: the app's own routes rendered in-process and written to files."""
