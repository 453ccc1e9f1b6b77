"""Reports: one self-contained HTML file per run or study, and the terminal summary.

html.write_report / html.render_report and console.print_run_summary /
console.print_comparison are the entry points; they hand each run to its kind's part:
io/ (fio runs), database/ (database runs), queries/ (query runs). kit/ holds what more
than one kind uses (SVG and charts, formatting, the page style, what a run says, shared
tables and figures, the comparison of fio and database runs). tools/ holds the stand-alone
pages of tco, advise and efficiency. report/ reads analysis, results and study; nothing
below it imports report.
"""
