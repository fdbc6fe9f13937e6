"""The course version, defined once: the package metadata and every record read it from here."""

__version__ = "0.1.0"
