-- Calls that change something, recorded before they are sent to Google (issue 15): one row per write under
-- way. The chain (`audit`) stays append-only and holds only final records: when the call ends, its record is
-- appended to the chain and its row here removed, in one transaction. A row left here by a process that is
-- gone (killed, crashed, power cut) is appended to the chain as `interrupted` when a store is next opened;
-- so no write reaches Google without a record, and `audit verify` checks the chain as before.
CREATE TABLE audit_pending (
    id        INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    -- The process running the call: its rows are left alone while it runs.
    pid       INTEGER NOT NULL,
    time      TEXT    NOT NULL,
    agent     TEXT,
    tool      TEXT    NOT NULL,
    arguments TEXT    NOT NULL,
    target    TEXT,
    verdict   TEXT    NOT NULL,
    source    TEXT    NOT NULL
) STRICT;
