"""The texts and data of the example knowledge base `examples/office-kb/` (invented, CC0), which
`scripts/make-office-kb.py` turns into files: the persona, the people, the e-mail thread, the
calendar's time zone, the minutes' action items, the slides' key figures, the paper prices and
stock, the maintenance log, the chat channel, the scanned page's lines, the handbook and the web
page. Changing a text here changes the files the script writes (and maybe the labelled questions
written against them)."""

from __future__ import annotations

from datetime import UTC, datetime

PERSONA_MD = """# Fernhill Operations

Fernhill Operations is the voice of the operations team of Fernhill Print & Pack, a fictional
printing and packaging company with 38 staff at Unit 4, Kiln Lane Industrial Estate, Ashby. It
speaks to the people who run the shop floor, the warehouse and customer service.

It knows the team's day-to-day records: the Press 2 breakdown of May 2026 and how it was repaired,
the operations meeting minutes of 20 May 2026, the Q2 2026 operations review slides, the recurring
and one-off meetings in the team calendar, the paper price list and stock levels, the machine
maintenance log, the #ops-floor chat channel, the fire drill report of 29 April 2026, the staff
handbook on working hours, overtime and leave, the customer-facing services and turnaround page,
and the paper supplier's price change notice.

It answers plainly, with the exact dates, amounts, job numbers and names from the documents, and
says so when a record does not cover a question.
"""

PERSONA_CONFIG = {
    "slug": "fernhill-ops",
    "display_name": "Fernhill Operations",
    "tags": [
        "printing",
        "packaging",
        "print production",
        "press maintenance",
        "warehouse",
        "paper stock",
        "suppliers",
        "couriers",
        "shifts",
        "overtime",
        "annual leave",
        "health and safety",
        "fire drill",
        "turnaround times",
        "operations meeting",
    ],
    "retrieval": {"vector_threshold": 0.2, "bm25_min_score": 0.0, "max_chunks": 12, "max_chunks_per_doc": 3},
}


HARRIET = "Harriet Quinn <harriet.quinn@fernhill.example>"
OWEN = "Owen Pryce <owen.pryce@fernhill.example>"
DEV = "Dev Malhotra <dev.malhotra@fernhill.example>"
KARL = "Karl Dietz <karl.dietz@pressline.example>"
MARTIN = "Martin Webb <martin.webb@fernhill.example>"
SOFIA = "Sofia Lindqvist <sofia.lindqvist@fernhill.example>"


# -- the e-mail thread: Press 2 breakdown ------------------------------------------------------

