"""The theory half: the model, token importance, the one step, max margin, training of p, synthetic data."""
