-- Where the person answered a call's card (src/approval/model.rs, `AnswerChannel`): JSON such as
-- {"kind":"card"} or {"kind":"terminal","pid":4242,"exe":"/usr/bin/gatehouse"}; NULL when no card was
-- answered (a grant covered the call, it was refused, or the record predates this column). The chain's hash
-- covers it when it is set (src/approval/store/chain.rs), so records written before hash as they always did.
-- A call recorded before it runs keeps it too, so a record a crash interrupted still says who answered.
ALTER TABLE audit ADD COLUMN answered_via TEXT;
ALTER TABLE audit_pending ADD COLUMN answered_via TEXT;

-- Each row that decides something carries a seal: HMAC-SHA256 of its deciding columns under a key kept in
-- the OS keychain (src/approval/store/seal.rs), so a row written by anything but Gatehouse is not honoured.
-- NULL: written before this (sealed once when the database is first opened with the key), or written while
-- the keychain was unavailable (then not honoured).
ALTER TABLE grants ADD COLUMN mac TEXT;
ALTER TABLE never_allow ADD COLUMN mac TEXT;
ALTER TABLE settings ADD COLUMN mac TEXT;
ALTER TABLE audit_head ADD COLUMN mac TEXT;

-- Sealing the head where it is (same place, same hash) is the one update that does not move it forward.
DROP TRIGGER audit_head_only_forward;
CREATE TRIGGER audit_head_only_forward BEFORE UPDATE ON audit_head
WHEN NEW.seq < OLD.seq OR (NEW.seq = OLD.seq AND NEW.hash IS NOT OLD.hash)
BEGIN
    SELECT RAISE(ABORT, 'the audit log head only moves forward');
END;
