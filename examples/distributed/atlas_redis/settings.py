"""Settings of the distributed example: scrapy-redis shares one request queue and one
duplicate filter between every worker; scrapy-boilerplate extracts on each worker.

Any setting can be changed per worker on the command line (``-s REDIS_URL=...``).
"""

import os

BOT_NAME = "atlas_redis"
SPIDER_MODULES = ["atlas_redis.spiders"]
NEWSPIDER_MODULE = "atlas_redis.spiders"

# scrapy-boilerplate: one line, as on one machine. Each worker loads its own models and
# stoplists and extracts the pages it downloads.
ADDONS = {"scrapy_boilerplate.Addon": 0}
BOILERPLATE_EXTRACTOR = "justext"
BOILERPLATE_EXECUTION = "thread"

# scrapy-redis: the request queue and the duplicate filter live in Redis.
SCHEDULER = "scrapy_redis.scheduler.Scheduler"
DUPEFILTER_CLASS = "scrapy_redis.dupefilter.RFPDupeFilter"
# Required with several workers: without it, the first worker to finish deletes the
# shared queue and duplicate filter while the others still crawl. Delete the keys
# (README.md) before crawling the same site again.
SCHEDULER_PERSIST = True
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
# A worker closes once the crawl has made no progress it can see for this many seconds
# (0: wait for new start URLs forever). See AtlasSpider.spider_idle.
MAX_IDLE_TIME_BEFORE_CLOSE = 10

# Every worker pushes its items, as JSON, to the Redis list "atlas:items"; a feed
# (-o items-1.jsonl) works as well, one file per worker.
ITEM_PIPELINES = {"scrapy_redis.pipelines.RedisPipeline": 300}

ROBOTSTXT_OBEY = False  # the example site is served locally and has no robots.txt
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
FEED_EXPORT_ENCODING = "utf-8"
