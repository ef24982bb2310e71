-- Where the person answered a call's card (src/approval/model.rs, `AnswerChannel`): JSON such as
-- {"kind":"card"} or {"kind":"terminal","pid":4242,"exe":"/usr/bin/gatehouse"}; NULL when no card was
-- answered (a grant covered the call, it was refused, or the record predates this column). The chain's hash
-- covers it when it is set (src/approval/store/chain.rs), so records written before hash as they always did.
ALTER TABLE audit ADD COLUMN answered_via TEXT;
