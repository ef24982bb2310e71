//! Who Gatehouse acts as: how the credential was found ([`AuthMethod`]) and what kind of Google identity it
//! turned out to be ([`IdentityClass`]). The two differ for Application Default Credentials, which can hold a
//! person's sign-in or a service account's: what a tool can do follows the class, never the method.

use serde::{Deserialize, Serialize};

/// How the credential was found: `AUTH_METHOD`'s values, and `auth_method` in `server://auth-status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AuthMethod {
    /// A person signed in with Google through Gatehouse (refresh token in the keychain).
    #[serde(rename = "oauth")]
    OAuth,
    /// A service-account key (`SERVICE_ACCOUNT_PATH` or `CREDENTIALS_CONFIG`).
    #[serde(rename = "service_account")]
    ServiceAccount,
    /// Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's file, the metadata server).
    #[serde(rename = "adc")]
    Adc,
    /// Signed out: no credential at all.
    #[serde(rename = "none")]
    None,
}

impl AuthMethod {
    /// The serialized name (`oauth`, `service_account`, `adc`, `none`).
    pub const fn as_str(self) -> &'static str {
        match self {
            AuthMethod::OAuth => "oauth",
            AuthMethod::ServiceAccount => "service_account",
            AuthMethod::Adc => "adc",
            AuthMethod::None => "none",
        }
    }

    /// Reads an `AUTH_METHOD` value, ignoring case and surrounding space; `None` for anything else.
    pub fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        [AuthMethod::OAuth, AuthMethod::ServiceAccount, AuthMethod::Adc, AuthMethod::None]
            .into_iter()
            .find(|method| method.as_str().eq_ignore_ascii_case(value))
    }

    /// The class every credential of this method has, when the method alone decides it (not for ADC, whose
    /// credential may be either; not when signed out).
    pub const fn fixed_class(self) -> Option<IdentityClass> {
        match self {
            AuthMethod::OAuth => Some(IdentityClass::User),
            AuthMethod::ServiceAccount => Some(IdentityClass::ServiceAccount),
            AuthMethod::Adc | AuthMethod::None => None,
        }
    }
}

impl std::fmt::Display for AuthMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of Google identity the resolved credential acts as. Google treats them differently: a service
/// account has no Drive storage of its own and no My Drive to give or receive ownership in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentityClass {
    /// A person's Google account.
    User,
    /// A service account (a key, or the one attached to a Google Cloud machine).
    ServiceAccount,
}

impl IdentityClass {
    pub const fn is_service_account(self) -> bool {
        matches!(self, IdentityClass::ServiceAccount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_serialize_as_auth_status_names_them() {
        let names: Vec<String> = [AuthMethod::OAuth, AuthMethod::ServiceAccount, AuthMethod::Adc, AuthMethod::None]
            .iter()
            .map(|m| serde_json::to_value(m).unwrap().as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["oauth", "service_account", "adc", "none"]);
        assert_eq!(AuthMethod::parse(" ADC "), Some(AuthMethod::Adc));
        assert_eq!(AuthMethod::parse("Service_Account"), Some(AuthMethod::ServiceAccount));
        assert_eq!(AuthMethod::parse("keychain"), None);
    }

    #[test]
    fn only_adc_leaves_the_class_to_the_credential() {
        assert_eq!(AuthMethod::OAuth.fixed_class(), Some(IdentityClass::User));
        assert_eq!(AuthMethod::ServiceAccount.fixed_class(), Some(IdentityClass::ServiceAccount));
        assert_eq!(AuthMethod::Adc.fixed_class(), None);
        assert_eq!(serde_json::to_value(IdentityClass::ServiceAccount).unwrap(), "service_account");
    }
}
