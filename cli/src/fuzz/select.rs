//! Which oracles a campaign, a replay or a merge runs ([`select`]).

use crate::errors::Usage;
use anyhow::{Result, anyhow};
use pllvm_fuzz::oracles::{self, Host, Oracle};
use std::sync::Arc;

/// The oracles named (or every available one), and the skipped ones with why.
pub(super) type Selection = (Vec<Arc<dyn Oracle>>, Vec<(String, String)>);

/// Picks the oracles: `names` (all when empty). A named oracle this machine
/// cannot run is an error; an unnamed one is skipped with the reason.
pub(super) fn select(names: &[String], oracle_cmd: Option<&str>, host: &Host) -> Result<Selection> {
    let mut all: Vec<Arc<dyn Oracle>> = oracles::builtin().into_iter().map(Arc::from).collect();
    if let Some(cmd) = oracle_cmd {
        all.push(Arc::new(
            oracles::external::External::new(cmd).map_err(|e| anyhow!(Usage(e)))?,
        ));
    }
    let explicit = !names.is_empty();
    let mut chosen = Vec::new();
    let mut skipped = Vec::new();
    if explicit {
        let known = oracles::names();
        for n in names {
            if !known.contains(&n.as_str()) {
                return Err(anyhow!(Usage(format!(
                    "unknown oracle '{n}' (known: {})",
                    known.join(", ")
                ))));
            }
            if n == oracles::external::NAME && oracle_cmd.is_none() {
                return Err(anyhow!(Usage(
                    "--oracle external needs --oracle-cmd 'CMD {in} {out}'".into()
                )));
            }
        }
    }
    for o in all {
        if explicit && !names.iter().any(|n| n == o.name()) {
            continue;
        }
        if !explicit && !o.in_default_campaign() {
            continue;
        }
        match o.available(host) {
            Ok(()) => chosen.push(o),
            Err(why) if explicit => {
                return Err(anyhow!(
                    "oracle '{}' cannot run on this machine: {why}",
                    o.name()
                ));
            }
            Err(why) => skipped.push((o.name().to_string(), why)),
        }
    }
    Ok((chosen, skipped))
}
