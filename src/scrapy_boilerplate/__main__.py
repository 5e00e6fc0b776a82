"""``python -m scrapy_boilerplate``: the ``scrapy-boilerplate`` command line."""

import sys

from scrapy_boilerplate.cli import main

if __name__ == "__main__":
    sys.exit(main())
