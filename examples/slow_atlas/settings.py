"""Settings of the example project: one line enables scrapy-boilerplate (the ADDONS entry).

Everything below it is optional and spelled out to show where each knob lives; the values
are the defaults except where a comment says otherwise. docs/settings.md documents them.
"""

BOT_NAME = "slow_atlas"
SPIDER_MODULES = ["slow_atlas.spiders"]
NEWSPIDER_MODULE = "slow_atlas.spiders"

ADDONS = {"scrapy_boilerplate.Addon": 0}

BOILERPLATE_EXTRACTOR = "auto"  # or a paper's method: "justext", "cnr", "web2text", "vips"
BOILERPLATE_PARAMS = {}  # the method's parameters, e.g. {"threshold": 0.5}
BOILERPLATE_EXECUTION = "thread"  # "inline", "thread" or "process"
BOILERPLATE_ON_ERROR = "keep"  # keep items whose extraction failed, with the reason
# Fields written into every item: main text, block labels, the method, and (not a
# default) the language and a Markdown rendering of the main content.
BOILERPLATE_FIELDS = {
    "main_text": "main_text",
    "blocks": "blocks",
    "extractor": "extractor",
    "reason": "boilerplate_reason",
    "language": "language",
    "markdown": "markdown",
}
# Every block with its label and scores (not the default, "content": the content blocks
# only, as text, tag, xpath and index), so that the summary can count the labels.
BOILERPLATE_BLOCKS = "all"

ROBOTSTXT_OBEY = False  # the example site is served locally and has no robots.txt
TELNETCONSOLE_ENABLED = False
CONCURRENT_REQUESTS = 8
LOG_LEVEL = "WARNING"
FEED_EXPORT_ENCODING = "utf-8"
