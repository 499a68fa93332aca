//! `pllvm fuzz`: differential fuzzing campaigns (docs/fuzzing.md).
//!
//! Program i of a campaign is the generator's program of seed `base + i` (each
//! oracle draws it from its own generator configuration, `pllvm_fuzz::oracles`);
//! `--shard K/N` takes the indices i ≡ K (mod N), so N workers with the same
//! base seed cover disjoint programs without a coordinator. Indices are checked
//! in batches (one build per batch for the native oracles) by `--jobs` threads;
//! each failure is shrunk (`pllvm_fuzz::shrink`) and written at once to
//! `findings/` (see [`store`] for what is on disk and why a SIGKILL loses
//! nothing); `--resume` continues from `state.json`.

mod merge;
mod select;
mod store;
mod summary;

use crate::interrupt;
use anyhow::{Context, Result, anyhow};
use clap::{Args, Subcommand};
use pllvm_fuzz::oracles::{self, Case, Host, Oracle, Verdict, guarded};
use pllvm_fuzz::shrink::shrink;
use select::select;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use store::{Counts, Hit, State};
use summary::print_summary;

/// `pllvm fuzz`.
#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct FuzzArgs {
    #[command(subcommand)]
    action: Option<FuzzAction>,
    #[command(flatten)]
    campaign: CampaignArgs,
}

/// `pllvm fuzz merge` and `pllvm fuzz promote`.
#[derive(Subcommand, Debug)]
enum FuzzAction {
    /// Merge the reports and findings of several campaign directories (the
    /// shards of one campaign) into one.
    Merge(merge::MergeArgs),
    /// Move a fixed finding to the regression corpus (`corpus/regressions/`):
    /// its oracle must pass on it now.
    Promote(merge::PromoteArgs),
}

/// The options of a campaign.
#[derive(Args, Debug)]
struct CampaignArgs {
    /// Oracles to run, comma-separated (default: every one this machine can
    /// run): roundtrip, verify, lockstep, schedules, exec, analyses, llvm,
    /// llvm-transforms, transforms, avx2, avx512, neon, scalar-c, external; and,
    /// only when named, one opt-22 pipeline each: llvm-transforms.NAME (NAME:
    /// structurizecfg, structurizecfg-skip-uniform, fix-irreducible,
    /// unify-loop-exits, lower-switch, amdgpu-unify-divergent-exit-nodes,
    /// amdgpu-structurizer).
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    oracle: Vec<String>,
    /// The external oracle's command, with {in} (LLVM IR), {out} (the JSON the
    /// command writes) and optionally {inputs} (the run inputs as JSON);
    /// docs/fuzzing.md gives the protocol.
    #[arg(long, value_name = "CMD")]
    oracle_cmd: Option<String>,
    /// Stop after this long (90s, 60m, 2h; a plain number is seconds).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    time: Option<Duration>,
    /// Stop after this many programs (of this shard, over all sessions).
    #[arg(long, value_name = "N")]
    count: Option<u64>,
    /// The base seed: program i has seed BASE + i.
    #[arg(long, value_name = "BASE", default_value_t = 0)]
    seed: u64,
    /// Worker threads.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// This worker's slice of the seed space: program indices i ≡ K (mod N).
    #[arg(long, value_name = "K/N", value_parser = store::parse_shard)]
    shard: Option<(u64, u64)>,
    /// The campaign directory (state.json, findings/, report.json).
    #[arg(long, value_name = "DIR", default_value = "fuzz-out")]
    out: PathBuf,
    /// Continue the campaign in --out where it stopped (its seed, shard and
    /// oracles).
    #[arg(long)]
    resume: bool,
    /// Programs per batch (the native oracles build one binary per batch).
    #[arg(long, value_name = "N", default_value_t = 32)]
    batch: u64,
    /// Stop after this many distinct findings (of this session).
    #[arg(long, value_name = "N")]
    max_findings: Option<u64>,
    /// Seconds the shrinker may spend on one failure.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    shrink_time: f64,
    /// Check one finding file (or any file `pllvm fuzz` wrote) with --oracle
    /// instead of running a campaign; exit 1 if the oracle fails on it.
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Print one JSON document (schema pllvm-fuzz/1) with the report.
    #[arg(long)]
    json: bool,
}

