//! The launchd agent (macOS): `~/Library/LaunchAgents/app.gatehouse.desktop.plist`, which launchd loads at
//! login (`RunAtLoad`).

use std::path::Path;

/// The agent's label, and its file's name in `~/Library/LaunchAgents` (with `.plist`): the app's bundle
/// identifier, as launchd's convention asks.
pub const LAUNCH_AGENT_LABEL: &str = "app.gatehouse.desktop";

/// The launchd agent starting `program` at login (launchd.plist(5)): `RunAtLoad`, and `Interactive`, since
/// the person waits on the app's cards.
pub fn launch_agent(program: &Path) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \t<key>Label</key>\n\
         \t<string>{LAUNCH_AGENT_LABEL}</string>\n\
         \t<key>ProgramArguments</key>\n\
         \t<array>\n\
         \t\t<string>{}</string>\n\
         \t</array>\n\
         \t<key>RunAtLoad</key>\n\
         \t<true/>\n\
         \t<key>ProcessType</key>\n\
         \t<string>Interactive</string>\n\
         </dict>\n\
         </plist>\n",
        xml_escaped(&program.to_string_lossy())
    )
}

/// Whether an agent's text leaves it switched on: `launchctl disable` or an edit switches it off with
/// `Disabled`.
pub(super) fn switched_on(text: &str) -> bool {
    let squeezed: String = text.split_whitespace().collect();
    !squeezed.contains("<key>Disabled</key><true/>")
}

/// `text` as XML character data.
fn xml_escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use crate::autostart::{Autostart, Entry};

    #[test]
    fn the_launch_agent_is_written_and_removed_and_reports_its_state() {
        let home = tempfile::tempdir().expect("temp dir");
        let dir = home.path().join("Library/LaunchAgents");
        let program = "/Applications/Gatehouse & Co.app/Contents/MacOS/gatehouse-desktop";
        let autostart = Autostart::at(Entry::LaunchAgent { dir: dir.clone() }, program);
        assert!(!autostart.is_enabled());
        autostart.set(true).expect("on");
        let file = dir.join("app.gatehouse.desktop.plist");
        let text = std::fs::read_to_string(&file).expect("the agent");
        assert!(text.contains("<string>app.gatehouse.desktop</string>"), "{text}");
        assert!(
            text.contains("<string>/Applications/Gatehouse &amp; Co.app/Contents/MacOS/gatehouse-desktop</string>"),
            "{text}"
        );
        assert!(text.contains("<key>RunAtLoad</key>\n\t<true/>"), "{text}");
        assert!(autostart.is_enabled());
        // `launchctl disable` or an edit can switch it off without removing it.
        let disabled = text.replace("</dict>", "\t<key>Disabled</key>\n\t<true/>\n</dict>");
        std::fs::write(&file, disabled).expect("edit");
        assert!(!autostart.is_enabled());
        autostart.set(false).expect("off");
        assert!(!file.exists());
    }

    /// Read back by Python's `plistlib`, a real property-list parser (macOS's own is not here).
    #[cfg(unix)]
    #[test]
    fn the_launch_agent_is_a_property_list_launchd_can_read() {
        let program = "/Applications/A<B> & C.app/Contents/MacOS/gatehouse-desktop";
        let read = std::process::Command::new("python3")
            .args([
                "-c",
                "import json, plistlib, sys; print(json.dumps(plistlib.loads(sys.argv[1].encode())))",
                &super::launch_agent(std::path::Path::new(program)),
            ])
            .output()
            .expect("python3 runs");
        assert!(read.status.success(), "{}", String::from_utf8_lossy(&read.stderr));
        let agent: serde_json::Value = serde_json::from_slice(&read.stdout).expect("JSON");
        assert_eq!(
            agent,
            serde_json::json!({
                "Label": "app.gatehouse.desktop",
                "ProgramArguments": [program],
                "RunAtLoad": true,
                "ProcessType": "Interactive",
            })
        );
    }
}
