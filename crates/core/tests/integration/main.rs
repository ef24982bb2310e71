//! The core's integration tests, as one test program: each file here is a module, as it would be its own
//! program under `tests/`. One program links the core once instead of once per file (each link is ~190 MB of
//! debug build, 12 GB for these 67 files), which was most of the build's disk.
//!
//! Run one file's tests with its module name: `cargo test -p gatehouse-core --test integration connect::`.
//! `tests/control_windows.rs` (cross-built alone for Windows) and `tests/sheets_memory.rs` (it installs its
//! own global allocator) stay programs of their own.

mod auth_common;
mod docs_common;
mod drive_common;
mod sheets_common;
#[path = "common/store_engine.rs"]
mod store_engine;
mod support;

mod answers;
mod approval_cards;
mod approval_evaluators;
mod approval_never;
mod approval_properties;
mod approval_resend;
mod approval_rules;
mod approval_store;
mod approval_withdrawn;
mod approval_words;
mod architecture;
mod arguments_bounds;
mod assistant_connected;
mod assistants_http;
mod assistants_store;
mod audit_group_commit;
mod audit_intent;
mod auth_adc;
mod auth_login;
mod auth_reroute;
mod auth_resolve;
mod auth_session;
mod auth_status;
mod auth_status_resource;
mod cache;
mod calendar_auth_status;
mod calendar_calendars;
mod calendar_events;
mod calendar_free_slots;
mod calendar_invitations;
mod calendar_sharing;
mod catalogue;
mod connect;
mod control;
mod docs_bookmark;
mod docs_breaks;
mod docs_comments;
mod docs_headers;
mod docs_html;
mod docs_images;
mod docs_markdown_roundtrip;
mod docs_named_ranges;
mod docs_named_styles;
mod docs_read;
mod docs_resolve;
mod docs_styles;
mod docs_tables;
mod docs_theme;
mod docs_write;
mod docs_write_content;
mod documentation;
mod drive_activity;
mod drive_extras;
mod drive_files;
mod drive_folders;
mod drive_list;
mod drive_sharing;
mod drive_sync;
mod drive_transfer;
mod gmail_access;
mod gmail_labels;
mod gmail_read;
mod gmail_send;
mod google_client;
mod google_discovered;
mod google_forms;
mod google_mcp;
mod independent_server;
mod leaks;
// Real symbolic links: Unix only (making one on Windows takes a privilege most users lack).
#[cfg(unix)]
mod local_links;
mod resources_gated;
mod screening;
mod seals;
mod settings;
mod sheets_chart;
mod sheets_find;
mod sheets_format;
mod sheets_import_csv;
mod sheets_layout;
mod sheets_list;
mod sheets_multi;
mod sheets_read;
mod sheets_structure;
mod sheets_validation;
mod sheets_write;
mod tool_sets;