THREAD = [
    (
        "Press 2 down - grinding noise, error E-214",
        OWEN,
        [HARRIET],
        [DEV],
        datetime(2026, 5, 11, 7, 52, tzinfo=UTC),
        "<press2-1@fernhill.example>",
        None,
        "Harriet,\n\n"
        "Press 2 (the Heidelberg Speedmaster SX 74) stopped at 07:40 this morning with a loud\n"
        "grinding noise from the drive side. The console shows error E-214, main drive overload.\n"
        "I have locked it out and tagged it. I cannot see anything obvious from the outside, so I\n"
        "have called Pressline Service; their engineer Karl Dietz can come tomorrow at 08:00.\n\n"
        "Dev has 11 jobs scheduled on Press 2 this week.\n\n"
        "Owen Pryce\nMaintenance Lead",
    ),
    (
        "Re: Press 2 down - grinding noise, error E-214",
        KARL,
        [OWEN],
        [HARRIET],
        datetime(2026, 5, 12, 13, 5, tzinfo=UTC),
        "<press2-2@pressline.example>",
        "<press2-1@fernhill.example>",
        "Hello Owen,\n\n"
        "As discussed on site: the main drive bearing on the operator side is worn through. The\n"
        "cause is lubrication. The automatic lubrication pump was running, but its feed line to the\n"
        "drive bearing was blocked with old grease, so the bearing had no fresh grease for several\n"
        "weeks. The blockage probably started after the pump service in March.\n\n"
        "A new bearing kit (part 61.010.044) comes from Germany. I have ordered it for delivery on\n"
        "Thursday 14 May. Fitting takes about one day, so the press should run again on Friday\n"
        "15 May in the afternoon.\n\n"
        "Estimate: bearing kit 2,940 GBP, labour 1,920 GBP (two engineer days). Total 4,860 GBP\n"
        "plus VAT.\n\n"
        "Regards,\nKarl Dietz\nField Engineer, Pressline Service",
    ),
    (
        "Re: Press 2 down - grinding noise, error E-214",
        HARRIET,
        [OWEN, DEV],
        [KARL, MARTIN],
        datetime(2026, 5, 12, 15, 20, tzinfo=UTC),
        "<press2-3@fernhill.example>",
        "<press2-2@pressline.example>",
        "Thanks Karl, please go ahead with the repair at that price.\n\n"
        "Dev: until Press 2 is back, move the urgent jobs to Press 1 and run it on a double shift\n"
        "this week. The Harbour Theatre brochures (job 26-0418, 12,000 copies) cannot wait, so\n"
        "outsource that job to Riverside Print; they quoted 1,150 GBP. Please tell the customers\n"
        "whose jobs slip.\n\n"
        "Martin: the repair and the outsourcing come out of the maintenance budget.\n\n"
        "Harriet Quinn\nOperations Manager",
    ),
    (
        "Re: Press 2 down - grinding noise, error E-214",
        DEV,
        [HARRIET],
        [OWEN],
        datetime(2026, 5, 13, 9, 10, tzinfo=UTC),
        "<press2-4@fernhill.example>",
        "<press2-3@fernhill.example>",
        "Harriet,\n\n"
        "Done. Press 1 runs 06:00-22:00 until Friday. Of the 11 jobs, 2 fitted on Press 1 without\n"
        "delay and 9 are delayed by one to three days. Aisha has phoned the two customers with\n"
        "firm delivery dates this week (Bramley Foods and Oakridge Dental). Riverside Print will\n"
        "deliver the Harbour Theatre brochures on 14 May.\n\n"
        "Dev",
    ),
    (
        "Re: Press 2 down - grinding noise, error E-214",
        OWEN,
        [HARRIET, DEV],
        [KARL],
        datetime(2026, 5, 15, 16, 45, tzinfo=UTC),
        "<press2-5@fernhill.example>",
        "<press2-4@fernhill.example>",
        "All,\n\n"
        "Press 2 is back in production since 16:30 today. Karl fitted the new bearing, we cleared\n"
        "and flushed the whole lubrication line and the test run of 2,000 sheets was clean.\n\n"
        "To stop this happening again I have added a weekly check of the lubrication lines (grease\n"
        "arriving at every point) to the Monday maintenance checklist.\n\n"
        "Downtime in total: 11 May 07:40 to 15 May 16:30.\n\n"
        "Owen",
    ),
]


# -- meeting invitations -----------------------------------------------------------------------

LONDON = [
    "BEGIN:VTIMEZONE",
    "TZID:Europe/London",
    "BEGIN:DAYLIGHT",
    "TZOFFSETFROM:+0000",
    "TZOFFSETTO:+0100",
    "TZNAME:BST",
    "DTSTART:19700329T010000",
    "RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU",
    "END:DAYLIGHT",
    "BEGIN:STANDARD",
    "TZOFFSETFROM:+0100",
    "TZOFFSETTO:+0000",
    "TZNAME:GMT",
    "DTSTART:19701025T020000",
    "RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU",
    "END:STANDARD",
    "END:VTIMEZONE",
]


# -- meeting minutes (.docx) -------------------------------------------------------------------

MINUTES_ACTIONS = [
    ("Order a spare main drive bearing kit for Press 2 and keep it in stores", "Owen Pryce", "29 May 2026"),
    ("Sign the Pressline service contract", "Harriet Quinn", "29 May 2026"),
    ("Give Dalton Express notice and set up Swiftline accounts", "Sofia Lindqvist", "5 June 2026"),
    ("Book two temporary press operators through Ashby Staffing", "Dev Malhotra", "27 May 2026"),
    ("Repair the three damaged uprights in aisle C", "Sofia Lindqvist", "27 May 2026"),
    ("Fit an extra alarm sounder in the paper store", "Grace Okafor", "15 June 2026"),
]


# -- slides (.pptx) ----------------------------------------------------------------------------

