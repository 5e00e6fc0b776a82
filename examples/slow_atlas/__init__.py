"""The example Scrapy project: crawl the Slow Atlas site with scrapy-boilerplate enabled."""
