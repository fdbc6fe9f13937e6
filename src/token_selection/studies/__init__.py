"""Studies beyond the paper: global against local convergence, capacity, asymmetric data, interactions,
and the reviewers' synthetic variants (K classes, co-occurrence)."""

from .asymmetric import arm_heights, asymmetric_run, asymmetric_settings, make_asymmetric, run_asymmetric
from .capacity import capacity_settings, cell_outcome, predicted_dimension, run_capacity, value_signal
from .flow_discretisation import (
    end_counts,
    flow_batch,
    flow_ode,
    flow_settings,
    run_flow_discretisation,
    survival,
)
from .global_local import global_local_settings, run_global_local
from .interactions import LINEAR_CEILING, make_negation_data, negation_run, negation_settings, run_negation
from .intervals import bootstrap_interval, wilson_interval
from .local_optima import (
    classify_endpoint,
    global_local_case,
    initial_lean,
    local_optimality_violations,
    one_sided_selection,
    run_start,
    run_trajectory,
    start_point,
)
from .registry import STUDIES, Study, load_or_run, shown_scale

__all__ = [
    "LINEAR_CEILING",
    "STUDIES",
    "Study",
    "arm_heights",
    "asymmetric_run",
    "asymmetric_settings",
    "bootstrap_interval",
    "capacity_settings",
    "cell_outcome",
    "classify_endpoint",
    "end_counts",
    "flow_batch",
    "flow_ode",
    "flow_settings",
    "global_local_case",
    "global_local_settings",
    "initial_lean",
    "load_or_run",
    "local_optimality_violations",
    "make_asymmetric",
    "make_negation_data",
    "negation_run",
    "negation_settings",
    "one_sided_selection",
    "predicted_dimension",
    "run_asymmetric",
    "run_capacity",
    "run_flow_discretisation",
    "run_global_local",
    "run_negation",
    "run_start",
    "run_trajectory",
    "shown_scale",
    "start_point",
    "survival",
    "value_signal",
    "wilson_interval",
]
