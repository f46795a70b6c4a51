"""An Outlook `.msg` message (invented, CC0), written by code: nothing on the machine writes one.

Two layers, both small enough to read against their specifications:

- `write_cfb` writes a Compound File Binary file ([MS-CFB], version 3: 512-byte sectors, streams
  below 4096 bytes in the mini stream, a FAT listed in the header's DIFAT only), from a nested
  dict: a `dict` is a storage, `bytes` a stream.
- `make_msg` lays out a message in it as [MS-OXMSG] says: property streams, one `__substg1.0_`
  stream per string or binary property, a recipient storage and an attachment storage.

The message is Ayla's reply in the rowing club's thread about the Tern's winches, with the
meeting minutes attached as `minutes.md`."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from datetime import UTC, datetime

# -- Compound File Binary ([MS-CFB]) ------------------------------------------------------------

SECTOR = 512
MINI_SECTOR = 64
MINI_CUTOFF = 4096
"""Streams shorter than this live in the mini stream, in 64-byte mini sectors."""
ENTRY = 128
HEADER_DIFAT = 109
"""FAT sector numbers the header holds; this writer needs no DIFAT sectors beyond them."""

FREESECT = 0xFFFFFFFF
ENDOFCHAIN = 0xFFFFFFFE
FATSECT = 0xFFFFFFFD
NOSTREAM = 0xFFFFFFFF

STORAGE, STREAM, ROOT = 1, 2, 5
RED, BLACK = 0, 1

Tree = dict[str, "bytes | Tree"]


@dataclass
class _Entry:
    """One 128-byte directory entry, before and after its place in the file is known."""

    name: str
    kind: int
    data: bytes = b""
    children: list[_Entry] = field(default_factory=list)
    left: int = NOSTREAM
    right: int = NOSTREAM
    child: int = NOSTREAM
    color: int = BLACK
    start: int = 0
    size: int = 0

    def pack(self) -> bytes:
        name = self.name.encode("utf-16-le") + b"\0\0"
        return struct.pack(
            "<64sHBBIII16sIQQIQ",
            name,
            len(name),
            self.kind,
            self.color,
            self.left,
            self.right,
            self.child,
            b"\0" * 16,  # CLSID
            0,  # state bits
            0,  # creation time
            0,  # modification time
            self.start,
            self.size,
        )


_UNUSED = struct.pack(
    "<64sHBBIII16sIQQIQ", b"", 0, 0, 0, NOSTREAM, NOSTREAM, NOSTREAM, b"\0" * 16, 0, 0, 0, 0, 0
)


def cfb_order(name: str) -> tuple[int, list[int]]:
    """[MS-CFB] 2.6.4: a shorter name comes first; names of one length compare by their
    upper-case UTF-16 code units (a letter whose upper case is longer, like "ß", stays as it is)."""
    units = "".join(c.upper() if len(c.upper()) == 1 else c for c in name).encode("utf-16-le")
    return len(units), list(struct.unpack(f"<{len(units) // 2}H", units))


def write_cfb(tree: Tree) -> bytes:
    """The compound file holding `tree` under its root storage."""
    root = _Entry("Root Entry", ROOT, children=_entries(tree))
    directory: list[_Entry] = [root]
    _number(root, directory)

    # Small streams go into the mini stream, one chain of 64-byte mini sectors each.
    mini_stream, mini_fat = bytearray(), list[int]()
    large: list[_Entry] = []
    for entry in directory:
        if entry.kind != STREAM:
            continue
        entry.size = len(entry.data)
        if not entry.data:
            entry.start = ENDOFCHAIN
        elif entry.size < MINI_CUTOFF:
            entry.start = len(mini_fat)
            mini_fat += _chain(entry.start, _count(entry.size, MINI_SECTOR))
            mini_stream += _pad(entry.data, MINI_SECTOR)
        else:
            large.append(entry)

    # Everything else is a run of whole sectors after the FAT: the directory, the MiniFAT, the
    # mini stream (the root entry's own stream), then each large stream.
    unused = -len(directory) % (SECTOR // ENTRY)
    mini_fat_bytes = _sector_numbers(mini_fat, FREESECT) if mini_fat else b""
    sizes = [(len(directory) + unused) * ENTRY, len(mini_fat_bytes), len(mini_stream)]
    sizes += [entry.size for entry in large]
    content = sum(_count(size, SECTOR) for size in sizes)
    fat_sectors = 1
    while fat_sectors * (SECTOR // 4) < fat_sectors + content:
        fat_sectors += 1
    if fat_sectors > HEADER_DIFAT:
        raise ValueError("too large for a compound file without DIFAT sectors")

    fat = [FATSECT] * fat_sectors
    starts = []
    for size in sizes:
        starts.append(len(fat) if size else ENDOFCHAIN)
        fat += _chain(len(fat), _count(size, SECTOR))
    directory_start, mini_fat_start, root.start = starts[:3]
    root.size = len(mini_stream)
    for entry, start in zip(large, starts[3:], strict=True):
        entry.start = start

    runs = [b"".join(e.pack() for e in directory) + _UNUSED * unused, mini_fat_bytes, bytes(mini_stream)]
    runs += [entry.data for entry in large]
    body = b"".join(_pad(run, SECTOR) for run in runs)
    header = struct.pack(
        "<8s16sHHHHH6sIIIIIIIII",
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        b"\0" * 16,  # CLSID
        0x003E,  # minor version
        0x0003,  # major version: 512-byte sectors
        0xFFFE,  # byte order: little-endian
        9,  # sector shift: 2**9 = 512
        6,  # mini sector shift: 2**6 = 64
        b"\0" * 6,
        0,  # directory sectors: always 0 in version 3
        fat_sectors,
        directory_start,
        0,  # transaction signature
        MINI_CUTOFF,
        mini_fat_start,
        _count(len(mini_fat) * 4, SECTOR),
        ENDOFCHAIN,  # first DIFAT sector: none
        0,  # DIFAT sectors
    )
    difat = list(range(fat_sectors)) + [FREESECT] * (HEADER_DIFAT - fat_sectors)
    header += struct.pack(f"<{HEADER_DIFAT}I", *difat)
    return header + _sector_numbers(fat, FREESECT) + body


def _entries(tree: Tree) -> list[_Entry]:
    made = []
    for name, value in sorted(tree.items(), key=lambda item: cfb_order(item[0])):
        if len(name) > 31 or any(c in name for c in "/\\:!"):
            raise ValueError(f"not a valid compound-file name: {name!r}")
        if isinstance(value, dict):
            made.append(_Entry(name, STORAGE, children=_entries(value)))
        else:
            made.append(_Entry(name, STREAM, data=bytes(value)))
    return made


def _number(storage: _Entry, directory: list[_Entry]) -> None:
    """Give each child of `storage` its directory number (they are in CFB order), hang them from
    it as a balanced binary search tree, and do the same for each child storage."""
    first = len(directory)
    directory += storage.children
    ids = list(range(first, len(directory)))
    storage.child = _balance(directory, ids, 0, depth=len(ids).bit_length())
    for child in storage.children:
        if child.kind == STORAGE:
            _number(child, directory)


def _balance(directory: list[_Entry], ids: list[int], level: int, depth: int) -> int:
    """The middle entry is the root, each half a subtree. Every path from the root to a missing
    child then passes `depth - 1` or `depth` nodes, so colouring the bottom level red (when it is
    not the root) gives every path the same number of black nodes: a valid red-black tree."""
    if not ids:
        return NOSTREAM
    middle = len(ids) // 2
    node = directory[ids[middle]]
    node.left = _balance(directory, ids[:middle], level + 1, depth)
    node.right = _balance(directory, ids[middle + 1 :], level + 1, depth)
    node.color = RED if level == depth - 1 and level > 0 else BLACK
    return ids[middle]


def _chain(start: int, count: int) -> list[int]:
    """FAT (or MiniFAT) entries for `count` consecutive sectors from `start`."""
    return [start + i + 1 for i in range(count - 1)] + [ENDOFCHAIN] * (count > 0)


def _count(size: int, unit: int) -> int:
    return -(-size // unit)


def _pad(data: bytes, unit: int) -> bytes:
    return data + b"\0" * (-len(data) % unit)


def _sector_numbers(numbers: list[int], filler: int) -> bytes:
    numbers = numbers + [filler] * (-len(numbers) % (SECTOR // 4))
    return struct.pack(f"<{len(numbers)}I", *numbers)


# -- Outlook message ([MS-OXMSG]) ---------------------------------------------------------------

PT_LONG, PT_BOOLEAN, PT_SYSTIME, PT_UNICODE, PT_BINARY = 0x0003, 0x000B, 0x0040, 0x001F, 0x0102
READABLE_WRITABLE = 0x6

SUBJECT = "Re: Winches for the Tern"
SENDER = ("Ayla Demir", "ayla@harbor.example")
RECIPIENT = ("Jonas Berg", "jonas@harbor.example")
MESSAGE_ID = "<re-winches-2026@harbor.example>"
IN_REPLY_TO = "<winches-2026@harbor.example>"
THREAD_ID = "<season-2026@harbor.example>"
SENT = datetime(2026, 6, 23, 16, 5, tzinfo=UTC)
OWN_WORDS = (
    "Jonas,\r\n\r\nThe board voted on Tuesday: the club buys two winches for the Tern, and the old\r\n"
    "ones go to the training boats. The minutes are attached.\r\n\r\nAyla"
)
BODY = (
    OWN_WORDS + "\r\n\r\n-- \r\nAyla Demir, treasurer, Harbor Rowing Club\r\n\r\n"
    "-----Original Message-----\r\nFrom: Jonas Berg <jonas@harbor.example>\r\n"
    "Sent: Monday, 22 June 2026 09:12\r\nTo: Ayla Demir <ayla@harbor.example>\r\n"
    "Subject: Winches for the Tern\r\n\r\nCan we afford new winches this season?\r\n"
)
ATTACHMENT_NAME = "minutes.md"
MINUTES = b"# Minutes\n\n## Decisions\n\nThe club buys two winches.\n"
HEADERS = (
    "Received: from mail.harbor.example by mx.harbor.example; Tue, 23 Jun 2026 16:05:02 +0000\r\n"
    f"Message-ID: {MESSAGE_ID}\r\n"
    f"In-Reply-To: {IN_REPLY_TO}\r\n"
    f"References: {THREAD_ID}\r\n {IN_REPLY_TO}\r\n"
    "Date: Tue, 23 Jun 2026 18:05:00 +0200\r\n"
    f"From: {SENDER[0]} <{SENDER[1]}>\r\n"
    f"To: {RECIPIENT[0]} <{RECIPIENT[1]}>\r\n"
    f"Subject: {SUBJECT}\r\n"
    "MIME-Version: 1.0\r\n"
    'Content-Type: multipart/mixed; boundary="minutes-boundary"\r\n'
    "\r\n"
)


def make_msg(sent_copy: bool = False) -> bytes:
    """Ayla's reply (plain-text body, transport headers, one To recipient) with `minutes.md`.

    `sent_copy=True` gives Ayla's own copy, as saved from her Sent Items: no transport headers
    (they are written by the server on the way in), so the Message-ID, In-Reply-To and References
    are only in their properties, and people are named the way an Exchange address book names
    them ("Demir, Ayla")."""
    sent = _filetime(SENT)
    sender_name, recipient_name = SENDER[0], RECIPIENT[0]
    if sent_copy:
        sender_name, recipient_name = (", ".join(reversed(n.split())) for n in (sender_name, recipient_name))
    message = {
        0x001A: (PT_UNICODE, "IPM.Note"),  # message class
        0x0037: (PT_UNICODE, SUBJECT),
        0x003D: (PT_UNICODE, "Re: "),  # subject prefix
        0x0E1D: (PT_UNICODE, SUBJECT.removeprefix("Re: ")),  # normalized subject
        0x0070: (PT_UNICODE, SUBJECT.removeprefix("Re: ")),  # conversation topic
        0x1000: (PT_UNICODE, BODY),
        0x007D: (PT_UNICODE, HEADERS),  # transport message headers
        0x0C1A: (PT_UNICODE, sender_name),  # sender name
        0x0C1E: (PT_UNICODE, "SMTP"),  # sender address type
        0x0C1F: (PT_UNICODE, SENDER[1]),  # sender e-mail address
        0x5D01: (PT_UNICODE, SENDER[1]),  # sender SMTP address
        0x0042: (PT_UNICODE, sender_name),  # sent representing name
        0x0065: (PT_UNICODE, SENDER[1]),  # sent representing e-mail address
        0x0E04: (PT_UNICODE, recipient_name),  # display To
        0x0E03: (PT_UNICODE, ""),  # display Cc
        0x0E02: (PT_UNICODE, ""),  # display Bcc
        0x1035: (PT_UNICODE, MESSAGE_ID),  # internet message id
        0x1042: (PT_UNICODE, IN_REPLY_TO),  # in-reply-to id
        0x1039: (PT_UNICODE, f"{THREAD_ID} {IN_REPLY_TO}"),  # internet references
        0x0039: (PT_SYSTIME, sent),  # client submit time
        0x0E06: (PT_SYSTIME, sent + 2 * 10_000_000),  # message delivery time, two seconds later
        0x0E07: (PT_LONG, 0x1),  # message flags: read (not unsent)
        0x0E1B: (PT_BOOLEAN, 1),  # has attachments
        0x0017: (PT_LONG, 1),  # importance: normal
        0x3FDE: (PT_LONG, 65001),  # internet code page: UTF-8
        0x340D: (PT_LONG, 0x00040000),  # store support mask: Unicode strings
    }
    if sent_copy:
        del message[0x007D]
    recipient = {
        0x3000: (PT_LONG, 0),  # row id
        0x0C15: (PT_LONG, 1),  # recipient type: To
        0x0FFE: (PT_LONG, 6),  # object type: mail user
        0x3001: (PT_UNICODE, recipient_name),  # display name
        0x3002: (PT_UNICODE, "SMTP"),  # address type
        0x3003: (PT_UNICODE, RECIPIENT[1]),  # e-mail address
        0x39FE: (PT_UNICODE, RECIPIENT[1]),  # SMTP address
    }
    attachment = {
        0x0E21: (PT_LONG, 0),  # attach number
        0x0FFE: (PT_LONG, 7),  # object type: attachment
        0x3705: (PT_LONG, 1),  # attach method: by value
        0x0E20: (PT_LONG, len(MINUTES)),  # attach size
        0x3707: (PT_UNICODE, ATTACHMENT_NAME),  # long file name
        0x3704: (PT_UNICODE, "MINUTES.MD"),  # 8.3 file name
        0x3703: (PT_UNICODE, ".md"),  # extension
        0x370E: (PT_UNICODE, "text/markdown"),  # MIME type
        0x3701: (PT_BINARY, MINUTES),  # data
    }
    top = _properties(message, header=struct.pack("<8xIIII8x", 1, 1, 1, 1))
    top["__recip_version1.0_#00000000"] = _properties(recipient, header=b"\0" * 8)
    top["__attach_version1.0_#00000000"] = _properties(attachment, header=b"\0" * 8)
    # The named-property mapping: no named properties, so its GUID, entry and string streams are empty.
    top["__nameid_version1.0"] = {f"__substg1.0_{n:04X}0102": b"" for n in (2, 3, 4)}
    return write_cfb(top)


def _properties(values: dict[int, tuple[int, object]], header: bytes) -> Tree:
    """A property stream (`header`, then a 16-byte entry per property) and a stream per string
    or binary value."""
    streams: Tree = {}
    entries = []
    for prop_id, (kind, value) in sorted(values.items()):
        tag = prop_id << 16 | kind
        if kind == PT_UNICODE:
            assert isinstance(value, str)
            data = value.encode("utf-16-le")
            streams[f"__substg1.0_{tag:08X}"] = data
            entries.append(struct.pack("<IIII", tag, READABLE_WRITABLE, len(data) + 2, 0))
        elif kind == PT_BINARY:
            assert isinstance(value, bytes)
            streams[f"__substg1.0_{tag:08X}"] = value
            entries.append(struct.pack("<IIII", tag, READABLE_WRITABLE, len(value), 0))
        elif kind == PT_SYSTIME:
            entries.append(struct.pack("<IIQ", tag, READABLE_WRITABLE, value))
        else:  # PT_LONG, PT_BOOLEAN: the value, then zeros to 8 bytes
            entries.append(struct.pack("<IIi4x", tag, READABLE_WRITABLE, value))
    streams["__properties_version1.0"] = header + b"".join(entries)
    return streams


def _filetime(when: datetime) -> int:
    """100-nanosecond intervals since 1601-01-01 UTC."""
    return round((when - datetime(1601, 1, 1, tzinfo=UTC)).total_seconds()) * 10_000_000
