//! The sandbox's sample files: what a new user of *Try the sandbox* finds in "their" Google account.
//!
//! The sandbox user ([`SANDBOX_EMAIL`]) owns a projects folder with a reports folder inside, two
//! spreadsheets (a budget with a `Summary` and a `Sales` sheet whose totals are formulas, and a contacts
//! list), two documents (meeting notes and a project plan, with headings, bulleted and numbered lists, bold
//! text and a link, styled through in-process `documents.batchUpdate`), a CSV and a text file; a colleague ([`COLLEAGUE_EMAIL`]) has shared a
//! spreadsheet with them; and both are members of the shared drive "Team Drive". Times are spread over
//! the past weeks, so "recent files" and `modifiedTime` searches have something to sort.
//! Their mailbox holds a few messages and conversations (see `gmail::sample`).
//! Their primary calendar holds a week of events, and the colleague shares their free/busy (see `calendar::seed`).

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::World;
use crate::activity::{Action, CreateKind};
use crate::state::Identity;

/// The sandbox's signed-in user.
pub const SANDBOX_EMAIL: &str = "sandbox@gatehouse.example";
/// The colleague who shares files with the sandbox user.
pub const COLLEAGUE_EMAIL: &str = "alex.morgan@gatehouse.example";

const SALES: &[(&str, &str, &str, u32, f64)] = &[
    ("2026-01-05", "North", "Desk lamp", 42, 24.5),
    ("2026-01-09", "South", "Office chair", 12, 149.0),
    ("2026-01-14", "East", "Standing desk", 6, 399.0),
    ("2026-01-20", "West", "Monitor arm", 18, 59.9),
    ("2026-01-27", "North", "Office chair", 9, 149.0),
    ("2026-02-03", "South", "Desk lamp", 35, 24.5),
    ("2026-02-10", "East", "Notebook pack", 120, 7.25),
    ("2026-02-16", "West", "Standing desk", 4, 399.0),
    ("2026-02-23", "North", "Monitor arm", 22, 59.9),
    ("2026-03-02", "South", "Notebook pack", 95, 7.25),
    ("2026-03-09", "East", "Office chair", 15, 149.0),
    ("2026-03-16", "West", "Desk lamp", 28, 24.5),
    ("2026-03-23", "North", "Standing desk", 7, 399.0),
    ("2026-03-30", "South", "Monitor arm", 19, 59.9),
    ("2026-04-06", "East", "Desk lamp", 31, 24.5),
    ("2026-04-13", "West", "Notebook pack", 140, 7.25),
    ("2026-04-20", "North", "Office chair", 11, 149.0),
    ("2026-04-27", "South", "Standing desk", 5, 399.0),
    ("2026-05-04", "East", "Monitor arm", 24, 59.9),
    ("2026-05-11", "West", "Office chair", 14, 149.0),
];

const CONTACTS: &[(&str, &str, &str, &str)] = &[
    ("Alex Morgan", COLLEAGUE_EMAIL, "Marketing lead", "+1 415 555 0142"),
    ("Priya Natarajan", "priya.natarajan@gatehouse.example", "Engineering manager", "+1 415 555 0178"),
    ("Tomás Ruiz", "tomas.ruiz@gatehouse.example", "Sales, West", "+1 415 555 0113"),
    ("Mei Chen", "mei.chen@gatehouse.example", "Finance", "+1 415 555 0190"),
    ("Jordan Blake", "jordan.blake@gatehouse.example", "Operations", "+1 415 555 0125"),
    ("Fatima Haddad", "fatima.haddad@gatehouse.example", "Design", "+1 415 555 0167"),
    ("Sam Okafor", "sam.okafor@gatehouse.example", "Customer success", "+1 415 555 0104"),
    ("Lena Vogel", "lena.vogel@gatehouse.example", "Legal", "+1 415 555 0151"),
];

const SALES_CSV: &str = "Month,Region,Units,Revenue\n2026-01,North,51,2369.00\n2026-01,South,12,1788.00\n\
2026-02,East,120,870.00\n2026-02,West,4,1596.00\n2026-03,North,7,2793.00\n2026-03,South,114,1826.85\n";

