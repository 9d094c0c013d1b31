//! `goce-warc process`: WARC files → Parquet, the pipeline's flags and its closing summary.

use super::*;

#[derive(Args, Debug)]
pub struct ProcessArgs {
    /// WARC files (.warc, .warc.gz with one gzip member per record, or one gzip stream);
    /// `-` reads standard input.
    #[arg(value_name = "WARC")]
    pub inputs: Vec<String>,

    /// A Common Crawl `warc.paths` list (plain or .gz): one WARC path per line.
    #[arg(long, value_name = "FILE")]
    pub paths: Option<PathBuf>,

    /// Read only slice I of N of the inputs (every N-th, from the I-th; 0-based), for job
    /// arrays. Inside a Slurm array it defaults to the task's slice (SLURM_ARRAY_TASK_ID,
    /// SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN).
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<pipeline::Shard>,

    /// Directory that relative entries of --paths are resolved against.
    #[arg(long, value_name = "DIR", requires = "paths")]
    pub prefix: Option<String>,

    /// Output directory for Parquet shards and per-input manifests (created if missing).
    #[arg(long, short, value_name = "DIR")]
    pub out: PathBuf,

    /// Rows per Parquet shard; an input with more pages gets several shards.
    #[arg(long, default_value_t = 50_000, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub rows_per_shard: u64,

    /// Redo inputs that already have a manifest (by default they are skipped).
    #[arg(long)]
    pub overwrite: bool,

    /// Worker threads for page decoding and extraction (default: all cores). Each input
    /// also has one reader thread.
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,

    /// HTTP statuses to keep, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "200", value_name = "CODES", conflicts_with = "any_status")]
    pub status: Vec<u16>,

    /// Keep responses whatever their HTTP status.
    #[arg(long)]
    pub any_status: bool,

    /// Text extraction algorithm (combined: trained trees decide block by block; goce: the classifier's genre picks article or list-view).
    #[arg(long, value_parser = choice::<Extractor>(), default_value = "combined")]
    pub extractor: Extractor,

    #[command(flatten)]
    pub classifier: ClassifierArgs,

    #[command(flatten)]
    pub markdown: MarkdownArgs,

    /// Pictures per ResNet forward pass (default: 16 on the CPU, 64 on CUDA: on the CPU as fast as bigger batches and with less memory, on CUDA the fastest measured).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub batch_size: Option<u64>,

    /// Benchmarks only: everything the ResNet path does but the network's forward pass
    /// (every page is given even type probabilities), to measure the CPU stages alone, as
    /// a GPU node's cores run them.
    #[arg(long, hide = true)]
    pub skip_network: bool,

    /// Render every page to the classifier's picture with this renderer (bounds hit are
    /// counted in the manifest's render_notes). Default: lite when the classifier is resnet.
    #[arg(long, value_parser = choice::<goce_warc::render::RendererKind>(), value_name = "RENDERER")]
    pub renderer: Option<goce_warc::render::RendererKind>,

    /// Write each page's picture as DIR/WARCSTEM-OFFSET.png (implies --renderer lite).
    #[arg(long, value_name = "DIR")]
    pub pictures: Option<PathBuf>,

    /// Largest WARC record block read; bigger records are skipped (reason record_too_large)
    /// without being held in memory.
    #[arg(long, default_value_t = ReaderLimits::default().max_record_bytes, value_name = "BYTES")]
    pub max_record_bytes: usize,

    /// Largest HTML payload after content decoding; longer payloads are cut to it
    /// (this also bounds decompression bombs).
    #[arg(long, default_value_t = PageFilter::default().max_html_bytes, value_name = "BYTES")]
    pub max_html_bytes: usize,

    /// Largest `text` (and `markdown`) value; longer text is cut at a character boundary.
    #[arg(long, default_value_t = ExtractLimits::default().max_text_bytes, value_name = "BYTES")]
    pub max_text_bytes: usize,

    /// Pages with more HTML elements are skipped (reason too_many_elements).
    #[arg(long, default_value_t = ExtractLimits::default().max_elements, value_name = "N")]
    pub max_elements: usize,

    /// Pages whose extraction takes longer are abandoned (reason page_time_limit).
    #[arg(long, default_value_t = 2000, value_name = "MS")]
    pub max_page_ms: u64,

