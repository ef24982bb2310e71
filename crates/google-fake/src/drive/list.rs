//! `files.list`: corpora and shared drives, the `q` search, `orderBy`, and stable opaque page tokens.
//!
//! Pages are cut by position in a total order (the `orderBy` keys, then creation order), and a page token
//! carries the sort key of the last item served: the next page starts strictly after it, so every file is
//! visited once even when files are added or removed between pages.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::params::{Params, invalid_page_token, respond};
use super::query::{self, Cond, Expr, Literal, Op};
use super::{Call, File, Grantee, Node, Role, Store, fnv, native};
use crate::call::Reply;
use crate::errors::ApiError;
use crate::state::{Identity, World};

/// One component of a sort key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
enum Part {
    Int(i64),
    Text(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SortKey {
    CreatedTime,
    Folder,
    ModifiedByMeTime,
    ModifiedTime,
    Name,
    NameNatural,
    QuotaBytesUsed,
    Recency,
    SharedWithMeTime,
    Starred,
    ViewedByMeTime,
}

fn parse_order(order_by: Option<&str>) -> Result<Vec<(SortKey, bool)>, ApiError> {
    let Some(order_by) = order_by.filter(|o| !o.trim().is_empty()) else {
        return Ok(Vec::new());
    };
    let bad = || ApiError::drive_invalid("orderBy", "Invalid Value");
    order_by
        .split(',')
        .map(|item| {
            let mut words = item.split_whitespace();
            let key = match words.next().ok_or_else(bad)? {
                "createdTime" => SortKey::CreatedTime,
                "folder" => SortKey::Folder,
                "modifiedByMeTime" => SortKey::ModifiedByMeTime,
                "modifiedTime" => SortKey::ModifiedTime,
                "name" => SortKey::Name,
                "name_natural" => SortKey::NameNatural,
                "quotaBytesUsed" => SortKey::QuotaBytesUsed,
                "recency" => SortKey::Recency,
                "sharedWithMeTime" => SortKey::SharedWithMeTime,
                "starred" => SortKey::Starred,
                "viewedByMeTime" => SortKey::ViewedByMeTime,
                _ => return Err(bad()),
            };
            let desc = match words.next() {
                None => false,
                Some(word) if word.eq_ignore_ascii_case("desc") => true,
                Some(word) if word.eq_ignore_ascii_case("asc") => false,
                Some(_) => return Err(bad()),
            };
            if words.next().is_some() {
                return Err(bad());
            }
            Ok((key, desc))
        })
        .collect()
}

/// Digit runs compare by value ("2" < "12"), the rest case-insensitively.
fn natural(name: &str) -> String {
    let mut out = String::new();
    let mut digits = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            out.push_str(&format!("{:0>20}", std::mem::take(&mut digits)));
        }
        out.push(c);
    }
    if !digits.is_empty() {
        out.push_str(&format!("{digits:0>20}"));
    }
    out
}

/// Which files a listing draws from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Corpus {
    User,
    Domain,
    Drive(String),
    AllDrives,
}

struct Listing<'a> {
    store: &'a Store,
    world: &'a World,
    who: &'a Identity,
    email: String,
    root: String,
}

