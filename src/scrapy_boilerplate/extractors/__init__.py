"""The methods: one module or package per paper, each with one entry point class."""
