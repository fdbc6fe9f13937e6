"""The real-data half: reviews, tokenisation, the model registry, the trainer, checkpoints and figures."""
