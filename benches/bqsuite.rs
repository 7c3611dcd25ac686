//! In-process benchmarks of the library behind each command (criterion; `cargo bench`).
//!
//! Suites: the canonical one (×1) and synthetic ones ([`bqsuite::synth::scale`]) written into a
//! temp dir once per run. `BQ_BENCH_FACTORS` picks the scales (default `1,10`; add `100` for the
//! ×100 suite). Whole-process comparisons with the tools bqsuite replaces are
//! `bench/compare.sh` (hyperfine). The floor benchmark (`validate/floor …`) reads and parses the
//! same files with serde_json and checks nothing: the yardstick of "N× the floor". Nothing here
//! asserts a time.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use bqsuite::conformance::{self, RunOptions};
use bqsuite::suite::Suite;
use bqsuite::sync::{self, Mode, targets};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn factors() -> Vec<usize> {
    std::env::var("BQ_BENCH_FACTORS")
        .unwrap_or_else(|_| "1,10".into())
        .split(',')
        .map(|f| f.trim().parse().expect("BQ_BENCH_FACTORS: comma-separated whole numbers"))
        .collect()
}

/// The suites to measure, each `(factor, dir)`; the temp dir lives as long as the result.
fn suites() -> (tempfile::TempDir, Vec<(usize, PathBuf)>) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let canonical = Suite::load(repo()).expect("the canonical suite loads");
    let dirs = factors()
        .into_iter()
        .map(|k| {
            if k == 1 {
                return (k, repo());
            }
            let dir = tmp.path().join(format!("x{k}"));
            let files = bqsuite::synth::scale(&canonical, k).expect("scale");
            bqsuite::synth::write(&files, &dir).expect("write the scaled suite");
            (k, dir)
        })
        .collect();
    (tmp, dirs)
}

fn sample_size(k: usize) -> usize {
    if k >= 100 { 10 } else { 20 }
}

fn load_and_validate(c: &mut Criterion) {
    let (_tmp, suites) = suites();
    let mut g = c.benchmark_group("validate");
    for (k, dir) in &suites {
        g.sample_size(sample_size(*k));
        // The floor: the same files read and parsed once with serde_json into the same value
        // type, no checks (`synth::floor`); load and validate are stated as "N× the floor".
        g.bench_with_input(BenchmarkId::new("floor (read + serde_json parse)", format!("x{k}")), dir, |b, dir| {
            b.iter(|| bqsuite::synth::floor(black_box(dir)).expect("reads"))
        });
        g.bench_with_input(BenchmarkId::new("load", format!("x{k}")), dir, |b, dir| {
            b.iter(|| Suite::load(black_box(dir)).expect("loads"))
        });
        g.bench_with_input(BenchmarkId::new("load + validate", format!("x{k}")), dir, |b, dir| {
            b.iter(|| bqsuite::validate::validate(&Suite::load(black_box(dir)).expect("loads")))
        });
        let suite = Suite::load(dir).expect("loads");
        g.bench_with_input(BenchmarkId::new("validate", format!("x{k}")), &suite, |b, s| {
            b.iter(|| bqsuite::validate::validate(black_box(s)))
        });
    }
    g.finish();
}

fn release(c: &mut Criterion) {
    let (_tmp, suites) = suites();
    let mut g = c.benchmark_group("release");
    for (k, dir) in &suites {
        g.sample_size(sample_size(*k));
        let suite = Suite::load(dir).expect("loads");
        let version = suite.version().expect("a version").to_owned();
        let files: Vec<(&str, &[u8])> = suite
            .files()
            .filter(|f| bqsuite::release::layout::in_release(&f.rel))
            .map(|f| (f.rel.as_str(), f.bytes()))
            .collect();
        g.bench_with_input(BenchmarkId::new("tar", format!("x{k}")), &files, |b, files| {
            b.iter(|| bqsuite::release::tar_stream(&version, black_box(files)).expect("tar"))
        });
        g.bench_with_input(BenchmarkId::new("tar+gzip+sha256", format!("x{k}")), &files, |b, files| {
            b.iter(|| bqsuite::release::assemble(&version, black_box(files)).expect("asset"))
        });
        g.bench_with_input(BenchmarkId::new("build (validate gate included)", format!("x{k}")), &suite, |b, s| {
            b.iter(|| bqsuite::release::build(black_box(s)).expect("asset"))
        });
    }
    g.finish();
}

/// A root with every sync target's repository, each copy vendored by `sync` itself.
fn fake_tree(suite: &Suite, root: &Path) -> Vec<targets::Target> {
    let all = targets::from_suite(suite).expect("sync-targets.json");
    for t in &all {
        std::fs::create_dir_all(root.join(&t.repo)).expect("mkdir");
    }
    let opts = sync::Options {
        root: root.to_owned(),
        mode: Mode::Sync,
        strict: true,
        allow_dirty: false,
        bump_pins: false,
        releases: None,
    };
    let report = sync::run(suite, &all, &opts).expect("sync runs");
    assert!(!report.failed(), "the fake tree is populated");
    all
}

fn sync_check(c: &mut Criterion) {
    let suite = Suite::load(repo()).expect("loads");
    let tmp = tempfile::tempdir().expect("tempdir");
    let all = fake_tree(&suite, tmp.path());
    let opts = sync::Options {
        root: tmp.path().to_owned(),
        mode: Mode::Check,
        strict: true,
        allow_dirty: false,
        bump_pins: false,
        releases: None,
    };
    c.bench_function(&format!("sync --check/{} targets", all.len()), |b| {
        b.iter(|| sync::run(black_box(&suite), &all, &opts).expect("check runs"))
    });
}

/// `run` over every section but the Redis ones (which, without a server, only log a skip).
fn run_without_redis(c: &mut Criterion) {
    let suite = Suite::load(repo()).expect("loads");
    let only = suite.sections().iter().map(|s| s.name.to_owned()).filter(|n| !n.starts_with("redis")).collect();
    let options = RunOptions { only, ..RunOptions::default() };
    c.bench_function("run/every section but redis*", |b| b.iter(|| conformance::run(black_box(&suite), &options)));
}

criterion_group!(benches, load_and_validate, release, sync_check, run_without_redis);
criterion_main!(benches);
