"""The parts of the report only fio (io) runs have: their section, figures, points table
and terminal table."""
