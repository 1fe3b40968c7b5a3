//! The Settings tab's "Test connection": what pressing it asks for (the server's models, from
//! the endpoint in the form) as data, and what the answer means for the form and the line under
//! the button. The shell performs the request and hands the answer to
//! [`ConnectionTest::answered`]; the component only renders the state.

use crate::engine::openai::ApiError;
use crate::engine::settings::{Endpoint, Settings};

/// Where "Test connection" stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum ConnectionTest {
    /// Not pressed yet.
    #[default]
    Idle,
    /// The server is being asked for its models.
    Testing,
    /// How many models the server listed.
    Found(usize),
    /// Why there is no answer: what is wrong with the form, or the server's error.
    Failed(String),
}

impl ConnectionTest {
    /// "Test connection" pressed: a key typed before any base URL is bound to the origin it is
    /// about to reach, then the endpoint of the form is the one to ask for its models (`Some`),
    /// or what is wrong with the form is shown instead (`None`).
    pub fn pressed(settings: &mut Settings) -> (ConnectionTest, Option<Endpoint>) {
        settings.bind_key();
        match settings.endpoint() {
            Ok(endpoint) => (ConnectionTest::Testing, Some(endpoint)),
            Err(errors) => {
                let text = errors.iter().map(ToString::to_string).collect::<Vec<_>>();
                (ConnectionTest::Failed(text.join(" ")), None)
            }
        }
    }

    /// The server answered: the line says how many models it listed, and those models are to
    /// be offered in the form (`Some`, for [`Settings::set_models`]); an error is shown as it
    /// is and leaves the form as it was.
    pub fn answered(reply: Result<Vec<String>, ApiError>) -> (ConnectionTest, Option<Vec<String>>) {
        match reply {
            Ok(models) => (ConnectionTest::Found(models.len()), Some(models)),
            Err(error) => (ConnectionTest::Failed(error.to_string()), None),
        }
    }

    /// Whether the button waits for an answer (and is disabled meanwhile).
    pub fn is_testing(&self) -> bool {
        matches!(self, ConnectionTest::Testing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(base_url: &str, key: &str) -> Settings {
        let mut settings = Settings::default();
        settings.set_base_url(base_url.to_owned());
        settings.set_api_key(key.to_owned());
        settings
    }

    #[test]
    fn a_valid_endpoint_is_asked_for_its_models_with_the_key_bound_to_its_origin() {
        let mut settings = Settings::default();
        // A key typed before any base URL.
        settings.set_api_key("sk-test".to_owned());
        settings.set_base_url("http://127.0.0.1:8080/v1".to_owned());
        assert!(settings.key_origin.is_empty(), "not bound yet");
        let (state, request) = ConnectionTest::pressed(&mut settings);
        assert_eq!(state, ConnectionTest::Testing);
        assert!(state.is_testing());
        let endpoint = request.expect("the endpoint to ask");
        assert_eq!(endpoint, settings.endpoint().unwrap());
        assert_eq!(endpoint.api_key.as_deref(), Some("sk-test"));
        assert_eq!(settings.key_origin, "http://127.0.0.1:8080");
    }

    #[test]
    fn an_invalid_form_sends_nothing_and_says_what_is_wrong() {
        let mut settings = form("not a url", "");
        let (state, request) = ConnectionTest::pressed(&mut settings);
        assert_eq!(request, None);
        let expected = settings
            .endpoint()
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(!expected.is_empty());
        assert_eq!(state, ConnectionTest::Failed(expected));
        assert!(!state.is_testing());
    }

    #[test]
    fn the_models_listed_are_counted_and_offered_and_an_error_is_shown_as_it_is() {
        let listed = vec![
            "b-model".to_owned(),
            "a-model".to_owned(),
            "a-model".to_owned(),
        ];
        let (state, offered) = ConnectionTest::answered(Ok(listed.clone()));
        // The count is of what the server listed; the form sorts and deduplicates its copy.
        assert_eq!(state, ConnectionTest::Found(3));
        assert_eq!(offered, Some(listed));

        let error = ApiError::Timeout {
            after_ms: Some(30_000),
        };
        let message = error.to_string();
        assert_eq!(
            ConnectionTest::answered(Err(error)),
            (ConnectionTest::Failed(message), None)
        );
        assert_eq!(ConnectionTest::default(), ConnectionTest::Idle);
    }
}
