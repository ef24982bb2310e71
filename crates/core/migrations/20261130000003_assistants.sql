-- Assistants registered for HTTP (APPROVALS.md, "Agent" and "Interactive / unattended"): each gets its own
-- bearer token, and every call made with it is attributed to `name`. Only the SHA-256 of the token (64
-- lowercase hex digits) is kept: the token itself is shown once, when the assistant is added. `interactive`
-- = 0 registers an automation: its calls are never asked about, so only unattended grants cover them.
-- Revoking keeps the row (with `revoked` set), so a revoked token is refused saying so, and the list shows it.
-- `tool_set` is reserved for the tool set offered to the assistant (not used yet: NULL = every tool).
-- Times are RFC 3339 text in UTC with nine fractional digits, as in the first migration.

CREATE TABLE assistants (
    id          TEXT    NOT NULL PRIMARY KEY,
    name        TEXT    NOT NULL CHECK (length(trim(name)) > 0),
    token_hash  TEXT    NOT NULL UNIQUE CHECK (length(token_hash) = 64),
    interactive INTEGER NOT NULL CHECK (interactive IN (0, 1)),
    tool_set    TEXT,
    created     TEXT    NOT NULL,
    last_used   TEXT,
    revoked     TEXT
) STRICT;

-- Calls are attributed by name, so two active assistants may not share one (nor differ only in ASCII case,
-- which would look the same on a card). A revoked assistant's name may be used again.
CREATE UNIQUE INDEX assistants_active_name ON assistants (name COLLATE NOCASE) WHERE revoked IS NULL;
CREATE INDEX assistants_by_created ON assistants (created);
