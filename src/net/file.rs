//! The weights file: how a [`Network`] is stored, versioned and checked.
//!
//! Little-endian, in this order:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | magic `LZNT` |
//! | 2 | format version, [`VERSION`] |
//! | 1 | rule: the Gomocup rule number (0 freestyle, 1 standard, 4 renju, 8 caro) |
//! | 1 | board size: the side of the square board it was trained on, 0 for any (files
//! | | written before this field was read hold 0) |
//! | 2 × 4 | codebook rows, codebook width, hidden width, head inputs (must match the engine's; the rows are its features, or twice that for a codebook per colour, Black's rows first) |
//! | 4 | scale: search units per logit, `f32` |
//! | 2 × rows × width | codebook, `i16`, units of 1/256 |
//! | 4 × inputs × hidden | hidden weights, `f32`, input by input |
//! | 4 × hidden | hidden biases, `f32` |
//! | 4 × hidden | output weights, `f32` |
//! | 4 | output bias, `f32` |
//! | 4 | classical weight, `f32` |
//! | 4 | CRC-32 of every byte before it |
//!
//! A file that breaks any of this is refused with an error that says what is wrong.

use super::network::{DIM, HEAD_WEIGHTS, HIDDEN, Head, INPUTS, Network};
use crate::board::{MAX_SIZE, MIN_SIZE, RuleSetting};
use crate::features::FEATURES;
use anyhow::{Context, bail, ensure};

pub const MAGIC: &[u8; 4] = b"LZNT";
pub const VERSION: u16 = 1;

/// The file's bytes.
pub fn to_bytes(net: &Network) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(net.rule.number());
    out.push(net.board_size.map_or(0, |size| size as u8));
    for n in [net.codebook.len(), DIM, HIDDEN, INPUTS] {
        out.extend_from_slice(&(n as u16).to_le_bytes());
    }
    out.extend_from_slice(&net.scale.to_le_bytes());
    for v in net.codebook.iter().flatten() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let head = &net.head;
    for v in head
        .hidden_weights
        .iter()
        .chain(&head.hidden_bias)
        .chain(&head.output_weights)
        .chain([&head.output_bias, &head.classical_weight])
    {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Reads bytes off the front of a file, naming what ran short.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self, what: &str) -> anyhow::Result<[u8; N]> {
        ensure!(
            self.bytes.len() >= N,
            "truncated: it ends inside the {what}"
        );
        let (head, rest) = self.bytes.split_at(N);
        self.bytes = rest;
        Ok(head.try_into().expect("N bytes"))
    }

    fn floats(&mut self, count: usize, what: &str) -> anyhow::Result<Vec<f32>> {
        (0..count)
            .map(|_| Ok(f32::from_le_bytes(self.take(what)?)))
            .collect()
    }
}

/// The network in `bytes`.
pub fn from_bytes(bytes: &[u8]) -> anyhow::Result<Network> {
    ensure!(
        bytes.len() >= 4 && &bytes[..4] == MAGIC,
        "not a Lianzhu network (no LZNT magic)"
    );
    ensure!(bytes.len() >= 8, "truncated: it ends inside the header");
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let mut reader = Reader { bytes: &body[4..] };
    let version = u16::from_le_bytes(reader.take("header")?);
    ensure!(
        version == VERSION,
        "format version {version}, this engine reads {VERSION}"
    );
    let [rule, board_size] = reader.take::<2>("header")?;
    let rule = match RuleSetting::from_mask(u64::from(rule)) {
        Some(setting) if setting.rule.number() == rule => setting.rule,
        _ => bail!("unknown rule {rule}"),
    };
    let board_size = match usize::from(board_size) {
        0 => None,
        size if (MIN_SIZE..=MAX_SIZE).contains(&size) => Some(size),
        size => bail!("board size {size}, not 0 (any) nor {MIN_SIZE} to {MAX_SIZE}"),
    };
    let rows = usize::from(u16::from_le_bytes(reader.take("header")?));
    ensure!(
        rows == FEATURES || rows == 2 * FEATURES,
        "{rows} codebook rows, this engine's network has {FEATURES} (or {} for a codebook per colour)",
        2 * FEATURES
    );
    for (expected, what) in [
        (DIM, "codebook width"),
        (HIDDEN, "hidden width"),
        (INPUTS, "head inputs"),
    ] {
        let found = u16::from_le_bytes(reader.take("header")?);
        ensure!(
            usize::from(found) == expected,
            "{what} {found}, this engine's network has {expected}"
        );
    }
    let scale = f32::from_le_bytes(reader.take("header")?);
    ensure!(
        scale.is_finite() && scale > 0.0,
        "scale {scale} is not a positive number"
    );
    let expected_len = 4 + 2 + 2 + 8 + 4 + 2 * rows * DIM + 4 * HEAD_WEIGHTS + 4;
    ensure!(
        bytes.len() == expected_len,
        "{} bytes, a network of this shape has {expected_len}{}",
        bytes.len(),
        if bytes.len() < expected_len {
            " (truncated)"
        } else {
            ""
        }
    );
    let crc = u32::from_le_bytes(crc.try_into().expect("four bytes"));
    ensure!(
        crc32fast::hash(body) == crc,
        "checksum mismatch: the file is corrupt"
    );
    let codebook = (0..rows)
        .map(|_| -> anyhow::Result<[i16; DIM]> {
            let mut row = [0i16; DIM];
            for v in &mut row {
                *v = i16::from_le_bytes(reader.take("codebook")?);
            }
            Ok(row)
        })
        .collect::<anyhow::Result<_>>()?;
    let head = Head {
        hidden_weights: reader.floats(HIDDEN * INPUTS, "hidden weights")?,
        hidden_bias: reader.floats(HIDDEN, "hidden biases")?,
        output_weights: reader.floats(HIDDEN, "output weights")?,
        output_bias: f32::from_le_bytes(reader.take("output bias")?),
        classical_weight: f32::from_le_bytes(reader.take("classical weight")?),
    };
    ensure!(
        head.hidden_weights
            .iter()
            .chain(&head.hidden_bias)
            .chain(&head.output_weights)
            .all(|v| v.is_finite())
            && head.output_bias.is_finite()
            && head.classical_weight.is_finite(),
        "the head holds a number that is not finite"
    );
    Ok(Network {
        rule,
        board_size,
        scale,
        codebook,
        head,
    })
}

/// The network in the file at `path`.
pub fn load(path: &std::path::Path) -> anyhow::Result<Network> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    from_bytes(&bytes).with_context(|| format!("{} is refused", path.display()))
}

/// Writes `net` to `path`.
pub fn save(net: &Network, path: &std::path::Path) -> anyhow::Result<()> {
    std::fs::write(path, to_bytes(net)).with_context(|| format!("cannot write {}", path.display()))
}
