"""The example spiders (see articles.py)."""
