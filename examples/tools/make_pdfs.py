#!/usr/bin/env python3
"""Build the example PDF documents for the Shu example knowledge base.

The text of each PDF is defined in this script. Run it with a Python that has
fpdf2 installed, for example:

    /work/main/.venv/bin/python examples/tools/make_pdfs.py

It writes:
    examples/personas/lumen-support/RAW-DOCS/data-retention-and-gdpr-policy.pdf
    examples/personas/city-garden/RAW-DOCS/city-garden-bylaws.pdf

Only core fonts (Helvetica) are used, so all text must be latin-1.
Document structure is a list of (kind, text) tuples where kind is one of
"title", "subtitle", "h1", "h2", "p" or "bullet".
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from fpdf import FPDF

EXAMPLES = Path(__file__).resolve().parent.parent
PERSONAS = EXAMPLES / "personas"

# Fixed creation date so that rebuilding gives stable metadata.
CREATION_DATE = datetime(2026, 5, 1, 12, 0, 0, tzinfo=UTC)


# ---------------------------------------------------------------------------
# Lumen Analytics: Data Retention and GDPR Policy
# ---------------------------------------------------------------------------

RETENTION_POLICY = [
    ("title", "Data Retention and GDPR Policy"),
    ("subtitle", "Lumen Analytics, Inc. - Policy version 3.2 - Effective 15 January 2026"),
    ("h1", "1. Purpose and scope"),
    (
        "p",
        "This policy explains how long Lumen Analytics keeps the data processed in customer "
        "workspaces, how data is deleted, and how we support our customers' obligations under "
        "the EU General Data Protection Regulation (GDPR) and similar laws. It applies to all "
        "plans (Starter, Team, Pro and Enterprise) and to both hosting regions.",
    ),
    (
        "p",
        "For data that customers sync into Lumen from their own databases, the customer is the "
        "controller and Lumen Analytics acts as a processor. For account and billing data about "
        "our direct users, Lumen Analytics is the controller.",
    ),
    ("h1", "2. Hosting regions"),
    ("p", "Each workspace is hosted in exactly one region, chosen when the workspace is created:"),
    ("bullet", "US region: Oregon, United States."),
    (
        "bullet",
        "EU region: Frankfurt, Germany. Customer data in EU workspaces, including backups, "
        "stays in the European Union.",
    ),
    (
        "p",
        "The region cannot be changed by the customer after creation. Enterprise customers may "
        "request a one-time region migration, which is completed within 20 business days.",
    ),
    ("h1", "3. Retention periods"),
    ("p", "The following retention periods apply unless a customer's Enterprise contract states otherwise."),
    ("h2", "3.1 Customer content"),
    (
        "bullet",
        "Synced data cache: kept while the connector is active. When a connector is deleted, "
        "its cached data is deleted within 30 days.",
    ),
    ("bullet", "Query results cache: 7 days."),
    (
        "bullet",
        "Dashboards, alerts and saved queries: kept until deleted by the customer. Deleted "
        "items stay in the workspace trash for 30 days and can be restored during that time.",
    ),
    (
        "bullet",
        "Export files (CSV, PDF): download links expire after 24 hours; files are deleted after 7 days.",
    ),
    ("h2", "3.2 Logs and history"),
    ("bullet", "Audit log: not available on Starter; 90 days on Team; 1 year on Pro; 7 years on Enterprise."),
    ("bullet", "Alert history: 90 days on all plans."),
    ("bullet", "API request logs: 30 days."),
    ("bullet", "Application and security logs used by Lumen staff: 13 months."),
    ("h2", "3.3 Backups"),
    (
        "p",
        "Workspaces are backed up daily. Backups are encrypted and kept for 35 days, then "
        "overwritten. Backups are stored in the same region as the workspace.",
    ),
    ("h2", "3.4 Support and billing records"),
    ("bullet", "Support tickets and e-mail threads: 3 years after the ticket is closed."),
    ("bullet", "Invoices and billing records: 10 years, as required by tax law."),
    ("h1", "4. Deleting a workspace"),
    (
        "p",
        "When a subscription is cancelled or a trial ends without a purchase, the workspace "
        "becomes read-only for 30 days. During this period an Owner can reactivate it. After 30 "
        "days the workspace is soft-deleted. Owners can also delete a workspace immediately "
        "under Settings > Workspace > Delete workspace.",
    ),
    (
        "p",
        "After deletion, all customer content is permanently removed from production systems "
        "within 30 days. Copies in backups expire within a further 35 days. Customer content is "
        "therefore fully erased no later than 65 days after deletion. On request, we provide a "
        "written deletion certificate.",
    ),
    ("h1", "5. Data subject requests"),
    (
        "p",
        "Because customers control the data in their workspaces, data subjects should contact "
        "the customer first. Lumen helps customers answer requests:",
    ),
    (
        "bullet",
        "Access and portability: Admins can export all data about a user under "
        "Settings > Privacy > Export user data (JSON).",
    ),
    (
        "bullet",
        "Erasure: Admins can erase a user under Settings > Privacy > Erase user. Erasure "
        "removes the user's profile, comments and personal dashboards and pseudonymises "
        "their entries in the audit log.",
    ),
    ("bullet", "Requests received directly by Lumen are forwarded to the customer within 5 business days."),
    (
        "p",
        "Requests about data for which Lumen is the controller are answered within 30 days, as "
        "required by Article 12 GDPR.",
    ),
    ("h1", "6. Data Processing Agreement and subprocessors"),
    (
        "p",
        "Our Data Processing Agreement (DPA) is part of the Terms of Service for all plans and "
        "includes the EU Standard Contractual Clauses for transfers outside the EU. A signed "
        "copy can be requested from privacy@lumenanalytics.example.",
    ),
    (
        "p",
        "The current list of subprocessors is published on our website. We notify customers by "
        "e-mail at least 30 days before adding a new subprocessor. Customers may object within "
        "that period; if we cannot resolve the objection, the customer may terminate the "
        "affected service with a pro-rata refund.",
    ),
    ("h1", "7. Security measures"),
    ("bullet", "Encryption at rest with AES-256 and in transit with TLS 1.2 or newer."),
    (
        "bullet",
        "Lumen staff access customer content only to resolve a support ticket, with the "
        "customer's permission, and every access is written to the audit log.",
    ),
    (
        "bullet",
        "SOC 2 Type II report (latest audit period ending 31 December 2025) and ISO/IEC 27001 certification.",
    ),
    ("h1", "8. Personal data breaches"),
    (
        "p",
        "If we confirm a personal data breach affecting customer content, we notify affected "
        "customers without undue delay and at the latest within 48 hours of confirmation. The "
        "notice describes the nature of the breach, the data concerned, likely consequences "
        "and the measures taken. This allows customers to meet their own 72-hour notification "
        "duty to the supervisory authority.",
    ),
    ("h1", "9. Contact"),
    (
        "p",
        "Data Protection Officer: Ingrid Halvorsen, Lumen Analytics, Inc. "
        "E-mail: privacy@lumenanalytics.example. Security reports: security@lumenanalytics.example.",
    ),
    (
        "p",
        "This policy is reviewed at least once a year. Version 3.2 replaces version 3.1 "
        "(effective 1 March 2025). Main change in 3.2: audit log retention on Enterprise "
        "increased from 5 to 7 years.",
    ),
]


# ---------------------------------------------------------------------------
# City Garden Co-op: Bylaws
# ---------------------------------------------------------------------------

BYLAWS = [
    ("title", "Bylaws of City Garden Co-op"),
    ("subtitle", "Adopted 15 March 2014 - Last amended at the Annual General Meeting of 25 January 2025"),
    ("h1", "Article I - Name, Seat and Purpose"),
    (
        "p",
        '1.1 The name of the organisation is City Garden Co-op (the "Co-op"). It is a '
        "non-profit community cooperative with its garden at 214 Alder Street, Riverton.",
    ),
    (
        "p",
        "1.2 The purpose of the Co-op is to provide garden plots to residents, to grow food "
        "using organic methods, to share gardening knowledge, and to donate produce to the "
        "Riverton Community Pantry.",
    ),
    ("h1", "Article II - Membership"),
    (
        "p",
        "2.1 Membership is open to any household with at least one adult (18 years or older) "
        "living in Riverton. Each member household has one vote, regardless of how many people "
        "live in it.",
    ),
    (
        "p",
        "2.2 Annual membership dues are set by the Annual General Meeting. For 2026 they are "
        "$20 per household. Every plot holder must be a member; members do not need to hold a "
        "plot.",
    ),
    (
        "p",
        "2.3 A member is in good standing when dues for the current year are paid by 31 March "
        "and no suspension under Article IX is in effect. Only members in good standing may "
        "vote, hold office or hold a proxy.",
    ),
    ("h1", "Article III - General Meetings"),
    (
        "p",
        "3.1 The Annual General Meeting (AGM) is held in January. It receives the annual "
        "reports, approves the budget and membership dues, sets plot fees and elects the "
        "Steering Committee.",
    ),
    ("p", "3.2 Further general meetings are held each quarter, in April, July and October."),
    (
        "p",
        "3.3 Written notice of a general meeting, including the agenda, is sent to all members "
        "by e-mail at least 14 days before the meeting.",
    ),
    (
        "p",
        "3.4 A special general meeting must be called within 30 days if the Steering Committee "
        "decides so, or if at least 10 members in good standing request it in writing.",
    ),
    ("h1", "Article IV - Quorum and Voting"),
    (
        "p",
        "4.1 The quorum for a general meeting is one quarter (25%) of the members in good "
        "standing, present in person or by proxy, but never fewer than 15 members.",
    ),
    ("p", "4.2 If a quorum is not reached, the meeting is adjourned for at least 7 days."),
    (
        "p",
        "4.3 Unless these bylaws state otherwise, decisions are taken by a simple majority of "
        "the votes cast. Abstentions are not counted as votes cast. In case of a tie, the "
        "motion fails.",
    ),
    (
        "p",
        "4.4 A member may give a written proxy to another member in good standing. No member "
        "may hold more than one proxy at a meeting. Proxies are handed to the Secretary "
        "before the meeting starts.",
    ),
    (
        "p",
        "4.5 A two-thirds (2/3) majority of the votes cast is required to amend these bylaws "
        "and to expel a member. A three-quarters (3/4) majority is required to dissolve the "
        "Co-op.",
    ),
    ("h1", "Article V - Steering Committee"),
    (
        "p",
        "5.1 The Co-op is managed between general meetings by a Steering Committee of seven "
        "(7) members elected by the AGM.",
    ),
    (
        "p",
        "5.2 Members of the Steering Committee serve two-year terms. Terms are staggered: four "
        "seats are elected in even-numbered years and three seats in odd-numbered years. No "
        "person may serve more than three consecutive terms.",
    ),
    (
        "p",
        "5.3 The Steering Committee meets at least once a month from March to November. Its "
        "quorum is four (4) members. It decides by simple majority of those present.",
    ),
    ("h1", "Article VI - Officers"),
    (
        "p",
        "6.1 The Steering Committee appoints from among its members a Coordinator, a Treasurer, "
        "a Secretary, a Plot Coordinator, a Volunteer Coordinator, a Shed Steward and a Water "
        "Steward.",
    ),
    (
        "p",
        "6.2 The Coordinator chairs all meetings. The Secretary keeps the minutes and the "
        "proxies. The Treasurer keeps the accounts. The Plot Coordinator manages plot "
        "allocation and the waiting list.",
    ),
    ("h1", "Article VII - Plots and Garden Rules"),
    (
        "p",
        "7.1 Plots are allocated according to the Plot Allocation and Fees Policy adopted by "
        "the Steering Committee. Each household may hold at most one plot.",
    ),
    (
        "p",
        "7.2 Only organic growing methods are permitted anywhere in the garden. Synthetic "
        "pesticides, synthetic herbicides and synthetic fertilisers are prohibited.",
    ),
    (
        "p",
        "7.3 Each plot-holding household contributes volunteer hours to the common work of the "
        "garden, as set out in the Volunteer Handbook.",
    ),
    ("h1", "Article VIII - Finances"),
    ("p", "8.1 The financial year runs from 1 January to 31 December."),
    (
        "p",
        "8.2 Expenditures above $500 require approval by the Steering Committee. Expenditures "
        "above $2,000 that are not part of the approved budget require approval by a general "
        "meeting.",
    ),
    (
        "p",
        "8.3 Payments above $250 require the signatures of two officers, one of whom must be "
        "the Treasurer or the Coordinator.",
    ),
    ("h1", "Article IX - Conduct and Conflict Resolution"),
    (
        "p",
        "9.1 Disputes between members are first referred to mediation by two Steering "
        "Committee members not involved in the dispute.",
    ),
    (
        "p",
        "9.2 The Steering Committee may suspend a member for up to 60 days for serious or "
        "repeated breaches of the garden rules. The member may appeal within 30 days.",
    ),
    ("h1", "Article X - Dissolution"),
    (
        "p",
        "10.1 The Co-op may be dissolved by a three-quarters majority at a general meeting "
        "called for that purpose with at least 30 days' notice.",
    ),
    (
        "p",
        "10.2 Remaining assets after paying debts are transferred to another non-profit "
        "community garden or food-security organisation in Riverton, chosen by that meeting.",
    ),
    ("h1", "Article XI - Amendments"),
    (
        "p",
        "11.1 These bylaws may be amended by a general meeting with a two-thirds majority of the "
        "votes cast, provided that the full text of the proposed amendment was sent to all "
        "members at least 21 days before the meeting.",
    ),
    (
        "p",
        "11.2 Last amendment: Article IV.1 (minimum quorum of 15 members), adopted at the AGM "
        "of 25 January 2025.",
    ),
]


class PolicyPDF(FPDF):
    """FPDF with a running header and page-numbered footer."""

    def __init__(self, running_title: str) -> None:
        super().__init__(format="A4")
        self.running_title = running_title
        self.set_auto_page_break(auto=True, margin=20)
        self.set_margins(20, 20, 20)

    def header(self) -> None:
        if self.page_no() == 1:
            return
        self.set_font("Helvetica", "I", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 6, self.running_title, align="R")
        self.ln(10)
        self.set_text_color(0, 0, 0)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", "", 8)
        self.set_text_color(110, 110, 110)
        self.cell(0, 10, f"Page {self.page_no()} of {{nb}}", align="C")
        self.set_text_color(0, 0, 0)


def build_pdf(
    blocks: list[tuple[str, str]], out: Path, running_title: str, author: str, subject: str
) -> None:
    pdf = PolicyPDF(running_title)
    pdf.alias_nb_pages()
    pdf.set_title(running_title)
    pdf.set_author(author)
    pdf.set_subject(subject)
    pdf.set_creator("Shu examples/tools/make_pdfs.py")
    pdf.set_creation_date(CREATION_DATE)
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin

    for kind, text in blocks:
        text.encode("latin-1")  # fail loudly on non latin-1 characters
        if kind == "title":
            pdf.set_font("Helvetica", "B", 20)
            pdf.multi_cell(width, 10, text)
            pdf.ln(1)
        elif kind == "subtitle":
            pdf.set_font("Helvetica", "I", 10)
            pdf.multi_cell(width, 6, text)
            pdf.ln(6)
        elif kind == "h1":
            pdf.ln(3)
            pdf.set_font("Helvetica", "B", 14)
            pdf.multi_cell(width, 8, text)
            pdf.ln(1)
        elif kind == "h2":
            pdf.ln(1)
            pdf.set_font("Helvetica", "B", 12)
            pdf.multi_cell(width, 7, text)
        elif kind == "p":
            pdf.set_font("Helvetica", "", 10.5)
            pdf.multi_cell(width, 5.5, text)
            pdf.ln(2)
        elif kind == "bullet":
            pdf.set_font("Helvetica", "", 10.5)
            pdf.set_x(pdf.l_margin + 4)
            pdf.multi_cell(width - 4, 5.5, "- " + text)
            pdf.ln(1)
        else:
            raise ValueError(f"unknown block kind: {kind}")

    out.parent.mkdir(parents=True, exist_ok=True)
    pdf.output(str(out))
    print(f"wrote {out.relative_to(EXAMPLES.parent)} ({out.stat().st_size} bytes, {pdf.page_no()} pages)")


def main() -> None:
    build_pdf(
        RETENTION_POLICY,
        PERSONAS / "lumen-support" / "RAW-DOCS" / "data-retention-and-gdpr-policy.pdf",
        running_title="Lumen Analytics - Data Retention and GDPR Policy v3.2",
        author="Lumen Analytics, Inc.",
        subject="Data retention periods, deletion and GDPR",
    )
    build_pdf(
        BYLAWS,
        PERSONAS / "city-garden" / "RAW-DOCS" / "city-garden-bylaws.pdf",
        running_title="City Garden Co-op - Bylaws",
        author="City Garden Co-op",
        subject="Bylaws: membership, meetings, quorum, voting",
    )


if __name__ == "__main__":
    main()
