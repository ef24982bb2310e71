-- The approvals store: standing grants, the hash-chained audit log, and settings.
-- Times are RFC 3339 text in UTC with nine fractional digits (`2026-11-30T09:15:00.000000000Z`), so text order
-- is time order.

CREATE TABLE grants (
    id               TEXT    NOT NULL PRIMARY KEY,
    owner_kind       TEXT    NOT NULL CHECK (owner_kind IN ('user', 'platform')),
    owner_account    TEXT,
    tool             TEXT    NOT NULL,
    agent            TEXT,
    constraint_kind  TEXT,
    constraint_value TEXT,
    unattended       INTEGER NOT NULL CHECK (unattended IN (0, 1)),
    created          TEXT    NOT NULL,
    expires          TEXT,
    revoked          TEXT,
    last_used        TEXT,
    use_count        INTEGER NOT NULL DEFAULT 0 CHECK (use_count >= 0),
    fingerprint      TEXT    NOT NULL,
    -- A user grant names its account; a platform grant has none.
    CHECK ((owner_kind = 'user') = (owner_account IS NOT NULL)),
    -- A constraint is a kind and a value, or nothing.
    CHECK ((constraint_kind IS NULL) = (constraint_value IS NULL))
) STRICT;

CREATE INDEX grants_by_tool ON grants (tool);
CREATE INDEX grants_by_created ON grants (created);

-- One row per tool call. `hash` = SHA-256 over the canonical form of (seq, prev_hash, the entry); see
-- src/approval/store/chain.rs. `seq` starts at 1 and has no gaps.
CREATE TABLE audit (
    seq            INTEGER NOT NULL PRIMARY KEY,
    time           TEXT    NOT NULL,
    agent          TEXT,
    tool           TEXT    NOT NULL,
    arguments      TEXT    NOT NULL,
    target         TEXT,
    verdict        TEXT    NOT NULL,
    source         TEXT    NOT NULL,
    outcome        TEXT    NOT NULL,
    outcome_detail TEXT,
    duration_ms    INTEGER NOT NULL,
    prev_hash      TEXT    NOT NULL,
    hash           TEXT    NOT NULL
) STRICT;

CREATE INDEX audit_by_tool ON audit (tool, seq);
CREATE INDEX audit_by_agent ON audit (agent, seq);

-- Append-only at the SQL level too: a record, once written, is never changed or removed.
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only: its records cannot be changed');
END;

CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'the audit log is append-only: its records cannot be removed');
END;

-- Where the chain ends, written in the same transaction as every append: without it, removing the last
-- records would leave a chain that still verifies.
CREATE TABLE audit_head (
    id   INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL,
    hash TEXT    NOT NULL
) STRICT;

CREATE TRIGGER audit_head_only_forward BEFORE UPDATE ON audit_head
WHEN NEW.seq <= OLD.seq
BEGIN
    SELECT RAISE(ABORT, 'the audit log head only moves forward');
END;

CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head
BEGIN
    SELECT RAISE(ABORT, 'the audit log head cannot be removed');
END;

CREATE TABLE settings (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;