/// How a seeded document paragraph looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Heading1,
    Heading2,
    Text,
    Bullet,
    Numbered,
}

/// A seeded document: paragraphs, with `**bold**` spans and `[text]` links to the Budget 2026
/// spreadsheet inside a paragraph.
type Paragraphs = &'static [(Block, &'static str)];

const MEETING_NOTES: Paragraphs = &[
    (Block::Heading1, "Weekly sync — 12 May 2026"),
    (Block::Text, "**Attendees:** Sandbox User, Alex Morgan, Priya Natarajan"),
    (Block::Heading2, "Decisions"),
    (Block::Bullet, "Launch the summer campaign on 1 June."),
    (Block::Bullet, "Move the budget review to Thursdays."),
    (Block::Heading2, "Action items"),
    (Block::Numbered, "**Alex:** share the marketing calendar with the team."),
    (Block::Numbered, "**Priya:** estimate the standing-desk restock."),
    (Block::Numbered, "**Sandbox User:** update the Sales sheet in [Budget 2026]."),
];

const PROJECT_PLAN: Paragraphs = &[
    (Block::Heading1, "Project plan: Office refresh 2026"),
    (Block::Text, "**Owner:** Sandbox User. Spending is tracked in [Budget 2026]."),
    (Block::Heading2, "Goals"),
    (Block::Bullet, "Replace worn office chairs in every region."),
    (Block::Bullet, "Offer a standing desk to anyone who asks."),
    (Block::Bullet, "Keep spending within the annual budget."),
    (Block::Heading2, "Timeline"),
    (Block::Numbered, "January to March: survey the teams and order samples."),
    (Block::Numbered, "April to June: roll out purchases region by region."),
    (Block::Heading2, "Risks"),
    (Block::Bullet, "Supplier delays on standing desks."),
    (Block::Bullet, "**Budget overrun** if unit prices rise."),
];

const README: &str = "Welcome to the Gatehouse sandbox!\n\nEverything here is sample data served by the built-in \
Google emulator: nothing you do reaches a real Google account. Ask your assistant to read the Budget 2026 \
spreadsheet, add a row to Sales, or summarise the Meeting notes.\n";

fn text(value: &str) -> Value {
    json!(value)
}

fn budget_sheets() -> Vec<(&'static str, Vec<Vec<Value>>)> {
    let mut sales = vec![
        ["Date", "Region", "Product", "Units", "Unit price", "Revenue"].iter().map(|h| text(h)).collect::<Vec<_>>(),
    ];
    for (index, (date, region, product, units, price)) in SALES.iter().enumerate() {
        let row = index + 2;
        sales.push(vec![
            text(date),
            text(region),
            text(product),
            json!(units),
            json!(price),
            text(&format!("=D{row}*E{row}")),
        ]);
    }
    let last = SALES.len() + 1;
    let summary = vec![
        vec![text("Budget 2026"), text("")],
        vec![text("Metric"), text("Value")],
        vec![text("Total revenue"), text(&format!("=SUM(Sales!F2:F{last})"))],
        vec![text("Units sold"), text(&format!("=SUM(Sales!D2:D{last})"))],
        vec![text("Average unit price"), text(&format!("=ROUND(AVERAGE(Sales!E2:E{last}), 2)"))],
        vec![text("Orders"), text(&format!("=COUNTA(Sales!A2:A{last})"))],
        vec![text("Annual budget"), json!(60000)],
        vec![text("Remaining"), text("=B7-B3")],
    ];
    vec![("Summary", summary), ("Sales", sales)]
}

fn contacts_sheet() -> Vec<(&'static str, Vec<Vec<Value>>)> {
    let mut rows = vec![vec![text("Name"), text("Email"), text("Role"), text("Phone")]];
    rows.extend(
        CONTACTS.iter().map(|(name, email, role, phone)| vec![text(name), text(email), text(role), text(phone)]),
    );
    vec![("Contacts", rows)]
}

fn range(start: u32, end: u32) -> Value {
    json!({ "startIndex": start, "endIndex": end })
}

