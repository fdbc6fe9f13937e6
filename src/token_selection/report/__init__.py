"""The reproduction report: the paper's claims, their numbers from the sources, and the verdicts."""
