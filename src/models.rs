//! Where the trained models are, and what each file in `models/` is called: one place
//! for every stage that loads one (the classifier's, Web2Text's, the combiner's).

use std::path::{Path, PathBuf};

/// The ResNet's weights and its spec (shape, input contract, feature statistics).
pub const RESNET_WEIGHTS: &str = "genre-resnet.safetensors";
pub const RESNET_SPEC: &str = "genre-resnet.json";
/// The html-features baseline classifier.
pub const HTML_FEATURES_MODEL: &str = "html-features.json";
/// The default classifier's linear gate in front of the ResNet.
pub const CASCADE_MODEL: &str = "genre-cascade.json";
/// The ResNet's word model.
pub const WORD_MODEL: &str = "genre-words.json";
/// Web2Text's two CNNs and their spec.
pub const WEB2TEXT_SPEC: &str = "web2text.json";
pub const WEB2TEXT_WEIGHTS: &str = "web2text.safetensors";
/// The combiner's trees and selector.
pub const COMBINER: &str = "combiner.json";
/// The combiner trained with the page types blanked on every page, for `--classifier none`.
pub const COMBINER_NO_PAGE_TYPES: &str = "combiner-no-page-types.json";

/// Why a model file does not load (or save), its cause kept as the error's source. The
/// stages wrap it with the file's path and how to mend it.
#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    #[error("cannot read it: {0}")]
    Read(#[source] std::io::Error),
    #[error("cannot write it: {0}")]
    Write(#[source] std::io::Error),
    #[error("not a {what}: {source}")]
    Json { what: &'static str, source: serde_json::Error },
    /// LibTorch's message (read through [`crate::torch`]).
    #[error("cannot load the weights: {0}")]
    Weights(String),
    /// The file reads, but does not fit this build (its format, inputs or shapes).
    #[error("{0}")]
    Invalid(String),
}

impl ModelFileError {
    /// A file's text, or why it cannot be read.
    pub fn read(path: &Path) -> Result<String, Self> {
        std::fs::read_to_string(path).map_err(Self::Read)
    }

    /// A JSON file of the given kind (`what`, as the message names it).
    pub fn parse<T: serde::de::DeserializeOwned>(text: &str, what: &'static str) -> Result<T, Self> {
        serde_json::from_str(text).map_err(|source| Self::Json { what, source })
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no models folder found (looked in {looked})")]
pub struct NotFound {
    pub looked: String,
}

/// Where `models/` is: `given` (`--models`), else `$GOCE_MODELS`, else `./models`, else
/// the repository the binary was built in (`target/release/../../models`). A folder counts
/// when it holds a classifier.
pub fn find_dir(given: Option<&Path>) -> Result<PathBuf, NotFound> {
    if let Some(dir) = given {
        return Ok(dir.to_path_buf());
    }
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(env) = std::env::var_os("GOCE_MODELS") {
        candidates.push(PathBuf::from(env));
    }
    candidates.push(PathBuf::from("models"));
    if let Ok(exe) = std::env::current_exe()
        && let Some(repo) = exe.parent().and_then(Path::parent).and_then(Path::parent)
    {
        candidates.push(repo.join("models"));
    }
    candidates.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models"));
    candidates.dedup();
    candidates
        .iter()
        .find(|d| d.join(HTML_FEATURES_MODEL).is_file() || d.join(RESNET_SPEC).is_file())
        .cloned()
        .ok_or_else(|| NotFound { looked: candidates.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_given_folder_wins_and_the_repositorys_is_found() {
        assert_eq!(find_dir(Some(Path::new("/x/models"))), Ok(PathBuf::from("/x/models")));
        // The tests run from the repository, whose models/ holds the classifiers.
        let found = find_dir(None).expect("the repository's models/");
        assert!(found.join(RESNET_SPEC).is_file() && found.join(COMBINER).is_file(), "{}", found.display());
    }
}