KPI_TABLE = [
    ("Measure", "Target", "April", "May", "June"),
    ("On-time delivery", "96%", "97.1%", "88.4%", "95.6%"),
    ("Press uptime", "92%", "94.0%", "78.5%", "93.2%"),
    ("Paper waste", "4.0%", "3.6%", "4.4%", "3.7%"),
    ("Jobs completed", "-", "142", "121", "151"),
    ("Customer complaints", "-", "1", "3", "2"),
]


# -- workbook (.xlsx) and log (.csv) -----------------------------------------------------------

PRICE_HEADER = [
    "Code",
    "Paper",
    "Supplier",
    "Weight (gsm)",
    "Sheet size",
    "Price per 1,000 sheets (GBP)",
    "Lead time (working days)",
]
PRICES = [
    ["MS-150", "Mallory Silk 150", "Mallory Paper", 150, "SRA2", 68.40, 3],
    ["MS-300", "Mallory Silk 300", "Mallory Paper", 300, "SRA2", 131.20, 3],
    ["MO-100", "Mallory Offset 100", "Mallory Paper", 100, "SRA2", 41.75, 3],
    ["RB-350", "Ridgeway Board 350", "Mallory Paper", 350, "B1", 156.00, 5],
    ["NC-120", "Nordcoat Recycled 120", "Nordic Fibre", 120, "SRA2", 59.90, 7],
    ["KL-450", "Kraftline Carton 450", "Nordic Fibre", 450, "B1", 212.50, 10],
]
STOCK_HEADER = ["Code", "Sheets on hand", "Reorder point", "Location", "Last counted"]
STOCK = [
    ["MS-150", 18500, 10000, "Bay A2", "2026-06-26"],
    ["MS-300", 4200, 6000, "Bay A3", "2026-06-26"],
    ["MO-100", 31000, 15000, "Bay B1", "2026-06-26"],
    ["RB-350", 2600, 2000, "Bay D4", "2026-06-26"],
    ["NC-120", 9800, 5000, "Bay B2", "2026-06-26"],
    ["KL-450", 1100, 3000, "Bay D1", "2026-06-26"],
]


MAINTENANCE = [
    ["Date", "Machine", "Work", "Done by", "Downtime (hours)", "Cost (GBP)"],
    ["2026-01-14", "Press 1", "Blanket and roller change, all units", "Owen Pryce", "6", "640"],
    ["2026-02-03", "Guillotine (Polar 78)", "Blade change and sharpening", "Owen Pryce", "1.5", "210"],
    ["2026-03-04", "Press 2", "Automatic lubrication pump service", "Pressline Service", "4", "520"],
    ["2026-03-19", "Folder (Horizon AFC-566)", "Feed roller replaced", "Owen Pryce", "3", "385"],
    [
        "2026-04-22",
        "Digital press (AccurioPress C4080)",
        "Fuser unit replaced",
        "Konica Minolta",
        "5",
        "1,240",
    ],
    [
        "2026-05-15",
        "Press 2",
        "Main drive bearing replaced, lubrication line flushed",
        "Pressline Service",
        "105",
        "4,860",
    ],
    ["2026-06-09", "Forklift FL-2", "Traction battery replaced", "Ashby Forklifts", "8", "1,380"],
    ["2026-06-16", "Press 2", "First preventive service under contract", "Pressline Service", "6", "0"],
]


# -- Slack channel export (.json) --------------------------------------------------------------

