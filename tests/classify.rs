//! The genre classifier as a user meets it: the shipped models in `models/` classify
//! pages from the command line and in `process`, give the outputs recorded when they
//! were trained, batch without changing answers, and fail clearly when they cannot load.

use std::path::{Path, PathBuf};

use crate::common::{bin, project_file, read_all_rows, samples, stderr};
use goce_warc::classify::CheckRecord;
use goce_warc::classify::{Classifier, ClassifierKind, CpuLayers, DeviceChoice, FEATURE_COUNT, Features, GenreNet, NetInput};
use goce_warc::render::Picture;

fn models() -> PathBuf {
    project_file("models")
}

fn check_records() -> Vec<(Picture, Features, CheckRecord)> {
    let dir = models().join("check");
    let records: Vec<CheckRecord> = serde_json::from_str(&std::fs::read_to_string(dir.join("outputs.json")).unwrap()).unwrap();
    assert!(records.len() >= 8, "the check set has the handwritten pages");
    records
        .into_iter()
        .map(|r| {
            let picture = Picture::from_png(&std::fs::read(dir.join(&r.picture)).unwrap()).unwrap();
            let mut values = [0.0f32; FEATURE_COUNT];
            values.copy_from_slice(&r.features);
            let words = goce_warc::classify::words::WordBag(r.words.clone());
            (picture, Features { values, words }, r)
        })
        .collect()
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn the_shipped_models_give_the_recorded_outputs() {
    let resnet = Classifier::load(ClassifierKind::Resnet, &models(), DeviceChoice::Cpu).unwrap();
    let linear = Classifier::load(ClassifierKind::HtmlFeatures, &models(), DeviceChoice::Cpu).unwrap();
    for (picture, features, record) in check_records() {
        let input = [NetInput { picture: Some(&picture), features: &features }];
        let got = resnet.classify(&input).unwrap().remove(0);
        assert!(
            max_difference(&got.probabilities, &record.resnet) < 1e-3,
            "{}: resnet {:?} != recorded {:?}",
            record.picture,
            got.probabilities,
            record.resnet
        );
        let got = linear.classify(&input).unwrap().remove(0);
        assert!(max_difference(&got.probabilities, &record.html_features) < 1e-5, "{}: html-features {:?}", record.picture, got.probabilities);
    }
}

#[test]
fn the_resnet_on_goce_warcs_own_cpu_layers_gives_what_libtorch_gives() {
    let libtorch = GenreNet::load(&models(), DeviceChoice::Cpu, CpuLayers::LibTorch).unwrap();
    let rust = GenreNet::load(&models(), DeviceChoice::Cpu, CpuLayers::Rust).unwrap();
    assert_eq!((libtorch.layers(), rust.layers()), ("LibTorch", "goce-warc"));
    let records = check_records();
    let mut inputs: Vec<NetInput<'_>> = records.iter().map(|(p, f, _)| NetInput { picture: Some(p), features: f }).collect();
    // A page whose picture failed is read as a blank page by both.
    inputs.push(NetInput { picture: None, features: &records[0].1 });
    let (expected, got) = (libtorch.predict(&inputs).unwrap(), rust.predict(&inputs).unwrap());
    assert_eq!(got.len(), inputs.len());
    for ((e, g), (_, _, record)) in expected.iter().zip(&got).zip(records.iter().chain([&records[0]])) {
        assert!(max_difference(&e.probabilities, &g.probabilities) < 1e-5, "{}: {:?} != LibTorch's {:?}", record.picture, g.probabilities, e.probabilities);
        assert_eq!((e.page_type, e.genre), (g.page_type, g.genre));
    }
}

#[test]
fn a_batch_predicts_what_pages_one_by_one_do() {
    let resnet = Classifier::load(ClassifierKind::Resnet, &models(), DeviceChoice::Cpu).unwrap();
    let records = check_records();
    let inputs: Vec<NetInput<'_>> = records.iter().map(|(p, f, _)| NetInput { picture: Some(p), features: f }).collect();
    let batch = resnet.classify(&inputs).unwrap();
    assert_eq!(batch.len(), inputs.len());
    for (input, batched) in inputs.iter().zip(&batch) {
        let single = resnet.classify(std::slice::from_ref(input)).unwrap().remove(0);
        assert_eq!((single.page_type, single.genre), (batched.page_type, batched.genre));
        assert!(max_difference(&single.probabilities, &batched.probabilities) < 1e-4);
    }
}

#[test]
fn the_default_cascade_answers_sure_pages_itself_and_passes_the_rest_to_the_resnet() {
    let mut cascade = Classifier::load(ClassifierKind::Cascade, &models(), DeviceChoice::Cpu).unwrap();
    let resnet = Classifier::load(ClassifierKind::Resnet, &models(), DeviceChoice::Cpu).unwrap();
    let Classifier::Cascade(gate) = &mut cascade else { panic!("not a cascade") };
    assert!(goce_warc::classify::cascade::thresholds().contains(&gate.sure_at), "{}", gate.sure_at);
    // The shipped gate is sure of every one of these plain pages: a stricter one sends some
    // to the network too, so that both ways are taken.
    gate.sure_at = gate.sure_at.max(0.9);
    let sure_at = gate.sure_at;
    let records = check_records();
    let inputs: Vec<NetInput<'_>> = records.iter().map(|(p, f, _)| NetInput { picture: Some(p), features: f }).collect();
    let answers = cascade.classify(&inputs).unwrap();
    let (mut sure, mut unsure) = (0, 0);
    for (input, answer) in inputs.iter().zip(&answers) {
        match cascade.decide_cheaply(input.features) {
            Some(cheap) => {
                sure += 1;
                assert_eq!(&cheap, answer);
                assert!(cheap.probabilities.iter().copied().fold(0.0, f32::max) >= sure_at);
            }
            None => {
                unsure += 1;
                let from_net = resnet.classify(std::slice::from_ref(input)).unwrap().remove(0);
                assert_eq!((from_net.page_type, from_net.genre), (answer.page_type, answer.genre));
            }
        }
    }
    assert!(sure > 0 && unsure > 0, "{sure} sure, {unsure} to the network");
    // A page the gate is sure of needs no picture at all.
    let sure_input = inputs.iter().find(|i| cascade.decide_cheaply(i.features).is_some()).unwrap();
    let without_picture = cascade.classify(&[NetInput { picture: None, features: sure_input.features }]).unwrap();
    assert_eq!(without_picture, cascade.classify(std::slice::from_ref(sure_input)).unwrap());
}

fn classify_json(args: &[&str]) -> Vec<serde_json::Value> {
    let out = bin().arg("classify").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn pages_get_a_type_and_genre_from_the_command_line() {
    let fixtures = project_file("tests/fixtures/pages");
    let mut pages: Vec<PathBuf> =
        std::fs::read_dir(&fixtures).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "html")).collect();
    pages.sort();
    assert_eq!(pages.len(), 12);
    for classifier in ["resnet", "html-features"] {
        // Many pages at once, URLs unknown: a line per page, in order.
        let mut all: Vec<&str> = pages.iter().map(|p| p.to_str().unwrap()).collect();
        all.extend(["--classifier", classifier, "--device", "cpu"]);
        let lines = classify_json(&all);
        assert_eq!(lines.len(), pages.len());
        for (page, line) in pages.iter().zip(&lines) {
            assert_eq!(line["page"], page.to_str().unwrap());
            assert_eq!(line["classifier"], classifier);
            let probabilities = line["probabilities"].as_object().unwrap();
            assert_eq!(probabilities.len(), 7);
            let total: f64 = probabilities.values().map(|v| v.as_f64().unwrap()).sum();
            assert!((total - 1.0).abs() < 1e-4);
            let list_view: f64 = ["forum", "listing", "collection"].iter().map(|t| probabilities[*t].as_f64().unwrap()).sum();
            let confidence = line["genre_confidence"].as_f64().unwrap();
            let expected = if line["genre"] == "list-view" { list_view } else { 1.0 - list_view };
            assert!((confidence - expected).abs() < 1e-4, "{}", page.display());
        }
        // One by one with the URL each was fetched from: handwritten pages in plain HTML, unlike
        // anything the models trained on; most must still get their genre right.
        let mut right = 0;
        for page in &pages {
            let gold: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(page.with_extension("json")).unwrap()).unwrap();
            let line = classify_json(&[page.to_str().unwrap(), "--url", gold["url"].as_str().unwrap(), "--classifier", classifier, "--device", "cpu"]);
            right += usize::from(line[0]["genre"] == gold["genre"]);
        }
        assert!(right * 3 >= pages.len() * 2, "{classifier}: {right} of {} genres right", pages.len());
    }
    // Standard input gives the same answer as the file.
    let page = fixtures.join("list-forum-thread.html");
    let from_file = classify_json(&[page.to_str().unwrap(), "--device", "cpu"]);
    let out = bin().args(["classify", "-", "--json", "--device", "cpu"]).stdin(std::fs::File::open(&page).unwrap()).output().unwrap();
    let from_stdin: serde_json::Value = serde_json::from_str(String::from_utf8_lossy(&out.stdout).trim()).unwrap();
    assert_eq!(from_file[0]["probabilities"], from_stdin["probabilities"]);
    // --url names one page's URL.
    let two = bin().args(["classify", page.to_str().unwrap(), page.to_str().unwrap(), "--url", "https://x.example/"]).output().unwrap();
    assert_eq!(two.status.code(), Some(1));
}

