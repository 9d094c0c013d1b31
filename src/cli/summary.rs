//! `goce-warc summary`: an output folder's manifests added up.

use super::*;

#[derive(Args, Debug)]
pub struct SummaryArgs {
    /// The output folder of `process` runs (all tasks of an array write to one folder).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,

    /// The inputs the run was given: those without a manifest are listed as missing.
    #[arg(value_name = "WARC")]
    pub inputs: Vec<String>,

    /// The paths list the run was given.
    #[arg(long, value_name = "FILE")]
    pub paths: Option<PathBuf>,

    /// Directory that relative entries of --paths are resolved against.
    #[arg(long, value_name = "DIR", requires = "paths")]
    pub prefix: Option<String>,

    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,

    /// Print every input's manifest instead, one JSON object per line.
    #[arg(long, conflicts_with = "json")]
    pub manifests: bool,
}

/// Two inputs with the same file name would write the same output names.
/// Exit 0 when every given input has a manifest, 1 when some are missing (a rerun is due).
pub(super) fn summary(args: SummaryArgs) -> anyhow::Result<ExitCode> {
    let (summary, manifests) = goce_warc::output::summarize(&args.dir).with_context(|| format!("reading {}", args.dir.display()))?;
    let mut expected: Vec<Input> = args.inputs.iter().map(|a| Input::from_arg(a)).collect();
    if let Some(list) = &args.paths {
        expected.extend(pipeline::read_paths_list(list, args.prefix.as_deref())?);
    }
    let done: std::collections::BTreeSet<&str> = manifests.iter().map(|m| m.stem.as_str()).collect();
    let missing: Vec<String> = expected.iter().filter(|i| !done.contains(i.stem().as_str())).map(Input::display).collect();
    if args.manifests {
        let lines: Vec<String> = manifests.iter().map(serde_json::to_string).collect::<Result<_, _>>()?;
        print_stdout(&lines.join("\n"))?;
    } else if args.json {
        let json = serde_json::json!({"inputs_done": summary.inputs_done, "inputs_expected": expected.len(), "missing": missing, "counts": summary.counts, "unreadable": summary.unreadable});
        print_stdout(&serde_json::to_string_pretty(&json)?)?;
    } else {
        let c = &summary.counts;
        let list = |m: &std::collections::BTreeMap<String, u64>| m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ");
        let mut out = format!("{} inputs done: {} pages, {:.1} MB of WARC read\n", summary.inputs_done, c.pages, c.warc_bytes as f64 / 1e6);
        for (name, map) in
            [("genres", &c.genres), ("filtered", &c.filtered), ("skipped", &c.skipped), ("rendered", &c.rendered), ("render notes", &c.render_notes)]
        {
            if !map.is_empty() {
                out += &format!("  {name}: {}\n", list(map));
            }
        }
        if !c.languages.is_empty() {
            // Most pages first: the head of a crawl's language distribution is what matters.
            let mut languages: Vec<(&String, &u64)> = c.languages.iter().collect();
            languages.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            out += &format!("  languages: {}\n", languages.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", "));
        }
        if !expected.is_empty() {
            out += &format!("{} of {} inputs missing\n", missing.len(), expected.len());
            for m in &missing {
                out += &format!("  missing {m}\n");
            }
        }
        for u in &summary.unreadable {
            out += &format!("  unreadable manifest: {u}\n");
        }
        print_stdout(out.trim_end())?;
    }
    Ok(if missing.is_empty() && summary.unreadable.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