/// Creates a document owned by `owner` from `paragraphs` and styles it with `documents.batchUpdate`
/// requests applied in process (the code the HTTP method runs), so it reads back as Google would answer
/// for a document written in the editor. `[text]` spans link to `link`.
fn styled_document(world: &mut World, title: &str, paragraphs: Paragraphs, owner: &Identity, link: &str) -> String {
    let mut text = String::new();
    let mut requests = Vec::new();
    // Document indexes are UTF-16 code units; the body starts at 1.
    let mut index = 1u32;
    let mut list: Option<(Block, u32)> = None;
    for (n, (block, markup)) in paragraphs.iter().enumerate() {
        let start = index;
        let (mut bold_from, mut link_from) = (None, None);
        let mut rest = *markup;
        while let Some(c) = rest.chars().next() {
            if let Some(after) = rest.strip_prefix("**") {
                match bold_from.take() {
                    Some(from) => requests.push(json!({ "updateTextStyle": {
                        "range": range(from, index), "textStyle": { "bold": true }, "fields": "bold"
                    } })),
                    None => bold_from = Some(index),
                }
                rest = after;
                continue;
            }
            match c {
                '[' => link_from = Some(index),
                ']' => {
                    if let Some(from) = link_from.take() {
                        // Google's link defaults (underlined, #1155cc), set explicitly.
                        requests.push(json!({ "updateTextStyle": {
                            "range": range(from, index),
                            "textStyle": {
                                "link": { "url": link },
                                "underline": true,
                                "foregroundColor": { "color": { "rgbColor": {
                                    "red": 0.06666667, "green": 0.33333334, "blue": 0.8
                                } } }
                            },
                            "fields": "link,underline,foregroundColor"
                        } }));
                    }
                }
                _ => {
                    text.push(c);
                    index += c.len_utf16() as u32;
                }
            }
            rest = &rest[c.len_utf8()..];
        }
        // The last paragraph ends with the body's own final newline.
        if n + 1 < paragraphs.len() {
            text.push('\n');
        }
        index += 1;
        let named = match block {
            Block::Heading1 => Some("HEADING_1"),
            Block::Heading2 => Some("HEADING_2"),
            _ => None,
        };
        if let Some(named) = named {
            requests.push(json!({ "updateParagraphStyle": {
                "range": range(start, index),
                "paragraphStyle": { "namedStyleType": named },
                "fields": "namedStyleType"
            } }));
        }
        let kind = matches!(block, Block::Bullet | Block::Numbered).then_some(*block);
        if list.map(|(k, _)| k) != kind {
            if let Some((k, from)) = list.take() {
                requests.push(bullets(k, from, start));
            }
            list = kind.map(|k| (k, start));
        }
    }
    if let Some((k, from)) = list {
        requests.push(bullets(k, from, index));
    }
    let id = world.create_document(title, &text, owner);
    if let Err(error) = world.docs.batch_update(&id, &json!({ "requests": requests })) {
        panic!("the sandbox's {title:?} does not apply: {}", error.message);
    }
    id
}

/// `createParagraphBullets` over the paragraphs in `[start, end)`.
fn bullets(block: Block, start: u32, end: u32) -> Value {
    let preset = if block == Block::Numbered { "NUMBERED_DECIMAL_ALPHA_ROMAN" } else { "BULLET_DISC_CIRCLE_SQUARE" };
    json!({ "createParagraphBullets": { "range": range(start, end), "bulletPreset": preset } })
}

/// Back-dates a file: created `created_days` ago, modified `modified_days` ago.
fn age(world: &mut World, id: &str, created_days: i64, modified_days: i64) {
    let now = crate::drive::now();
    if let Some(file) = world.drive.get_mut(id) {
        file.created_time = now - Duration::days(created_days);
        file.modified_time = now - Duration::days(modified_days);
        for time in file.modified_by.values_mut() {
            *time = file.modified_time;
        }
    }
}

/// Records a creation in Drive Activity, dated at the file's creation time.
fn created(world: &mut World, who: &Identity, id: &str) {
    let Some(file) = world.drive.get(id) else {
        return;
    };
    let (title, mime, time) = (file.name.clone(), file.mime_type.clone(), file.created_time);
    world.activity.record(who, id, &title, &mime, Action::Create(CreateKind::New));
    if let Some(last) = world.activity.activities.last_mut() {
        last.timestamp = time;
    }
}

