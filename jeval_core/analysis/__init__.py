"""The analysis wing: figures over scored cases (aggregates, agreement, ranking, comparisons)."""
