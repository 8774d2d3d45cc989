"""The tables and labels the CLI, the report and the app show alike: pure functions over the
store's runs and the recommender's rankings, no I/O and no rendering."""

from recommender.views.compare import (
    COMPARE_METRICS,
    TRADEOFF_ROWS,
    compare_cells,
    compare_scores,
    compare_tradeoffs,
)
from recommender.views.curves import curve_name, curve_points, curve_summary
from recommender.views.grids import (
    CELL_RUN_COLUMNS,
    GRID_COLUMNS,
    HEATMAP_METRICS,
    SCORE_LABEL,
    block_sizes,
    cell_runs,
    grid_frame,
    grid_table,
    heatmap_frame,
    matrix_options,
    score_grid,
)
from recommender.views.labels import concurrency_key, concurrency_label, rank_label
from recommender.views.rankings import (
    evidence_table,
    find_recommendation,
    impact_table,
    number,
    ranked_all,
    recommendation_table,
)
from recommender.views.runs import (
    RUN_ID_RE,
    configuration_table,
    find_run,
    run_id_problem,
    run_summary,
)

__all__ = [
    "CELL_RUN_COLUMNS",
    "COMPARE_METRICS",
    "GRID_COLUMNS",
    "HEATMAP_METRICS",
    "RUN_ID_RE",
    "SCORE_LABEL",
    "TRADEOFF_ROWS",
    "block_sizes",
    "cell_runs",
    "compare_cells",
    "compare_scores",
    "compare_tradeoffs",
    "concurrency_key",
    "concurrency_label",
    "configuration_table",
    "curve_name",
    "curve_points",
    "curve_summary",
    "evidence_table",
    "find_recommendation",
    "find_run",
    "grid_frame",
    "grid_table",
    "heatmap_frame",
    "impact_table",
    "matrix_options",
    "number",
    "rank_label",
    "ranked_all",
    "recommendation_table",
    "run_id_problem",
    "run_summary",
    "score_grid",
]
