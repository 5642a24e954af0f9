"""Reports of runs and comparisons: text, Markdown, JUnit XML and a self-contained HTML
page. Every renderer is a pure function from results to a string."""

from evalschema.report.model import RunReport
from evalschema.report.text import field_table, run_text, summary_lines, text_report

__all__ = ["RunReport", "field_table", "run_text", "summary_lines", "text_report"]
