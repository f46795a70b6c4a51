"""Concurrency a store owes every caller: one writer at a time, no write lost, and no reader
(or export) that sees half of a replaced document."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from shu.store.base import Store
from shu.store.testing.records import chunks, document, persona, unit, vectors
from shu.types import (
    Chunk,
    Document,
)


class ConcurrencyConformance:
    def test_one_writer_at_a_time(self, store: Store) -> None:
        inside = threading.Event()
        times: dict[str, float] = {}

        def first() -> None:
            with store.writer():
                inside.set()
                time.sleep(0.3)
                times["first out"] = time.monotonic()

        def second() -> None:
            inside.wait(5)
            with store.writer():
                times["second in"] = time.monotonic()

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert times["second in"] >= times["first out"]
        with store.writer():
            pass  # free again

    def test_concurrent_writers_lose_nothing(self, store: Store) -> None:
        store.upsert_persona(persona("alpha"))
        store.replace_document(document("seed", ["alpha"]), chunks("seed", ["x"]), vectors(unit(1)), "e")

        def write(worker: int) -> None:
            for n in range(8):
                doc_id = f"w{worker}-{n}"
                store.replace_document(
                    document(doc_id, ["alpha"]),
                    chunks(doc_id, [f"worker{worker} note{n} shared words", "second chunk"]),
                    vectors(unit(1, worker), unit(worker, 1)),
                    "e",
                )
                if n % 3 == 2:
                    store.delete_document(f"w{worker}-{n - 1}")

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(write, range(4)))
        stats = store.stats()
        assert stats.documents == 1 + 4 * (8 - 2) and stats.chunks == 1 + 2 * 4 * 6
        for worker in range(4):
            hits = store.search_keyword(f"worker{worker} note7", "alpha", 3)
            assert hits[0].chunk_id == f"w{worker}-7#0"

    def test_reads_in_another_thread_never_see_half_of_a_replaced_document(self, store: Store) -> None:
        """A server reads while an in-process ingest replaces documents: every read sees one
        whole version (all chunks of version n, as many as version n has), never a mix."""
        store.upsert_persona(persona("alpha"))

        def version(n: int) -> tuple[Document, list[Chunk], np.ndarray]:
            count = 2 + n % 3
            texts = [f"version {n} part {i}" for i in range(count)]
            return document("d", ["alpha"]), chunks("d", texts), vectors(*[unit(1, i) for i in range(count)])

        store.replace_document(*version(0), "test-embedder")
        seen: list[str] = []
        done = threading.Event()

        def read() -> None:
            while not done.is_set():
                found = store.list_chunks("d")
                versions = {c.text.split()[1] for c in found}
                if len(versions) != 1 or len(found) != 2 + int(next(iter(versions))) % 3:
                    seen.append(f"mixed: {[c.text for c in found]}")
                by_id = store.get_chunks([f"d#{i}" for i in range(4)])
                if len({c.text.split()[1] for c in by_id.values()}) > 1:
                    seen.append(f"mixed by id: {sorted(c.text for c in by_id.values())}")

        readers = [threading.Thread(target=read) for _ in range(2)]
        for reader in readers:
            reader.start()
        try:
            for n in range(1, 40):
                store.replace_document(*version(n), "test-embedder")
        finally:
            done.set()
            for reader in readers:
                reader.join()
        assert seen == []

    def test_an_export_never_mixes_two_versions_of_a_document(self, store: Store) -> None:
        """`shu migrate` reads while ingestion may write: each export is one version, whole."""
        store.upsert_persona(persona("alpha"))
        versions = {
            "old": (["old one", "old two"], vectors(unit(1), unit(1, 1))),
            "new": (["new one", "new two"], vectors(unit(0, 1), unit(0, 1, 1))),
        }
        store.replace_document(
            document("d", ["alpha"]), chunks("d", versions["old"][0]), versions["old"][1], "e"
        )
        stop = False

        def write() -> None:
            turn = 0
            while not stop:
                texts, rows = versions["new" if turn % 2 else "old"]
                store.replace_document(document("d", ["alpha"]), chunks("d", texts), rows, "e")
                turn += 1

        with ThreadPoolExecutor(1) as pool:
            writer = pool.submit(write)
            try:
                for _ in range(60):
                    stored = store.export_document("d")
                    assert stored is not None
                    name = stored.chunks[0].text.split()[0]
                    assert [c.text.split()[0] for c in stored.chunks] == [name, name]
                    assert np.allclose(stored.vectors, versions[name][1]), "chunks and vectors of one version"
            finally:
                stop = True
                writer.result()