    /// No progress bar and no closing summary (errors are still printed).
    #[arg(long, short)]
    pub quiet: bool,

    /// Also write the closing summary as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub stats: Option<PathBuf>,
}

pub(super) fn process(args: ProcessArgs) -> anyhow::Result<ExitCode> {
    let mut inputs = args.inputs()?;
    // Loaded before the inputs are looked at: a missing model is one error, not a skip a page.
    let models = args.classifier.extract_models(&[args.extractor])?;
    let shard = match args.shard {
        Some(shard) => Some(shard),
        None => pipeline::Shard::from_slurm(|k| std::env::var(k).ok()).transpose().map_err(|e| anyhow::anyhow!(e))?,
    };
    if let Some(shard) = shard {
        let total = inputs.len();
        inputs = shard.select(inputs);
        tracing::info!("shard {}/{}: {} of {total} inputs", shard.index, shard.count, inputs.len());
        if inputs.is_empty() {
            eprintln!("goce-warc: shard {}/{} has no inputs ({total} inputs in all)", shard.index, shard.count);
            return Ok(ExitCode::SUCCESS);
        }
    }
    let config = args.config(models)?;
    if let Some(dir) = &args.pictures {
        std::fs::create_dir_all(dir).with_context(|| format!("creating --pictures folder {}", dir.display()))?;
    }
    let total: Option<u64> = inputs.iter().map(Input::size).sum();
    let progress = Progress::new(total, args.quiet);
    let summary = pipeline::run(&inputs, &config, &progress)?;
    progress.finish();
    if !args.quiet {
        eprint!("{}", render_summary(&summary));
    }
    if let Some(path) = &args.stats {
        let json = serde_json::to_string_pretty(&summary)?;
        std::fs::write(path, json + "\n").with_context(|| format!("writing --stats file {}", path.display()))?;
    }
    Ok(if summary.inputs_failed.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

impl ProcessArgs {
    /// The inputs named on the command line and in --paths, each writing its own name.
    fn inputs(&self) -> anyhow::Result<Vec<Input>> {
        let mut inputs: Vec<Input> = self.inputs.iter().map(|a| Input::from_arg(a)).collect();
        if let Some(list) = &self.paths {
            inputs.extend(pipeline::read_paths_list(list, self.prefix.as_deref())?);
        }
        if inputs.is_empty() {
            anyhow::bail!("no inputs: give WARC files, `-` for standard input, or --paths FILE");
        }
        check_unique_stems(&inputs)?;
        Ok(inputs)
    }

    /// Flags → the pipeline's configuration, loading the classifier and the renderer.
    fn config(&self, models: goce_warc::extract::ExtractModels) -> anyhow::Result<ProcessConfig> {
        let threads = self.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
        let classifier = self.classifier.load(threads)?;
        let net = classifier.as_ref().and_then(Classifier::net);
        let on_gpu = net.is_some_and(|net| net.device.is_cuda());
        let resnet_on_cpu = net.is_some() && !on_gpu;
        if !resnet_on_cpu {
            fix_malloc_mmap_threshold();
        }
        let batch_size = self.batch_size.map_or(if on_gpu { CUDA_BATCH } else { CPU_BATCH }, |b| usize::try_from(b).unwrap_or(CPU_BATCH));
        let renderer = match (self.renderer, &self.pictures, &classifier) {
            (None, None, Some(c)) if c.kind().needs_picture() => Some(goce_warc::render::RendererKind::Lite),
            (None, None, _) => None,
            (kind, _, _) => Some(kind.unwrap_or_default()),
        };
        Ok(ProcessConfig {
            out_dir: self.out.clone(),
            rows_per_shard: usize::try_from(self.rows_per_shard).unwrap_or(usize::MAX),
            overwrite: self.overwrite,
            threads,
            reader: ReaderLimits { max_record_bytes: self.max_record_bytes, ..ReaderLimits::default() },
            filter: PageFilter {
                statuses: if self.any_status { Vec::new() } else { self.status.clone() },
                max_html_bytes: self.max_html_bytes,
                ..PageFilter::default()
            },
            extractor: self.extractor,
            models,
            markdown: self.markdown.options(None),
            extract_limits: ExtractLimits {
                max_text_bytes: self.max_text_bytes,
                max_elements: self.max_elements,
                max_page_time: std::time::Duration::from_millis(self.max_page_ms),
            },
            renderer: match renderer {
                None => None,
                Some(kind) => Some(std::sync::Arc::new(goce_warc::render::PageRenderer::new(kind, goce_warc::render::RenderOptions::default())?)),
            },
            pictures_dir: self.pictures.clone(),
            classifier: classifier.map(std::sync::Arc::new),
            batch_size,
            skip_network: self.skip_network,
            batch_records: tuning_from_env("GOCE_BATCH_RECORDS").unwrap_or(goce_warc::pipeline::BATCH_RECORDS),
            in_flight_batches: tuning_from_env("GOCE_IN_FLIGHT_BATCHES").unwrap_or_else(|| goce_warc::pipeline::in_flight_batches(threads)),
        })
    }
}

fn parse_shard(spec: &str) -> Result<pipeline::Shard, String> {
    pipeline::Shard::parse(spec)
}

fn check_unique_stems(inputs: &[Input]) -> anyhow::Result<()> {
    let mut seen = std::collections::HashMap::new();
    for input in inputs {
        if let Some(other) = seen.insert(input.stem(), input.display()) {
            anyhow::bail!(
                "inputs {other} and {} would write the same output name {:?}; process them into different --out directories",
                input.display(),
                input.stem()
            );
        }
    }
    Ok(())
}

fn render_summary(s: &RunSummary) -> String {
    let c = &s.counts;
    let mut out = format!(
        "goce-warc: {} input(s) done, {} already done, {} failed in {:.1}s\n  records {} | pages {} | {:.1} pages/s | {:.1} MB/s of WARC\n",
        s.inputs_done,
        s.inputs_already_done,
        s.inputs_failed.len(),
        s.seconds,
        c.total_records(),
        c.pages,
        s.pages_per_second,
        s.warc_mb_per_second,
    );
    let stages = &s.stage_seconds;
    if stages.stages_cpu() > 0.0 {
        out += &format!(
            "  CPU outside the classifier's network: reader {:.1}s, workers {:.1}s, writer {:.1}s = {:.0} pages per CPU-second\n",
            stages.reader_cpu, stages.workers_cpu, stages.write_cpu, s.pages_per_stage_cpu_second
        );
    }
    let list = |m: &std::collections::BTreeMap<String, u64>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
    if !c.filtered.is_empty() {
        out += &format!("  filtered: {}\n", list(&c.filtered));
    }
    if !c.skipped.is_empty() {
        out += &format!("  skipped: {}\n", list(&c.skipped));
    }
    if !c.rendered.is_empty() {
        out += &format!("  rendered: {}\n", list(&c.rendered));
    }
    if !c.render_notes.is_empty() {
        out += &format!("  render notes: {}\n", list(&c.render_notes));
    }
    for failed in &s.inputs_failed {
        out += &format!("  FAILED {}: {}\n", failed.input, failed.error);
    }
    out
}

/// Only for builds with glibc's malloc (`--no-default-features`; mimalloc replaces it
/// otherwise). glibc serves a block from its heap instead of mmap once a freed mmapped block has
/// raised its threshold (up to 32 MB); WARC records of every size then fragment the heap
/// and peak RSS creeps up with the input (`make bench-e2e`, extraction only: 240 → 274 MB
/// from a 3,000- to a 21,000-page input). A fixed threshold keeps big buffers in mmap,
/// returned to the system when freed (217 → 231 MB, same speed). Not while the ResNet runs
/// on the CPU: its activations (1–50 MB each forward pass) would then be mapped and
/// faulted in every batch, 30% slower (measured).
#[allow(unsafe_code)]
fn fix_malloc_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu", not(feature = "mimalloc")))]
    // SAFETY: mallopt sets an allocator parameter under the allocator's own lock.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}

/// A batching setting from the environment, for measuring the pipeline on many cores
/// (docs/performance.md); unset, empty or not a positive number: the default.
fn tuning_from_env(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.trim().parse().ok().filter(|&n: &usize| n > 0)
}
