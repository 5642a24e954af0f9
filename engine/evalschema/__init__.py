"""evalschema: field-by-field scoring of LLM structured extraction against gold JSON.

The names mirror struct_extract_eval's so its users can move over by changing
an import.
"""

from evalschema import display
from evalschema.errors import EvalSchemaError, GoldValidationError, InputError, Problem, SchemaError
from evalschema.io.lenient import LenientParseError, parse_lenient
from evalschema.results import (
    Counts,
    FieldAggregation,
    FieldResult,
    RecordResult,
    RunResult,
    Status,
)
from evalschema.rules.builtins import builtin_registry, register_builtins
from evalschema.rules.registry import (
    CompareLimitError,
    CompareTypeError,
    CompareVerdict,
    Registry,
    RegistryError,
    default_registry,
    register_comparator,
    register_strategy,
    register_transform,
)
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.compare import Comparison, compare_runs
from evalschema.run.evaluate import Evaluator, evaluate, iter_evaluate, make_evaluator
from evalschema.run.suspects import SuspectGold, find_suspects
from evalschema.schema.infer import annotate_xeval, infer_schema
from evalschema.schema.node import SchemaNode
from evalschema.schema.resolve import resolve_schema_references
from evalschema.schema.tree import (
    PartialSchema,
    SchemaCheck,
    check_eval_schema,
    parse_eval_schema,
    parse_partial,
)
from evalschema.schema.validate_gold import validate_gold
from evalschema.scoring.postprocess import propagate_batch_errors, reclassify_nulls
from evalschema.version import __version__

register_builtins(default_registry)


def _render(kind: display.Kind, result: object) -> str | None:
    """Results show themselves with the report's pieces (``report/notebook.py``), imported
    on first show so that importing evalschema does not load the reports."""
    from evalschema.report.notebook import render

    return render(kind, result)


display.use(_render)


__all__ = [
    "CompareLimitError",
    "CompareTypeError",
    "CompareVerdict",
    "Comparison",
    "Counts",
    "EvalSchemaError",
    "Evaluator",
    "FieldAggregation",
    "FieldResult",
    "GoldValidationError",
    "InputError",
    "LenientParseError",
    "PartialSchema",
    "Problem",
    "RecordResult",
    "Registry",
    "RegistryError",
    "RunAccumulator",
    "RunResult",
    "SchemaCheck",
    "SchemaError",
    "SchemaNode",
    "Status",
    "SuspectGold",
    "__version__",
    "annotate_xeval",
    "builtin_registry",
    "check_eval_schema",
    "compare_runs",
    "default_registry",
    "evaluate",
    "find_suspects",
    "infer_schema",
    "iter_evaluate",
    "make_evaluator",
    "parse_eval_schema",
    "parse_lenient",
    "parse_partial",
    "propagate_batch_errors",
    "reclassify_nulls",
    "register_comparator",
    "register_strategy",
    "register_transform",
    "resolve_schema_references",
    "validate_gold",
]
