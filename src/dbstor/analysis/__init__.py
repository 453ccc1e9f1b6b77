"""Analysis: latency histograms, peak and knee, comparisons, trust in each number."""