impl Listing<'_> {
    fn millis(time: Option<&chrono::DateTime<chrono::Utc>>) -> i64 {
        time.map_or(0, chrono::DateTime::timestamp_millis)
    }

    fn key(&self, file: &File, order: &[(SortKey, bool)]) -> Vec<Part> {
        order
            .iter()
            .map(|(key, _)| match key {
                SortKey::CreatedTime => Part::Int(file.created_time.timestamp_millis()),
                SortKey::Folder => Part::Int(i64::from(!file.is_folder())),
                SortKey::ModifiedByMeTime => Part::Int(Self::millis(file.modified_by.get(&self.email))),
                SortKey::ModifiedTime => Part::Int(file.modified_time.timestamp_millis()),
                SortKey::Name => Part::Text(file.name.to_lowercase()),
                SortKey::NameNatural => Part::Text(natural(&file.name)),
                SortKey::QuotaBytesUsed => Part::Int(file.size().map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX))),
                SortKey::Recency => Part::Int(
                    [
                        Some(file.modified_time.timestamp_millis()),
                        file.viewed_by.get(&self.email).map(chrono::DateTime::timestamp_millis),
                        file.modified_by.get(&self.email).map(chrono::DateTime::timestamp_millis),
                        self.store.shared_with_me(file, self.who).map(|(t, _)| t.timestamp_millis()),
                    ]
                    .into_iter()
                    .flatten()
                    .max()
                    .unwrap_or(0),
                ),
                SortKey::SharedWithMeTime => {
                    Part::Int(self.store.shared_with_me(file, self.who).map_or(0, |(t, _)| t.timestamp_millis()))
                }
                SortKey::Starred => Part::Int(i64::from(file.starred_by.contains(&self.email))),
                SortKey::ViewedByMeTime => Part::Int(Self::millis(file.viewed_by.get(&self.email))),
            })
            .collect()
    }

    fn in_corpus(&self, file: &File, corpus: &Corpus, shared_drives: bool) -> bool {
        if file.node != Node::Item {
            return false;
        }
        match (&file.drive_id, corpus) {
            (Some(drive), Corpus::Drive(wanted)) => {
                drive == wanted && self.store.role_on(file, self.who, false).is_some()
            }
            (Some(_), _) => shared_drives && self.store.role_on(file, self.who, false).is_some(),
            (None, Corpus::Drive(_)) => false,
            (None, corpus) => {
                let owner = file.owner() == Some(self.email.as_str());
                if !owner && self.store.is_trashed(file) {
                    return false;
                }
                let granted = self.store.role_for_email(file, &self.email, true, false).is_some();
                let discoverable = *corpus == Corpus::Domain
                    && self.store.lineage(file).iter().any(|node| {
                        node.permissions
                            .iter()
                            .any(|p| p.allow_file_discovery && matches!(p.grantee, Grantee::Domain | Grantee::Anyone))
                    });
                granted || discoverable || file.viewed_by.contains_key(&self.email)
            }
        }
    }

    fn member_email(&self, value: &str) -> String {
        if value == "me" { self.email.clone() } else { value.trim().to_ascii_lowercase() }
    }

    fn visibility(&self, file: &File) -> &'static str {
        let mut best = "limited";
        for node in self.store.lineage(file) {
            for permission in &node.permissions {
                let level = match (permission.grantee, permission.allow_file_discovery) {
                    (Grantee::Anyone, true) => "anyoneCanFind",
                    (Grantee::Anyone, false) => "anyoneWithLink",
                    (Grantee::Domain, true) => "domainCanFind",
                    (Grantee::Domain, false) => "domainWithLink",
                    _ => continue,
                };
                let rank = |v: &str| {
                    ["limited", "domainWithLink", "domainCanFind", "anyoneWithLink", "anyoneCanFind"]
                        .iter()
                        .position(|x| *x == v)
                        .unwrap_or(0)
                };
                if rank(level) > rank(best) {
                    best = level;
                }
            }
        }
        best
    }

    fn test(&self, file: &File, cond: &Cond) -> bool {
        let text = |value: &str| match &cond.value {
            Literal::Str(expected) => match cond.op {
                Op::Eq => value == expected,
                Op::Ne => value != expected,
                Op::Contains => query::word_prefix(value, expected),
                _ => false,
            },
            _ => false,
        };
        let time = |value: Option<&chrono::DateTime<chrono::Utc>>| match (&cond.value, value) {
            (Literal::Time(expected), Some(actual)) => query::compare(actual, cond.op, expected),
            _ => false,
        };
        let boolean = |value: bool| match &cond.value {
            Literal::Bool(expected) => query::compare(&value, cond.op, expected),
            _ => false,
        };
        let member = || match &cond.value {
            Literal::Str(value) => value.clone(),
            _ => String::new(),
        };
        match cond.field {
            "name" => text(&file.name),
            "mimeType" => match (&cond.value, cond.op) {
                (Literal::Str(expected), Op::Contains) => {
                    file.mime_type.to_lowercase().contains(&expected.to_lowercase())
                }
                _ => text(&file.mime_type),
            },
            "fullText" => {
                let Literal::Str(needle) = &cond.value else {
                    return false;
                };
                let needle = needle.trim_matches('"');
                let mut haystacks = vec![file.name.clone()];
                haystacks.extend(file.description.clone());
                if let Some(bytes) = &file.content
                    && (file.mime_type.starts_with("text/") || std::str::from_utf8(bytes).is_ok())
                {
                    haystacks.push(String::from_utf8_lossy(bytes).into_owned());
                }
                haystacks.extend(native::full_text(self.world, file));
                haystacks.iter().any(|h| query::word_prefix(h, needle))
            }
            "modifiedTime" => time(Some(&file.modified_time)),
            "createdTime" => time(Some(&file.created_time)),
            "viewedByMeTime" => time(file.viewed_by.get(&self.email)),
            "trashed" => boolean(self.store.is_trashed(file)),
            "starred" => boolean(file.starred_by.contains(&self.email)),
            "sharedWithMe" => boolean(self.store.shared_with_me(file, self.who).is_some()),
            "parents" => {
                let wanted = member();
                let wanted = if wanted == "root" { self.root.clone() } else { wanted };
                file.parent.as_deref() == Some(wanted.as_str())
            }
            "owners" => file.owner() == Some(self.member_email(&member()).as_str()),
            "writers" => self
                .store
                .role_for_email(file, &self.member_email(&member()), false, false)
                .is_some_and(|r| r >= Role::Writer),
            "readers" => self.store.role_for_email(file, &self.member_email(&member()), false, false).is_some(),
            "properties" | "appProperties" => {
                let Literal::Pair(key, value) = &cond.value else {
                    return false;
                };
                let map = if cond.field == "properties" { &file.properties } else { &file.app_properties };
                map.get(key) == Some(value)
            }
            "visibility" => text(self.visibility(file)),
            "shortcutDetails.targetId" => text(file.shortcut_target.as_deref().unwrap_or_default()),
            _ => false,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Token {
    /// Fingerprint of the request the token belongs to.
    f: u64,
    /// Sort key of the last file served.
    k: Vec<Part>,
    /// Creation order of the last file served.
    s: u64,
}

fn decode_token(token: &str, fingerprint: u64) -> Result<(Vec<Part>, u64), ApiError> {
    let bytes = URL_SAFE_NO_PAD.decode(token).map_err(|_| invalid_page_token())?;
    let token: Token = serde_json::from_slice(&bytes).map_err(|_| invalid_page_token())?;
    if token.f != fingerprint {
        return Err(invalid_page_token());
    }
    Ok((token.k, token.s))
}

fn encode_token(fingerprint: u64, key: Vec<Part>, seq: u64) -> String {
    let json = serde_json::to_vec(&Token { f: fingerprint, k: key, s: seq }).unwrap_or_default();
    URL_SAFE_NO_PAD.encode(json)
}

fn ordering(a: &(Vec<Part>, u64), b: &(Vec<Part>, u64), order: &[(SortKey, bool)]) -> std::cmp::Ordering {
    for (index, (_, desc)) in order.iter().enumerate() {
        let by = a.0.get(index).cmp(&b.0.get(index));
        let by = if *desc { by.reverse() } else { by };
        if by.is_ne() {
            return by;
        }
    }
    a.1.cmp(&b.1)
}

fn corpus(params: &Params, include_all: bool) -> Result<Corpus, ApiError> {
    let drive_id = params.text("driveId").or(params.text("teamDriveId"));
    let corpora = params.text("corpora").or(params.text("corpus")).unwrap_or("user");
    let corpus = match corpora {
        "user" => Corpus::User,
        "domain" => Corpus::Domain,
        "drive" | "teamDrive" => match drive_id {
            Some(id) => Corpus::Drive(id.to_owned()),
            None => {
                return Err(ApiError::legacy(
                    400,
                    "badRequest",
                    "The driveId parameter must be specified if and only if corpora is set to drive.",
                )
                .at("driveId"));
            }
        },
        "allDrives" | "allTeamDrives" | "user,allTeamDrives" => Corpus::AllDrives,
        _ => return Err(ApiError::drive_invalid("corpora", "Invalid Value")),
    };
    if drive_id.is_some() && !matches!(corpus, Corpus::Drive(_)) {
        return Err(ApiError::legacy(
            400,
            "badRequest",
            "The driveId parameter must be specified if and only if corpora is set to drive.",
        )
        .at("driveId"));
    }
    if corpus != Corpus::User && corpus != Corpus::Domain && !include_all {
        return Err(ApiError::legacy(
            403,
            "teamDriveIncludeItemsRequired",
            format!("The includeItemsFromAllDrives parameter must be set to true when corpora is set to {corpora}."),
        )
        .at("includeItemsFromAllDrives"));
    }
    Ok(corpus)
}

/// `GET /drive/v3/files`.
pub(crate) async fn list(call: Call) -> Reply {
    call.run(|world, who, params| list_files(world, &who, params))
}

fn list_files(world: &mut World, who: &Identity, params: &Params) -> Reply {
    let root = world.drive.root_id(&who.email);
    let page_size = usize::try_from(params.int("pageSize", 100, 1, 1000)?).unwrap_or(100);
    let all_drives = params.all_drives()?;
    let include_all = params.flag("includeItemsFromAllDrives")? || params.flag("includeTeamDriveItems")?;
    let corpus = corpus(params, include_all)?;
    if let Corpus::Drive(drive_id) = &corpus {
        if !all_drives {
            return Err(ApiError::legacy(
                403,
                "teamDriveSupportRequired",
                "The supportsAllDrives parameter must be set to true to list items in a shared drive.",
            )
            .at("supportsAllDrives"));
        }
        world.drive.open(drive_id, who, true).map_err(|_| {
            ApiError::legacy(404, "notFound", format!("Shared drive not found: {drive_id}")).at("driveId")
        })?;
    }
    let expr: Option<Expr> = match params.text("q").filter(|q| !q.trim().is_empty()) {
        Some(q) => Some(query::parse(q, &query::FILES)?),
        None => None,
    };
    let order = parse_order(params.get("orderBy"))?;
    if !order.is_empty() && expr.as_ref().is_some_and(|e| e.mentions("fullText")) {
        return Err(ApiError::legacy(
            400,
            "badRequest",
            "Sorting is not supported for queries with fullText terms. Results are always in descending relevance order.",
        )
        .at("orderBy"));
    }
    let spaces = params.list("spaces");
    if spaces.iter().any(|s| !matches!(s.as_str(), "drive" | "appDataFolder" | "photos")) {
        return Err(ApiError::drive_invalid("spaces", "Invalid Value"));
    }
    let drive_space = spaces.is_empty() || spaces.iter().any(|s| s == "drive");
    let fingerprint = fnv(&format!(
        "{:?}|{:?}|{:?}|{:?}|{include_all}|{all_drives}|{}",
        params.get("q"),
        params.get("orderBy"),
        corpus,
        spaces,
        who.email
    ));
    let after = params.text("pageToken").map(|token| decode_token(token, fingerprint)).transpose()?;

    let world: &World = world;
    let listing = Listing { store: &world.drive, world, who, email: who.email.trim().to_ascii_lowercase(), root };
    let shared_drives = include_all && all_drives;
    let mut hits: Vec<((Vec<Part>, u64), &File)> = if drive_space {
        world
            .drive
            .files
            .values()
            .filter(|file| listing.in_corpus(file, &corpus, shared_drives))
            .filter(|file| expr.as_ref().is_none_or(|e| e.eval(&mut |cond| listing.test(file, cond))))
            .map(|file| ((listing.key(file, &order), file.seq), file))
            .collect()
    } else {
        Vec::new()
    };
    hits.sort_by(|a, b| ordering(&a.0, &b.0, &order));
    if let Some(after) = &after {
        hits.retain(|(key, _)| ordering(key, after, &order).is_gt());
    }
    let more = hits.len() > page_size;
    hits.truncate(page_size);
    let next =
        if more { hits.last().map(|((key, seq), _)| encode_token(fingerprint, key.clone(), *seq)) } else { None };
    let files: Vec<_> = hits.iter().map(|(_, file)| world.drive.file_json(file, who)).collect();
    let mut body = json!({ "kind": "drive#fileList", "incompleteSearch": false, "files": files });
    if let Some(next) = next {
        body["nextPageToken"] = json!(next);
    }
    respond(params, "kind,incompleteSearch,nextPageToken,files(kind,id,name,mimeType,resourceKey)", "FileList", &body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order_compares_numbers_by_value() {
        let mut names = vec!["file 12", "file 2", "File 1"];
        names.sort_by_key(|n| natural(n));
        assert_eq!(names, vec!["File 1", "file 2", "file 12"]);
    }

    #[test]
    fn order_by_accepts_documented_keys_only() {
        assert!(parse_order(Some("folder,modifiedTime desc,name")).is_ok());
        assert!(parse_order(Some("title")).is_err());
        assert!(parse_order(Some("name sideways")).is_err());
    }
}
