//! The Google products tools work on, and the OAuth scope each product's calls need.

/// Which Google product a tool works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Service {
    Sheets,
    Drive,
    Docs,
    /// Offered only through Google's Slides MCP server: its tools are discovered, none is declared.
    Slides,
    Calendar,
    Gmail,
    /// Gatehouse's own response cache: no Google call.
    Cache,
}

impl Service {
    pub const fn label(self) -> &'static str {
        match self {
            Service::Sheets => "Sheets",
            Service::Drive => "Drive",
            Service::Docs => "Docs",
            Service::Slides => "Slides",
            Service::Calendar => "Calendar",
            Service::Gmail => "Gmail",
            Service::Cache => "Cache",
        }
    }

    /// The product's name as tool sets and the sign-in's product choice spell it (`sheets`).
    pub fn key(self) -> String {
        self.label().to_ascii_lowercase()
    }

    /// The OAuth scope the product's tools need unless a declaration says otherwise; `None` when they make no
    /// Google call.
    pub const fn scope(self) -> Option<Scope> {
        match self {
            Service::Sheets => Some(Scope::Sheets),
            Service::Drive => Some(Scope::Drive),
            Service::Docs => Some(Scope::Docs),
            Service::Slides => Some(Scope::Slides),
            Service::Calendar => Some(Scope::Calendar),
            Service::Gmail => Some(Scope::Gmail),
            Service::Cache => None,
        }
    }
}

/// The Google API whose OAuth scope a tool's calls need: a person who did not grant it cannot use the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    Sheets,
    Docs,
    Slides,
    Drive,
    DriveActivity,
    Calendar,
    /// A calendar's sharing rules: `acl.list` takes no `calendar.readonly`, so reading them needs its own.
    CalendarAcl,
    Gmail,
}

const SHEETS: &str = "https://www.googleapis.com/auth/spreadsheets";
const SHEETS_READONLY: &str = "https://www.googleapis.com/auth/spreadsheets.readonly";
const DOCS: &str = "https://www.googleapis.com/auth/documents";
const DOCS_READONLY: &str = "https://www.googleapis.com/auth/documents.readonly";
const SLIDES: &str = "https://www.googleapis.com/auth/presentations";
const SLIDES_READONLY: &str = "https://www.googleapis.com/auth/presentations.readonly";
const DRIVE: &str = "https://www.googleapis.com/auth/drive";
const DRIVE_READONLY: &str = "https://www.googleapis.com/auth/drive.readonly";
const ACTIVITY: &str = "https://www.googleapis.com/auth/drive.activity";
const ACTIVITY_READONLY: &str = "https://www.googleapis.com/auth/drive.activity.readonly";
const CALENDAR: &str = "https://www.googleapis.com/auth/calendar";
const CALENDAR_READONLY: &str = "https://www.googleapis.com/auth/calendar.readonly";
const CALENDAR_ACLS: &str = "https://www.googleapis.com/auth/calendar.acls";
const CALENDAR_ACLS_READONLY: &str = "https://www.googleapis.com/auth/calendar.acls.readonly";
/// Full mailbox access; the discovery document lists it on every Gmail method.
const MAIL: &str = "https://mail.google.com/";
/// Read, send, label and trash, but never delete for good: all the Gmail tools need.
const GMAIL_MODIFY: &str = "https://www.googleapis.com/auth/gmail.modify";
const GMAIL_READONLY: &str = "https://www.googleapis.com/auth/gmail.readonly";

impl Scope {
    /// The scope Gatehouse asks for on Google's consent page.
    pub const fn url(self) -> &'static str {
        match self {
            Scope::Sheets => SHEETS,
            Scope::Docs => DOCS,
            Scope::Slides => SLIDES,
            Scope::Drive => DRIVE,
            Scope::DriveActivity => ACTIVITY_READONLY,
            Scope::Calendar => CALENDAR,
            Scope::CalendarAcl => CALENDAR_ACLS,
            Scope::Gmail => GMAIL_MODIFY,
        }
    }

    /// The product in words, for messages.
    pub const fn product(self) -> &'static str {
        match self {
            Scope::Sheets => "Sheets",
            Scope::Docs => "Docs",
            Scope::Slides => "Slides",
            Scope::Drive => "Drive",
            Scope::DriveActivity => "Drive Activity",
            Scope::Calendar => "Calendar",
            Scope::CalendarAcl => "Calendar sharing",
            Scope::Gmail => "Gmail",
        }
    }

    /// The scope whose full grant also covers this one's reads, when that is not already said by the read-only
    /// scope: `calendar` opens calendars' sharing rules too, so reading them needs no scope of its own then.
    pub const fn read_covered_by(self) -> Option<Scope> {
        match self {
            Scope::CalendarAcl => Some(Scope::Calendar),
            _ => None,
        }
    }

    /// The narrower scope to ask for when every enabled tool needing this scope only reads.
    pub const fn read_only_url(self) -> &'static str {
        match self {
            Scope::Sheets => SHEETS_READONLY,
            Scope::Docs => DOCS_READONLY,
            Scope::Slides => SLIDES_READONLY,
            Scope::Drive => DRIVE_READONLY,
            Scope::DriveActivity => ACTIVITY_READONLY,
            Scope::Calendar => CALENDAR_READONLY,
            Scope::CalendarAcl => CALENDAR_ACLS_READONLY,
            Scope::Gmail => GMAIL_READONLY,
        }
    }

    /// Every granted scope that lets a tool work, as the discovery documents list them per method (Sheets, Docs
    /// and Slides also accept Drive's scopes; reads also the `.readonly` ones). `drive.file` is left out: it reaches
    /// only files Gatehouse created or opened, so it does not make a tool usable in general.
    pub const fn accepted(self, read_only: bool) -> &'static [&'static str] {
        match (self, read_only) {
            (Scope::Sheets, false) => &[SHEETS, DRIVE],
            (Scope::Sheets, true) => &[SHEETS, SHEETS_READONLY, DRIVE, DRIVE_READONLY],
            (Scope::Docs, false) => &[DOCS, DRIVE],
            (Scope::Docs, true) => &[DOCS, DOCS_READONLY, DRIVE, DRIVE_READONLY],
            (Scope::Slides, false) => &[SLIDES, DRIVE],
            (Scope::Slides, true) => &[SLIDES, SLIDES_READONLY, DRIVE, DRIVE_READONLY],
            (Scope::Drive, false) => &[DRIVE],
            (Scope::Drive, true) => &[DRIVE, DRIVE_READONLY],
            (Scope::DriveActivity, _) => &[ACTIVITY, ACTIVITY_READONLY],
            (Scope::Calendar, false) => &[CALENDAR],
            (Scope::Calendar, true) => &[CALENDAR, CALENDAR_READONLY],
            (Scope::CalendarAcl, false) => &[CALENDAR, CALENDAR_ACLS],
            (Scope::CalendarAcl, true) => &[CALENDAR, CALENDAR_ACLS, CALENDAR_ACLS_READONLY],
            (Scope::Gmail, false) => &[MAIL, GMAIL_MODIFY],
            (Scope::Gmail, true) => &[MAIL, GMAIL_MODIFY, GMAIL_READONLY],
        }
    }
}
