"""The explorer of chapter 5: the grid computation, the live widget and the static figure."""
