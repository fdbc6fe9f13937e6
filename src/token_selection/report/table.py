"""The report table, generated from ``CLAIMS`` and the results records: one row per claim, fast and full side by side.

For each claim and scale the row reads the claim's records (``results.read_record``),
computes our number with the claim's ``measure`` and judges it with its rule; a missing
record gives "not run" and the row says how to produce it.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

from ..real_data.arms import markdown_text
from ..real_data.one_step_direct import RECORD as ONE_STEP_DIRECT
from ..real_data.pipeline import missing_message
from ..results import missing_record_message, read_record
from ..theory.shape import classify_shape
from ..theory.shape_effect import read_shape
from .catalogue import state_of
from .claims import CLAIMS, Claim
from .flow_rows import FLOW_RECORD
from .shape_readings import arms_words
from .theory_claims import COMMAND as THEORY_COMMAND
from .theory_claims import RECORD as THEORY
from .verdicts import VERDICTS, judge

SCALES = ("fast", "full")


def produce_command(record: str, scale: str) -> str:
    """What a page prints for a missing ``record`` at ``scale``: where it would be and how to produce it."""
    if record == THEORY:
        return missing_record_message(record, scale, THEORY_COMMAND.format(scale=scale))
    if record.startswith("diagnosis-") or record in (ONE_STEP_DIRECT, FLOW_RECORD):
        return missing_record_message(record, scale, "make full" if scale == "full" else "make records")
    dataset, kind, mode = record.split("-")
    return missing_message(dataset, kind, mode, scale)


def rewrite_command(record: str, scale: str) -> str:
    """The command that writes ``record`` at ``scale`` again, even where its settings are current (a record
    written by older code, which lacks a metric the report now reads)."""
    if record == THEORY:
        return THEORY_COMMAND.format(scale=scale)
    if record == FLOW_RECORD:
        return f"scripts/run_studies.py --scale {scale} --only {record} --force"
    return f"scripts/run_records.py --scale {scale} --only {record} --rerun"


@dataclass(frozen=True)
class Outcome:
    """Our number for one claim at one scale: its text, the verdict, why, and the protocol of its records."""

    ours: str
    verdict: str
    why: str
    protocol: str


def outcome(claim: Claim, scale: str) -> Outcome:
    """Read the claim's records at ``scale``, measure and judge."""
    records = {name: read_record(name, scale) for name in claim.records}
    missing = [name for name, record in records.items() if record is None]
    if missing:
        how = "; ".join(produce_command(name, scale) for name in missing)
        return Outcome("not run", "not run", how, "")
    try:
        value = claim.measure({name: record["metrics"] for name, record in records.items()})
    except KeyError as error:  # a record written before the metric existed
        commands = "; ".join(rewrite_command(name, scale) for name in claim.records)
        why = f"the {scale} record has no metric {error}: it was written by older code. Write it again with: {commands}"
        return Outcome("not measured", "not run", why, "")
    except ValueError as error:  # a record the measure cannot read (an older layout, a spread of 0): the error says why
        return Outcome("not measured", "not run", f"the {scale} records cannot be read: {error}", "")
    verdict, why = judge(claim.rule, value)
    protocols = " | ".join(dict.fromkeys(record["protocol"] for record in records.values()))
    stale = [name for name in claim.records if state_of(name, scale) == "stale"]
    ours = claim.show(value)
    if stale:
        command = "make full" if scale == "full" else "make records"
        ours += f" (stale: {', '.join(stale)} from earlier settings; {command} replaces it)"
    return Outcome(ours, verdict, why, protocols)


def paper_cell(claim: Claim) -> str:
    """The paper's number; for a table, also its shape by the course's shape rule."""
    if claim.table is None:
        return claim.paper or "no number"
    verdict = classify_shape(*claim.table)
    reading = read_shape(verdict.as_dict())
    return f"{claim.paper}; by our rule: {reading.shape} ({arms_words(verdict.as_dict())})"


@dataclass(frozen=True)
class ReportRow:
    """One claim with its outcome at each scale."""

    claim: Claim
    paper: str
    outcomes: dict[str, Outcome]


def report_rows(claims: Iterable[Claim] = CLAIMS, scales: tuple[str, ...] = SCALES) -> list[ReportRow]:
    """The report's rows, in the order of ``claims``."""
    return [ReportRow(c, paper_cell(c), {scale: outcome(c, scale) for scale in scales}) for c in claims]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _statement(claim: Claim) -> str:
    """The claim's statement for a Markdown cell: ``<cls>`` escaped, or it is read as an HTML tag and vanishes."""
    return html.escape(claim.statement, quote=False)


