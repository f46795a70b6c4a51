"""Role families: what a job title belongs to ("VP Sales" → sales, leadership) and the words that
make a document matter to people in that role ("invoice", "budget" → finance). Enrichment scores
documents against the cues (RoleRelevance); retrieval maps the asker's roles onto the
same families. Shared by both, so it lives below them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.text import stem


@dataclass(frozen=True)
class RoleFamily:
    name: str
    titles: frozenset[str]
    """words of a job title that place it in this family (lower case)"""
    cues: frozenset[str]
    """stems of words that make a document matter to this family"""


def _family(name: str, titles: str, cues: str) -> RoleFamily:
    return RoleFamily(name, frozenset(titles.split()), frozenset(stem(w) for w in cues.split()))


FAMILIES: tuple[RoleFamily, ...] = (
    _family(
        "sales",
        "sales account executive ae sdr bdr seller salesperson business-development",
        "customer client deal deals pipeline quota prospect renewal discount contract signature "
        "demo quote pricing upsell churn account accounts buyer procurement commission",
    ),
    _family(
        "finance",
        "cfo finance financial controller accountant accounting treasurer bookkeeper fp&a",
        "budget cost costs invoice invoices spend spending expense expenses margin revenue cash "
        "forecast deposit lease payment payments audit tax accrual payroll capex opex savings price",
    ),
    _family(
        "engineering",
        "engineer engineering developer cto devops sre architect programmer technical data it",
        "api server servers database network deploy deployment migration cluster latency bug outage "
        "code pipeline schema infrastructure cloud vpn backup uptime integration sso cutover downtime",
    ),
    _family(
        "people",
        "people hr human resources recruiter recruiting talent chro",
        "hiring hire candidate candidates interview onboarding staff employee employees benefits "
        "leave headcount recruiter offer offers seating commute wellbeing training payroll team",
    ),
    _family(
        "design",
        "design designer ux ui creative art brand",
        "brand logo typography colour color palette signage wayfinding layout mockup visual "
        "identity font illustration style guidelines",
    ),
    _family(
        "marketing",
        "marketing growth communications comms pr content",
        "campaign launch audience newsletter press social seo brand leads webinar event messaging",
    ),
    _family(
        "legal",
        "legal counsel lawyer attorney compliance gc",
        "contract liability clause compliance gdpr privacy regulation terms agreement indemnity "
        "license dispute policy",
    ),
    _family(
        "support",
        "support success service helpdesk",
        "ticket tickets customer escalation outage incident refund complaint sla response",
    ),
    _family(
        "leadership",
        "ceo coo cfo cto chief vp president director head founder executive partner",
        "strategy decision decisions priorities priority board headcount budget risk risks "
        "approval approve goals okr roadmap",
    ),
)
_BY_NAME = {family.name: family for family in FAMILIES}


def families_of(title: str) -> list[str]:
    """The role families a job title belongs to ("Head of People" → people, leadership); a title
    that is itself a family name counts too."""
    words = set(re.findall(r"[\w&-]+", title.casefold()))
    return [f.name for f in FAMILIES if f.name in words or f.titles & words]


def family(name: str) -> RoleFamily | None:
    return _BY_NAME.get(name)