fn copy_models(to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(models()).unwrap().flatten() {
        if entry.path().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn classify_with_models(models: &Path, classifier: &str) -> std::process::Output {
    let page = project_file("tests/fixtures/pages/article-news.html");
    bin().args(["classify", page.to_str().unwrap(), "--device", "cpu", "--classifier", classifier, "--models", models.to_str().unwrap()]).output().unwrap()
}

#[test]
fn a_missing_or_corrupt_model_is_a_clear_error_that_says_how_to_fix_it() {
    let dir = tempfile::tempdir().unwrap();
    let how_to_fix = "make model";

    // Nothing there.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for classifier in ["cascade", "resnet", "html-features"] {
        let out = classify_with_models(&empty, classifier);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.contains("No such file") && err.contains(how_to_fix), "{err}");
    }

    // Weights cut short, a spec that is not JSON, a linear model with the wrong shape.
    let broken = dir.path().join("broken");
    copy_models(&broken);
    let weights = broken.join("genre-resnet.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 3]).unwrap();
    let out = classify_with_models(&broken, "resnet");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot load the weights") && err.contains(how_to_fix), "{err}");

    std::fs::write(broken.join("genre-resnet.json"), "{ not json").unwrap();
    let err = stderr(&classify_with_models(&broken, "resnet"));
    assert!(err.contains("not a goce-warc network spec") && err.contains(how_to_fix), "{err}");

    // The word model the head fuses: missing, then with weights that do not fit its vocabulary.
    let words = dir.path().join("words");
    copy_models(&words);
    std::fs::remove_file(words.join("genre-words.json")).unwrap();
    let err = stderr(&classify_with_models(&words, "resnet"));
    assert!(err.contains("genre-words.json") && err.contains(how_to_fix), "{err}");
    let fields = r#"[{"name":"text","words":["reply"],"idf":[1]},{"name":"class","words":[],"idf":[]},{"name":"title","words":[],"idf":[]},{"name":"url","words":[],"idf":[]}]"#;
    std::fs::write(words.join("genre-words.json"), format!(r#"{{"fields":{fields},"weights":[[0]]}}"#)).unwrap();
    let err = stderr(&classify_with_models(&words, "resnet"));
    assert!(err.contains("genre-words.json") && err.contains("shapes") && err.contains(how_to_fix), "{err}");

    // The cascade's gate: missing, then reading other inputs than the ResNet's.
    let gate = dir.path().join("gate");
    copy_models(&gate);
    std::fs::remove_file(gate.join("genre-cascade.json")).unwrap();
    let err = stderr(&classify_with_models(&gate, "cascade"));
    assert!(err.contains("genre-cascade.json") && err.contains(how_to_fix), "{err}");
    let mut file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(models().join("genre-cascade.json")).unwrap()).unwrap();
    file["fused"]["feature_names"][0] = "something else".into();
    std::fs::write(gate.join("genre-cascade.json"), file.to_string()).unwrap();
    let err = stderr(&classify_with_models(&gate, "cascade"));
    assert!(err.contains("does not read the ResNet's fused inputs") && err.contains(how_to_fix), "{err}");

    std::fs::write(broken.join("html-features.json"), r#"{"feature_names":["a"],"mean":[0],"std":[1],"weights":[[0,0]]}"#).unwrap();
    let err = stderr(&classify_with_models(&broken, "html-features"));
    assert!(err.contains("shapes") && err.contains(how_to_fix), "{err}");

    // process stops before reading anything, with the same message.
    let out = bin()
        .args(["process", project_file("sample-warcs/encodings.warc").to_str().unwrap(), "--out"])
        .arg(dir.path().join("out"))
        .args(["--models", empty.to_str().unwrap(), "--device", "cpu"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(how_to_fix), "{}", stderr(&out));
}

#[test]
fn asking_for_cuda_where_it_cannot_load_is_a_clear_error() {
    let page = project_file("tests/fixtures/pages/article-news.html");
    let out = bin().args(["classify", page.to_str().unwrap(), "--device", "cuda"]).output().unwrap();
    if out.status.success() {
        // A GPU machine with the CUDA LibTorch: the page is classified there.
        assert!(String::from_utf8_lossy(&out.stdout).contains("article"));
    } else {
        let err = stderr(&out);
        assert!(err.contains("--device cpu"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let bad = bin().args(["classify", page.to_str().unwrap(), "--device", "tpu"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2), "an unknown device is a usage error");
}

/// The default cascade runs the ResNet on the CPU with goce-warc's own layers, so it never
/// opens LibTorch: pointed at a file that is no library, with a gate strict enough to send
/// every page to the network, it classifies and `process` writes the same rows as with
/// LibTorch there, while the ResNet on every page (LibTorch's layers) says at once which
/// file it could not open.
#[test]
fn the_default_classifier_needs_no_libtorch_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("libgoce_warc_torch.so");
    std::fs::write(&fake, b"not a shared library").unwrap();
    let strict = dir.path().join("models");
    std::fs::create_dir(&strict).unwrap();
    for entry in std::fs::read_dir(models()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, strict.join(path.file_name().unwrap())).unwrap();
        }
    }
    let gate_file = strict.join("genre-cascade.json");
    let mut gate: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&gate_file).unwrap()).unwrap();
    gate["sure_at"] = serde_json::json!(1.0);
    std::fs::write(&gate_file, gate.to_string()).unwrap();

    let page = project_file("tests/fixtures/pages/article-news.html");
    // `--device cpu` throughout: on a machine with a GPU, `auto` takes CUDA, through LibTorch.
    let classify = |classifier: &str, library: &Path| {
        bin()
            .env("GOCE_WARC_TORCH", library)
            .args(["classify", page.to_str().unwrap(), "--classifier", classifier, "--device", "cpu", "--json", "--models"])
            .arg(&strict)
            .output()
            .unwrap()
    };
    let cascade = classify("cascade", &fake);
    assert!(cascade.status.success(), "{}", stderr(&cascade));
    assert!(String::from_utf8_lossy(&cascade.stdout).contains("\"article\""), "{}", String::from_utf8_lossy(&cascade.stdout));
    let resnet = classify("resnet", &fake);
    assert!(!resnet.status.success());
    let err = stderr(&resnet);
    assert!(err.contains(fake.to_str().unwrap()) && err.contains("cannot be opened"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // No library where it is looked for: a start-up error that says where it looked.
    let missing = dir.path().join("nowhere.so");
    let out = classify("resnet", &missing);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("was not found") && err.contains(missing.to_str().unwrap()) && err.contains("make build"), "{err}");
    assert!(classify("cascade", &missing).status.success());

    let (usual, without) = (dir.path().join("usual"), dir.path().join("without"));
    let run = |out_dir: &Path, library: Option<&Path>| {
        let mut cmd = bin();
        if let Some(library) = library {
            cmd.env("GOCE_WARC_TORCH", library);
        }
        cmd.arg("process")
            .args(samples())
            .arg("--out")
            .arg(out_dir)
            .args(["--quiet", "--device", "cpu", "--models"])
            .arg(&strict)
            .arg("--stats")
            .arg(out_dir.with_extension("json"));
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    run(&usual, None);
    run(&without, Some(&fake));
    let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(without.with_extension("json")).unwrap()).unwrap();
    assert!(stats["counts"]["rendered"]["lite"].as_u64().unwrap() > 10, "{stats}");
    let rows = |dir: &Path| {
        let mut rows: Vec<_> = read_all_rows(dir).into_iter().map(|r| (r.url, r.page_type, r.genre, r.text)).collect();
        rows.sort();
        rows
    };
    let usual_rows = rows(&usual);
    assert!(usual_rows.len() > 10, "{} rows", usual_rows.len());
    assert_eq!(rows(&without), usual_rows);
}
