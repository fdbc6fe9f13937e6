"""The report table, generated from ``CLAIMS`` and the results records: one row per claim, fast and full side by side.

For each claim and scale the row reads the claim's records (``results.read_record``),
computes our number with the claim's ``measure`` and judges it with its rule; a missing
record gives "not run" and the row says how to produce it.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from ..real_data.arms import markdown_text
from ..real_data.pipeline import missing_message
from ..results import missing_record_message, read_record
from ..scale import SCALES
from ..theory.shape import classify_shape
from ..theory.shape_effect import read_shape
from .catalogue import COMMAND, state_of
from .claims import CLAIMS, Claim
from .shape_readings import arms_words
from .verdicts import VERDICTS, judge


def produce_command(record: str, scale: str) -> str:
    """What a page prints for a missing ``record`` at ``scale``: where it would be and how to produce it (the one
    runner writes every record: ``make records`` or ``make full``, or the record alone)."""
    if record.count("-") == 2 and not record.startswith("diagnosis-"):
        return missing_message(*record.split("-"), scale)
    make = "make full" if scale == "full" else "make records"
    return missing_record_message(record, scale, f"{make} ({COMMAND.format(scale=scale, name=record)})")


def rewrite_command(record: str, scale: str) -> str:
    """The command that writes ``record`` at ``scale`` again, even where its settings are current (a record
    written by older code, which lacks a metric the report now reads)."""
    return COMMAND.format(scale=scale, name=record) + " --rerun"


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


REPORT_COLUMNS = ("row", "key", "claim", "tag", "source", "paper", "scale", "ours", "verdict", "why", "protocol")


def report_frame(rows: list[ReportRow]) -> pd.DataFrame:
    """The report as data: one row per claim and scale (``REPORT_COLUMNS``; ``row`` numbers the claims from 1 in the
    order of ``rows``). The page's tables and the verdict counts are read from it."""
    records = [
        {"row": number, "key": r.claim.key, "claim": r.claim.statement, "tag": r.claim.tag, "source": r.claim.source,
         "paper": r.paper, "scale": scale, "ours": o.ours, "verdict": o.verdict, "why": o.why, "protocol": o.protocol}
        for number, r in enumerate(rows, start=1)
        for scale, o in r.outcomes.items()
    ]  # fmt: skip
    return pd.DataFrame(records, columns=list(REPORT_COLUMNS))


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _statement(text: str) -> str:
    """A claim's statement for a Markdown cell: ``<cls>`` escaped, or it is read as an HTML tag and vanishes."""
    return html.escape(text, quote=False)


def _markdown(header: list[str], lines: list[list[str]]) -> str:
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(rows + ["| " + " | ".join(_cell(c) for c in cells) + " |" for cells in lines])


def markdown_table(frame: pd.DataFrame) -> str:
    """The report (``report_frame``) as a Markdown table: claim with its tag, the paper's number, ours and verdict per
    scale (the sources are in ``verdict_table``: seven columns fit the page without breaking words)."""
    scales = list(dict.fromkeys(frame["scale"])) or list(SCALES)
    header = ["#", "claim", "paper"] + [f"{w} ({s})" for s in scales for w in ("ours", "verdict")]
    lines = []
    for number, claim in frame.groupby("row", sort=True):
        first = claim.iloc[0]
        cells = [str(number), f"{_statement(first['claim'])} [{first['tag']}]", first["paper"]]
        for scale in scales:
            o = claim[claim["scale"] == scale].iloc[0]
            cells += [o["ours"], f"**{o['verdict']}**: {o['why']}" if o["verdict"] != "not run" else "not run"]
        lines.append(cells)
    return _markdown(header, lines)


def protocols_markdown(rows: list[ReportRow]) -> str:
    """A numbered list: for each claim, what our number is and its verdict rule."""
    return "\n".join(
        f"{number}. {row.claim.protocol[0].upper()}{row.claim.protocol[1:]}. *Rule:* {row.claim.rule.describe()}."
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


def verdict_table(frame: pd.DataFrame, scale: str = "full") -> str:
    """The report's summary: per claim its source, our number at ``scale`` and the verdict; a row that is not
    reproduced points to its reason in ``why_list``."""
    lines = []
    for o in frame[frame["scale"] == scale].sort_values("row").itertuples():
        verdict = f"**{o.verdict}**" + (f" (why: {o.row} below)" if o.verdict != "reproduced" else "")
        lines.append([str(o.row), _statement(o.claim), f"[{o.tag}] {o.source}", o.ours, verdict])
    return _markdown(["#", "claim", "source", "ours", "verdict"], lines)


EXPLAINED_IN = {
    "trained_accuracy": "Where the accuracies sit",
    "frozen_accuracy": "Trained against frozen embeddings",
    "std_ratio_values": "The spread ratios",
    "std_ratio_scores": "The spread ratios",
    "key_query_scores": "The score shapes of W_KQ and the MLP",
    "mlp_scores": "The score shapes of W_KQ and the MLP",
}
"""The section of chapter 9b whose experiment explains a row's difference, by claim key."""


def why_list(frame: pd.DataFrame, scale: str = "full") -> str:
    """For each row not reproduced at ``scale``: its number, the verdict's reason, and the section of chapter 9b whose
    experiment explains it (``EXPLAINED_IN``; chapter 9 says in words what those experiments found).

    A bulleted list that names each row ("Row 9"), so the table's "why: 9 below" finds it: a numbered Markdown list
    would be renumbered from its first item."""
    items = []
    for o in frame[(frame["scale"] == scale) & (frame["verdict"] != "reproduced")].sort_values("row").itertuples():
        section = EXPLAINED_IN.get(o.key)
        where = f" Chapter 9b measures why: *{section}*." if section else ""
        items.append(f"- **Row {o.row}** ({o.verdict}: {o.why}).{where}")
    return "\n".join(items)


def verdict_counts(frame: pd.DataFrame, scale: str = "full") -> dict[str, int]:
    """How many of the claims our sources attribute to the paper (an *inferred* row is ours and is left out) get each
    verdict of ``VERDICTS`` at ``scale``, and how many there are (``claims``): a count over ``report_frame``."""
    paper = frame[(frame["scale"] == scale) & (frame["tag"] != "inferred")]["verdict"]
    counts = paper.value_counts()
    return {verdict: int(counts.get(verdict, 0)) for verdict in VERDICTS} | {"claims": len(paper)}
