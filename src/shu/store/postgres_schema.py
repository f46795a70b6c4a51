"""PostgreSQL schema (the tables of docs/design/personas-and-storage.md#store-schema), applied as
numbered, forward-only migrations recorded in `shu_migrations`. Vector columns are untyped
`vector`; their HNSW indexes are built on a cast to the embedder's dimension once the first
vectors arrive (`vector_indexes`)."""

MIGRATIONS: list[str] = [
    # 1: everything the SQLite store had at schema 5
    """
    CREATE TABLE shu_meta (key text PRIMARY KEY, value text NOT NULL);
    CREATE SEQUENCE shu_data_version;
    CREATE TABLE personas (
        slug text PRIMARY KEY,
        display_name text NOT NULL,
        description text NOT NULL DEFAULT '',
        config_json text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE documents (
        id text PRIMARY KEY,
        title text NOT NULL,
        date text,
        source_url text,
        type text,
        summary text,
        license text,
        personas text[] NOT NULL,
        tags text[] NOT NULL,
        meta jsonb NOT NULL,
        path text NOT NULL,
        content_hash text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX documents_personas ON documents USING gin (personas);
    CREATE INDEX documents_tags ON documents USING gin (tags);
    CREATE TABLE chunks (
        id text PRIMARY KEY,
        doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord integer NOT NULL,
        section_path text NOT NULL,
        text text NOT NULL,
        index_text text NOT NULL,
        token_count integer NOT NULL,
        context text NOT NULL DEFAULT '',
        personas text[] NOT NULL,
        embedding vector NOT NULL,
        tsv tsvector GENERATED ALWAYS AS (to_tsvector('english', index_text)) STORED,
        tsv_length integer NOT NULL DEFAULT 0
    );
    CREATE INDEX chunks_doc ON chunks (doc_id, ord);
    CREATE INDEX chunks_personas ON chunks USING gin (personas);
    CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
    CREATE TABLE bm25_terms (lexeme text PRIMARY KEY, df integer NOT NULL);
    CREATE TABLE bm25_corpus (
        id integer PRIMARY KEY CHECK (id = 1),
        chunks bigint NOT NULL,
        total_length bigint NOT NULL
    );
    INSERT INTO bm25_corpus VALUES (1, 0, 0);
    CREATE TABLE document_profiles (
        doc_id text PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
        profile_json text NOT NULL,
        method text NOT NULL,
        prompt_version text,
        created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE questions (
        id text PRIMARY KEY,
        doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        ord integer NOT NULL,
        text text NOT NULL,
        method text NOT NULL,
        prompt_version text,
        personas text[] NOT NULL,
        embedding vector NOT NULL
    );
    CREATE INDEX questions_doc ON questions (doc_id, ord);
    CREATE INDEX questions_personas ON questions USING gin (personas);
    CREATE TABLE chunk_profiles (
        chunk_id text PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        profile_json text NOT NULL,
        method text NOT NULL,
        prompt_version text
    );
    CREATE TABLE relationships (
        source_doc text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        target_doc text NOT NULL,
        type text NOT NULL,
        origin text NOT NULL,
        confidence real NOT NULL,
        evidence text NOT NULL DEFAULT '',
        PRIMARY KEY (source_doc, target_doc, type)
    );
    CREATE TABLE profile_vectors (
        doc_id text NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        surface text NOT NULL,
        personas text[] NOT NULL,
        embedding vector NOT NULL,
        PRIMARY KEY (doc_id, surface)
    );
    CREATE TABLE llm_runs (
        id bigserial PRIMARY KEY,
        finished_at timestamptz NOT NULL DEFAULT now(),
        summary_json text NOT NULL
    );
    """,
    # 2: BM25 postings (lexeme → chunk, term frequency, chunk length, personas): a query reads
    # the postings of its own terms, filtered by persona on the spot, instead of unnesting every
    # matching chunk's tsvector (SciFact: 0.4–2.2 s → ~10 ms a query)
    """
    CREATE TABLE bm25_postings (
        lexeme text NOT NULL,
        chunk_id text NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
        tf integer NOT NULL,
        length integer NOT NULL,
        personas text[] NOT NULL,
        PRIMARY KEY (lexeme, chunk_id) INCLUDE (tf, length, personas)
    );
    CREATE INDEX bm25_postings_chunk ON bm25_postings (chunk_id);
    INSERT INTO bm25_postings
        SELECT u.lexeme, c.id, coalesce(array_length(u.positions, 1), 1), c.tsv_length, c.personas
        FROM chunks c, unnest(c.tsv) AS u;
    """,
    # 3: what the agent found, written back with provenance and undoable. No foreign key: a
    # re-ingested document keeps its findings (delete_document removes them itself).
    """
    CREATE TABLE findings (
        id bigserial PRIMARY KEY,
        kind text NOT NULL,
        doc_id text NOT NULL,
        persona text NOT NULL,
        target text,
        value text,
        evidence text NOT NULL DEFAULT '',
        method text NOT NULL,
        question text NOT NULL DEFAULT '',
        created text NOT NULL,
        undone boolean NOT NULL DEFAULT false
    );
    CREATE INDEX findings_doc ON findings (doc_id, undone);
    CREATE INDEX findings_persona ON findings (persona);
    CREATE UNIQUE INDEX findings_active
        ON findings (kind, doc_id, persona, coalesce(target, ''), coalesce(value, '')) WHERE NOT undone;
    """,
    # 4: what the server keeps beside the knowledge: keys (hashed), users' signals, jobs. None of
    # it moves the data version (answers do not depend on it).
    """
    CREATE TABLE api_keys (
        id text PRIMARY KEY,
        "user" text NOT NULL,
        secret_hash text NOT NULL,
        key_json jsonb NOT NULL,
        revoked boolean NOT NULL DEFAULT false
    );
    CREATE TABLE signals (
        id bigserial PRIMARY KEY,
        "user" text NOT NULL,
        persona text NOT NULL,
        kind text NOT NULL,
        doc_id text,
        created text NOT NULL,
        signal_json jsonb NOT NULL
    );
    CREATE INDEX signals_user ON signals ("user", persona, created);
    CREATE TABLE jobs (
        id text PRIMARY KEY,
        status text NOT NULL,
        created text NOT NULL,
        job_json jsonb NOT NULL,
        cancel boolean NOT NULL DEFAULT false
    );
    CREATE INDEX jobs_status ON jobs (status, created);
    """,
    # 5: users' profiles (kept beside their signals, never shared across users)
    """
    CREATE TABLE user_profiles (
        id text PRIMARY KEY,
        profile_json jsonb NOT NULL,
        updated text NOT NULL
    );
    """,
    # 6: the documents whose chunks changed, in order: what keeps in-memory keyword indexes (this
    # process's and other processes') in step without reading everything again
    """
    CREATE TABLE chunk_changes (
        seq bigserial PRIMARY KEY,
        doc_id text NOT NULL
    );
    """,
    # 7: no query reads the tsvector GIN index (BM25 reads bm25_postings), and the chunk length is
    # counted from the tsvector where it is needed: both only slowed writes (every chunk was
    # written twice to store its length). The BM25 statistics are kept only once a store asks for
    # SQL keyword search (`keyword_statistics` in shu_meta); a store with chunks already had them.
    """
    DROP INDEX IF EXISTS chunks_tsv;
    ALTER TABLE chunks DROP COLUMN tsv_length;
    INSERT INTO shu_meta(key, value)
        SELECT 'keyword_statistics', '"kept"' WHERE EXISTS (SELECT 1 FROM chunks);
    """,
    # 8: users' conversations with a persona (each user's own; read and written whole)
    """
    CREATE TABLE conversations (
        id text PRIMARY KEY,
        "user" text NOT NULL,
        persona text NOT NULL,
        updated text NOT NULL,
        conversation_json jsonb NOT NULL
    );
    CREATE INDEX conversations_user ON conversations ("user", persona, updated);
    """,
    # 9: people who sign in with a password (its argon2 hash) and their sessions (the hash of the
    # browser's token only)
    """
    CREATE TABLE logins (
        name text PRIMARY KEY,
        password_hash text NOT NULL,
        login_json jsonb NOT NULL
    );
    CREATE TABLE login_sessions (
        token_hash text PRIMARY KEY,
        "user" text NOT NULL,
        expires text NOT NULL,
        session_json jsonb NOT NULL
    );
    CREATE INDEX login_sessions_user ON login_sessions ("user");
    """,
    # 10: a chunk's lexemes include its identifier terms (`shu.analysis.identifier_terms`, kept in
    # `keyword_terms`); the chunks a store already has get theirs when it is opened (pending)
    """
    ALTER TABLE chunks ADD COLUMN keyword_terms text NOT NULL DEFAULT '';
    ALTER TABLE chunks DROP COLUMN tsv;
    ALTER TABLE chunks ADD COLUMN tsv tsvector
        GENERATED ALWAYS AS (to_tsvector('english', index_text || E'\n' || keyword_terms)) STORED;
    INSERT INTO shu_meta(key, value)
        SELECT 'identifier_terms', '"pending"' WHERE EXISTS (SELECT 1 FROM chunks);
    """,
    # 11: sign-in attempts counted per (name, address) and per address (name ''), each in a window
    # that starts again once `started` is older than the lockout (`shu.accounts.logins`)
    """
    CREATE TABLE sign_in_attempts (
        name text NOT NULL,
        address text NOT NULL,
        attempts integer NOT NULL,
        started text COLLATE "C" NOT NULL,
        PRIMARY KEY (name, address)
    );
    CREATE INDEX sign_in_attempts_started ON sign_in_attempts (started);
    """,
]

POSTINGS_INDEXES = (
    "ALTER TABLE bm25_postings ADD PRIMARY KEY (lexeme, chunk_id) INCLUDE (tf, length, personas)",
    "CREATE INDEX bm25_postings_chunk ON bm25_postings (chunk_id)",
)
"""Built again after a bulk load into an empty postings table (`PostgresStore.bulk`)."""

VECTOR_TABLES = ("chunks", "questions", "profile_vectors")


def vector_indexes(dim: int, m: int, ef_construction: int) -> list[str]:
    """HNSW (cosine) on each vector table, on a cast to the embedder's dimension."""
    return [
        f"CREATE INDEX IF NOT EXISTS {table}_embedding_hnsw ON {table} USING hnsw "
        f"((embedding::vector({dim})) vector_cosine_ops) WITH (m = {m}, ef_construction = {ef_construction})"
        for table in VECTOR_TABLES
    ]
