"""Stand-in for Colab's `google.colab` module, used by `make colab-check` (scripts/colab_check.py).

Colab imports `google.colab` when a kernel starts. The course's first cell and plotly (which then
picks its "colab" renderer) only ask whether that module is loaded, so an empty module makes
them take the code paths they take in Colab.
"""
