"""Zero-shot entity extraction (Pasupat and Liang, ACL 2014): extraction predicates over the
DOM, ranked for a query (docs/entities.md)."""

from scrapy_boilerplate.entities.predicates import Candidate, Predicate, generate

__all__ = ["Candidate", "Predicate", "generate"]