/// `90s`, `60m`, `2h`, `1.5h`, `300`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (num, unit) = match t.char_indices().last() {
        Some((i, 's')) => (&t[..i], 1.0),
        Some((i, 'm')) => (&t[..i], 60.0),
        Some((i, 'h')) => (&t[..i], 3600.0),
        _ => (t, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .map(|n| n * unit)
        .filter(|s| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("'{text}' is not a duration (90s, 60m, 2h)"))
}

/// `pllvm fuzz ...`.
pub(crate) fn main(args: FuzzArgs) -> Result<ExitCode> {
    match args.action {
        Some(FuzzAction::Merge(m)) => merge::merge(m),
        Some(FuzzAction::Promote(p)) => merge::promote(p),
        None => {
            if args.campaign.replay.is_some() {
                replay(&args.campaign)
            } else {
                campaign(args.campaign)
            }
        }
    }
}

/// `pllvm fuzz --replay FILE --oracle X`.
fn replay(args: &CampaignArgs) -> Result<ExitCode> {
    let Some(path) = &args.replay else {
        return Err(anyhow!("no --replay file"));
    };
    let src =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let named: Vec<String> = if args.oracle.is_empty() {
        src.lines()
            .find_map(|l| l.strip_prefix("; fuzz-oracle:"))
            .map(|o| vec![o.trim().to_string()])
            .ok_or_else(|| {
                anyhow!(crate::errors::Usage(format!(
                    "{} names no oracle: give --oracle",
                    path.display()
                )))
            })?
    } else {
        args.oracle.clone()
    };
    let case = Case::from_file(&src).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let (chosen, _) = select(&named, args.oracle_cmd.as_deref(), &Host::probe())?;
    let mut failed = false;
    let mut results = Vec::new();
    for o in &chosen {
        let v = guarded(|| o.check(&case));
        let (status, text) = match &v {
            Verdict::Pass => ("pass", String::new()),
            Verdict::Skip(why) => ("skip", why.clone()),
            Verdict::Fail(f) => {
                failed = true;
                ("fail", format!("{}: {}", f.kind, f.detail))
            }
        };
        results.push((o.name(), status, text));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let doc = serde_json::json!({
            "schema": store::SCHEMA,
            "replay": path.display().to_string(),
            "results": results.iter().map(|(o, s, t)| serde_json::json!({"oracle": o, "verdict": s, "detail": t})).collect::<Vec<_>>(),
        });
        writeln!(out, "{doc}")?;
    } else {
        for (o, s, t) in &results {
            if t.is_empty() {
                writeln!(out, "{}: {o}: {s}", path.display())?;
            } else {
                writeln!(out, "{}: {o}: {s}: {t}", path.display())?;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What a worker reports for a batch.
struct BatchDone {
    /// The batch number (of this shard).
    batch: u64,
    /// Programs of the batch.
    programs: u64,
    /// Counts per oracle.
    counts: BTreeMap<String, Counts>,
    /// Whether every oracle checked every program of the batch (a batch cut
    /// off by the deadline or Ctrl-C is not complete and is redone on resume).
    complete: bool,
}

/// Everything the workers share.
struct Shared {
    oracles: Vec<Arc<dyn Oracle>>,
    dir: PathBuf,
    base_seed: u64,
    shard: u64,
    shards: u64,
    batch: u64,
    limit: Option<u64>,
    deadline: Option<Instant>,
    stop: AtomicBool,
    next_batch: AtomicU64,
    shrink_time: Duration,
    max_findings: Option<u64>,
    /// Distinct findings written in this session.
    new_findings: AtomicU64,
    /// (oracle, seed) pairs already recorded, so a redone batch adds no hit twice.
    recorded: Mutex<HashSet<(String, u64)>>,
    /// Serializes writing findings.
    writing: Mutex<()>,
}

impl Shared {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The program index of the j-th program of this shard.
    fn index(&self, j: u64) -> u64 {
        self.shard + self.shards * j
    }
}

/// Runs batches until there are none left or the campaign stops.
fn worker(shared: &Shared, tx: &mpsc::Sender<Result<BatchDone, String>>) {
    loop {
        if shared.stopping() {
            return;
        }
        let b = shared.next_batch.fetch_add(1, Ordering::SeqCst);
        let first = b * shared.batch;
        let end = match shared.limit {
            Some(l) if first >= l => return,
            Some(l) => (first + shared.batch).min(l),
            None => first + shared.batch,
        };
        let done = run_batch(shared, b, first..end);
        let last = done.is_err();
        if tx.send(done).is_err() || last {
            return;
        }
    }
}

/// Checks programs `js` (of this shard) with every oracle.
fn run_batch(shared: &Shared, batch: u64, js: std::ops::Range<u64>) -> Result<BatchDone, String> {
    let mut counts: BTreeMap<String, Counts> = BTreeMap::new();
    let seeds: Vec<u64> = js
        .clone()
        .map(|j| shared.base_seed.wrapping_add(shared.index(j)))
        .collect();
    for oracle in &shared.oracles {
        if shared.stopping() {
            return Ok(BatchDone {
                batch,
                programs: js.end - js.start,
                counts,
                complete: false,
            });
        }
        let cases: Vec<Case> = seeds.iter().map(|&s| oracle.case(s)).collect();
        let mut verdicts = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            oracle.check_batch(&cases)
        })) {
            Ok(v) => v,
            Err(_) => cases.iter().map(|c| guarded(|| oracle.check(c))).collect(),
        };
        verdicts.resize(cases.len(), Verdict::Skip("no verdict".into()));
        let c = counts.entry(oracle.name().to_string()).or_default();
        for (case, verdict) in cases.iter().zip(verdicts) {
            c.checked += 1;
            c.program(&case.program.stats);
            match verdict {
                Verdict::Pass => c.passed += 1,
                Verdict::Skip(why) => c.skip(&why),
                Verdict::Fail(f) => {
                    if shared.stopping() {
                        // Left for a resumed campaign, like the rest of the batch.
                        return Ok(BatchDone {
                            batch,
                            programs: js.end - js.start,
                            counts,
                            complete: false,
                        });
                    }
                    c.failed += 1;
                    record(shared, oracle.as_ref(), case, &f).map_err(|e| format!("{e:#}"))?;
                }
            }
        }
    }
    Ok(BatchDone {
        batch,
        programs: js.end - js.start,
        counts,
        complete: true,
    })
}

/// Shrinks a failure and writes its finding (file first, then the hit).
fn record(
    shared: &Shared,
    oracle: &dyn Oracle,
    case: &Case,
    failure: &oracles::Failure,
) -> Result<()> {
    let key = (oracle.name().to_string(), case.seed);
    if shared
        .recorded
        .lock()
        .map_err(|_| anyhow!("a worker panicked"))?
        .contains(&key)
    {
        return Ok(());
    }
    // The shrinker stops at the campaign's deadline too (but gets 2 s).
    let budget = match shared.deadline {
        Some(d) => shared.shrink_time.min(
            d.saturating_duration_since(Instant::now())
                .max(Duration::from_secs(2)),
        ),
        None => shared.shrink_time,
    };
    let (small, small_failure, stats) =
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            shrink(case, oracle, &failure.kind, budget)
        })) {
            Ok(r) => r,
            Err(_) => (case.clone(), None, Default::default()),
        };
    let failure_now = small_failure.unwrap_or_else(|| failure.clone());
    let name = format!(
        "{}-{:016x}.ll",
        oracle.name(),
        small.hash() ^ fnv(&failure.kind)
    );
    let dir = store::findings_dir(&shared.dir);
    let path = dir.join(&name);
    let _guard = shared
        .writing
        .lock()
        .map_err(|_| anyhow!("a worker panicked"))?;
    if !path.exists() {
        let index = case.seed.wrapping_sub(shared.base_seed);
        let header = vec![
            "pllvm fuzz finding".to_string(),
            format!("oracle: {}", oracle.name()),
            format!("failure: {}", failure_now.kind),
            format!(
                "detail: {}",
                failure_now.detail.lines().next().unwrap_or("")
            ),
            format!(
                "seed: {} (program {index} of base seed {})",
                case.seed, shared.base_seed
            ),
            format!("original size: {}", case.size_text()),
            format!("shrunk size: {}", small.size_text()),
            format!(
                "shrinking: {} candidates tried, {} accepted{}",
                stats.tries,
                stats.accepted,
                if stats.out_of_time {
                    " (stopped by --shrink-time)"
                } else {
                    ""
                }
            ),
            format!(
                "reproduce: pllvm fuzz --replay {} --oracle {}",
                path.display(),
                oracle.name()
            ),
            format!("run it: pllvm run {} {}", path.display(), small.run_line()),
            format!(
                "original program: pllvm fuzz --oracle {} --seed {} --count 1",
                oracle.name(),
                case.seed
            ),
        ];
        let mut header = header;
        // The rest of the detail (the first line is above), then what the
        // oracle adds for people (commands, a report for a tracker).
        header.extend(
            failure_now
                .detail
                .lines()
                .skip(1)
                .map(|l| format!("detail: {l}")),
        );
        header.extend(oracle.report(&small, &failure_now, &path.display().to_string()));
        let text = small.to_file(&header);
        let text = text.replacen(
            "; fuzz-case:",
            &format!("; fuzz-oracle: {}\n; fuzz-case:", oracle.name()),
            1,
        );
        store::write_atomic(&path, &text)?;
        let n = shared.new_findings.fetch_add(1, Ordering::SeqCst) + 1;
        if shared.max_findings.is_some_and(|m| n >= m) {
            shared.stop.store(true, Ordering::SeqCst);
        }
    }
    store::append_hit(
        &shared.dir,
        &Hit {
            oracle: oracle.name().to_string(),
            kind: failure.kind.clone(),
            seed: case.seed,
            file: name,
            original: case.instructions(),
            shrunk: small.instructions(),
            detail: failure_now.detail.lines().next().unwrap_or("").to_string(),
        },
    )?;
    shared
        .recorded
        .lock()
        .map_err(|_| anyhow!("a worker panicked"))?
        .insert(key);
    Ok(())
}

