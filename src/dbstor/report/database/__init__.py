"""The parts of the report for database runs: their section, figures, tables, the
client-side view, the terminal table, and the words about memory and the storage's curve."""
