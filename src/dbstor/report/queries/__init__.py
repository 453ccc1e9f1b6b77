"""The parts of the report for query runs (dss, after TR-3476): their section, figures
per query, tables, and the terminal summary and comparison."""
