//! The preview of an event's change on an approval card (see [`crate::approval::preview`]): the event as it
//! is now, and as the call would leave it, field by field. Attached to the declaration with `.previewed`.

use super::events;
use crate::approval::preview::{Preview, cut};
use crate::google::GoogleClient;
use crate::google::calendar::{Event, EventDateTime};
use crate::tools::registry::PreviewRead;

/// An event's start or end as the card shows it: the date of an all-day event, else the time as Google keeps it.
fn when(at: &EventDateTime) -> String {
    at.date_time.as_deref().or(at.date.as_deref()).unwrap_or("(not set)").to_owned()
}

/// The lines of an event a card shows, in order: title, when, where, who, description.
struct Lines {
    title: String,
    when: String,
    place: String,
    attendees: String,
    description: String,
}

impl Lines {
    fn of(event: &Event) -> Self {
        let attendees: Vec<&str> = event.attendees.iter().map(|attendee| attendee.email.as_str()).collect();
        Lines {
            title: event.summary.clone().unwrap_or_default(),
            when: format!("{} – {}", when(&event.start), when(&event.end)),
            place: event.location.clone().unwrap_or_default(),
            attendees: attendees.join(", "),
            description: event.description.clone().unwrap_or_default(),
        }
    }

    /// The event as `a` would leave it: what the call gives replaces what is there, the rest is kept.
    fn changed_by(&self, a: &events::UpdateEventArgs, event: &Event) -> Self {
        let start = a.start.clone().unwrap_or_else(|| when(&event.start));
        let end = a.end.clone().unwrap_or_else(|| when(&event.end));
        Lines {
            title: a.summary.clone().unwrap_or_else(|| self.title.clone()),
            when: format!("{start} – {end}"),
            place: a.location.clone().unwrap_or_else(|| self.place.clone()),
            attendees: a.attendees.as_ref().map_or_else(|| self.attendees.clone(), |list| list.join(", ")),
            description: a.description.clone().unwrap_or_else(|| self.description.clone()),
        }
    }

    fn text(&self) -> String {
        let mut lines = vec![format!("Title: {}", cut(&self.title)), format!("When: {}", cut(&self.when))];
        if !self.place.is_empty() {
            lines.push(format!("Where: {}", cut(&self.place)));
        }
        if !self.attendees.is_empty() {
            lines.push(format!("Guests: {}", cut(&self.attendees)));
        }
        if !self.description.is_empty() {
            lines.push(format!("Description: {}", cut(&self.description)));
        }
        lines.join("\n")
    }
}

pub(super) fn update_event(google: GoogleClient, a: events::UpdateEventArgs) -> PreviewRead {
    Box::pin(async move {
        let event = google
            .calendar()
            .event(&a.calendar_id, &a.event_id)
            .await
            .map_err(|error| format!("Calendar did not describe the event ({error})"))?;
        let now = Lines::of(&event);
        let after = now.changed_by(&a, &event);
        Ok(Preview::Text { before: now.text(), after: after.text() })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Event {
        serde_json::from_value(serde_json::json!({
            "id": "e1",
            "summary": "Tea",
            "location": "Room 1",
            "start": { "dateTime": "2026-12-10T10:00:00Z" },
            "end": { "dateTime": "2026-12-10T11:00:00Z" },
            "attendees": [{ "email": "ann@example.com" }]
        }))
        .expect("an event")
    }

    #[test]
    fn what_the_call_gives_replaces_what_is_there_and_the_rest_is_kept() {
        let event = event();
        let now = Lines::of(&event);
        assert_eq!(
            now.text(),
            "Title: Tea\nWhen: 2026-12-10T10:00:00Z – 2026-12-10T11:00:00Z\nWhere: Room 1\nGuests: ann@example.com"
        );
        let a: events::UpdateEventArgs = serde_json::from_value(serde_json::json!({
            "calendar_id": "primary", "event_id": "e1", "summary": "Coffee", "start": "2026-12-10T12:00:00Z"
        }))
        .expect("arguments");
        assert_eq!(
            now.changed_by(&a, &event).text(),
            "Title: Coffee\nWhen: 2026-12-10T12:00:00Z – 2026-12-10T11:00:00Z\nWhere: Room 1\nGuests: ann@example.com"
        );
    }
}
