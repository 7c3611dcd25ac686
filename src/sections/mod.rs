//! One home per section: the judging side of the suite.

pub mod judge;
