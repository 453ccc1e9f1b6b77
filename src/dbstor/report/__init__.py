"""Reports: one self-contained HTML file per run or study, and the terminal summary."""