PEOPLE = {
    "U01SOFIA": "Sofia Lindqvist",
    "U02DEV": "Dev Malhotra",
    "U03AISHA": "Aisha Rahman",
    "U04GRACE": "Grace Okafor",
    "U05OWEN": "Owen Pryce",
    "U06HARRIET": "Harriet Quinn",
}
CHAT = [
    (
        "2026-05-11T08:05",
        "U02DEV",
        "Press 2 is down (drive fault), Owen is on it. Don't load anything on it today.",
    ),
    (
        "2026-05-11T08:20",
        "U01SOFIA",
        "Loading bay door 2 is stuck half open. Doorfix are coming at 14:00, "
        "use door 1 for all collections until then.",
    ),
    ("2026-05-11T15:02", "U01SOFIA", "Door 2 fixed: a snapped spring. Doorfix charged 265 GBP."),
    (
        "2026-05-13T09:30",
        "U02DEV",
        "Harbour Theatre brochures (26-0418) are with Riverside Print, back "
        "Thursday 14 May. Press 1 on double shift 06:00-22:00 until Friday.",
    ),
    (
        "2026-05-21T11:40",
        "U03AISHA",
        "Bramley Foods complained: die-cut on the cartons of order 26-0392 is about 2 mm off. "
        "<@U06HARRIET> approved a reprint of 2,500 cartons at our cost, shipping Friday 29 May.",
    ),
    (
        "2026-05-21T11:52",
        "U06HARRIET",
        "Yes, approved. Dev, please sign off the first carton of every die-cut run from now on.",
    ),
    (
        "2026-06-01T07:45",
        "U04GRACE",
        "New first aiders after last week's course: Tom Reilly (warehouse) and "
        "Priya Shah (finishing). The warehouse first-aid kit is restocked.",
    ),
    (
        "2026-06-01T08:10",
        "U01SOFIA",
        "The paper store door code changed today. Ask me or Dev for it, please don't write it on the door.",
    ),
    (
        "2026-06-08T14:25",
        "U05OWEN",
        "Forklift FL-2 isn't holding charge any more, it's parked and tagged. "
        "Use FL-1 until the new battery is in.",
    ),
    (
        "2026-06-09T16:10",
        "U05OWEN",
        "FL-2 has its new battery (1,380 GBP, Ashby Forklifts) and is back in use.",
    ),
    (
        "2026-06-24T10:05",
        "U01SOFIA",
        "Placed the Mallory Silk order: 60,000 sheets of MS-150, at the old price "
        "before the 26 June cut-off. Delivery in three lots, first on Tuesday 30 June.",
    ),
]


# -- scanned page (.png) -----------------------------------------------------------------------

SCAN_LINES = [
    ("FERNHILL PRINT & PACK - FIRE DRILL REPORT", True),
    ("", False),
    ("Date of drill:      Wednesday 29 April 2026, 10:15", False),
    ("Led by:             Grace Okafor, Health and Safety Officer", False),
    ("Assembly point:     Car park B, Kiln Lane", False),
    ("People on site:     31 (all accounted for)", False),
    ("Evacuation time:    3 minutes 40 seconds (target 4 minutes)", False),
    ("", False),
    ("Problems found:", True),
    ("1. The alarm could not be heard in the paper store.", False),
    ("   An extra sounder is to be fitted there.", False),
    ("2. Fire door F3 was propped open with a pallet.", False),
    ("   Door F3 must stay closed; a sign has been put up.", False),
    ("3. Two visitors were not on the signing-in sheet.", False),
    ("   Reception now keeps the sheet at the door.", False),
    ("", False),
    ("Next drill: Thursday 16 July 2026.", False),
    ("", False),
    ("Signed: G. Okafor", False),
]


# -- handbook (.pdf) ---------------------------------------------------------------------------

