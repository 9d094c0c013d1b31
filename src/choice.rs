//! A closed set of named options a user picks from (an extractor, a genre, a renderer, a
//! page split): the names the command line, the output and the reports use, and a line of
//! help for each. The binary turns these into its flags; the library knows nothing of them.

pub trait Choice: Copy + Sized + Send + Sync + 'static {
    /// Every option, in the order help lists them.
    const ALL: &'static [Self];

    /// The name written on the command line and in the output.
    fn name(self) -> &'static str;

    /// One line on what the option does.
    fn help(self) -> &'static str;

    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == name)
    }
}
