"""SQLite schema, applied as numbered migrations tracked in `PRAGMA user_version`.

Later surfaces (profiles, synthesized questions, chunk profiles, relationships) arrive as new
migrations appended to `MIGRATIONS`; an existing store is upgraded in place when opened.
"""

MIGRATIONS: list[str] = [
    # 1: personas, documents, chunks, keyword index, vectors
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE personas (
        slug TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        description TEXT NOT NULL DEFAULT '',
        config_json TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE documents (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        date TEXT,
        source_url TEXT,
        type TEXT,
        summary TEXT,
        license TEXT,
        personas_json TEXT NOT NULL,
        tags_json TEXT NOT NULL,
        meta_json TEXT NOT NULL,
        path TEXT NOT NULL,
        content_hash TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE document_personas (
        persona TEXT NOT NULL,
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        PRIMARY KEY (persona, doc_id)
    );
    CREATE INDEX document_personas_doc ON document_personas(doc_id);
    CREATE TABLE chunks (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        section_path TEXT NOT NULL,
        text TEXT NOT NULL,
        index_text TEXT NOT NULL,
        token_count INTEGER NOT NULL
    );
    CREATE INDEX chunks_doc ON chunks(doc_id, ord);
    CREATE TABLE chunk_vectors (
        chunk_rowid INTEGER PRIMARY KEY REFERENCES chunks(rowid) ON DELETE CASCADE,
        vector BLOB NOT NULL
    );
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        index_text, tokenize = 'porter unicode61 remove_diacritics 2'
    );
    """,
]