/// FNV-1a of a string.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The campaign's state: the one in `dir` when resuming (the shard must be the
/// one given), else a new one (`dir` must not hold a campaign yet).
fn open_state(args: &CampaignArgs, dir: &Path) -> Result<State> {
    Ok(if args.resume {
        let s = State::load(dir)?;
        if args
            .shard
            .is_some_and(|(k, n)| (k, n) != (s.shard, s.shards))
        {
            return Err(anyhow!(crate::errors::Usage(format!(
                "--resume: {} is shard {}/{}, not the one given",
                dir.display(),
                s.shard,
                s.shards
            ))));
        }
        s
    } else {
        if State::path(dir).exists() {
            return Err(anyhow!(crate::errors::Usage(format!(
                "{} already holds a campaign: --resume it or choose another --out",
                dir.display()
            ))));
        }
        let (shard, shards) = args.shard.unwrap_or((0, 1));
        State {
            base_seed: args.seed,
            shard,
            shards,
            oracles: Vec::new(),
            next: 0,
            counts: BTreeMap::new(),
            seconds: 0.0,
        }
    })
}

/// A campaign.
fn campaign(args: CampaignArgs) -> Result<ExitCode> {
    let host = Host::probe();
    let dir = args.out.clone();
    // Everything that can refuse the campaign is checked before the directory
    // (and its lock) is created: nothing to resume, an unknown oracle.
    let mut state = open_state(&args, &dir)?;
    let names = if args.resume && args.oracle.is_empty() {
        state.oracles.clone()
    } else {
        args.oracle.clone()
    };
    let (chosen, skipped) = select(&names, args.oracle_cmd.as_deref(), &host)?;
    if chosen.is_empty() {
        return Err(anyhow!("no oracle can run on this machine"));
    }
    let _lock = store::lock(&dir)?;
    // Read again under the lock: another campaign may have started or moved on
    // in the directory since.
    state = open_state(&args, &dir)?;
    state.oracles = chosen.iter().map(|o| o.name().to_string()).collect();
    std::fs::create_dir_all(store::findings_dir(&dir))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    state.save(&dir)?;
    let recorded: HashSet<(String, u64)> = store::load_hits(&dir)
        .into_iter()
        .map(|h| (h.oracle, h.seed))
        .collect();
    let batch = args.batch.max(1);
    // Resume at the first batch not known complete (its programs may be
    // checked again; their hits are not recorded twice).
    let first_batch = state.next / batch;
    state.next = first_batch * batch;
    let start = Instant::now();
    let shared = Arc::new(Shared {
        oracles: chosen,
        dir: dir.clone(),
        base_seed: state.base_seed,
        shard: state.shard,
        shards: state.shards,
        batch,
        limit: args.count,
        deadline: args.time.map(|t| start + t),
        stop: AtomicBool::new(false),
        next_batch: AtomicU64::new(first_batch),
        shrink_time: Duration::from_secs_f64(args.shrink_time.max(0.0)),
        max_findings: args.max_findings,
        new_findings: AtomicU64::new(0),
        recorded: Mutex::new(recorded),
        writing: Mutex::new(()),
    });
    // Panics inside oracles are findings; their messages would only clutter
    // the progress output.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let catching = interrupt::install();
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    for _ in 0..args.jobs.max(1) {
        let shared = Arc::clone(&shared);
        let tx = tx.clone();
        handles.push(std::thread::spawn(move || worker(&shared, &tx)));
    }
    drop(tx);
    let progress = Progress::new(&state.oracles);
    let mut done: BTreeSet<u64> = BTreeSet::new();
    let mut pending: BTreeMap<u64, BatchDone> = BTreeMap::new();
    let mut watermark = first_batch;
    let mut session_programs = 0u64;
    let mut error = None;
    let seconds_before = state.seconds;
    loop {
        if catching && interrupt::take() {
            shared.stop.store(true, Ordering::SeqCst);
        }
        match rx.recv_timeout(Duration::from_millis(250)) {
            Ok(Ok(b)) => {
                if b.complete {
                    done.insert(b.batch);
                    pending.insert(b.batch, b);
                    while done.remove(&watermark) {
                        if let Some(b) = pending.remove(&watermark) {
                            for (o, c) in &b.counts {
                                state.counts.entry(o.clone()).or_default().add(c);
                            }
                            session_programs += b.programs;
                            state.next = watermark * batch + b.programs;
                        }
                        watermark += 1;
                    }
                    state.seconds = seconds_before + start.elapsed().as_secs_f64();
                    state.save(&dir)?;
                }
            }
            Ok(Err(e)) => {
                shared.stop.store(true, Ordering::SeqCst);
                error = Some(e);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let hits = store::load_hits_count(&dir);
        progress.update(session_programs, start.elapsed(), &hits);
    }
    for h in handles {
        let _ = h.join();
    }
    std::panic::set_hook(default_hook);
    progress.finish();
    state.seconds = seconds_before + start.elapsed().as_secs_f64();
    state.save(&dir)?;
    if let Some(e) = error {
        return Err(anyhow!("the campaign stopped: {e}"));
    }
    let hits = store::load_hits(&dir);
    let report = store::report(
        &state,
        &hits,
        &skipped,
        start.elapsed().as_secs_f64(),
        session_programs,
    );
    store::write_atomic(&dir.join("report.json"), &format!("{report:#}\n"))?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{report}")?;
    } else {
        print_summary(&mut out, &report, &dir)?;
    }
    Ok(if hits.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The progress display: a bar on a terminal, plain lines every 10 s otherwise.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    last: Mutex<Instant>,
    oracles: Vec<String>,
}

impl Progress {
    fn new(oracles: &[String]) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            last: Mutex::new(Instant::now()),
            oracles: oracles.to_vec(),
        }
    }

    fn update(&self, programs: u64, elapsed: Duration, hits: &BTreeMap<String, usize>) {
        let rate = programs as f64 / elapsed.as_secs_f64().max(1e-9);
        let findings: Vec<String> = self
            .oracles
            .iter()
            .map(|o| format!("{o} {}", hits.get(o).copied().unwrap_or(0)))
            .collect();
        let text = format!(
            "fuzz: {programs} programs ({rate:.1}/s, {:.0} s), findings: {}",
            elapsed.as_secs_f64(),
            findings.join(", ")
        );
        match &self.bar {
            Some(bar) => bar.set_message(text),
            None => {
                let Ok(mut last) = self.last.lock() else {
                    return;
                };
                if last.elapsed() >= Duration::from_secs(10) {
                    *last = Instant::now();
                    eprintln!("{text}");
                }
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
