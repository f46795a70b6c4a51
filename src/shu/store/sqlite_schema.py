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
    # 2: ingestion-time intelligence: profiles, synthesized questions, chunk profiles, relationships
    """
    CREATE TABLE document_profiles (
        doc_id TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        profile_json TEXT NOT NULL,
        method TEXT NOT NULL,
        prompt_version TEXT,
        created_at TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE questions (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        method TEXT NOT NULL,
        prompt_version TEXT
    );
    CREATE INDEX questions_doc ON questions(doc_id);
    CREATE TABLE question_vectors (
        question_rowid INTEGER PRIMARY KEY REFERENCES questions(rowid) ON DELETE CASCADE,
        vector BLOB NOT NULL
    );
    CREATE TABLE chunk_profiles (
        chunk_id TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        profile_json TEXT NOT NULL,
        method TEXT NOT NULL,
        prompt_version TEXT
    );
    CREATE TABLE relationships (
        source_doc TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        target_doc TEXT NOT NULL,
        type TEXT NOT NULL,
        origin TEXT NOT NULL,
        confidence REAL NOT NULL,
        PRIMARY KEY (source_doc, target_doc, type)
    );
    ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT ''
    """,
    # 3: what LLM enrichment cost, run by run
    """
    CREATE TABLE llm_runs (
        rowid INTEGER PRIMARY KEY,
        finished_at TEXT NOT NULL DEFAULT (datetime('now')),
        summary_json TEXT NOT NULL
    )
    """,
    # 4: why two documents are related (the quote an LLM-proposed relationship rests on)
    """
    ALTER TABLE relationships ADD COLUMN evidence TEXT NOT NULL DEFAULT ''
    """,
    # 5: document-level surfaces searched by meaning: a profile's synopsis and capability manifest
    """
    CREATE TABLE profile_vectors (
        doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        surface TEXT NOT NULL,
        vector BLOB NOT NULL,
        PRIMARY KEY (doc_id, surface)
    )
    """,
    # 6: what the agent found, written back with provenance and undoable. No foreign key: a
    # re-ingested document keeps its findings (delete_document removes them itself).
    """
    CREATE TABLE findings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL,
        doc_id TEXT NOT NULL,
        persona TEXT NOT NULL,
        target TEXT,
        value TEXT,
        evidence TEXT NOT NULL DEFAULT '',
        method TEXT NOT NULL,
        question TEXT NOT NULL DEFAULT '',
        created TEXT NOT NULL,
        undone INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX findings_doc ON findings(doc_id, undone);
    CREATE INDEX findings_persona ON findings(persona);
    CREATE UNIQUE INDEX findings_active
        ON findings(kind, doc_id, persona, coalesce(target, ''), coalesce(value, '')) WHERE undone = 0
    """,
    # 7: what the server keeps beside the knowledge: keys (hashed), users' signals, jobs. None of
    # it moves the generation (answers do not depend on it).
    """
    CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        key_json TEXT NOT NULL,
        revoked INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE signals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL,
        persona TEXT NOT NULL,
        kind TEXT NOT NULL,
        doc_id TEXT,
        created TEXT NOT NULL,
        signal_json TEXT NOT NULL
    );
    CREATE INDEX signals_user ON signals(user, persona, created);
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        created TEXT NOT NULL,
        job_json TEXT NOT NULL,
        cancel INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX jobs_status ON jobs(status, created)
    """,
    # 8: users' profiles (kept beside their signals, never shared across users)
    """
    CREATE TABLE user_profiles (
        id TEXT PRIMARY KEY,
        profile_json TEXT NOT NULL,
        updated TEXT NOT NULL
    )
    """,
    # 9: the documents whose chunks changed, in order: what keeps in-memory keyword indexes (this
    # process's and other processes') in step without reading everything again
    """
    CREATE TABLE chunk_changes (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        doc_id TEXT NOT NULL
    )
    """,
    # 10: users' conversations with a persona (each user's own; a turn is appended by rewriting
    # the conversation's JSON, which stays small: a thread is read whole)
    """
    CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        user TEXT NOT NULL,
        persona TEXT NOT NULL,
        updated TEXT NOT NULL,
        conversation_json TEXT NOT NULL
    );
    CREATE INDEX conversations_user ON conversations(user, persona, updated)
    """,
    # 11: people who sign in with a password (its argon2 hash) and their sessions (the hash of the
    # browser's token only)
    """
    CREATE TABLE logins (
        name TEXT PRIMARY KEY,
        password_hash TEXT NOT NULL,
        login_json TEXT NOT NULL
    );
    CREATE TABLE login_sessions (
        token_hash TEXT PRIMARY KEY,
        user TEXT NOT NULL,
        expires TEXT NOT NULL,
        session_json TEXT NOT NULL
    );
    CREATE INDEX login_sessions_user ON login_sessions(user)
    """,
    # 12: the FTS table indexes a chunk's identifier terms too (`shu.analysis.keyword_text`); the
    # chunks a store already has are indexed again when it is opened (`identifier_terms` pending)
    """
    INSERT INTO meta(key, value)
        SELECT 'identifier_terms', '"pending"' WHERE EXISTS (SELECT 1 FROM chunks)
    """,
    # 13: sign-in attempts counted per (name, address) and per address (name ''), each in a window
    # that starts again once `started` is older than the lockout (`shu.accounts.logins`)
    """
    CREATE TABLE sign_in_attempts (
        name TEXT NOT NULL,
        address TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        started TEXT NOT NULL,
        PRIMARY KEY (name, address)
    );
    CREATE INDEX sign_in_attempts_started ON sign_in_attempts(started)
    """,
]
