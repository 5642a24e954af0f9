"""Reports of runs and comparisons: text, Markdown, JUnit XML and a self-contained HTML
page. Every renderer is a pure function from results to a string."""

from .model import RunReport
from .text import field_table, run_text, summary_lines, text_report

__all__ = ["RunReport", "field_table", "run_text", "summary_lines", "text_report"]
