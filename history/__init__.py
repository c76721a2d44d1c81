"""ampbench history: runs over time in a database (SQLite or PostgreSQL),
change points per series, the gate against history, and a static site
(docs/history.md)."""