/// Seeds `world` with sample spreadsheets, documents and folders for the sandbox.
pub fn sandbox(world: &mut World) {
    let me = Identity::user(SANDBOX_EMAIL);
    let alex = Identity::user(COLLEAGUE_EMAIL);
    world.drive.set_display_name(SANDBOX_EMAIL, "Sandbox User");
    world.drive.set_display_name(COLLEAGUE_EMAIL, "Alex Morgan");
    crate::calendar::seed_sandbox(world, &me, &alex);

    let projects = world.drive.create_folder("Sandbox — Projects", None, &me);
    let reports = world.drive.create_folder("Reports", Some(&projects), &me);

    let budget = world.create_spreadsheet("Budget 2026", &budget_sheets(), &me);
    world.drive.set_parent(&budget, &projects);
    let contacts = world.create_spreadsheet("Team Contacts", &contacts_sheet(), &me);

    let budget_link = format!("https://docs.google.com/spreadsheets/d/{budget}/edit");
    let notes = styled_document(world, "Meeting notes", MEETING_NOTES, &me, &budget_link);
    world.drive.set_parent(&notes, &projects);
    let plan = styled_document(world, "Project plan", PROJECT_PLAN, &me, &budget_link);
    world.drive.set_parent(&plan, &projects);

    let csv =
        world.drive.create_blob("sales-export.csv", "text/csv", SALES_CSV.as_bytes().to_vec(), Some(&reports), &me);
    let readme = world.drive.create_blob("README.txt", "text/plain", README.as_bytes().to_vec(), None, &me);

    let calendar_rows = vec![
        vec![text("Week"), text("Campaign"), text("Channel"), text("Owner")],
        vec![text("2026-06-01"), text("Summer launch teaser"), text("Email"), text("Alex")],
        vec![text("2026-06-08"), text("Product video"), text("YouTube"), text("Fatima")],
        vec![text("2026-06-15"), text("Customer stories"), text("Blog"), text("Sam")],
        vec![text("2026-06-22"), text("Launch webinar"), text("Events"), text("Alex")],
    ];
    let calendar = world.create_spreadsheet("Marketing calendar", &[("Calendar", calendar_rows)], &alex);
    world.drive.share_with(&calendar, SANDBOX_EMAIL, "writer");

    let team_drive = world.drive.create_shared_drive("Team Drive", &me);
    world.drive.share_with(&team_drive, COLLEAGUE_EMAIL, "writer");
    let handbook = world.drive.create_blob(
        "Team handbook.txt",
        "text/plain",
        b"Team handbook\n\n1. Ship small changes.\n2. Write things down.\n3. Ask for review early.\n".to_vec(),
        Some(&team_drive),
        &me,
    );

    for (id, created_days, modified_days) in [
        (&projects, 60, 60),
        (&reports, 58, 58),
        (&budget, 45, 2),
        (&contacts, 40, 12),
        (&notes, 18, 3),
        (&plan, 50, 7),
        (&csv, 20, 20),
        (&readme, 61, 61),
        (&calendar, 30, 5),
        (&handbook, 25, 9),
    ] {
        age(world, id, created_days, modified_days);
    }
    if let Some(file) = world.drive.get_mut(&calendar) {
        for permission in &mut file.permissions {
            permission.granted_at = Utc::now() - Duration::days(6);
        }
    }
    if let Some(file) = world.drive.get_mut(&budget) {
        file.starred_by.insert(SANDBOX_EMAIL.to_owned());
        file.description = Some("Sales and spending plan for 2026.".to_owned());
    }
    world.drive.mark_viewed(&budget, &me);
    world.drive.mark_viewed(&calendar, &me);

    for id in [&projects, &reports, &budget, &contacts, &notes, &plan, &csv, &readme] {
        created(world, &me, id);
    }
    created(world, &alex, &calendar);
    created(world, &me, &handbook);
    crate::gmail::sample::seed(world);
}
