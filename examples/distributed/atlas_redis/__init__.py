"""The distributed example project: scrapy-boilerplate on scrapy-redis (see README.md)."""
