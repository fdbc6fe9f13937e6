"""Studies beyond the paper: global against local convergence, capacity, asymmetric data, interactions,
and the reviewers' synthetic variants (K classes, co-occurrence)."""
