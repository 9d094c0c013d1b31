//! Which inputs a run reads: files, `-` for standard input, and Common Crawl
//! `warc.paths` lists (plain or gzipped) resolved against a prefix.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::PipelineError;

/// One input to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    pub fn from_arg(arg: &str) -> Self {
        if arg == "-" { Self::Stdin } else { Self::File(PathBuf::from(arg)) }
    }

    /// How the input is named in logs and manifests.
    pub fn display(&self) -> String {
        match self {
            Self::File(p) => p.display().to_string(),
            Self::Stdin => "-".to_string(),
        }
    }

    /// The name its outputs carry: the file name without `.warc`/`.gz` endings.
    pub fn stem(&self) -> String {
        match self {
            Self::Stdin => "stdin".to_string(),
            Self::File(path) => {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let mut stem = name.as_str();
                for ending in [".gz", ".warc", ".arc"] {
                    stem = stem.strip_suffix(ending).unwrap_or(stem);
                }
                if stem.is_empty() { "input".to_string() } else { stem.to_string() }
            }
        }
    }

    /// The input's size in bytes when known (for progress).
    pub fn size(&self) -> Option<u64> {
        match self {
            Self::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Self::Stdin => None,
        }
    }

    pub fn open(&self) -> Result<Box<dyn Read + Send>, PipelineError> {
        match self {
            Self::Stdin => Ok(Box::new(io::stdin())),
            Self::File(path) => {
                let file = File::open(path).map_err(|e| PipelineError::Open { input: path.display().to_string(), source: e })?;
                if file.metadata().is_ok_and(|m| m.is_dir()) {
                    return Err(PipelineError::Open {
                        input: path.display().to_string(),
                        source: io::Error::new(io::ErrorKind::InvalidInput, "is a directory"),
                    });
                }
                Ok(Box::new(file))
            }
        }
    }
}

/// Reads a paths list: one relative path per line, `#` comments and blank lines ignored.
pub fn read_paths_list(list: &Path, prefix: Option<&str>) -> Result<Vec<Input>, PipelineError> {
    let open_error = |source| PipelineError::Open { input: list.display().to_string(), source };
    let mut file = File::open(list).map_err(open_error)?;
    let mut magic = [0u8; 2];
    let n = file.read(&mut magic).map_err(open_error)?;
    let file = File::open(list).map_err(open_error)?;
    let reader: Box<dyn BufRead> = if n == 2 && magic == [0x1f, 0x8b] {
        Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file)))
    } else {
        Box::new(BufReader::new(file))
    };
    let mut inputs = Vec::new();
    for line in reader.lines() {
        let line = line.map_err(|e| PipelineError::Open { input: list.display().to_string(), source: e })?;
        let entry = line.trim();
        if entry.is_empty() || entry.starts_with('#') {
            continue;
        }
        let path = match prefix {
            Some(prefix) if !Path::new(entry).is_absolute() => {
                format!("{}/{}", prefix.trim_end_matches('/'), entry)
            }
            _ => entry.to_string(),
        };
        inputs.push(Input::File(PathBuf::from(path)));
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn stems_drop_warc_endings() {
        assert_eq!(Input::from_arg("a/CC-MAIN-1-00000.warc.gz").stem(), "CC-MAIN-1-00000");
        assert_eq!(Input::from_arg("x.warc").stem(), "x");
        assert_eq!(Input::from_arg("-").stem(), "stdin");
    }

    #[test]
    fn paths_lists_plain_and_gzipped_resolve_against_the_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let text = "crawl-data/a.warc.gz\n\n# comment\n/abs/b.warc.gz\n";
        std::fs::write(dir.path().join("plain.paths"), text).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        std::fs::write(dir.path().join("list.paths.gz"), gz.finish().unwrap()).unwrap();
        for name in ["plain.paths", "list.paths.gz"] {
            let inputs = read_paths_list(&dir.path().join(name), Some("/data/")).unwrap();
            assert_eq!(inputs, vec![
                Input::File("/data/crawl-data/a.warc.gz".into()),
                Input::File("/abs/b.warc.gz".into()),
            ]);
        }
    }
}
