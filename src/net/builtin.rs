//! The networks built into the binary: the default evaluation of their rules and board
//! sizes. Each was kept because it passed an SPRT against the classical evaluation;
//! `docs/learned-eval.md` gives the commands that make it again.

use super::{Network, file};
use std::path::PathBuf;
use std::sync::Arc;

/// Freestyle on 20x20 boards.
const FREESTYLE_20: &[u8] = include_bytes!("../../nets/freestyle20.lznt");
/// Freestyle on 15x15 boards.
const FREESTYLE_15: &[u8] = include_bytes!("../../nets/freestyle15.lznt");

/// The built-in networks.
pub fn networks() -> Vec<Arc<Network>> {
    [FREESTYLE_20, FREESTYLE_15]
        .into_iter()
        .map(|bytes| Arc::new(file::from_bytes(bytes).expect("a built-in network reads")))
        .collect()
}

/// The networks an engine starts with: the built-in ones unless `classical`, each
/// replaced by one of `files` that scores the same boards.
pub fn chosen(classical: bool, files: &[PathBuf]) -> anyhow::Result<Vec<Arc<Network>>> {
    let mut networks = if classical { Vec::new() } else { networks() };
    for path in files {
        let network = file::load(path)?;
        networks.retain(|n| !n.overlaps(&network));
        networks.push(Arc::new(network));
    }
    Ok(networks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Rule;

    #[test]
    fn the_built_in_networks_read_and_each_has_its_rule_and_size() {
        let networks = networks();
        let scopes: Vec<_> = networks.iter().map(|n| (n.rule, n.board_size)).collect();
        assert_eq!(
            scopes,
            [(Rule::Freestyle, Some(20)), (Rule::Freestyle, Some(15))]
        );
        for network in &networks {
            assert_ne!(**network, Network::control(network.rule));
        }
    }

    #[test]
    fn classical_leaves_them_out_and_a_file_replaces_those_of_its_rule_and_size() {
        assert!(chosen(true, &[]).expect("nothing to read").is_empty());
        let dir = std::env::temp_dir().join(format!("lianzhu-builtin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let control = dir.join("control.lznt");
        file::save(&Network::control(Rule::Freestyle), &control).expect("written");
        let replaced = chosen(false, std::slice::from_ref(&control)).expect("read");
        let other_rules = networks()
            .iter()
            .filter(|n| n.rule != Rule::Freestyle)
            .count();
        assert_eq!(
            replaced.len(),
            other_rules + 1,
            "one of any size replaces both"
        );
        assert_eq!(
            **replaced.last().expect("the file"),
            Network::control(Rule::Freestyle)
        );
        let mut nineteen = Network::control(Rule::Freestyle);
        nineteen.board_size = Some(19);
        let other_size = dir.join("nineteen.lznt");
        file::save(&nineteen, &other_size).expect("written");
        let beside = chosen(false, std::slice::from_ref(&other_size)).expect("read");
        assert_eq!(beside.len(), networks().len() + 1);
        assert!(beside.iter().any(|n| **n == nineteen));
        let missing = chosen(false, &[dir.join("missing.lznt")]);
        assert!(missing.is_err());
        std::fs::remove_dir_all(&dir).expect("removed");
    }
}
