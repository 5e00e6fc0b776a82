"""The Scrapy glue: the add-on, the middlewares and pipelines, one :class:`Config` of every
``BOILERPLATE_*`` setting, the per-crawler state and the runner that keeps extraction off
the event loop. It names no method: everything method-specific goes through the registry."""
