//! Judging a block written with a pattern (fio's `verify_pattern`) instead of a seal: it
//! carries no header and no generation, and every write of it is the same bytes, so it is good
//! when it holds the pattern (with its offset at each `%o`) and bad otherwise. Torn, stale and
//! misdirected writes cannot be told apart from damage here: each is `corrupt`.

use super::block::{Expect, Fault, Judgement};
use crate::engine::pattern::Pattern;

/// Judges `block`, read back where the record expects `e`, against `pattern`.
pub fn judge(block: &[u8], pattern: &Pattern, e: Expect) -> Judgement {
    if pattern.matches(block, e.offset) {
        return Judgement::Good { newer: false };
    }
    // No flush covered a write of the block: what was there before may still be.
    if e.durable == 0 {
        return Judgement::LostUnflushed;
    }
    let fault = if block.iter().all(|&b| b == 0) {
        Fault::Unwritten
    } else {
        Fault::Corrupt
    };
    Judgement::Bad {
        fault,
        found: None,
        sector_generations: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::pattern::Formats;

    #[test]
    fn a_block_is_good_only_with_the_pattern_at_its_own_offset() {
        let p = Pattern::parse("0xa5%o", Formats::Offset).unwrap();
        let mut b = vec![0u8; 4096];
        p.fill(&mut b, 8192);
        let e = |offset, durable| Expect {
            offset,
            id: Some(1),
            generation: 2,
            durable,
        };
        assert_eq!(judge(&b, &p, e(8192, 2)), Judgement::Good { newer: false });
        let fault = |j| match j {
            Judgement::Bad { fault, .. } => fault,
            other => panic!("{other:?}"),
        };
        assert_eq!(fault(judge(&b, &p, e(4096, 2))), Fault::Corrupt);
        assert_eq!(judge(&b, &p, e(4096, 0)), Judgement::LostUnflushed);
        assert_eq!(fault(judge(&[0; 4096], &p, e(0, 1))), Fault::Unwritten);
        b[100] ^= 0x10;
        assert_eq!(fault(judge(&b, &p, e(8192, 2))), Fault::Corrupt);
    }
}
