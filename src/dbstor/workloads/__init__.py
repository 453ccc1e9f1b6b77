"""Database workloads: one package each (schema, data generation, transaction mix, SQL per dialect)."""
