"""Collectors: read a provider's public price API into observations (``computeatlas prices collect``)."""
