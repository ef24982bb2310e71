-- The person's own *never allow* rules (APPROVALS.md, "Deciding a gated call", rule 1): a call of `tool`
-- (from `agent`, or any agent when NULL; within the constraint, or any arguments when NULL) is refused until
-- `expires`. Each rule belongs to the signed-in Google account that made it and applies only while that
-- account is signed in. Removing a rule keeps its row (with `removed` set), so the list shows what was there.
-- Times are RFC 3339 text in UTC with nine fractional digits, as in the first migration.

CREATE TABLE never_allow (
    id               TEXT NOT NULL PRIMARY KEY,
    owner_account    TEXT NOT NULL,
    tool             TEXT NOT NULL,
    agent            TEXT,
    constraint_kind  TEXT,
    constraint_value TEXT,
    created          TEXT NOT NULL,
    -- A never-allow always ends: the person is asked again afterwards.
    expires          TEXT NOT NULL,
    removed          TEXT,
    -- A constraint is a kind and a value, or nothing.
    CHECK ((constraint_kind IS NULL) = (constraint_value IS NULL))
) STRICT;

CREATE INDEX never_allow_by_created ON never_allow (created);
