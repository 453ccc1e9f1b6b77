"""The report as a document, in the seeds' order: summary, configuration, layout, method,
results, comparison, efficiency, capacity, placement, cost, conclusion, appendix.

One module per section; html.render_report puts them together. Each section has a stable
HTML id (frame.SECTION_IDS) and is left out when it has nothing to show. Machine paths,
process ids, ports and cgroups are written only by the appendix.
"""
