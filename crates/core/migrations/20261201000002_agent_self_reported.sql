-- Agents known by their token and agents that only say who they are are different identities (issue 15,
-- item 5): a grant, and each audit record, keep which one it was for. `agent_self_reported` = 1: `agent` is
-- the name a client gave of itself (`clientInfo.name` over stdio); 0: the name of a registered assistant,
-- bound to the HTTP token it presented.
--
-- Grants made before this could have been made for either, so they become grants for the registered
-- assistant of that name: a client that only says the name no longer uses them (its next call asks again),
-- which is the side that asks rather than the side that allows. Audit records written before this keep 0
-- and keep their hashes (the flag enters a record's hash only when it is 1).

ALTER TABLE grants ADD COLUMN agent_self_reported INTEGER NOT NULL DEFAULT 0 CHECK (agent_self_reported IN (0, 1));
ALTER TABLE audit ADD COLUMN agent_self_reported INTEGER NOT NULL DEFAULT 0 CHECK (agent_self_reported IN (0, 1));
-- The same for a call recorded before it runs (20261201000001_audit_pending.sql), so a call a crash interrupted
-- is recorded under the identity it had.
ALTER TABLE audit_pending ADD COLUMN agent_self_reported INTEGER NOT NULL DEFAULT 0 CHECK (agent_self_reported IN (0, 1));

-- The name of a constrained grant's target when it was made ("Budget 2026"), so `gatehouse grants` names it as
-- the card did rather than by a cut id. Only words for the lists; no decision reads it.
ALTER TABLE grants ADD COLUMN target_name TEXT;
