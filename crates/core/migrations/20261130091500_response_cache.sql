-- The response cache (src/cache): a read tool's result, kept to answer the same call again without asking
-- Google for the data, served only while the file it was read from is unchanged (`version`: its Drive
-- `modifiedTime` and `version` when it was read) and younger than the person's cache TTL.
-- One row per (account, tool, canonical arguments without local_path). `target` is the Drive file the
-- result comes from and `parents` its folders (comma-separated Drive ids), so a write or `refresh_cache`
-- can drop what it touched. Times are RFC 3339 text in UTC with nine fractional digits, as in the first
-- migration. Nothing here is a record: any row may be removed at any time.

CREATE TABLE response_cache (
    account   TEXT NOT NULL,
    tool      TEXT NOT NULL,
    arguments TEXT NOT NULL,
    target    TEXT NOT NULL,
    parents   TEXT NOT NULL,
    version   TEXT NOT NULL,
    stored    TEXT NOT NULL,
    result    TEXT NOT NULL,
    PRIMARY KEY (account, tool, arguments)
) STRICT;

CREATE INDEX response_cache_by_target ON response_cache (target);
CREATE INDEX response_cache_by_stored ON response_cache (stored);