def markdown_table(rows: list[ReportRow]) -> str:
    """The report as a Markdown table: claim, tag and source, the paper's number, ours and verdict per scale."""
    scales = list(rows[0].outcomes) if rows else list(SCALES)
    header = ["#", "claim", "tag: source", "paper"]
    for scale in scales:
        header += [f"ours ({scale})", f"verdict ({scale})"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for number, row in enumerate(rows, start=1):
        cells = [str(number), _statement(row.claim), f"[{row.claim.tag}] {row.claim.source}", row.paper]
        for scale in scales:
            result = row.outcomes[scale]
            cells += [result.ours, f"**{result.verdict}**: {result.why}" if result.verdict != "not run" else "not run"]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def protocols_markdown(rows: list[ReportRow]) -> str:
    """A numbered list: for each claim, what our number is and its verdict rule."""
    return "\n".join(
        f"{number}. **{row.claim.key}**: {row.claim.protocol}. Rule: {row.claim.rule.describe()}."
        for number, row in enumerate(rows, start=1)
    )


def records_markdown(claims: Iterable[Claim] = CLAIMS, scales: tuple[str, ...] = SCALES) -> str:
    """A list of every record the claims read, per scale: its protocol and date, or how to produce it."""
    lines = []
    for name in dict.fromkeys(name for claim in claims for name in claim.records):
        lines.append(f"- **{name}**")
        for scale in scales:
            record = read_record(name, scale)
            if record is None:
                lines.append(f"  - {scale}: {produce_command(name, scale)}")
            else:
                protocol = markdown_text(record["protocol"])  # "<pad>" would otherwise be read as an HTML tag
                lines.append(f"  - {scale} ({record['created']}, {record['machine']}): {protocol}")
    return "\n".join(lines)


def verdict_table(rows: list[ReportRow], scale: str = "full") -> str:
    """The report's summary: per claim its source, our number at ``scale`` and the verdict; a row that is not
    reproduced points to its reason in ``why_list``."""
    lines = ["| # | claim | source | ours | verdict |", "|---|---|---|---|---|"]
    for number, row in enumerate(rows, start=1):
        result = row.outcomes[scale]
        verdict = f"**{result.verdict}**" + (f" (why: {number} below)" if result.verdict != "reproduced" else "")
        cells = [str(number), _statement(row.claim), f"[{row.claim.tag}] {row.claim.source}", result.ours, verdict]
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


EXPLAINED_IN = {
    "trained_accuracy": "Where the accuracies sit",
    "frozen_accuracy": "Trained against frozen embeddings",
    "std_ratio_values": "The spread ratios",
    "std_ratio_scores": "The spread ratios",
    "key_query_scores": "The score shapes of W_KQ and the MLP",
    "mlp_scores": "The score shapes of W_KQ and the MLP",
}
"""The section of chapter 13 whose experiment explains a row's difference, by claim key."""


def why_list(rows: list[ReportRow], scale: str = "full") -> str:
    """For each row not reproduced at ``scale``: its number, the verdict's reason, and the section of chapter 13 whose
    experiment explains it (``EXPLAINED_IN``; chapter 9 says in words what those experiments found).

    A bulleted list that names each row ("Row 9"), so the table's "why: 9 below" finds it: a numbered Markdown list
    would be renumbered from its first item."""
    items = []
    for number, row in enumerate(rows, start=1):
        result = row.outcomes[scale]
        if result.verdict == "reproduced":
            continue
        section = EXPLAINED_IN.get(row.claim.key)
        where = f" Chapter 13 measures why: *{section}*." if section else ""
        items.append(f"- **Row {number}** ({result.verdict}: {result.why}).{where}")
    return "\n".join(items)


def verdict_counts(rows: list[ReportRow], scale: str = "full") -> dict[str, int]:
    """How many of the claims our sources attribute to the paper (an *inferred* row is ours and is left out) get each
    verdict of ``VERDICTS`` at ``scale``, and how many there are (``claims``)."""
    paper = [row.outcomes[scale].verdict for row in rows if row.claim.tag != "inferred"]
    return {verdict: paper.count(verdict) for verdict in VERDICTS} | {"claims": len(paper)}
