"""The shared kit of the report: SVG primitives and charts, number formatting, the page
and its style, what a run says (SLO, peak, knee, flags), and the tables, figures and
comparison used by more than one kind of run."""
