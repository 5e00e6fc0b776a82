"""The Scrapy-free core: the document model (parse once, clean, segment), the result type,
the extractor registry and its parameter specs, the outcome reasons, errors, the per-page
deadline and the switch for the compiled steps. It imports nothing from the rest of the
package and runs without Scrapy installed."""
