//! The sandbox's sample mail (see [`crate::seed`]): a conversation with the colleague in three messages
//! (two unread, labelled "Projects"), a read message with an attachment, a message the user sent, and an
//! HTML-only newsletter, spread over the past week.

use crate::seed::{COLLEAGUE_EMAIL, SANDBOX_EMAIL};
use crate::state::World;

const PRIYA: &str = "priya.natarajan@gatehouse.example";
const MEI: &str = "mei.chen@gatehouse.example";

fn plain(from: &str, to: &str, subject: &str, id: &str, extra: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}@gatehouse.example>\r\n{extra}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n{body}\r\n"
    )
}

/// Puts the sample mail into the sandbox user's mailbox.
pub(crate) fn seed(world: &mut World) {
    let projects = world.create_mail_label(SANDBOX_EMAIL, "Projects");
    let alex = format!("Alex Morgan <{COLLEAGUE_EMAIL}>");
    let me = format!("Sandbox User <{SANDBOX_EMAIL}>");

    let kickoff = plain(
        &alex,
        &me,
        "Summer campaign kickoff",
        "kickoff-1",
        &format!("Cc: Priya Natarajan <{PRIYA}>\r\n"),
        "Hi!\r\n\r\nCan we meet on Monday to plan the summer campaign? I put the draft timeline in the Marketing calendar sheet.\r\n\r\nAlex",
    );
    let (_, thread) = world.deliver_mail(SANDBOX_EMAIL, &kickoff, &["INBOX", &projects], None, 3);
    let answer = plain(
        &me,
        &alex,
        "Re: Summer campaign kickoff",
        "kickoff-2",
        "In-Reply-To: <kickoff-1@gatehouse.example>\r\nReferences: <kickoff-1@gatehouse.example>\r\n",
        "Monday 10:00 works for me. I'll bring the budget numbers.",
    );
    world.deliver_mail(SANDBOX_EMAIL, &answer, &["SENT", &projects], Some(&thread), 2);
    let again = plain(
        &alex,
        &me,
        "Re: Summer campaign kickoff",
        "kickoff-3",
        "In-Reply-To: <kickoff-2@gatehouse.example>\r\nReferences: <kickoff-1@gatehouse.example> <kickoff-2@gatehouse.example>\r\n",
        "Great, see you Monday. Could you also check the Q2 numbers before then?",
    );
    world.deliver_mail(SANDBOX_EMAIL, &again, &["INBOX", "UNREAD", "IMPORTANT", &projects], Some(&thread), 1);

    let agenda = format!(
        "From: Priya Natarajan <{PRIYA}>\r\nTo: {me}\r\nSubject: Budget review moved to Thursday\r\nMessage-ID: <budget-1@gatehouse.example>\r\nMIME-Version: 1.0\r\n\
Content-Type: multipart/mixed; boundary=\"agenda\"\r\n\r\n--agenda\r\nContent-Type: text/plain; charset=UTF-8\r\n\r\n\
The budget review is now on Thursdays at 15:00. Agenda attached.\r\n--agenda\r\nContent-Type: text/plain; name=\"agenda.txt\"\r\n\
Content-Disposition: attachment; filename=\"agenda.txt\"\r\n\r\n1. Q2 actuals\r\n2. Summer campaign\r\n3. Hiring\r\n--agenda--\r\n"
    );
    world.deliver_mail(SANDBOX_EMAIL, &agenda, &["INBOX", "CATEGORY_PERSONAL"], None, 5);

    let invoices = plain(
        &me,
        &format!("Mei Chen <{MEI}>"),
        "Q2 invoices",
        "invoices-1",
        "",
        "Hi Mei, could you send me the Q2 invoices when they are ready? Thanks!",
    );
    world.deliver_mail(SANDBOX_EMAIL, &invoices, &["SENT"], None, 4);

    let newsletter = format!(
        "From: Gatehouse Weekly <news@gatehouse.example>\r\nTo: {SANDBOX_EMAIL}\r\nSubject: This week: tips for shared drives\r\nMessage-ID: <weekly-42@gatehouse.example>\r\nMIME-Version: 1.0\r\n\
Content-Type: text/html; charset=UTF-8\r\n\r\n<html><body><h1>Tips for shared drives</h1><p>Keep team files in a <b>shared drive</b> so they outlive any one account.</p></body></html>\r\n"
    );
    world.deliver_mail(SANDBOX_EMAIL, &newsletter, &["INBOX", "UNREAD", "CATEGORY_UPDATES"], None, 6);
}
