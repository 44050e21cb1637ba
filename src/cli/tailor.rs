//! A shared flag's help as the command it is shown in reads it. A flag declared once for several
//! commands writes what differs between them as marked segments: `«sweep,pts: text»` is kept
//! for those commands only, `«-sweep,pts: text»` for every other one; the marks never show.

use clap::{Arg, Command};

/// `cmd` with every flag's help kept to what its own subcommand does.
pub fn tailored(cmd: Command) -> Command {
    cmd.mut_args(|a| for_arg(a, "")).mut_subcommands(|sc| {
        let name = sc.get_name().to_string();
        sc.mut_args(|a| for_arg(a, &name))
    })
}

fn for_arg(a: Arg, command: &str) -> Arg {
    let help = a.get_help().map(|h| for_command(&h.to_string(), command));
    let long = a
        .get_long_help()
        .map(|h| for_command(&h.to_string(), command));
    let a = match help {
        Some(h) => a.help(h),
        None => a,
    };
    match long {
        Some(h) => a.long_help(h),
        None => a,
    }
}

/// `text` with the segments for `command` kept (unmarked) and the others left out.
pub fn for_command(text: &str, command: &str) -> String {
    if !text.contains('«') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('«') {
        out.push_str(&rest[..open]);
        let after = &rest[open + '«'.len_utf8()..];
        let Some(close) = after.find('»') else {
            out.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let segment = &after[..close];
        if let Some((who, said)) = segment.split_once(':') {
            let (negated, who) = match who.strip_prefix('-') {
                Some(w) => (true, w),
                None => (false, who),
            };
            let named = who.split(',').any(|c| c.trim() == command);
            if named != negated {
                out.push_str(said);
            }
        }
        rest = &after[close + '»'.len_utf8()..];
    }
    out.push_str(rest);
    tidy(&out)
}

/// Spaces a left-out segment leaves behind: doubled, or before a closing mark.
fn tidy(s: &str) -> String {
    let mut out = s
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    for (from, to) in [
        (" )", ")"),
        (" ]", "]"),
        (" ,", ","),
        (" ;", ";"),
        ("( ", "("),
        ("[ ", "["),
    ] {
        out = out.replace(from, to);
    }
    out.replace(" .", ".").trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_keeps_its_own_segments() {
        let text = "I/Os in flight per thread«sweep: (a comma-separated list, a point each)» \
                    [default: «-sweep,pts:1»«sweep:1,4,16,64»«pts:32»]";
        assert_eq!(
            for_command(text, "run"),
            "I/Os in flight per thread [default: 1]"
        );
        assert_eq!(
            for_command(text, "sweep"),
            "I/Os in flight per thread (a comma-separated list, a point each) [default: 1,4,16,64]"
        );
        assert_eq!(
            for_command(text, "pts"),
            "I/Os in flight per thread [default: 32]"
        );
        // Unmarked text, and an unclosed mark, pass as written.
        assert_eq!(for_command("plain (text)", "run"), "plain (text)");
        assert_eq!(for_command("a «b", "run"), "a «b");
        // A segment left out mid-sentence leaves no stray space.
        assert_eq!(for_command("a «quick: b» c, «pts: d»e.", "run"), "a c, e.");
    }
}
