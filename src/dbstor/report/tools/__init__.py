"""Stand-alone HTML pages of the analysis tools: tco, advise (placement) and efficiency."""
