//! Which inputs a run reads: files, `-` for standard input, and Common Crawl
//! `warc.paths` lists (plain or gzipped) resolved against a prefix.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::PipelineError;

/// Task `index` of `count`: a deterministic slice of a run's inputs, for job arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `I/N`, 0 <= I < N.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let (i, n) = spec.split_once('/').ok_or_else(|| format!("--shard {spec}: expected I/N, e.g. 3/16"))?;
        let index: usize = i.trim().parse().map_err(|_| format!("--shard {spec}: I is not a number"))?;
        let count: usize = n.trim().parse().map_err(|_| format!("--shard {spec}: N is not a number"))?;
        if count == 0 || index >= count {
            return Err(format!("--shard {spec}: need 0 <= I < N"));
        }
        Ok(Self { index, count })
    }

    /// From a Slurm job array (`SLURM_ARRAY_TASK_ID`, `_COUNT`, `_MIN`), when run inside one.
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> Option<Result<Self, String>> {
        let id: usize = var("SLURM_ARRAY_TASK_ID")?.trim().parse().ok()?;
        let count = var("SLURM_ARRAY_TASK_COUNT").and_then(|c| c.trim().parse::<usize>().ok());
        let min = var("SLURM_ARRAY_TASK_MIN").and_then(|m| m.trim().parse::<usize>().ok()).unwrap_or(0);
        Some(match count {
            Some(count) if id >= min && id - min < count => Ok(Self { index: id - min, count }),
            _ => Err(format!("Slurm array task {id} does not fit SLURM_ARRAY_TASK_COUNT/MIN; use --shard I/N")),
        })
    }

    /// Every `count`-th item from `index`: neighbouring files of a paths list go to
    /// different tasks, and the shards together hold every item exactly once.
    pub fn select<T>(self, items: Vec<T>) -> Vec<T> {
        items.into_iter().enumerate().filter(|(i, _)| i % self.count == self.index).map(|(_, item)| item).collect()
    }
}

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
    let reader: Box<dyn BufRead> =
        if n == 2 && magic == [0x1f, 0x8b] { Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(file))) } else { Box::new(BufReader::new(file)) };
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
    #[test]
    fn shards_split_inputs_exactly_once() {
        use super::Shard;
        assert_eq!(Shard::parse("3/16"), Ok(Shard { index: 3, count: 16 }));
        assert!(Shard::parse("16/16").is_err());
        assert!(Shard::parse("1/0").is_err());
        assert!(Shard::parse("x").is_err());
        let items: Vec<usize> = (0..10).collect();
        let mut all: Vec<usize> = (0..4).flat_map(|i| Shard { index: i, count: 4 }.select(items.clone())).collect();
        assert_eq!(Shard { index: 1, count: 4 }.select(items.clone()), vec![1, 5, 9]);
        all.sort();
        assert_eq!(all, items);
        let env = |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
        assert_eq!(
            Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "7"), ("SLURM_ARRAY_TASK_COUNT", "4"), ("SLURM_ARRAY_TASK_MIN", "5")])),
            Some(Ok(Shard { index: 2, count: 4 }))
        );
        assert_eq!(Shard::from_slurm(env(&[])), None);
        assert!(matches!(Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "9"), ("SLURM_ARRAY_TASK_COUNT", "4")])), Some(Err(_))));
    }

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
            assert_eq!(inputs, vec![Input::File("/data/crawl-data/a.warc.gz".into()), Input::File("/abs/b.warc.gz".into()),]);
        }
    }

    proptest::proptest! {
        /// For any number of inputs and tasks, the tasks' slices together hold every input
        /// exactly once, in sizes that differ by at most one.
        #[test]
        fn shard_slices_partition_the_inputs(items in 0usize..300, count in 1usize..64) {
            use super::Shard;
            let inputs: Vec<usize> = (0..items).collect();
            let slices: Vec<Vec<usize>> = (0..count).map(|index| Shard { index, count }.select(inputs.clone())).collect();
            let mut all: Vec<usize> = slices.iter().flatten().copied().collect();
            all.sort_unstable();
            proptest::prop_assert_eq!(all, inputs);
            let sizes: Vec<usize> = slices.iter().map(Vec::len).collect();
            let (min, max) = (sizes.iter().min().copied().unwrap_or(0), sizes.iter().max().copied().unwrap_or(0));
            proptest::prop_assert!(max - min <= 1, "{:?}", sizes);
        }

        /// `I/N` parses exactly when 0 <= I < N, to that shard.
        #[test]
        fn shard_specs_parse_when_in_range(index in 0usize..100, count in 0usize..100) {
            use super::Shard;
            let parsed = Shard::parse(&format!("{index}/{count}"));
            if index < count {
                proptest::prop_assert_eq!(parsed, Ok(Shard { index, count }));
            } else {
                proptest::prop_assert!(parsed.is_err());
            }
        }
    }
}
