//! The library's [`Choice`] sets as clap flags: names, help per option, and clap's own
//! error (with a suggestion) for a name that is not one.

use std::ffi::OsStr;
use std::marker::PhantomData;

use crate::choice::Choice;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

#[derive(Clone)]
pub struct ChoiceParser<T>(PhantomData<T>);

/// The value parser of a flag that takes one of `T`'s names.
pub fn choice<T: Choice>() -> ChoiceParser<T> {
    ChoiceParser(PhantomData)
}

fn possible<T: Choice>() -> impl Iterator<Item = PossibleValue> {
    T::ALL.iter().map(|c| PossibleValue::new(c.name()).help(c.help()))
}

impl<T: Choice> TypedValueParser for ChoiceParser<T> {
    type Value = T;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<T, clap::Error> {
        let name = PossibleValuesParser::new(possible::<T>()).parse_ref(cmd, arg, value)?;
        T::from_name(&name).ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidValue).with_cmd(cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(possible::<T>()))
    }
}