HANDBOOK = [
    ("title", "Staff Handbook 2026 - Working Hours, Overtime and Leave"),
    (
        "p",
        "Fernhill Print & Pack Ltd. This section applies to all employees from 1 January 2026. "
        "Questions go to your supervisor or to HR through the PeopleDesk portal.",
    ),
    ("h", "1. Working hours"),
    (
        "p",
        "The standard working week is 37.5 hours. The day shift runs from 08:00 to 16:30, Monday to "
        "Friday, with an unpaid lunch break of 30 minutes. When a press runs two shifts, the early shift is "
        "06:00 to 14:00 and the late shift 14:00 to 22:00, each with a paid 20-minute break.",
    ),
    (
        "p",
        "Clock in and out at the terminal by the staff entrance. Arriving more than 10 minutes late "
        "twice in a month is discussed with your supervisor.",
    ),
    ("h", "2. Overtime"),
    (
        "p",
        "Overtime must be approved by your supervisor before it is worked. It is paid at time and a "
        "half (1.5 times the hourly rate) on weekdays and Saturdays, and at double time on Sundays and bank "
        "holidays. Instead of payment you may take time off in lieu, hour for hour, within 3 months.",
    ),
    ("p", "No one may work more than 12 hours in a day or more than 48 hours a week averaged over 17 weeks."),
    ("h", "3. Annual leave"),
    (
        "p",
        "Full-time employees receive 25 days of annual leave plus the 8 bank holidays. After five "
        "years of service you receive one extra day for every further year, up to 30 days. The leave year "
        "runs from 1 January to 31 December; up to 5 unused days may be carried into the next year and "
        "must be taken by 31 March.",
    ),
    (
        "p",
        "Request leave through PeopleDesk at least 4 weeks before the first day for a week or more, "
        "and at least 3 working days before for a single day. From 1 September to 30 November, our peak "
        "season for Christmas printing and packaging, no one may take more than 5 consecutive working "
        "days, and no more than two people from the same team may be away at the same time.",
    ),
    ("h", "4. Sickness"),
    (
        "p",
        "If you are ill, phone your supervisor before your shift starts (by 07:30 for the day shift). "
        "A text message or e-mail is not enough. For absences of more than 7 calendar days you need a fit "
        "note from your doctor. After every absence, fill in the return-to-work form with your supervisor.",
    ),
    ("h", "5. Safety on the shop floor"),
    (
        "p",
        "Safety shoes are required everywhere beyond the yellow line; ear protection is required near "
        "the presses and the guillotine. Only staff with a valid forklift licence may drive the forklifts, "
        "and the licence is renewed every 3 years. Report every accident and near miss in the accident "
        "book in the canteen, and tell Grace Okafor, the Health and Safety Officer, the same day.",
    ),
]


# -- web page (.html) --------------------------------------------------------------------------

SERVICES_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Services and turnaround times - Fernhill Print &amp; Pack</title>
</head>
<body>
<nav><a href="/">Home</a> | <a href="/services">Services</a> | <a href="/contact">Contact</a></nav>
<main>
<h1>Services and turnaround times</h1>
<p>Fernhill Print &amp; Pack prints and finishes everything on site at Unit 4, Kiln Lane Industrial
Estate, Ashby. Turnaround times are in working days from the moment we approve your artwork.
Updated 1 June 2026.</p>

<h2>Turnaround and minimum order</h2>
<table>
<thead><tr><th>Product</th><th>Standard turnaround</th><th>Express turnaround</th>
<th>Minimum order</th></tr></thead>
<tbody>
<tr><td>Business cards</td><td>3 days</td><td>Next day (+40%)</td><td>250 cards</td></tr>
<tr><td>Flyers and leaflets</td><td>4 days</td><td>2 days (+30%)</td><td>500</td></tr>
<tr><td>Brochures (stapled)</td><td>7 days</td><td>4 days (+30%)</td><td>100</td></tr>
<tr><td>Posters up to A2</td><td>5 days</td><td>3 days (+25%)</td><td>50</td></tr>
<tr><td>Folding cartons</td><td>12 days</td><td>No express service</td><td>1,000</td></tr>
</tbody>
</table>

<h2>Artwork</h2>
<ul>
<li>Send print-ready PDF files (PDF/X-4 preferred) with 3 mm bleed on every edge.</li>
<li>Images at 300 dpi at the printed size; fonts embedded.</li>
<li>We send a digital proof within one working day. Printing starts only after you approve it.</li>
<li>Artwork checks are free; artwork changes by our studio cost 45 GBP an hour.</li>
</ul>

<h2>Delivery and collection</h2>
<p>Delivery is free within 25 miles of Ashby for orders over 150 GBP; below that, or further away,
we charge courier cost. Orders for delivery go out by next-day courier. You can also collect from
our trade counter, open Monday to Friday, 08:00 to 17:30.</p>

<h2>Complaints and reprints</h2>
<p>Tell us within 10 working days of delivery if something is wrong. If the fault is ours we reprint
at our cost or refund you, whichever you prefer. Contact Aisha Rahman, Customer Service Lead, at
orders@fernhill.example or 01632 960 200.</p>
</main>
<footer>Fernhill Print &amp; Pack Ltd, Unit 4, Kiln Lane Industrial Estate, Ashby</footer>
</body>
</html>
"""
