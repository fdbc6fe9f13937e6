"""The course version, defined once: the package metadata and every record read it from here."""

__version__ = "1.0.0"
